"""Query expansion strategies (multi-query, HyDE, step-back): LLM only, skipped without one."""

from __future__ import annotations

import pytest
from conftest import answer_reply, scripted, shared_file

from graph.context import RunContext

DONNIE = "Which league does Donnie Smith play in?"


@pytest.mark.parametrize("kind", ["multi_query", "hyde", "step_back"])
def test_without_a_chat_model_the_strategy_is_skipped_and_the_notes_say_so(hotpot_app, kind):
    result = hotpot_app.ask(DONNIE, context=RunContext(deciders="rules", expansion=kind))
    assert result["trace"][0]["query"] == DONNIE
    assert any(n.startswith(f"expand_query (rules): {kind} needs a chat model; skipped") for n in result["notes"])


@pytest.mark.parametrize(
    ("kind", "reply", "queries"),
    [
        (
            "multi_query",
            '{"queries": ["Donnie Smith league", "What league is Donnie Smith in?", "Donnie Smith club"]}',
            4,
        ),
        ("hyde", '{"queries": ["Donnie Smith is a footballer who plays in Major League Soccer."]}', 2),
        ("step_back", '{"queries": ["What is Donnie Smith\'s career?"]}', 2),
    ],
)
def test_llm_expansion_searches_the_new_queries_fused_by_rank(make_app, kind, reply, queries):
    model = scripted(
        route='{"route": "retrieve", "reason": "facts"}',
        grade='{"relevant": true}',
        sufficient='{"sufficient": true}',
        generate=answer_reply("Major League Soccer [1]."),
        ground='{"unsupported": []}',
        expand=reply,
    )
    app = make_app(collection="hotpot_smoke", chat_model=model)
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    result = app.ask(DONNIE, context=RunContext(deciders="llm", expansion=kind))
    first = result["trace"][0]
    assert len(first["query"].split(" | ")) == queries and first["query"].startswith(DONNIE)
    assert len(first["chunk_ids"]) == 5  # the fused top retrieve_k, not k per query
    assert model.calls["expand"] == 1


def test_garbage_expansion_reply_skips_the_strategy_with_a_note(make_app):
    model = scripted(route='{"route": "retrieve"}', grade='{"relevant": true}', sufficient='{"sufficient": true}',
                     generate=answer_reply("MLS [1]."), ground='{"unsupported": []}',
                     expand="sure! here you go")  # fmt: skip
    app = make_app(collection="hotpot_smoke", chat_model=model)
    result = app.ask(DONNIE, context=RunContext(deciders="llm", expansion="hyde"))
    assert result["trace"][0]["query"] == DONNIE
    assert any(n.startswith("expand_query: invalid reply") for n in result["notes"])
