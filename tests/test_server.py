"""The graph served by the real LangGraph dev server (``langgraph dev``), driven with the
``langgraph-sdk`` client: a run to completion, a run paused by the answer review and resumed with
an edit, and the thread's state and history. The server is stopped at the end, also on failure.
The server's ``.env`` file is tested without the server: on the module it serves."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from langgraph_sdk import get_sync_client

from agentic_rag.app import App
from core.settings import Settings, load_env_file
from tests.conftest import ROOT, served, shared_file

GRAPH_ID = "agentic_rag"
QUESTION = "Which league does Donnie Smith play in?"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def langgraph_dev(data_dir: Path, collection: str, workdir: Path):
    """A real ``langgraph dev`` server on a free port, serving ``collection`` of ``data_dir``;
    yields its URL; stopped (SIGTERM to its process group, as Ctrl-C in a terminal) on exit."""
    port = free_port()
    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir), "AGENTIC_RAG_COLLECTION": collection}
    env.pop("OPENAI_API_KEY", None)
    args = [str(Path(sys.executable).parent / "langgraph"), "dev", "--no-browser", "--no-reload",
            "--host", "127.0.0.1", "--port", str(port), "--config", str(ROOT / "langgraph.json")]  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    with served(args, env, workdir / "server.log", f"{url}/ok", 120, "langgraph dev"):
        yield url


@pytest.fixture(scope="module")
def server_url(data_dir, tmp_path_factory):
    app = App(Settings(data_dir=data_dir, collection="served"))
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    app.close()
    with langgraph_dev(data_dir, "served", tmp_path_factory.mktemp("langgraph-dev")) as url:
        yield url


def postgres_serving(pgdata: Path) -> list[int]:
    """Pids of postgres processes running on the cluster in ``pgdata``."""
    return [p.pid for p in psutil.process_iter(["cmdline"]) if str(pgdata) in " ".join(p.info["cmdline"] or [])]


def test_stopping_the_server_stops_the_embedded_postgres_it_started(tmp_path):
    """Issue 14 defect 12: no postgres process of the server's data folder is left."""
    data_dir = tmp_path / "data"
    ingest = [sys.executable, "-m", "agentic_rag.cli", "ingest", str(shared_file("hotpotqa_smoke_10.jsonl"))]
    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir), "AGENTIC_RAG_COLLECTION": "own"}
    subprocess.run(ingest, env=env, check=True, capture_output=True)  # starts and stops its own server
    pgdata = (data_dir / "pg").resolve()
    assert postgres_serving(pgdata) == []
    with langgraph_dev(data_dir, "own", tmp_path) as url:
        client = get_sync_client(url=url)
        thread = client.threads.create()
        done = client.runs.wait(
            thread["thread_id"], GRAPH_ID, input={"question": QUESTION}, context={"deciders": "rules"}
        )
        assert done["citations"] and postgres_serving(pgdata)  # the served graph started the cluster
    deadline = time.monotonic() + 30
    while postgres_serving(pgdata) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert postgres_serving(pgdata) == [], (tmp_path / "server.log").read_text()[-3000:]


def test_served_graph_runs_pauses_resumes_and_shows_history(server_url):
    client = get_sync_client(url=server_url)
    assistants = client.assistants.search(graph_id=GRAPH_ID)
    assert assistants, "langgraph.json exposes the graph"
    drawn = client.assistants.get_graph(assistants[0]["assistant_id"])  # what Studio draws
    nodes = {node["id"] for node in drawn["nodes"]}
    assert {
        "route", "decompose", "search_subquestion", "merge_subquestions", "expand_query", "retrieve", "grade",
        "follow_links", "reformulate", "generate", "check_grounding",
    } <= nodes  # fmt: skip

    thread = client.threads.create()
    done = client.runs.wait(thread["thread_id"], GRAPH_ID, input={"question": QUESTION}, context={"deciders": "rules"})
    assert done["route"] == "retrieve" and done["answer"] and done["citations"]
    assert done["stop_reason"] in {"sufficient_evidence", "evidence_budget", "max_retries", "no_progress"}

    reviewed = client.threads.create()
    context = {"deciders": "rules", "review_answer": True}
    client.runs.wait(reviewed["thread_id"], GRAPH_ID, input={"question": QUESTION}, context=context)
    state = client.threads.get_state(reviewed["thread_id"])
    assert state["next"] == ["review_answer"]
    payload = state["interrupts"][0]["value"]
    assert payload["kind"] == "answer" and payload["evidence"] and "approve" in payload["accepts"]

    edited = "Major League Soccer, edited by a reviewer [1]."
    client.runs.wait(
        reviewed["thread_id"], GRAPH_ID, command={"resume": {"action": "edit", "answer": edited}}, context=context
    )
    state = client.threads.get_state(reviewed["thread_id"])
    assert state["next"] == [] and state["values"]["answer"] == edited and state["values"]["reviewed"] == "edited"
    history = client.threads.get_history(reviewed["thread_id"], limit=50)
    assert len(history) >= 6
    assert history[-1]["values"] == {} or history[-1]["metadata"]["source"] == "input"


def test_served_graph_streams_hops_and_the_final_answer_once(server_url):
    """Issue 14 defect 2 through the server: ``custom`` events per hop step, one ``updates``
    event per node, and on the messages stream the question and the final answer, once."""
    client = get_sync_client(url=server_url)
    thread = client.threads.create()
    events = list(
        client.runs.stream(
            thread["thread_id"], GRAPH_ID, input={"question": QUESTION}, context={"deciders": "rules"},
            stream_mode=["messages-tuple", "custom", "updates"],
        )
    )  # fmt: skip
    final = client.threads.get_state(thread["thread_id"])["values"]["answer"]
    hops = [e.data for e in events if e.event == "custom"]
    assert hops[0]["node"] == "retrieve" and hops[0]["query"] == QUESTION and hops[0]["new"] > 0
    assert hops[1]["node"] == "grade" and hops[1]["verdicts"]
    messages = [e.data[0] for e in events if e.event == "messages"]
    assert [m["content"] for m in messages if m["type"] != "human"] == [final]
    updated = [next(iter(e.data)) for e in events if e.event == "updates"]
    assert updated[:3] == ["route", "retrieve", "grade"] and updated[-1] == "check_grounding"


def test_env_file_fills_unset_variables_only(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENTIC_RAG_COLLECTION", raising=False)
    monkeypatch.setenv("AGENTIC_RAG_EMBEDDING", "wordllama")
    env = tmp_path / ".env"
    env.write_text("# settings\nAGENTIC_RAG_COLLECTION=from_dotenv\nAGENTIC_RAG_EMBEDDING=openai:nope\nEMPTY\n")
    assert load_env_file(env) == ["AGENTIC_RAG_COLLECTION"]
    settings = Settings()
    assert (settings.collection, settings.embedding) == ("from_dotenv", "wordllama")  # the shell wins
    assert "EMPTY" not in os.environ
    assert load_env_file(tmp_path / "missing.env") == []


def test_served_graph_reads_env_file_of_the_folder_the_server_starts_in(tmp_path, data_dir):
    """As ``langgraph dev`` imports ``agentic_rag/server.py`` in the folder it is started from."""
    (tmp_path / ".env").write_text(f"AGENTIC_RAG_COLLECTION=from_dotenv\nAGENTIC_RAG_DATA_DIR={data_dir}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTIC_RAG_")}
    code = "from agentic_rag import server; s = server.services.settings; print(s.collection, s.data_dir)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["from_dotenv", str(data_dir)]
