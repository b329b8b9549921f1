"""Rank fusion: weighted reciprocal rank fusion, its 0–1 normalisation, round-robin merging."""

from __future__ import annotations

import pytest

from store.fusion import RRF_K, by_score, normalised, round_robin, weighted_rrf


def test_rrf_rewards_items_ranked_well_by_several_rankings():
    fused = weighted_rrf([(["a", "b", "c"], 1.0), (["b", "c"], 1.0), (["c", "b"], 1.0)])
    assert by_score(fused) == ["b", "c", "a"]
    assert fused["a"] == pytest.approx(1 / (RRF_K + 1))


def test_weights_scale_each_ranking_and_ties_break_by_id():
    fused = weighted_rrf([(["x"], 0.5), (["y"], 0.5)])
    assert fused["x"] == fused["y"] == pytest.approx(0.5 / (RRF_K + 1))
    assert by_score(fused) == ["x", "y"]
    assert by_score(weighted_rrf([(["x"], 0.5), (["y"], 1.0)])) == ["y", "x"]


def test_normalised_relevance_is_one_for_first_place_everywhere_and_falls_with_rank():
    weights = (0.5, 1.0)
    top = weighted_rrf(zip((["a", "b"], ["a", "b"]), weights, strict=True))
    assert normalised(top["a"], weights) == pytest.approx(1.0)
    assert 0 < normalised(top["b"], weights) < 1
    only_lexical = weighted_rrf([([], 0.5), (["a"], 1.0)])
    assert normalised(only_lexical["a"], weights) == pytest.approx(1 / 1.5)


def test_round_robin_takes_each_rankings_best_first_and_keeps_first_findings():
    rankings = [["a1", "a2", "a3"], ["b1", "a1", "b3"], ["c1"]]
    assert round_robin(rankings, key=str) == ["a1", "b1", "c1", "a2", "a3", "b3"]
    assert round_robin(rankings, key=str, depth=1) == ["a1", "b1", "c1"]
    assert round_robin([], key=str) == []
