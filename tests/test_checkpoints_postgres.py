"""Scale-out: with DATABASE_URL, checkpoints live in that PostgreSQL, so separate processes (each
with its own data folder, hence no shared SQLite file) share threads — one process starts a run
that pauses for review, another lists it, inspects it and resumes it. Real processes, one
PostgreSQL server the app did not start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from agentic_rag.app import App
from core.settings import Settings
from tests.conftest import shared_file


@pytest.fixture(scope="module")
def server_url(standalone_postgres) -> str:
    """The standalone PostgreSQL (with pgvector) of the session, reached only through DATABASE_URL."""
    return standalone_postgres.get_uri()


def run(data_dir: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    """One ``agentic-rag`` process with its own data folder, on the shared server."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "AGENTIC_RAG_CHAT_MODEL")}
    env.update(DATABASE_URL=url, AGENTIC_RAG_DATA_DIR=str(data_dir), AGENTIC_RAG_COLLECTION="shared")
    return subprocess.run(
        [sys.executable, "-m", "agentic_rag.cli", *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_a_thread_started_by_one_process_is_inspected_and_resumed_by_another(server_url, tmp_path):
    first, second = tmp_path / "host-a", tmp_path / "host-b"
    assert run(first, server_url, "ingest", str(shared_file("hotpotqa_smoke_10.jsonl"))).returncode == 0
    asked = run(first, server_url, "ask", "Which league does Donnie Smith play in?", "--review-answer", "--json")
    assert asked.returncode == 0, asked.stderr
    paused = json.loads(asked.stdout)
    assert paused["status"] == "interrupted" and paused["interrupt"]["kind"] == "answer"
    thread = paused["thread_id"]

    listed = json.loads(run(second, server_url, "threads", "--json").stdout)
    assert {"thread_id": thread, "status": "interrupted"}.items() <= next(
        t for t in listed if t["thread_id"] == thread
    ).items()
    history = json.loads(run(second, server_url, "history", thread, "--json").stdout)
    assert history[-1]["node"] == "check_grounding"  # the draft waits in review_answer
    resumed = run(second, server_url, "resume", thread, "--answer", "approve", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "done"

    rows = json.loads(run(first, server_url, "history", thread, "--json").stdout)
    assert rows[-1]["node"] == "review_answer"  # the first process sees the second one's resume
    assert not (first / "checkpoints.sqlite").exists() and not (second / "checkpoints.sqlite").exists()
    with psycopg.connect(server_url) as conn:
        assert conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread,)).fetchone()[0] > 0


def test_each_process_keeps_its_connection_pool_bounded(server_url, tmp_path):
    settings = Settings(data_dir=tmp_path, database_url=server_url, collection="shared", checkpoint_pool_size=2)
    apps = [App(settings) for _ in range(3)]
    try:
        pool = apps[0].checkpointer.conn
        assert (pool.min_size, pool.max_size) == (1, 2)
        for app in apps:
            app.graph.get_state({"configurable": {"thread_id": "no-such-thread"}})
    finally:
        for app in apps:
            app.close()
