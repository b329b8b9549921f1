"""Decomposition: sub-questions searched in parallel with Send, answers per part."""

from __future__ import annotations

import pytest
from conftest import answer_reply, scripted, shared_file

from graph.context import RunContext

COMPARISON = "Which magazine was started first, Arthur's Magazine or First for Women?"


@pytest.fixture(scope="module")
def hotpot_dev(data_dir):
    from agentic_rag.app import App
    from core.settings import Settings

    app = App(Settings(data_dir=data_dir, collection="hotpot_smoke_dec"))
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    yield app
    app.close()


def test_decomposed_question_is_searched_in_parallel_and_answered_as_a_whole(hotpot_dev):
    question = "Which is older, Donnie Smith or Kareem Smith?"
    result = hotpot_dev.ask(question, context=RunContext(deciders="rules", decompose=True, max_retries=0))
    first = result["trace"][0]
    assert first["query_by"] == "decompose"
    assert first["query"] == "Donnie Smith: which is older? | Kareem Smith: which is older?"
    state = hotpot_dev.graph.get_state({"configurable": {"thread_id": result["thread_id"]}}).values
    assert {c["sub_question"] for c in state["chunks"]} == {0, 1}  # both searches reached the merge
    assert [c["sub_question"] for c in state["chunks"][:2]] == [0, 1]  # interleaved: each one's best first
    assert all(c["sub_question"] in (0, 1) for c in state["evidence"])
    # each option's own search found its page: born 1990 and 1985, so the whole question is answered
    assert result["short_answer"] == "Kareem Smith" and not result["abstained"]
    assert "1990" in result["answer"] and "1985" in result["answer"]


def test_a_split_question_naming_what_no_document_holds_abstains_as_a_whole(hotpot_dev):
    question = "Which is older, Donnie Smith or the Zyxqor Quabble Foundation?"
    result = hotpot_dev.ask(question, context=RunContext(deciders="rules", decompose=True, max_retries=0))
    assert result["abstained"] and result["stop_reason"] == "not_in_collection"
    assert "never mention Zyxqor, Quabble" in result["answer"] and "(1)" not in result["answer"]


def test_question_that_does_not_split_takes_the_ordinary_path(hotpot_dev):
    result = hotpot_dev.ask("When was Donnie Smith born?", context=RunContext(deciders="rules", decompose=True))
    assert result["trace"][0]["query_by"] == "question"
    assert not any(n.startswith("decompose") for n in result["notes"])  # no "or"/"and": no decompose step
    compound = hotpot_dev.ask("When was Donnie Smith born and raised?", context=RunContext(deciders="rules"))
    assert any(n.startswith("decompose (rules): no conjunction") for n in compound["notes"])


def test_llm_decomposer_and_its_fallback(make_app):
    base = {
        "route": '{"route": "retrieve", "reason": "facts", "complexity": "multi"}',
        "grade": '{"relevant": true}',
        "sufficient": '{"sufficient": true}',
        "generate": answer_reply("(1) MLS [1]. (2) The documents do not answer this part.", "MLS"),
        "ground": '{"unsupported": []}',
    }
    good = scripted(**base, decompose='{"sub_questions": ["Donnie Smith league?", "Tungsten league?"]}')
    app = make_app(collection="hotpot_smoke", chat_model=good)
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    context = RunContext(deciders="llm", decompose=True, max_retries=0)
    result = app.ask("Which league do Donnie Smith and Tungsten play in?", context=context)
    assert result["trace"][0]["query"] == "Donnie Smith league? | Tungsten league?"
    assert good.calls["decompose"] == 1
    for bad in ("no json here", '{"sub_questions": ["only one"]}'):
        model = scripted(**base, decompose=bad)
        app = make_app(collection="hotpot_smoke", chat_model=model)
        result = app.ask("Which is older, Blur or Oasis?", context=context)
        assert result["trace"][0]["query"] == "Blur: which is older? | Oasis: which is older?", bad
        assert any("rule-based split instead" in n for n in result["notes"]), bad
