"""Human-in-the-loop reviews, checkpoint history, replay and follow-ups, on the real SQLite saver
and embedded PostgreSQL. LLM paths use the scripted fake chat model to count calls."""

from __future__ import annotations

import pytest

from core.errors import InvalidAnswerError, ThreadError
from graph.context import RunContext
from tests.conftest import answer_reply, first_passage_number, scripted, shared_file

DONNIE = "Which league does Donnie Smith play in?"
UNANSWERABLE = "What is the boiling point of liquid tungsten in kelvin?"


def counting_model():
    return scripted(
        route='{"route": "retrieve", "reason": "factual"}',
        grade=lambda p: '{"relevant": %s}' % ("true" if "Donnie" in p.split("Passage")[1] else "false"),
        sufficient='{"sufficient": true}',
        ground='{"unsupported": []}',
        generate=lambda p: answer_reply(f"Major League Soccer [{first_passage_number(p.split('Evidence:')[1])}]."),
    )


@pytest.fixture
def llm_app(make_app):
    def factory():
        model = counting_model()
        app = make_app(collection="hotpot_smoke", chat_model=model)
        app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
        return app, model

    return factory


def test_answer_review_approve_edit_and_drop_each_call_the_model_once_per_round(llm_app):
    app, model = llm_app()
    paused = app.ask(DONNIE, context=RunContext(review_answer=True))
    assert paused["status"] == "interrupted"
    review = paused["interrupt"]
    assert review["kind"] == "answer" and review["answer"].startswith("Major League Soccer")
    assert [e["title"] for e in review["evidence"]] == ["Donnie Smith"]
    calls_before = dict(model.calls)
    assert calls_before == {"route": 1, "grade_hop": 1, "generate": 1}  # grounded lexically: no model check

    # Dropping the only chunk regenerates once (caveat mode, nothing left) and asks again.
    prefix = review["evidence"][0]["chunk_id"][:12]  # the output shows 12 characters: a unique prefix is enough
    dropped = app.resume(paused["thread_id"], {"action": "drop", "chunk_ids": [prefix]})
    assert dropped["status"] == "interrupted" and dropped["interrupt"]["evidence"] != review["evidence"]
    assert model.calls == {**calls_before, "generate": 2}

    edited = app.resume(paused["thread_id"], {"action": "edit", "answer": "MLS, per [1]."})
    assert edited["status"] == "done" and edited["answer"] == "MLS, per [1]." and edited["reviewed"] == "edited"
    assert edited["short_answer"] is None and edited["confidence"] is None  # the draft's no longer apply
    assert model.calls == {**calls_before, "generate": 2}  # the edit called no model
    state = app.graph.get_state({"configurable": {"thread_id": paused["thread_id"]}}).values
    assert [m.type for m in state["messages"]] == ["human", "ai"] and state["messages"][-1].content == "MLS, per [1]."

    again = app.ask(DONNIE, context=RunContext(review_answer=True))
    approved = app.resume(again["thread_id"], "approve")
    assert approved["status"] == "done" and approved["reviewed"] == "approved"
    assert approved["answer"] == again["answer"]


def test_invalid_answers_are_refused_and_the_thread_stays_resumable(llm_app):
    app, model = llm_app()
    paused = app.ask(DONNIE, context=RunContext(review_answer=True))
    thread = paused["thread_id"]
    with pytest.raises(InvalidAnswerError, match="accepted"):
        app.resume(thread, {"action": "publish"})
    with pytest.raises(InvalidAnswerError, match="not in the evidence"):
        app.resume(thread, {"action": "drop", "chunk_ids": ["nope"]})
    with pytest.raises(ThreadError, match="waiting for an answer to its answer review"):
        app.resume(thread)
    assert app.result(thread)["status"] == "interrupted"
    assert model.calls["generate"] == 1  # refused answers re-ran no model call
    assert app.resume(thread, "approve")["status"] == "done"
    with pytest.raises(ThreadError, match="nothing to resume"):
        app.resume(thread, "approve")


def test_stop_review_grants_one_more_hop_accepts_or_stops(hotpot_app):
    context = RunContext(deciders="rules", max_retries=0, review_stop=True)
    paused = hotpot_app.ask(UNANSWERABLE, context=context)
    assert paused["status"] == "interrupted" and paused["interrupt"]["kind"] == "stop"
    thread = paused["thread_id"]
    with pytest.raises(InvalidAnswerError, match="already tried"):
        hotpot_app.resume(thread, {"action": "query", "query": UNANSWERABLE.upper()})
    steered = hotpot_app.resume(thread, {"action": "query", "query": "Donnie Smith Major League Soccer"})
    assert steered["hops"] == 2
    assert steered["trace"][1]["query_by"] == "reviewer"
    if steered["status"] == "interrupted":  # still not enough evidence: the reviewer is asked again
        done = hotpot_app.resume(thread, "accept")
        assert done["status"] == "done" and done["answer"]  # the reader answers or declines: its own decision

    stopped = hotpot_app.ask(UNANSWERABLE, context=context)
    final = hotpot_app.resume(stopped["thread_id"], "stop")
    assert (final["status"], final["stop_reason"], final["citations"]) == ("done", "stopped_by_reviewer", [])


def test_route_review_can_override(hotpot_app):
    paused = hotpot_app.ask("thanks!", context=RunContext(deciders="rules", review_route=True))
    assert paused["interrupt"]["kind"] == "route" and paused["interrupt"]["route"] == "direct"
    result = hotpot_app.resume(paused["thread_id"], {"action": "override", "route": "retrieve"})
    assert result["route"] == "retrieve" and result["hops"] >= 1


def test_resume_by_thread_or_by_head_checkpoint_gives_the_same_result(hotpot_app):
    context = RunContext(deciders="rules", review_answer=True)
    one = hotpot_app.ask(DONNIE, context=context)
    two = hotpot_app.ask(DONNIE, context=context)
    head = hotpot_app.graph.get_state({"configurable": {"thread_id": two["thread_id"]}}).config
    by_thread = hotpot_app.resume(one["thread_id"], "approve")
    by_checkpoint = hotpot_app.resume(two["thread_id"], "approve", checkpoint_id=head["configurable"]["checkpoint_id"])
    for key in ("answer", "citations", "stop_reason", "hops", "status"):
        assert by_thread[key] == by_checkpoint[key], key
    old = hotpot_app.history(one["thread_id"])[1]["checkpoint_id"]
    with pytest.raises(ThreadError, match="not the latest"):
        hotpot_app.resume(one["thread_id"], checkpoint_id=old)


def test_history_and_replay_with_edited_state(hotpot_app):
    context = RunContext(deciders="rules", max_retries=1)
    done = hotpot_app.ask(UNANSWERABLE, context=context)
    rows = hotpot_app.history(done["thread_id"])
    assert [r["node"] for r in rows[:4]] == ["input", "__start__", "route", "retrieve"]
    assert rows[-1]["node"] == "check_grounding" and rows[-1]["next"] == []
    assert rows[-1]["stop_reason"] == done["stop_reason"]
    before_retrieve = next(r for r in rows if r["next"] == ["retrieve"])
    forked = hotpot_app.replay(
        done["thread_id"], before_retrieve["checkpoint_id"], {"query": "Donnie Smith New England Revolution"}
    )
    assert forked["trace"][0]["query"] == "Donnie Smith New England Revolution"
    assert len(hotpot_app.history(done["thread_id"])) > len(rows)  # the fork is in the history
    with pytest.raises(ThreadError, match="nothing to continue"):
        hotpot_app.replay(done["thread_id"], rows[-1]["checkpoint_id"])
    for bad in ({"bogus": 1}, {"evidence": [1, 2]}, {"query": ""}, {"query": {"a": 1}}, {"retries": -5}):
        with pytest.raises(ThreadError, match="cannot edit the state"):
            hotpot_app.replay(done["thread_id"], before_retrieve["checkpoint_id"], bad)
    assert hotpot_app.history(done["thread_id"])  # the thread is intact


def test_threads_list_status(hotpot_app):
    paused = hotpot_app.ask(DONNIE, context=RunContext(deciders="rules", review_answer=True))
    finished = hotpot_app.ask(DONNIE, context=RunContext(deciders="rules"))
    rows = {r["thread_id"]: r for r in hotpot_app.threads(limit=50)}
    assert rows[paused["thread_id"]]["status"] == "interrupted"
    assert rows[finished["thread_id"]]["status"] == "done"
    assert rows[finished["thread_id"]]["question"] == DONNIE


def test_follow_up_is_made_self_contained(hotpot_app):
    first = hotpot_app.ask("Who is Donnie Smith?", context=RunContext(deciders="rules"))
    follow = hotpot_app.ask("and which league does he play in?", thread_id=first["thread_id"],
                            context=RunContext(deciders="rules"))  # fmt: skip
    assert follow["standalone_question"] == "which league does Donnie Smith play in?"  # the cited title
    assert follow["trace"][0]["query"] == follow["standalone_question"]
    assert "Donnie Smith" in {c["title"] for c in follow["citations"]}


def test_resume_without_context_keeps_the_caps_the_question_started_with(hotpot_app):
    """As through the LangGraph server, where a resume carries no context."""
    from langgraph.types import Command

    paused = hotpot_app.ask(UNANSWERABLE, context=RunContext(deciders="rules", max_retries=0, review_stop=True))
    config = {"configurable": {"thread_id": paused["thread_id"]}}
    hotpot_app.graph.invoke(Command(resume={"action": "query", "query": "liquid tungsten"}), config)
    result = hotpot_app.result(paused["thread_id"])
    assert result["hops"] == 2 and result["retries"] == 0  # one reviewer hop, no automatic rewrites


def test_dropping_all_evidence_gives_a_caveat_not_an_empty_answer(hotpot_app):
    paused = hotpot_app.ask(DONNIE, context=RunContext(deciders="rules", review_answer=True))
    ids = [e["chunk_id"] for e in paused["interrupt"]["evidence"]]
    redrafted = hotpot_app.resume(paused["thread_id"], {"action": "drop", "chunk_ids": ids})
    draft = redrafted["interrupt"]["answer"]
    assert draft.startswith("The documents do not contain")


@pytest.mark.parametrize("answer, ok", [("APPROVE", True), (" approve ", True), ({"action": "approve", "x": 1}, False)])
def test_answer_spelling(hotpot_app, answer, ok):
    paused = hotpot_app.ask(DONNIE, context=RunContext(deciders="rules", review_answer=True))
    if ok:
        assert hotpot_app.resume(paused["thread_id"], answer)["status"] == "done"
    else:
        with pytest.raises(InvalidAnswerError):
            hotpot_app.resume(paused["thread_id"], answer)


def test_an_edit_citing_a_mark_the_draft_does_not_have_is_refused(llm_app):
    app, _ = llm_app()
    paused = app.ask(DONNIE, context=RunContext(review_answer=True))
    with pytest.raises(InvalidAnswerError, match=r"citation marks \[7\] cite nothing; the draft's marks are \[1\]"):
        app.resume(paused["thread_id"], {"action": "edit", "answer": "MLS [7]."})
    assert app.result(paused["thread_id"])["status"] == "interrupted"  # still waiting for a valid answer


def test_a_resume_on_the_wrong_collection_leaves_the_review_waiting(hotpot_app, make_app):
    paused = hotpot_app.ask(DONNIE, context=RunContext(deciders="rules", review_answer=True))
    wrong = make_app()  # same data folder and threads, an empty collection
    with pytest.raises(ThreadError, match="was asked on collection 'hotpot_smoke'"):  # a thread keeps its collection
        wrong.resume(paused["thread_id"], "approve")
    assert hotpot_app.result(paused["thread_id"])["status"] == "interrupted"  # the review is not used up
    assert hotpot_app.resume(paused["thread_id"], "approve")["reviewed"] == "approved"


def test_a_new_question_on_a_thread_waiting_for_a_review_is_refused(hotpot_app):
    paused = hotpot_app.ask(DONNIE, context=RunContext(deciders="rules", review_answer=True))
    with pytest.raises(ThreadError, match="waiting for an answer to its answer review; answer it first"):
        hotpot_app.ask("Who is Donnie Smith?", thread_id=paused["thread_id"], context=RunContext(deciders="rules"))
    assert hotpot_app.result(paused["thread_id"])["status"] == "interrupted"  # the review still waits
