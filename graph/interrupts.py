"""Human-in-the-loop: what a reviewer sees at each interrupt, and what they may answer.

Interrupts use LangGraph's ``interrupt()`` and are resumed with ``Command(resume=VALUE)``. They are
off by default; each is switched on per run in :class:`graph.context.RunContext`. The payload a
reviewer sees is a ``RouteReview``, ``StopReview`` or ``AnswerReview`` (below), each with
``accepts`` (the values allowed) and ``error`` (why the previous answer was refused, if it was).

* ``review_route`` — after the router decided. Accepts ``"approve"`` or
  ``{"action": "override", "route": "retrieve" | "direct"}``.
* ``review_stop`` — the loop stopped without enough evidence (retries spent, no progress,
  repeated query, time limit). Accepts ``{"action": "query", "query": "…"}`` (one more hop, at
  most ``MAX_HUMAN_HOPS`` per question), ``"accept"`` (answer from what was found) or ``"stop"``.
* ``review_answer`` — a draft answer is ready. Accepts ``"approve"``,
  ``{"action": "edit", "answer": "…"}`` or ``{"action": "drop", "chunk_ids": ["…"]}`` (regenerate
  without those chunks).

A bare string is shorthand for ``{"action": string}``. An invalid value does not fail the run:
the node interrupts again with the same payload and ``error`` saying what was wrong, so the
thread stays resumable. Interrupting nodes do only cheap, idempotent work before ``interrupt()``
(LangGraph re-runs a node from its start on resume), so every model call and write happens once
per review round.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Literal, TypedDict, TypeVar

from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from store.chunks import Chunk

SNIPPET_CHARS = 300


class EvidenceView(TypedDict):
    chunk_id: str
    title: str
    source: str
    snippet: str
    """The first ``SNIPPET_CHARS`` characters of the chunk."""


class RouteReview(TypedDict):
    kind: Literal["route"]
    question: str
    route: str
    reason: str
    accepts: str
    error: str | None


class StopReview(TypedDict):
    kind: Literal["stop"]
    question: str
    stop_reason: str
    tried_queries: list[str]
    hops: int
    extra_hops_left: int
    """Further hops the reviewer may still grant after answering this one with a query."""
    evidence: list[EvidenceView]
    accepts: str
    error: str | None


class AnswerReview(TypedDict):
    kind: Literal["answer"]
    question: str
    answer: str
    citations: list[dict]
    stop_reason: str | None
    evidence: list[EvidenceView]
    accepts: str
    error: str | None


ROUTE_ACCEPTS = '"approve" or {"action": "override", "route": "retrieve" | "direct"}'
STOP_ACCEPTS = '{"action": "query", "query": "<new search>"}, "accept" (answer from what was found) or "stop"'
ANSWER_ACCEPTS = '"approve", {"action": "edit", "answer": "<text>"} or {"action": "drop", "chunk_ids": ["<id>", ...]}'


class DecisionIn(BaseModel):
    """A reviewer's decision: an ``action`` and the fields it needs (:attr:`needs`)."""

    model_config = ConfigDict(extra="forbid")
    action: str
    needs: ClassVar[dict[str, str]] = {}
    """action → the field it needs, which must be non-empty (not blank, not an empty list)."""

    @model_validator(mode="after")
    def _fields_for_action(self) -> "DecisionIn":
        field = self.needs.get(self.action)
        value = getattr(self, field) if field else True
        if not (value.strip() if isinstance(value, str) else value):
            raise ValueError(f'"{self.action}" needs a non-empty "{field}"')
        return self


class RouteDecisionIn(DecisionIn):
    action: Literal["approve", "override"]
    route: Literal["retrieve", "direct"] | None = None
    needs: ClassVar[dict[str, str]] = {"override": "route"}


class StopDecisionIn(DecisionIn):
    action: Literal["query", "accept", "stop"]
    query: str | None = None
    needs: ClassVar[dict[str, str]] = {"query": "query"}


class AnswerDecisionIn(DecisionIn):
    action: Literal["approve", "edit", "drop"]
    answer: str | None = None
    chunk_ids: list[str] | None = None
    needs: ClassVar[dict[str, str]] = {"edit": "answer", "drop": "chunk_ids"}


Decision = TypeVar("Decision", bound=BaseModel)
MODELS: dict[str, type[BaseModel]] = {"route": RouteDecisionIn, "stop": StopDecisionIn, "answer": AnswerDecisionIn}
ACCEPTS = {"route": ROUTE_ACCEPTS, "stop": STOP_ACCEPTS, "answer": ANSWER_ACCEPTS}


class InvalidResumeError(ValueError):
    """A resume value that the pending interrupt does not accept."""


def parse_decision(kind: str, value: Any, check: Callable[[Any], str | None] | None = None) -> BaseModel:
    """Validate a resume value for an interrupt of ``kind``.

    Args:
        kind: ``route``, ``stop`` or ``answer``.
        value: a bare action string or a dict.
        check: optional extra check on the parsed decision, returning an error message or ``None``.

    Raises:
        InvalidResumeError: the value is not accepted; the message lists what is.
    """
    model = MODELS[kind]
    raw = {"action": value.strip().lower()} if isinstance(value, str) else value
    try:
        decision = model.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
        raise InvalidResumeError(f"invalid answer {value!r} ({problems}); accepted: {ACCEPTS[kind]}") from None
    problem = check(decision) if check else None
    if problem:
        raise InvalidResumeError(f"invalid answer {value!r}: {problem}")
    return decision


def ask_reviewer(payload: dict, check: Callable[[Any], str | None] | None = None) -> BaseModel:
    """Interrupt with ``payload`` until the reviewer's answer is valid; returns the decision.

    Each invalid answer is followed by a new interrupt carrying ``error``; LangGraph matches
    resume values to ``interrupt()`` calls by order, so this loop replays correctly on resume.
    """
    error = None
    while True:
        value = interrupt({**payload, "error": error})
        try:
            return parse_decision(payload["kind"], value, check)
        except InvalidResumeError as exc:
            error = str(exc)


def evidence_views(chunks: list[Chunk], describe: Callable[[Chunk], str] = lambda c: c["source"]) -> list[EvidenceView]:
    """What the reviewer sees of each chunk."""
    return [
        EvidenceView(chunk_id=c["chunk_id"], title=c["title"], source=describe(c), snippet=c["text"][:SNIPPET_CHARS])
        for c in chunks
    ]
