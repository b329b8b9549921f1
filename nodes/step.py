"""The wrapper every node body runs in: run settings, timing, time charged to the question."""

from __future__ import annotations

import time
from typing import Callable

from langgraph.runtime import Runtime

from core import telemetry
from deciders.llm import llm_deadline
from graph.context import RunContext, run_context, turn_context
from graph.state import AgentState

NodeBody = Callable[[AgentState, RunContext], dict]


def node(body: NodeBody | None = None, *, new_turn: bool = False) -> Callable:
    """Wrap a node body ``(state, ctx) -> update`` into a LangGraph node ``(state, runtime)``.

    The wrapper resolves the run settings (``ctx``: the ones the question started with, or for
    the node that opens a turn, ``new_turn``, the run's), bounds the body's model calls by the
    question's remaining time (:func:`deciders.llm.llm_deadline`), traces it (a span named after the
    body, :func:`core.telemetry.node`), times the body, and charges the time
    to the question (``elapsed_ms``, plus any ``elapsed_ms`` the body reports for work done
    elsewhere, such as parallel searches) and to each hop trace entry the body returns without
    a time of its own. Each trace entry is also written to LangGraph's ``stream_mode="custom"``
    as ``{"node": name, **entry}`` (query and new chunks from a search, verdicts from grading,
    links, the next query).
    """

    def wrap(fn: NodeBody) -> Callable:
        def run(state: AgentState, runtime: Runtime[RunContext]) -> dict:
            ctx = run_context(runtime.context) if new_turn else turn_context(state, runtime.context)
            before = 0.0 if new_turn else state.get("elapsed_ms", 0.0)
            start = time.perf_counter()
            with telemetry.node(fn.__name__) as span, llm_deadline(ctx.time_limit_s - before / 1000):
                update = fn(state, ctx)
                span.record(update)
            ms = round((time.perf_counter() - start) * 1000, 2)
            if isinstance(update.get("trace"), list):
                update["trace"] = [{"elapsed_ms": ms, **entry} for entry in update["trace"]]
                for entry in update["trace"]:  # stream_mode="custom": each hop's progress as it happens
                    runtime.stream_writer({"node": fn.__name__, **entry})
            update["elapsed_ms"] = before + update.get("elapsed_ms", 0.0) + ms
            return update

        # not functools.wraps: LangGraph reads the wrapper's own signature to pass ``runtime``
        run.__name__, run.__qualname__, run.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        return run

    return wrap(body) if body is not None else wrap


def with_note(update: dict, label: str, note: str | None, trace_key: str | None = None) -> dict:
    """Record a decider's note (a fallback taken, a model call that failed) on ``update``: in the
    run's notes as ``"label: note"`` and, with ``trace_key``, in the update's last trace entry.
    Returns ``update``; without a note it is unchanged."""
    if note:
        update["notes"] = [*update.get("notes", []), f"{label}: {note}"]
        if trace_key:
            update["trace"][-1][trace_key] = note
    return update
