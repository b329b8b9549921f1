"""Link choosers (deciders/link_chooser.py): ranked order without a model, the model's pick with a fallback."""

from __future__ import annotations

import pytest
from conftest import scripted

from deciders.link_chooser import LLMLinkChooser, RankedLinkChooser

QUESTION = "What is the seat of the county where Van Hook Township is located?"


def candidate(n: int) -> dict:
    place = f"Place {n}"
    return {"chunk_id": f"c{n}", "text": f"Passage {n} about a place.", "source": "s", "title": place,
            "score": 0.0, "dense_rank": None, "lexical_rank": None, "via": place, "linked_from": "vh"}  # fmt: skip


CANDIDATES = [candidate(n) for n in range(4)]


def test_ranked_chooser_keeps_the_k_best_in_order():
    choice = RankedLinkChooser().choose(QUESTION, CANDIDATES, 3)
    assert (choice.chosen, choice.reason) == ([0, 1, 2], "best-ranked links")
    assert (choice.decider, choice.note) == ("rules", None)
    assert RankedLinkChooser().choose(QUESTION, CANDIDATES[:2], 5).chosen == [0, 1]
    assert RankedLinkChooser().choose(QUESTION, [], 3).chosen == []


def test_llm_chooser_follows_the_numbers_the_model_picks():
    model = scripted(links='{"follow": [3, 1], "reason": "counties first"}')
    choice = LLMLinkChooser(model).choose(QUESTION, CANDIDATES, 2)
    assert (choice.chosen, choice.reason, choice.note) == ([2, 0], "counties first", None)
    assert model.calls == {"links": 1}
    none = LLMLinkChooser(scripted(links='{"follow": []}')).choose(QUESTION, CANDIDATES, 2)
    assert none.chosen == [] and none.reason == "chosen by the model"


@pytest.mark.parametrize("follow", ["[9]", "[0]", "[1, 1]", "[1, 2, 3]"])
def test_llm_chooser_out_of_range_repeated_or_too_many_falls_back_to_ranked_order(follow):
    choice = LLMLinkChooser(scripted(links=f'{{"follow": {follow}}}')).choose(QUESTION, CANDIDATES, 2)
    assert choice.chosen == [0, 1] and choice.reason == "fallback: best-ranked links"
    assert choice.note == f"invalid choice {follow} (allowed: up to 2 distinct numbers 1–4)"


def test_llm_chooser_garbage_falls_back_to_ranked_order_with_a_note():
    choice = LLMLinkChooser(scripted(links="the second one")).choose(QUESTION, CANDIDATES, 3)
    assert choice.chosen == [0, 1, 2] and choice.note.startswith("invalid reply")
