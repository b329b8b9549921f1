"""Grounding check, regeneration and confidence (nodes/check_grounding.py)."""

from __future__ import annotations

from conftest import answer_reply, first_passage_number, scripted, shared_file

from deciders.reader import trust_level
from graph.context import RunContext

DONNIE = "Which league does Donnie Smith play in?"


def llm_app(make_app, **replies):
    model = scripted(
        route='{"route": "retrieve", "reason": "factual"}',
        grade=lambda p: '{"relevant": %s}' % ("true" if "Donnie" in p.split("Passage")[1] else "false"),
        sufficient='{"sufficient": true}',
        **replies,
    )
    app = make_app(collection="hotpot_smoke", chat_model=model)
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    return app, model


def test_an_ungrounded_model_answer_is_regenerated_once_from_the_evidence_sentences(make_app):
    prompts = []

    def generate(prompt):
        prompts.append(prompt)
        return answer_reply(
            f"Donnie Smith won the Ballon d'Or in 1990 [{first_passage_number(prompt.split('Evidence:')[1])}]."
        )

    app, model = llm_app(make_app, generate=generate, ground='{"unsupported": ["won the Ballon d\'Or in 1990"]}')
    result = app.ask(DONNIE, context=RunContext(deciders="llm"))
    # the regeneration quotes the evidence (no second model call), which the lexical check passes
    assert model.calls["generate"] == 1 and model.calls["ground"] == 1
    assert "Ballon d'Or" not in result["answer"] and result["short_answer"] == "Major League Soccer"
    assert result["unsupported_claims"] == [] and result["citations"]
    assert any("regenerating without them" in n for n in result["notes"])
    assert any("1 unsupported claim(s); extractive answer instead" in n for n in result["notes"])
    state = app.graph.get_state({"configurable": {"thread_id": result["thread_id"]}}).values
    assert [m.type for m in state["messages"]] == ["human", "ai"]  # the first draft never entered the conversation
    assert "Ballon d'Or" not in state["messages"][-1].content
    assert state["grounding"]["status"] == "grounded"


def test_lexically_supported_answer_needs_no_model_grounding_call(make_app):
    app, model = llm_app(make_app, generate=answer_reply("Major League Soccer [1]."), ground="never asked")
    result = app.ask(DONNIE, context=RunContext(deciders="llm"))
    assert "ground" not in model.calls and result["unsupported_claims"] == []


def test_garbage_grounding_reply_falls_back_to_the_lexical_check(make_app):
    app, model = llm_app(
        make_app, generate=answer_reply("Donnie Smith won the Ballon d'Or [1]."), ground="looks fine to me"
    )
    result = app.ask(DONNIE, context=RunContext(deciders="llm"))
    assert model.calls["ground"] >= 1  # the lexical check failed, so the model was asked
    assert any(n.startswith("check_grounding:") and "lexical check instead" in n for n in result["notes"])


def test_a_model_free_confidence_is_the_readers_calibrated_probability(hotpot_app):
    answered = hotpot_app.ask(DONNIE, context=RunContext(deciders="rules"))
    unanswerable = hotpot_app.ask(
        "What is the boiling point of liquid tungsten in kelvin?", context=RunContext(deciders="rules")
    )
    assert answered["stop_reason"] == "sufficient_evidence" and answered["unsupported_claims"] == []
    assert not answered["abstained"] and "Major League Soccer" in answered["answer"]
    # the reader's calibrated probability is the confidence
    assert all(0 <= result["confidence"] <= 1 for result in (answered, unanswerable))
    assert unanswerable["abstained"] or unanswerable["confidence"] < trust_level()  # never trusted
    if unanswerable["abstained"]:  # an abstention claims nothing: no grounding check, no regeneration
        assert not any(n.startswith("check_grounding") for n in unanswerable["notes"])
    assert hotpot_app.ask("thanks!", context=RunContext(deciders="rules"))["confidence"] is None
