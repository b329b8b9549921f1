"""Loop control: the caps that end the retrieve → grade → reformulate loop.

Every cap is code, checked after each graded hop and after each reformulation; whichever fires
is recorded as ``stop_reason``. A question therefore takes at most
:meth:`RunContext.step_bound` steps, whatever any model returns.
"""

from __future__ import annotations

from typing import Literal

from agentic_rag.errors import InvalidQuestionError
from deciders.text import normalise_query
from graph.config import RunContext
from graph.state import AgentState

StopReason = Literal[
    "no_retrieval",  # routed to a direct reply
    "sufficient_evidence",  # the grader judged the kept evidence enough
    "evidence_budget",  # evidence full, and the last hop brought nothing better
    "time_limit",
    "no_progress",  # the last hop's chunks overlapped earlier ones ≥ overlap_stop
    "max_retries",
    "repeated_query",  # the reformulator produced a query already tried
]
ANSWER_STOPS = {"sufficient_evidence", "evidence_budget"}
"""Stops after which the generator answers; after the others it answers in caveat mode."""


def validate_question(question: object, max_chars: int) -> str:
    """The question stripped of outer whitespace.

    Raises:
        InvalidQuestionError: not a string, empty or whitespace, or longer than ``max_chars``.
    """
    if not isinstance(question, str) or not question.strip():
        raise InvalidQuestionError("the question is empty; ask a question in words")
    if len(question) > max_chars:
        raise InvalidQuestionError(
            f"the question is {len(question):,} characters, over the limit of {max_chars:,}; "
            "shorten it or raise max_question_chars"
        )
    return question.strip()


def stop_after_grade(state: AgentState, ctx: RunContext) -> str | None:
    """The stop reason after a graded hop, or ``None`` to reformulate and search again."""
    trace = state.get("trace") or [{}]
    last = trace[-1]
    if state.get("sufficient"):
        return "sufficient_evidence"
    if len(state.get("evidence", [])) >= ctx.max_evidence and last.get("admitted", 0) == 0:
        return "evidence_budget"
    if state.get("elapsed_ms", 0.0) >= ctx.time_limit_s * 1000:
        return "time_limit"
    if last.get("overlap", 0.0) >= ctx.overlap_stop:  # 0 on the first hop: nothing seen yet
        return "no_progress"
    if state.get("retries", 0) >= ctx.max_retries:
        return "max_retries"
    return None


def is_repeated(query: str, tried: list[str]) -> bool:
    """Whether ``query`` equals a tried query after normalisation (case, punctuation, stop
    words, stemming and word order are ignored)."""
    normal = normalise_query(query)
    return any(normalise_query(t) == normal for t in tried)
