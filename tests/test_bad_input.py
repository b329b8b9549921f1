"""Bad input a new user gives (issue 51): checkpoints written through the raw LangGraph API,
mistyped thread ids, exclusion patterns and statuses, and the collections a user lists and
deletes. Each through the ``agentic-rag`` command as a user runs it (real processes, the real
embedded database), asserting the message and that nothing was lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from agentic_rag.app import App
from core.errors import ConfigurationError, IngestError, ThreadError
from core.settings import Settings

COLLECTION = "bad_input"

KEA = "# Kea\n\nThe kea is a large parrot native to the South Island of New Zealand.\n"
TUI = "# Tui\n\nThe tui is a songbird whose song mixes bell notes with clicks and wheezes.\n"


def run_cli(data_dir: Path, *args: str, collection: str = COLLECTION, stdin: str | None = None):
    """``agentic-rag ARGS`` in a process of its own: offline, on the session's embedded database."""
    env = {**os.environ, "AGENTIC_RAG_DATA_DIR": str(data_dir), "AGENTIC_RAG_COLLECTION": collection}
    for name in ("AGENTIC_RAG_CHAT_MODEL", "OPENAI_API_KEY", "DATABASE_URL"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "agentic_rag.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def error_line(proc: subprocess.CompletedProcess) -> str:
    """The one ``error: …`` line a failed command prints (no traceback)."""
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def docs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("birds")
    (folder / "kea.md").write_text(KEA)
    (folder / "tui.md").write_text(TUI)
    return folder


@pytest.fixture(scope="module")
def birds(data_dir, docs) -> Iterator[App]:
    """Collection ``bad_input`` over two short pages, ingested once for the module."""
    app = App(Settings(data_dir=data_dir, collection=COLLECTION))
    app.ingest([docs])
    yield app
    app.close()


def test_history_shows_a_checkpoint_written_through_the_raw_api(birds, data_dir):
    """Item 4: ``app.graph.update_state(cfg, {"evidence": None})`` made ``history`` exit 1 with
    a TypeError; values the graph never writes are shown, not raised on."""
    asked = birds.ask("Where does the kea live?", thread_id="raw-api-edit")
    assert asked["citations"]
    config = {"configurable": {"thread_id": "raw-api-edit"}}
    birds.graph.update_state(config, {"evidence": None, "query": 42, "question": None})
    assert birds.graph.get_state(config).values["evidence"] is None

    human = run_cli(data_dir, "history", "raw-api-edit")
    assert human.returncode == 0, human.stderr
    last = human.stdout.splitlines()[-1]
    assert 'query="42" evidence=0' in last and "Traceback" not in human.stderr
    rows = json.loads(run_cli(data_dir, "history", "raw-api-edit", "--json").stdout)
    assert rows[-1]["evidence"] == [] and rows[-1]["query"] == "42"
    assert len(rows[-2]["evidence"]) >= 1  # the checkpoints before the edit are shown as they were
    listed = run_cli(data_dir, "threads", "--limit", "100")
    assert listed.returncode == 0 and "raw-api-edit" in listed.stdout, listed.stderr
