"""OpenTelemetry traces and metrics of every hop, named after the GenAI semantic conventions
(open-telemetry/semantic-conventions-genai v0.1.0). One trace per question (:func:`question`):

- ``invoke_workflow agentic_rag``, the root (``gen_ai.conversation.id`` = thread id), with the
  outcome as ``agentic_rag.*`` attributes (route, stop reason, hops, abstained, LLM calls, …);
- a span per graph node (:func:`node`), its decisions as attributes and events (``agentic_rag.hop``:
  the hop's trace entry with the grader's verdicts; ``agentic_rag.note``: a fallback taken);
- ``execute_tool search|graph_hop`` (:func:`tool`) and, in a search, ``retrieval {collection}``
  (:func:`retrieval`: ``gen_ai.retrieval.top_k``; opt-in, query text and chunk ids with scores);
- ``chat {model}`` (:func:`inference`) per bounded model call, retries included, with token usage.

Failures carry ``error.type`` and an error status. Metrics: ``gen_ai.client.operation.duration``,
``gen_ai.client.token.usage``, ``gen_ai.execute_tool.duration``, ``gen_ai.invoke_agent.duration``;
per finished question ``agentic_rag.question.hops`` and ``.llm_calls`` (histograms), ``.stops``
(counter by ``agentic_rag.stop_reason``) and ``.abstentions``. Off unless :func:`use` is given
providers (:func:`core.telemetry_export.configure_telemetry` does it from the ``OTEL_*``
settings); when off, every hook returns one shared no-op object.
"""

from __future__ import annotations

import json
import time
from contextvars import ContextVar
from typing import Any, Mapping

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers.context import register_configure_hook
from opentelemetry import context, trace
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.trace import SpanKind, StatusCode

AGENT_NAME = "agentic_rag"
"""``gen_ai.agent.name`` of the root span."""
TOOLS = {
    "search": "hybrid BM25 + dense search of the collection's chunks",
    "graph_hop": "mention links from evidence chunks to chunks about the entities they name",
}
"""The agent's tools traced by :func:`tool`, with their ``gen_ai.tool.description``."""
_SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]
_TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]
_DECISIONS = ("route", "complexity", "hops", "retries", "abstained", "confidence")
"""Node update fields recorded as ``agentic_rag.<field>`` on the node's span."""
_CONTENT = frozenset({"query", "query_reason", "next_query_reason", "links"})
"""Hop trace fields holding query or document text: on events only with content capture."""

_on: _Telemetry | None = None
_question: ContextVar[_Question | None] = ContextVar("telemetry_question", default=None)
_usage: ContextVar[_UsageHandler | None] = ContextVar("telemetry_usage", default=None)


class _Noop:
    """What every hook returns when telemetry is off: a context manager that records nothing."""

    __slots__ = ()

    def __enter__(self) -> _Noop:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def _same(self, value: Any) -> Any:
        return value

    finish = found = record = _same


NOOP = _Noop()


class _Telemetry:
    """The tracer and the instruments, from the providers."""

    def __init__(self, tracer_provider: Any, meter_provider: Any, capture: bool) -> None:
        self.tracer = tracer_provider.get_tracer(__name__)
        self.capture = capture
        meter = meter_provider.get_meter(__name__)

        def hist(name: str, unit: str, description: str, buckets: list) -> Any:
            return meter.create_histogram(name, unit, description, explicit_bucket_boundaries_advisory=buckets)

        self.operation = hist("gen_ai.client.operation.duration", "s", "GenAI operation duration", _SECONDS)
        self.tokens = hist("gen_ai.client.token.usage", "{token}", "Tokens used per model call", _TOKENS)
        self.tool = hist("gen_ai.execute_tool.duration", "s", "Tool execution duration", _SECONDS)
        self.agent = hist("gen_ai.invoke_agent.duration", "s", "Duration of one question's run", _SECONDS)
        self.hops = hist("agentic_rag.question.hops", "{hop}", "Retrieval hops per question", list(range(9)))
        self.llm_calls = hist("agentic_rag.question.llm_calls", "{call}", "LLM calls per question", [0, 1, 2, 4, 8])
        self.stops = meter.create_counter("agentic_rag.question.stops", "{question}", "Questions by stop reason")
        self.abstentions = meter.create_counter("agentic_rag.question.abstentions", "{question}", "Abstentions")


class _Span:
    """A span made current for a with-block; on an exception, ``error.type`` (its class) and an
    error status. Subclasses add attributes and record metrics in :meth:`closing`."""

    kind = SpanKind.INTERNAL

    def __init__(self, t: _Telemetry, name: str, attributes: dict) -> None:
        self.t, self.name, self.attributes = t, name, attributes
        self.error: str | None = None

    def __enter__(self) -> _Span:
        self.start = time.perf_counter()
        self.span = self.t.tracer.start_span(self.name, kind=self.kind, attributes=self.attributes)
        self._token = context.attach(trace.set_span_in_context(self.span))
        return self

    def __exit__(self, exc_type: type | None, exc: BaseException | None, tb: object) -> None:
        context.detach(self._token)
        if exc is not None:
            self.error = exc_type.__qualname__
            self.span.record_exception(exc)
        if self.error:
            self.span.set_attribute("error.type", self.error)
            self.span.set_status(StatusCode.ERROR)
        self.closing(time.perf_counter() - self.start, {"error.type": self.error} if self.error else {})
        self.span.end()

    def closing(self, seconds: float, error: dict) -> None:
        pass

    def found(self, items: list) -> list:
        """Record how many results the operation returned; returns ``items``."""
        self.span.set_attribute("agentic_rag.results", len(items))
        return items


class _Question(_Span):
    def __enter__(self) -> _Question:
        super().__enter__()
        self.calls: list[int] = []  # appended from worker threads (list.append is atomic)
        self._qtoken = _question.set(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _question.reset(self._qtoken)
        super().__exit__(*exc)

    def closing(self, seconds: float, error: dict) -> None:
        self.t.agent.record(seconds, {"gen_ai.operation.name": "invoke_workflow", **error})

    def finish(self, result: dict) -> dict:
        """Record the question's outcome (an :meth:`agentic_rag.app.App.result` dict) on the root
        span and, for a finished run, in the per-question metrics. Returns ``result``."""
        keys = ("status", "route", "stop_reason", "hops", "retries", "abstained", "confidence", "complexity")
        self.span.set_attributes({f"agentic_rag.{k}": result[k] for k in keys if _scalar(result.get(k))})
        self.span.set_attribute("agentic_rag.llm_calls", len(self.calls))
        if result.get("status") == "done":
            self.t.hops.record(result.get("hops") or 0)
            self.t.llm_calls.record(len(self.calls))
            self.t.stops.add(1, {"agentic_rag.stop_reason": result.get("stop_reason") or "none"})
            if result.get("abstained"):
                self.t.abstentions.add(1)
        return result


class _Node(_Span):
    def record(self, update: dict) -> None:
        """Record a node's decisions: the fields of :data:`_DECISIONS` as attributes, each hop
        trace entry as an ``agentic_rag.hop`` event, each note as an ``agentic_rag.note`` event."""
        self.span.set_attributes({f"agentic_rag.{k}": update[k] for k in _DECISIONS if _scalar(update.get(k))})
        trace_entries, notes = update.get("trace"), update.get("notes")  # a reset is an Overwrite, not a list
        for entry in trace_entries if isinstance(trace_entries, list) else ():
            self.span.add_event("agentic_rag.hop", _flatten(entry, self.t.capture))
        for note in notes if isinstance(notes, list) else ():
            self.span.add_event("agentic_rag.note", {"message": note})


class _Tool(_Span):
    def closing(self, seconds: float, error: dict) -> None:
        self.t.tool.record(seconds, {"gen_ai.tool.name": self.attributes["gen_ai.tool.name"], **error})


class _Retrieval(_Span):
    def found(self, items: list) -> list:
        super().found(items)
        if self.t.capture:
            documents = [{"id": c["chunk_id"], "score": c["score"]} for c in items]
            self.span.set_attribute("gen_ai.retrieval.documents", json.dumps(documents))
        return items


class _Inference(_Span):
    kind = SpanKind.CLIENT

    def __enter__(self) -> _Inference:
        super().__enter__()
        self.usage = _UsageHandler(_question.get())
        self._utoken = _usage.set(self.usage)
        return self

    def __exit__(self, *exc: Any) -> None:
        _usage.reset(self._utoken)
        # the decider never raises: the last attempt's error, or no attempt at all (no time left)
        self.error = self.usage.error if self.usage.started else "time_limit"
        super().__exit__(*exc)

    def closing(self, seconds: float, error: dict) -> None:
        keys = ("gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model")
        attributes = {k: self.attributes[k] for k in keys}
        usage = self.usage
        if usage.model:
            self.span.set_attribute("gen_ai.response.model", usage.model)
            attributes["gen_ai.response.model"] = usage.model
        if usage.finish_reasons:
            self.span.set_attribute("gen_ai.response.finish_reasons", usage.finish_reasons)
        self.t.operation.record(seconds, {**attributes, **error})
        if usage.reported:
            self.span.set_attributes(
                {"gen_ai.usage.input_tokens": usage.input, "gen_ai.usage.output_tokens": usage.output}
            )
            self.t.tokens.record(usage.input, {**attributes, "gen_ai.token.type": "input"})
            self.t.tokens.record(usage.output, {**attributes, "gen_ai.token.type": "output"})


def _scalar(value: object) -> bool:
    return isinstance(value, (str, bool, int, float))


def _flatten(entry: Mapping, capture: bool) -> dict:
    """Event attributes from a hop trace entry: scalars and lists of strings as they are, other
    values as JSON; the :data:`_CONTENT` fields only with ``capture``."""
    out: dict = {}
    for key, value in entry.items():
        if value is None or (key in _CONTENT and not capture):
            continue
        if _scalar(value) or (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
            out[key] = value
        else:
            out[key] = json.dumps(value, default=str)
    return out


class _UsageHandler(BaseCallbackHandler):
    """Reads each reply's token usage, model and finish reason (or an attempt's error) into the
    current :func:`inference` span, and counts the call for the question. Attached to every
    LangChain run while the span is open by ``register_configure_hook``, as LangChain's own
    ``get_usage_metadata_callback`` is."""

    def __init__(self, question: _Question | None) -> None:
        self.question, self.input, self.output, self.reported, self.started = question, 0, 0, False, False
        self.model: str | None = None
        self.error: str | None = None
        self.finish_reasons: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.started = True

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self.error = type(error).__qualname__

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.error = None  # a retry succeeded
        message = getattr((response.generations or [[None]])[0][0], "message", None)
        usage = getattr(message, "usage_metadata", None)
        if usage:
            self.input += usage.get("input_tokens", 0)
            self.output += usage.get("output_tokens", 0)
            self.reported = True
        metadata = getattr(message, "response_metadata", None) or {}
        self.model = metadata.get("model_name") or self.model
        if metadata.get("finish_reason"):
            self.finish_reasons.append(metadata["finish_reason"])
        if self.question is not None:
            self.question.calls.append(1)


register_configure_hook(_usage, inheritable=True)


def question(thread_id: str) -> _Question | _Noop:
    """Root span of one question's run on ``thread_id``; call ``finish(result)`` on it."""
    if _on is None:
        return NOOP
    attributes = {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.agent.name": AGENT_NAME,
        "gen_ai.conversation.id": thread_id,
    }
    return _Question(_on, f"invoke_workflow {AGENT_NAME}", attributes)


def node(name: str) -> _Node | _Noop:
    """Span of one graph node's body; call ``record(update)`` with the update it returns."""
    return NOOP if _on is None else _Node(_on, name, {"agentic_rag.node": name})


def tool(name: str) -> _Tool | _Noop:
    """``execute_tool`` span of one of the agent's tools (:data:`TOOLS`)."""
    if _on is None:
        return NOOP
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": "datastore"}
    attributes["gen_ai.tool.description"] = TOOLS[name]
    return _Tool(_on, f"execute_tool {name}", attributes)


def retrieval(data_source: str, query: str, top_k: int) -> _Retrieval | _Noop:
    """``retrieval`` span of one search of ``data_source`` (the collection) for the ``top_k``
    best chunks; call ``found(chunks)`` with what it returned."""
    if _on is None:
        return NOOP
    attributes: dict = {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.data_source.id": data_source,
        "gen_ai.retrieval.top_k": top_k,
    }
    if _on.capture:
        attributes["gen_ai.retrieval.query.text"] = query
    return _Retrieval(_on, f"retrieval {data_source}", attributes)


def inference(model: Any, max_tokens: int) -> _Inference | _Noop:
    """``chat {model}`` span of one bounded call of a LangChain chat model (all its attempts);
    provider and model name from LangChain's tracing parameters (``ls_provider``,
    ``ls_model_name``); ``error.type`` from the last attempt's error, or ``time_limit`` when no
    attempt was made."""
    if _on is None:
        return NOOP
    params = model._get_ls_params() if hasattr(model, "_get_ls_params") else {}
    name = params.get("ls_model_name") or type(model).__name__
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": params.get("ls_provider") or type(model).__name__.lower(),
        "gen_ai.request.model": name,
        "gen_ai.request.max_tokens": max_tokens,
    }
    return _Inference(_on, f"chat {name}", attributes)


def use(tracer_provider: Any = None, meter_provider: Any = None, capture_content: bool = False) -> None:
    """Send telemetry to these OpenTelemetry SDK providers (tests, or an application that set up
    its own SDK, see :func:`core.telemetry_export.configure_telemetry`); with neither, switch telemetry off.

    Args:
        tracer_provider, meter_provider: ``opentelemetry.sdk`` providers (or any API ones).
        capture_content: record query texts and retrieved chunk ids with scores (opt-in).
    """
    global _on
    if tracer_provider is None and meter_provider is None:
        _on = None
        return
    _on = _Telemetry(
        tracer_provider or trace.NoOpTracerProvider(), meter_provider or NoOpMeterProvider(), capture_content
    )


def active() -> bool:
    """Whether telemetry is on."""
    return _on is not None
