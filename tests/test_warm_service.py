"""The warm service (agentic_rag/service.py, agentic_rag/client.py) as users meet it: real
`agentic-rag` processes on a data folder of their own, a real detached service and embedded
PostgreSQL. Every test stops what it started."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from agentic_rag.client import ServiceFiles, postgres_pid, running_pid
from tests.conftest import other_user_runs_python

PAGES = {
    "lighthouse.md": "# Lighthouse\n\nThe Skerry lighthouse was built in 1851 by the engineer Alan Brodie.\n",
    "ferry.md": "# Ferry\n\nThe Skerry ferry sails from Oban every Tuesday at 9 am.\n",
}
LATE_PAGE = "# Harbour\n\nThe Skerry harbour master is Morag Fyfe, appointed in 2019.\n"


def wait_until(condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.fixture
def folder(tmp_path) -> Path:
    """A data folder holding the collection ``skerry`` (ingested without a service)."""
    data, docs = tmp_path / "data", tmp_path / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text)
    proc = run(data, "ingest", str(docs), idle="0")
    assert proc.returncode == 0, proc.stderr
    yield data
    files = ServiceFiles(data)
    run(data, "server", "stop")
    assert wait_until(lambda: running_pid(files) is None and postgres_pid(data) is None, 60)


def environment(data: Path, idle: str) -> dict:
    kept = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("AGENTIC_RAG_", "OPENAI_", "OTEL_")) and k != "DATABASE_URL"
    }
    return {
        **kept,
        "AGENTIC_RAG_DATA_DIR": str(data),
        "AGENTIC_RAG_COLLECTION": "skerry",
        "AGENTIC_RAG_SERVER_IDLE_S": idle,
    }


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "agentic_rag.cli", *args]


def run(data: Path, *args: str, idle: str = "120") -> subprocess.CompletedProcess:
    """``agentic-rag ARGS`` in a process of its own, on ``data``, with the service on."""
    return subprocess.run(command(*args), env=environment(data, idle), capture_output=True, text=True, timeout=300)


def status(data: Path) -> dict:
    proc = run(data, "server", "status", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def thread_of(proc: subprocess.CompletedProcess) -> str:
    return re.search(r"^thread: (\S+)", proc.stderr, re.M).group(1)


def test_a_served_answer_is_the_one_its_own_process_prints(folder):
    question = ("ask", "Who built the Skerry lighthouse?", "--json")
    served, alone = run(folder, *question), run(folder, *question, idle="0")
    assert served.returncode == alone.returncode == 0, served.stderr + alone.stderr
    assert status(folder)["running"]
    mine, theirs = json.loads(served.stdout), json.loads(alone.stdout)
    for result in (mine, theirs):
        result.pop("thread_id")
        for hop in result["trace"]:
            hop.pop("ms", None)
    assert mine["short_answer"] == theirs["short_answer"] and "Brodie" in served.stdout
    assert {k: v for k, v in mine.items() if k != "trace"} == {k: v for k, v in theirs.items() if k != "trace"}
    usage = run(folder, "ask")  # a usage error, from the service, as from Typer
    assert usage.returncode == 2 and "Missing argument" in usage.stderr


def test_two_commands_at_once_share_one_service_and_a_review_resumes_through_it(folder):
    env = environment(folder, "120")
    asks = [
        subprocess.Popen(command("ask", question), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for question in ("Who built the Skerry lighthouse?", "When does the Skerry ferry sail?")
    ]
    outputs = [proc.communicate(timeout=300) for proc in asks]
    assert [proc.returncode for proc in asks] == [0, 0], outputs
    assert "Brodie" in outputs[0][0] and "Tuesday" in outputs[1][0]
    info = status(folder)
    assert info["running"] and info["commands"] == 2 and info["data_dir"] == str(folder)
    assert info["database_url"] and 0 < info["idle_left_s"] <= 120
    paused = run(folder, "ask", "Who built the Skerry lighthouse?", "--review-answer")
    assert paused.returncode == 0 and "resume" in paused.stdout, paused.stderr
    resumed = run(folder, "resume", thread_of(paused), "--answer", "approve")
    assert resumed.returncode == 0 and "Brodie" in resumed.stdout, resumed.stderr
    assert status(folder)["pid"] == info["pid"]


def test_a_service_killed_with_kill_9_is_replaced_and_nothing_is_lost(folder):
    first = run(folder, "ask", "Who built the Skerry lighthouse?")
    assert first.returncode == 0, first.stderr
    thread, pid = thread_of(first), status(folder)["pid"]
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: running_pid(ServiceFiles(folder)) is None)
    after = status(folder)
    assert not after["running"] and str(pid) in after["note"]  # the stale pid file, removed
    assert after["postgres_pid"]  # the database outlived it, to be taken over
    follow_up = run(folder, "ask", "When does the Skerry ferry sail?", "--thread", thread)
    assert follow_up.returncode == 0 and "(continued)" in follow_up.stderr, follow_up.stderr
    replaced = status(folder)
    assert replaced["running"] and replaced["pid"] != pid
    history = run(folder, "history", thread, "--json")
    assert len({row["query"] for row in json.loads(history.stdout)}) >= 2  # both questions' checkpoints
    assert "skerry" in run(folder, "collections").stdout


def test_a_database_crash_loses_no_chunk_and_the_bm25_index_is_rebuilt(folder):
    assert run(folder, "ask", "Who built the Skerry lighthouse?").returncode == 0
    service, database = status(folder)["pid"], postgres_pid(folder)
    os.kill(service, signal.SIGKILL)
    os.kill(database, signal.SIGKILL)  # no shutdown checkpoint: the next start runs crash recovery
    assert wait_until(lambda: running_pid(ServiceFiles(folder)) is None and postgres_pid(folder) is None)
    assert wait_until(lambda: subprocess.run(["pgrep", "-f", str(folder / "pg")], capture_output=True).returncode)
    again = run(folder, "ask", "Who built the Skerry lighthouse?")
    assert again.returncode == 0 and "Brodie" in again.stdout, again.stdout + again.stderr
    with psycopg.connect(status(folder)["database_url"]) as conn:
        table = conn.execute("SELECT relname FROM pg_class WHERE relname LIKE '%\\_bm25'").fetchone()[0]
        chunks = conn.execute(f"SELECT count(*) FROM {table.removesuffix('_bm25')}").fetchone()[0]
        assert conn.execute(f"SELECT n FROM {table}").fetchone()[0] == chunks == len(PAGES)  # emptied, rebuilt


def test_the_service_stops_itself_when_idle_and_its_data_stays(folder, tmp_path):
    first = run(folder, "ask", "Who built the Skerry lighthouse?", idle="3")
    assert first.returncode == 0, first.stderr
    pid = status(folder)["pid"]
    assert wait_until(lambda: running_pid(ServiceFiles(folder)) is None, 60), "still running after 3 s idle"
    assert wait_until(lambda: postgres_pid(folder) is None, 30)  # the embedded server stopped with it
    assert not status(folder)["running"]
    usage = run(folder, "ask")  # a usage error, printed without starting a service
    assert usage.returncode == 2 and "Missing argument" in usage.stderr and "Traceback" not in usage.stderr
    assert not status(folder)["running"]
    late = tmp_path / "late"
    late.mkdir()
    (late / "harbour.md").write_text(LATE_PAGE)
    assert run(folder, "ingest", str(late), idle="0").returncode == 0
    again = run(folder, "ask", "Who is the Skerry harbour master?", "--thread", thread_of(first))
    assert again.returncode == 0 and "Fyfe" in again.stdout and "(continued)" in again.stderr, again.stderr
    assert status(folder)["pid"] != pid


def test_an_ingest_by_another_process_is_seen_by_the_running_service(folder, tmp_path):
    assert run(folder, "ask", "Who built the Skerry lighthouse?").returncode == 0
    late = tmp_path / "late"
    late.mkdir()
    (late / "harbour.md").write_text(LATE_PAGE)
    ingest = run(folder, "ingest", str(late))  # in its own process, on the service's database
    assert ingest.returncode == 0, ingest.stderr
    answer = run(folder, "ask", "Who is the Skerry harbour master?")
    assert answer.returncode == 0 and "Fyfe" in answer.stdout, answer.stdout + answer.stderr
    assert status(folder)["commands"] == 2


def test_ctrl_c_in_the_caller_interrupts_the_served_command(folder):
    assert run(folder, "ask", "Who built the Skerry lighthouse?").returncode == 0  # the service is warm
    proc = subprocess.Popen(
        command("ask", "When does the Skerry ferry sail?"),
        env=environment(folder, "120"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    thread = proc.stderr.readline().split()[1]
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert "Traceback" not in err
    assert proc.returncode in (0, 130), err  # the run may have finished first
    if proc.returncode == 130:
        assert "interrupted" in err
    finished = run(folder, "resume", thread)
    assert finished.returncode in (0, 7), finished.stderr  # finished now, or already done
    assert status(folder)["running"]


@pytest.mark.skipif(not other_user_runs_python(), reason="needs root and a Python that user nobody can run")
def test_the_service_of_another_users_data_folder_is_one_clear_line():
    shared = Path(tempfile.mkdtemp(prefix="shared-data-"))  # under /tmp: the other user can reach it
    try:
        shared.chmod(0o755)
        mine = run(shared, "ask", "Who built the Skerry lighthouse?")  # no database there: an error, but served
        assert mine.returncode != 0 and status(shared)["running"], mine.stderr
        env = environment(shared, "120")
        proc = subprocess.run(
            ["runuser", "-u", "nobody", "--", "env", *(f"{k}={v}" for k, v in env.items()),
             *command("ask", "Who built the Skerry lighthouse?")],
            capture_output=True, text=True, cwd=Path(__file__).parents[1], timeout=120,
        )  # fmt: skip
        assert proc.returncode == 3, proc.stderr
        assert f"{shared}/server.key belongs to another user" in proc.stderr
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    finally:
        run(shared, "server", "stop")
        assert wait_until(lambda: running_pid(ServiceFiles(shared)) is None)
        shutil.rmtree(shared, ignore_errors=True)
