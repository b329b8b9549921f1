"""Shared plumbing of the LLM deciders, over any LangChain chat model.

Every model call goes through :func:`ask_structured` (a reply shaped by a pydantic schema) or
:func:`ask_text`, which bound it: at most ``max_tokens`` of output, a timeout cut to the
question's remaining time (:func:`llm_deadline`, set by the node wrapper), ``max_retries`` more
attempts after a connection error, timeout, rate limit or server error, and no call at all once
the time is spent. OpenAI-compatible endpoints (OpenAI, llama.cpp, vLLM, Ollama's ``/v1``) get the
schema as ``response_format`` (``json_schema``: the server's grammar enforces it); other models use
their own structured output, or JSON parsed from a plain reply. A reply cut short by
``max_tokens`` is still read when its required fields came first (partial JSON parsing).

Whatever a model returns, a decider never raises: an invalid or empty reply, or a call that
failed or had no time left, becomes the model-free decider's choice or the conservative one
(retrieve; keep the query; extractive answer) with a ``note`` saying what happened, which the
trace records.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Iterator, Literal, Sequence, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.utils.json import parse_json_markdown, parse_partial_json
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel, BeforeValidator, Field, ValidationError

from core import telemetry
from core.tuning import TUNING, Tuning
from store.chunks import Chunk

Schema = TypeVar("Schema", bound=BaseModel)

RETRYABLE = ("APIConnectionError", "RateLimitError", "InternalServerError")
"""The ``openai`` failures worth another attempt (``APITimeoutError`` is an ``APIConnectionError``)."""
MIN_CALL_S = 1.0
"""A call is not started with less time than this left before the deadline, in seconds."""

NOSTREAM = {"tags": [TAG_NOSTREAM]}
"""Run config of every decider call: kept off LangGraph's ``stream_mode="messages"`` (routing,
grading and grounding JSON, and drafts not yet checked, are not answer tokens)."""

_deadline: ContextVar[float | None] = ContextVar("llm_deadline", default=None)


@contextmanager
def llm_deadline(seconds_left: float) -> Iterator[None]:
    """Within the block, model calls end within ``seconds_left`` seconds from now: each call's
    timeout is cut to the time left, and none starts with less than :data:`MIN_CALL_S` left.
    Context-local (``contextvars``), so concurrent runs keep their own deadlines."""
    token = _deadline.set(time.monotonic() + seconds_left)
    try:
        yield
    finally:
        _deadline.reset(token)


@dataclass(frozen=True)
class CallLimits:
    """How the LLM deciders call their model (from the process settings, ``AGENTIC_RAG_LLM_*``)."""

    timeout_s: float = 60.0
    """Longest one call may take, in seconds."""
    max_retries: int = 1
    """Further attempts after a retryable failure (:data:`RETRYABLE`)."""
    concurrency: int = 1
    """Calls in flight at once (per-chunk grading)."""
    grading: Literal["batch", "per_chunk"] = "batch"
    """One grading call per hop, or one per chunk plus one for sufficiency."""


DEFAULT_LIMITS = CallLimits()


def brief(chars: int):
    """A ``str`` field type whose JSON schema says ``maxLength: chars`` (a server's grammar then
    stops a model from rambling) and which cuts a longer parsed value instead of rejecting it."""
    return Annotated[str, BeforeValidator(lambda value: str(value)[:chars]), Field(max_length=chars)]


def short_error(exc: BaseException) -> str:
    """``ExceptionType: first line of its message`` (at most 160 characters of it), for notes."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:160]}" if text else type(exc).__name__


def model_name(model: BaseChatModel) -> str:
    """``llm:<model name>`` for traces."""
    name = getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__
    return f"llm:{name}"


class LLMDecider:
    """Base of the LLM deciders: the chat model, the name traces show (``llm:<model class>``), the
    tuning, the call limits, and — when the subclass names a model-free ``fallback`` class — an
    instance of it (built with the same tuning) to answer when the model's reply is unusable."""

    fallback: type | None = None

    def __init__(self, model: BaseChatModel, tuning: Tuning = TUNING, limits: CallLimits = DEFAULT_LIMITS) -> None:
        self.model = model
        self.name = model_name(model)
        self.tuning = tuning
        self.limits = limits
        self._fallback = self.fallback(tuning) if self.fallback else None

    def ask(self, schema: type[Schema], system: str, user: str, max_tokens: int | None = None):
        """:func:`ask_structured` with this decider's model and limits (``max_tokens`` defaults
        to ``tuning.llm_decision_tokens``)."""
        tokens = max_tokens or self.tuning.llm_decision_tokens
        return ask_structured(self.model, schema, system, user, tokens, self.limits)

    def ask_text(self, system: str, user: str, max_tokens: int) -> tuple[str | None, str | None]:
        """:func:`ask_text` with this decider's model and limits."""
        return ask_text(self.model, system, user, max_tokens, self.limits)


def _attempts(model: BaseChatModel, max_tokens: int, limits: CallLimits) -> Iterator[dict | str]:
    """Per attempt, the keyword arguments of one call (``max_tokens`` and ``timeout`` for
    OpenAI-compatible models), or a note (a str) when no time is left for it."""
    for _ in range(1 + limits.max_retries):
        deadline = _deadline.get()
        left = limits.timeout_s if deadline is None else min(limits.timeout_s, deadline - time.monotonic())
        if left < MIN_CALL_S:
            yield "no time left for the model call (time limit)"
            return
        yield {"max_tokens": max_tokens, "timeout": left} if _openai_compatible(model) else {}


def _openai_compatible(model: BaseChatModel) -> bool:
    """Whether ``model`` is a ``langchain_openai`` chat model (OpenAI and compatible servers).
    Read from the loaded modules: such a model imported ``langchain_openai``, and a process
    without one (the model-free deciders) does not pay its import (~0.5 s)."""
    base = sys.modules.get("langchain_openai.chat_models.base")
    return base is not None and isinstance(model, base.BaseChatOpenAI)


def _retryable(exc: Exception) -> bool:
    """Whether ``exc`` is one of the ``openai`` failures of :data:`RETRYABLE`."""
    openai = sys.modules.get("openai")
    return openai is not None and isinstance(exc, tuple(getattr(openai, name) for name in RETRYABLE))


def _call(model: BaseChatModel, run, max_tokens: int, limits: CallLimits):
    """:func:`_attempt`, traced as one inference span (:func:`core.telemetry.inference`)."""
    with telemetry.inference(model, max_tokens):
        return _attempt(model, run, max_tokens, limits)


def _attempt(model: BaseChatModel, run, max_tokens: int, limits: CallLimits):
    """``run(options)`` under the attempts of :func:`_attempts`. Returns (result, None) or
    (None, note)."""
    note = None
    for options in _attempts(model, max_tokens, limits):
        if isinstance(options, str):  # no time left: say why the earlier attempt failed too
            return None, f"{note}; then {options}" if note else options
        try:
            return run(options), None
        except Exception as exc:  # providers raise many types; the decider falls back
            if not _retryable(exc):
                return None, f"model call failed ({short_error(exc)})"
            note = f"model call failed ({short_error(exc)})"
    return None, note


def parse_reply(schema: type[Schema], text: str) -> tuple[Schema | None, str | None]:
    """``schema`` read from a reply's JSON (in a code fence or not; cut short or not)."""
    try:
        try:
            data = parse_json_markdown(text)
        except ValueError:
            data = parse_partial_json(text.strip().removeprefix("```json").strip("` \n"))
        if data is None:
            raise ValueError("no JSON object in the reply")
        return schema.model_validate(data), None
    except (ValidationError, ValueError) as exc:
        return None, f"invalid reply ({short_error(exc)})"


def ask_structured(
    model: BaseChatModel,
    schema: type[Schema],
    system: str,
    user: str,
    max_tokens: int = TUNING.llm_decision_tokens,
    limits: CallLimits = DEFAULT_LIMITS,
) -> tuple[Schema | None, str | None]:
    """Ask for a reply shaped as ``schema`` (see the module docstring for the bounds).

    Returns:
        (parsed reply, None) on success; (None, note) when no valid reply came. Never raises
        for model errors.
    """
    messages = [SystemMessage(system), HumanMessage(user)]

    def run(options: dict) -> tuple[Schema | None, str | None]:
        if _openai_compatible(model):  # the schema as response_format; read even when cut short
            format_ = {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
            }
            return parse_reply(
                schema, str(model.invoke(messages, NOSTREAM, response_format=format_, **options).content)
            )
        else:
            try:
                structured = model.with_structured_output(schema, include_raw=True)
            except NotImplementedError:  # no structured output: parse JSON from plain text
                return parse_reply(schema, str(model.invoke(messages, NOSTREAM).content))
        out = structured.invoke(messages, NOSTREAM)
        if isinstance(out.get("parsed"), schema):
            return out["parsed"], None
        return parse_reply(schema, str(out["raw"].content))

    result, note = _call(model, run, max_tokens, limits)
    return result if result is not None else (None, note)


def ask_text(
    model: BaseChatModel, system: str, user: str, max_tokens: int, limits: CallLimits = DEFAULT_LIMITS
) -> tuple[str | None, str | None]:
    """A plain-text reply (stripped), bounded as :func:`ask_structured`'s.

    Returns:
        (text, None), or (None, note) when the call failed or had no time left.
    """
    messages = [SystemMessage(system), HumanMessage(user)]

    def run(options: dict) -> str:
        return str(model.invoke(messages, NOSTREAM, **options).content).strip()

    return _call(model, run, max_tokens, limits)


def format_conversation(conversation: Sequence[BaseMessage], turns: int = 6) -> str:
    """The last ``turns`` messages as ``type: content`` lines (``(none)`` when empty)."""
    lines = [f"{m.type}: {m.content}" for m in conversation[-turns:]]
    return "\n".join(lines) or "(none)"


def provenance(chunk: Chunk) -> str:
    """``title: …`` (and ``; version: …`` when the chunk has one): the metadata line a model is
    shown above a passage. Local paths and ingestion times are left out: small models copy them
    into answers."""
    version = f"; version: {chunk['version']}" if chunk.get("version") else ""
    return f"title: {chunk['title']}{version}"


def format_evidence(evidence: Sequence[Chunk], passage_chars: int = TUNING.llm_passage_chars) -> str:
    """The evidence as numbered passages, ``[n] <metadata line>`` then the text cut to
    ``passage_chars`` characters (``(no evidence)`` when empty)."""
    return (
        "\n\n".join(f"[{i}] {provenance(c)}\n{c['text'][:passage_chars]}" for i, c in enumerate(evidence, 1))
        or "(no evidence)"
    )
