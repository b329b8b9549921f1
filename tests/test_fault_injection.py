"""Fault injection (issue 14): a real ``agentic-rag ask`` process is killed with SIGKILL right
after the checkpoint of each node (route, retrieve, grade, follow_links, reformulate, generate,
check_grounding) is written, and while paused for an answer review; ``agentic-rag resume`` then
gives the same answer, citations, stop reason and run settings as an uninterrupted run.

The kill is injected from outside the product: a launcher wraps the SQLite saver's ``put`` (and
``put_writes``, for the review's interrupt) so that the process kills itself once the checkpoint
holding a given node's writes is stored."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from agentic_rag.app import App
from core.errors import ThreadError
from core.settings import Settings

QUESTION = "Donnie Smith who plays as a left back for New England Revolution belongs to what league featuring 22 teams?"
"""The first question of ../shared/data/hotpotqa_smoke_10.jsonl (the ``hotpot_app`` collection):
its model-free run passes every node of the retrieval loop (a link hop and a reformulated search
before it answers)."""
SETTINGS = ["--deciders", "rules", "--max-retries", "2", "--max-evidence", "6", "--source", "*hotpotqa*"]
NODES = ["route", "retrieve", "grade", "follow_links", "reformulate", "generate", "check_grounding"]

LAUNCHER = """
import os, signal, sys
from langgraph.checkpoint.sqlite import SqliteSaver

target = os.environ["KILL_AFTER"]  # a node name, or "interrupt"
seen, put, put_writes = {}, SqliteSaver.put, SqliteSaver.put_writes

def put_then_kill(self, config, checkpoint, metadata, new_versions):
    stored = put(self, config, checkpoint, metadata, new_versions)
    ran = {name for name, versions in checkpoint["versions_seen"].items() if seen.get(name) != versions}
    seen.update({name: dict(v) for name, v in checkpoint["versions_seen"].items()})
    if target in ran:
        os.kill(os.getpid(), signal.SIGKILL)
    return stored

def put_writes_then_kill(self, config, writes, task_id, task_path=""):
    put_writes(self, config, writes, task_id, task_path)
    if target == "interrupt" and any(channel == "__interrupt__" for channel, _ in writes):
        os.kill(os.getpid(), signal.SIGKILL)

SqliteSaver.put, SqliteSaver.put_writes = put_then_kill, put_writes_then_kill
from agentic_rag.cli import main
sys.argv = ["agentic-rag", *sys.argv[1:]]
main()
"""


@pytest.fixture
def run(data_dir, hotpot_app):
    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir), "AGENTIC_RAG_COLLECTION": "hotpot_smoke"}
    env = {k: v for k, v in env.items() if k not in ("OPENAI_API_KEY", "AGENTIC_RAG_CHAT_MODEL", "DATABASE_URL")}

    def cli(*args: str, kill_after: str | None = None) -> subprocess.CompletedProcess:
        command = ["-c", LAUNCHER, *args] if kill_after else ["-m", "agentic_rag.cli", *args]
        extra = {"KILL_AFTER": kill_after} if kill_after else {}
        return subprocess.run(
            [sys.executable, *command], env={**env, **extra}, capture_output=True, text=True, timeout=300
        )

    return cli


def outcome(app: App, thread: str) -> dict:
    """What must not change: the answer, its citations, the stop reason, the run settings."""
    state = app.graph.get_state({"configurable": {"thread_id": thread}}).values
    keys = ("answer", "short_answer", "citations", "stop_reason", "run_context", "abstained")
    return {k: state.get(k) for k in keys}


def killed(proc: subprocess.CompletedProcess) -> str:
    """The thread id a killed ``ask`` printed first."""
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    return proc.stderr.split()[1]


def test_a_run_killed_after_any_node_resumes_to_the_same_outcome(run, data_dir):
    baseline = json.loads(run("ask", QUESTION, *SETTINGS, "--json").stdout)
    app = App(Settings(data_dir=data_dir, collection="hotpot_smoke"))
    try:
        expected = outcome(app, baseline["thread_id"])
        visited = {row["node"] for row in app.history(baseline["thread_id"])}
        assert set(NODES) <= visited and expected["run_context"]["max_evidence"] == 6
        for node in NODES:
            thread = killed(run("ask", QUESTION, *SETTINGS, kill_after=node))
            assert app.history(thread)[-1]["node"] == node  # killed right after this node's checkpoint
            assert app.result(thread)["status"] == ("done" if node == "check_grounding" else "unfinished")
            resumed = run("resume", thread, "--json")
            if node == "check_grounding":  # the last node: the run was complete when killed
                assert resumed.returncode == ThreadError.exit_code and "nothing to resume" in resumed.stderr
            else:
                assert resumed.returncode == 0, (node, resumed.stderr[-2000:])
                assert json.loads(resumed.stdout)["status"] == "done"
            assert outcome(app, thread) == expected, node
    finally:
        app.close()


def test_a_run_killed_while_paused_for_review_resumes_to_the_same_outcome(run, data_dir):
    paused = json.loads(run("ask", QUESTION, *SETTINGS, "--review-answer", "--json").stdout)
    assert paused["status"] == "interrupted"
    approved = run("resume", paused["thread_id"], "--answer", "approve", "--json")
    assert json.loads(approved.stdout)["status"] == "done"
    thread = killed(run("ask", QUESTION, *SETTINGS, "--review-answer", kill_after="interrupt"))
    resumed = run("resume", thread, "--answer", "approve", "--json")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    app = App(Settings(data_dir=data_dir, collection="hotpot_smoke"))
    try:
        assert outcome(app, thread) == outcome(app, paused["thread_id"])
        assert app.result(thread)["reviewed"] == "approved"
    finally:
        app.close()
