"""Streaming (issue 14 defect 2): ``stream_mode="messages"`` carries the final answer only — no
router, grader or grounder JSON, no draft the grounding check rejected; ``"custom"`` carries one
event per hop step (query and new chunks, verdicts, the next query); ``ask --stream`` prints hops
as they happen, then the answer. Through langgraph dev: tests/test_server.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import answer_reply, first_passage_number, scripted, shared_file

from graph.context import RunContext, question_input

DONNIE = "Which league does Donnie Smith play in?"


def test_messages_stream_carries_only_the_final_answer_and_custom_one_event_per_hop_step(make_app):
    def generate(prompt):
        number = first_passage_number(prompt.split("Evidence:")[1])
        return answer_reply(f"Donnie Smith won the Ballon d'Or in 1957 [{number}].")

    model = scripted(
        route='{"route": "retrieve", "reason": "factual"}',
        grade=lambda p: '{"relevant": %s}' % ("true" if "Donnie" in p.split("Passage")[1] else "false"),
        sufficient='{"sufficient": true}',
        generate=generate,
        ground='{"unsupported": ["won the Ballon d\'Or"]}',
    )
    app = make_app(collection="hotpot_smoke", chat_model=model)
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    context = RunContext(deciders="llm")
    config = {"configurable": {"thread_id": "streamed"}}
    events = list(
        app.graph.stream(
            question_input(DONNIE, context), config, context=context, stream_mode=["messages", "custom", "updates"]
        )
    )
    assert model.calls["generate"] == 1 and model.calls["ground"] == 1  # a draft was rejected, then regenerated
    messages = [data[0] for mode, data in events if mode == "messages"]
    answers = [m for m in messages if m.type != "human"]
    final = app.graph.get_state(config).values["answer"]
    assert [m.content for m in answers] == [final] and "Major League Soccer" in final  # once, the kept draft only
    assert not any("1957" in str(m.content) or "{" in str(m.content) for m in messages)  # no JSON, no rejected draft
    hops = [data for mode, data in events if mode == "custom"]
    assert [e["node"] for e in hops][:2] == ["retrieve", "grade"]
    assert hops[0]["query"] == DONNIE and hops[0]["new"] == len(hops[0]["chunk_ids"]) > 0
    assert hops[1]["verdicts"] and hops[1]["sufficient"] is True
    updated = [next(iter(data)) for mode, data in events if mode == "updates"]
    assert updated[:3] == ["route", "retrieve", "grade"] and updated.count("retrieve") == 1


def test_ask_stream_prints_each_hop_then_the_answer(data_dir):
    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir), "AGENTIC_RAG_COLLECTION": "streamcli"}
    env = {k: v for k, v in env.items() if k not in ("OPENAI_API_KEY", "AGENTIC_RAG_CHAT_MODEL", "DATABASE_URL")}
    run = [sys.executable, "-m", "agentic_rag.cli"]
    dataset = str(shared_file("hotpotqa_smoke_10.jsonl"))
    subprocess.run([*run, "ingest", dataset], env=env, check=True, capture_output=True)
    proc = subprocess.run([*run, "ask", DONNIE, "--stream"], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    first_hop = next(i for i, line in enumerate(lines) if line.startswith("hop 1 (retrieve, search): "))
    graded = next(i for i, line in enumerate(lines) if line.startswith("  graded: "))
    answer = json.loads(subprocess.run([*run, "ask", DONNIE, "--json"], env=env, capture_output=True).stdout)["answer"]
    assert first_hop < graded < lines.index(answer)  # hops as they happen, then the answer
    assert proc.stdout.count(answer) == 1 and "stop: " in proc.stdout


def test_a_reviewed_answer_streams_once_the_one_the_review_kept(make_app, tmp_path):
    """Issue 51 item 2: with ``review_answer`` on, a client streaming ``stream_mode="messages"``
    saw the draft before the review, then after a drop the regenerated answer as well (two
    answers), and after an edit nothing (it kept the unedited draft; the thread held the edit under
    the same message id). Now each reviewed question streams exactly one answer, when the review
    ends: the approved draft, the edited text or the regenerated answer, as the thread keeps it."""
    from langgraph.types import Command

    (tmp_path / "kea.md").write_text("# Kea\n\nThe kea is a large parrot that lives in the South Island.\n")
    (tmp_path / "tui.md").write_text("# Tui\n\nThe tui is a songbird whose song mixes bells and clicks.\n")
    app = make_app()
    app.ingest([tmp_path])
    context = RunContext(deciders="rules", review_answer=True)

    def streamed(thread: str, *answers) -> tuple[list[tuple[str, str]], dict]:
        """The answers a client streaming the question and then each review answer sees, and the
        thread's state at the end."""
        config = {"configurable": {"thread_id": thread}}
        inputs = [question_input("Where does the kea live?", context), *(Command(resume=a) for a in answers)]
        seen = []
        for graph_input in inputs:
            for message, _ in app.graph.stream(graph_input, config, context=context, stream_mode="messages"):
                if message.type in ("ai", "AIMessageChunk"):
                    seen.append((message.id, message.content))
        return seen, app.graph.get_state(config)

    def kept(state) -> list[tuple[str, str]]:
        return [(m.id, m.content) for m in state.values["messages"] if m.type == "ai"]

    first, state = streamed("review-stream-pause")
    assert first == [] and state.interrupts and "South Island" in state.interrupts[0].value["answer"]  # nothing yet

    approved, state = streamed("review-stream-approve", "approve")
    assert approved == kept(state) and len(approved) == 1 and "South Island" in approved[0][1]
    assert state.values["answer"] == approved[0][1] and not state.next

    edited, state = streamed("review-stream-edit", {"action": "edit", "answer": "On the South Island [1]."})
    assert edited == kept(state) and [text for _, text in edited] == ["On the South Island [1]."]

    draft = app.graph.get_state({"configurable": {"thread_id": "review-stream-pause"}}).values["evidence"]
    dropped, state = streamed("review-stream-drop", {"action": "drop", "chunk_ids": [draft[0]["chunk_id"]]}, "approve")
    assert dropped == kept(state) and len(dropped) == 1, dropped  # the regenerated answer only
    assert "South Island" not in dropped[0][1] and state.values["reviewed"] == "approved"
