"""The loop policy: stop rules, edges and the first-search choice, on hand-made states."""

from __future__ import annotations

import pytest
from langgraph.graph import END
from langgraph.types import Send

from core.errors import ConfigurationError
from graph import policy
from graph.context import RunContext, run_context


def test_a_graph_hop_alone_does_not_end_the_loop_while_a_retry_is_left():
    graph_hop = {"sufficient": True, "retries": 1, "evidence": [], "trace": [{"hop": 2, "links": [{}], "admitted": 1}]}
    query_hop = {**graph_hop, "trace": [{"hop": 2, "admitted": 1}]}
    assert policy.stop_after_grade(graph_hop, RunContext(max_retries=2)) is None  # the entity-query hop confirms
    assert policy.stop_after_grade(graph_hop, RunContext(max_retries=1)) == "sufficient_evidence"
    assert policy.stop_after_grade(query_hop, RunContext(max_retries=2)) == "sufficient_evidence"
    # a graph hop that only reached chunks seen before: no_progress fires, so its verdict stands
    repeat = {**graph_hop, "trace": [{"hop": 2, "links": [{}], "admitted": 0, "overlap": 1.0}]}
    assert policy.stop_after_grade(repeat, RunContext(max_retries=2)) == "sufficient_evidence"
    assert policy.stop_after_grade({**repeat, "sufficient": False}, RunContext(max_retries=2)) == "no_progress"


def test_caps_fire_in_order():
    ctx = RunContext(max_retries=2, max_evidence=2, time_limit_s=1.0)
    base = {"sufficient": False, "retries": 0, "evidence": [], "trace": [{"hop": 1, "admitted": 1}], "elapsed_ms": 0.0}
    assert policy.stop_after_grade(base, ctx) is None
    assert policy.stop_after_grade({**base, "retries": 2}, ctx) == "max_retries"
    assert policy.stop_after_grade({**base, "elapsed_ms": 1000.0}, ctx) == "time_limit"
    full = {**base, "evidence": [{}, {}], "trace": [{"hop": 2, "admitted": 0}]}
    assert policy.stop_after_grade(full, ctx) == "evidence_budget"
    single = {**base, "complexity": "single"}
    assert policy.stop_after_grade(single, RunContext(adaptive=True)) == "single_retrieval"
    assert policy.stop_after_grade(single, RunContext()) is None


def test_nothing_left_to_search_after_a_sufficient_graph_hop_answers():
    question = "Which league does Donnie Smith play in?"
    state = {"query": question, "hop_queries": [question.lower()], "tried_queries": [question]}
    assert policy.stop_after_reformulate({**state, "sufficient": True}, RunContext()) == "sufficient_evidence"
    assert policy.stop_after_reformulate({**state, "sufficient": False}, RunContext()) == "repeated_query"
    fresh = {**state, "hop_queries": ["Donnie Smith club", question]}
    assert policy.stop_after_reformulate(fresh, RunContext()) is None  # one new query is enough to go on


def test_first_search_and_the_edges_read_the_recorded_run_settings():
    assert policy.first_search(RunContext()) == "decompose"  # on by default
    choice = {"route": "retrieve", "standalone_question": "Which is older, Blur or Oasis?", "run_context": {}}
    assert policy.after_route(choice) == "decompose"
    plain = {**choice, "standalone_question": "When was Blur formed?"}
    assert policy.after_route(plain) == "retrieve"  # nothing to split: no decompose step, no model call
    assert policy.first_search(RunContext(decompose=False)) == "retrieve"
    assert policy.first_search(RunContext(decompose=True, expansion="hyde")) == "decompose"
    assert policy.first_search(RunContext(decompose=True, expansion="hyde"), split=False) == "expand_query"
    state = {"route": "retrieve", "run_context": {"review_route": True, "decompose": False}}
    assert policy.after_route(state) == "review_route"
    assert policy.after_review_route(state) == "retrieve"
    assert policy.after_route({"route": "direct", "run_context": {}}) == "generate"
    split = {"sub_questions": ["a?", "b?"], "run_context": {"decompose": True}}
    sends = policy.after_decompose(split)
    assert [s.arg["sub_question"] for s in sends] == ["a?", "b?"] and all(isinstance(s, Send) for s in sends)
    assert policy.after_decompose({"sub_questions": [], "run_context": {"decompose": True}}) == "retrieve"


def test_grade_edge_alternates_graph_hops_and_queries_and_reviews_stops_short_of_evidence():
    going = {"stop_reason": None, "run_context": {}, "trace": [{"hop": 1}]}
    assert policy.after_grade(going) == "follow_links"
    assert policy.after_grade({**going, "trace": [{"hop": 2, "links": [{}]}]}) == "reformulate"
    assert policy.after_grade({**going, "run_context": {"graph_hop": False}}) == "reformulate"
    short = {"stop_reason": "max_retries", "run_context": {"review_stop": True}, "human_hops": 0}
    assert policy.after_grade(short) == "review_stop"
    assert policy.after_grade({**short, "human_hops": policy.MAX_HUMAN_HOPS}) == "generate"
    assert policy.after_grade({**short, "stop_reason": "sufficient_evidence"}) == "generate"
    assert policy.after_review_stop({"reviewed": "stopped"}) == END
    assert policy.after_review_stop({"reviewed": "accepted"}) == "generate"
    assert policy.after_review_stop({"reviewed": ""}) == "retrieve"
    assert policy.after_review_answer({"reviewed": "dropped"}) == "generate"
    assert policy.after_review_answer({"reviewed": "approved"}) == END


def test_a_misspelt_run_setting_is_refused_with_the_valid_ones():
    with pytest.raises(
        ConfigurationError, match=r"unknown run setting\(s\): max_retriez; valid settings: .*max_retries"
    ):
        run_context({"max_retriez": 1})
