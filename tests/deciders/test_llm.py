"""Bounds on every model call (deciders/llm.py): time left, retries, output length, partial replies."""

from __future__ import annotations

import socket
import time

from conftest import scripted
from langchain_openai import ChatOpenAI
from pydantic import BaseModel

from deciders.llm import CallLimits, ask_structured, ask_text, brief, llm_deadline, parse_reply
from prompts import router


class Reply(BaseModel):
    route: str
    reason: brief(20) = ""


def test_no_call_starts_once_the_question_s_time_is_spent():
    model = scripted(route='{"route": "retrieve"}')
    with llm_deadline(0.5):
        out, note = ask_structured(model, Reply, router.SYSTEM, "user")
    assert out is None and note == "no time left for the model call (time limit)" and model.calls == {}
    with llm_deadline(30):
        assert ask_structured(model, Reply, router.SYSTEM, "user")[0].route == "retrieve"


def test_a_refused_connection_is_retried_within_the_limits_then_reported():
    with socket.socket() as closed:  # a port nothing listens on: every connection is refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    model = ChatOpenAI(model="m", api_key="x", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    start = time.monotonic()
    out, note = ask_text(model, "system", "user", 50, CallLimits(timeout_s=7, max_retries=2))
    assert out is None and note == "model call failed (OpenAIConnectionError: Connection error.)"
    assert time.monotonic() - start < 5  # three quick refusals, no client-side retry loop on top


def test_a_call_that_would_overrun_the_question_s_time_is_cut():
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        model = ChatOpenAI(model="m", api_key="x", base_url=url, max_retries=0)
        start = time.monotonic()
        with llm_deadline(2.5):
            out, note = ask_text(model, "system", "user", 50, CallLimits(timeout_s=60, max_retries=3))
        elapsed = time.monotonic() - start
    assert out is None and note.startswith("model call failed (OpenAITimeoutError")  # the first attempt's failure
    assert note.endswith("; then no time left for the model call (time limit)")  # and why no retry followed
    assert 2.4 < elapsed < 4.5  # the call was cut at the deadline, not at the 60 s timeout


def test_a_reply_cut_short_by_max_tokens_is_read_when_its_required_fields_came_first():
    cut = '{"route": "retrieve", "reason": "a very long reas'
    assert parse_reply(Reply, cut)[0].route == "retrieve"
    assert parse_reply(Reply, '```json\n{"route": "direct"}\n```')[0].route == "direct"
    assert parse_reply(Reply, '{"reason": "no route"}')[1].startswith("invalid reply (ValidationError")
    assert Reply(route="x", reason="y" * 50).reason == "y" * 20  # a rambling field is cut, not rejected
    assert Reply.model_json_schema()["properties"]["reason"]["maxLength"] == 20  # and the server's grammar bounds it
