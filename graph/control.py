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
    "single_retrieval",  # adaptive routing: a single-retrieval question after its one hop
    "stopped_by_reviewer",
]
ANSWER_STOPS = {"sufficient_evidence", "evidence_budget", "single_retrieval"}
"""Stops after which the generator answers; after the others it answers in caveat mode."""
MAX_HUMAN_HOPS = 2
"""Extra hops a reviewer may grant per question at the stop review."""
CAVEAT_SHOWN = 3
"""Chunks of the last hop shown in a caveat answer when no evidence was kept."""


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
            "shorten it (or raise the run setting max_question_chars, from Python or Studio)"
        )
    return question.strip()


def stop_after_grade(state: AgentState, ctx: RunContext) -> str | None:
    """The stop reason after a graded hop, or ``None`` to search again.

    Evidence judged sufficient after a graph hop (``links`` in its trace) does not stop the loop
    by itself: the linked chunks are about entities the evidence names, chosen without the
    question, and the question's terms were mostly covered before they came, so coverage cannot
    tell whether they answer it. The entity-query hop comes next to confirm it (MuSiQue dev, all
    supporting found @5: 0.32 stopping on it, 0.36 going on; HotpotQA 0.83 → 0.84). When a cap
    leaves no room for that hop, the verdict stands and the stop is ``sufficient_evidence``.
    """
    last = (state.get("trace") or [{}])[-1]
    sufficient = bool(state.get("sufficient"))
    if sufficient and not last.get("links"):
        return "sufficient_evidence"
    cap = first_cap(state, ctx, last)
    return "sufficient_evidence" if cap and sufficient else cap


def first_cap(state: AgentState, ctx: RunContext, last: dict) -> str | None:
    """The first loop cap that fires after the hop traced in ``last``, or ``None``."""
    if ctx.adaptive and state.get("complexity") == "single":
        return "single_retrieval"
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


def wants_stop_review(state: AgentState) -> bool:
    """Whether a stop without enough evidence goes to the human stop review first."""
    return (
        bool(state.get("run_context", {}).get("review_stop"))
        and state.get("stop_reason") not in ANSWER_STOPS
        and state.get("human_hops", 0) < MAX_HUMAN_HOPS
    )


STOP_CONFIDENCE = {"sufficient_evidence": 0.8, "evidence_budget": 0.6, "single_retrieval": 0.6}
"""Confidence ceiling by stop reason; every other stop (a caveat answer) gets ``CAVEAT_CONFIDENCE``."""
CAVEAT_CONFIDENCE = 0.2


def answer_confidence(state: AgentState, cited: list, checked: int, unsupported: int) -> float:
    """Confidence in an answer, 0–1: the stop reason's ceiling (``STOP_CONFIDENCE``), times
    ``0.5 + 0.5 ×`` the mean grader relevance of the cited chunks, times the share of checked
    claims the evidence supports. A heuristic, not a calibrated probability: it orders answers
    (grounded and well-supported first) rather than predicting accuracy.

    Args:
        state: the graph state after generation (``stop_reason`` is read).
        cited: (mark, chunk) pairs the answer cites; a chunk's ``relevance`` is 0–1.
        checked: claims the grounding check looked at (0: not checked).
        unsupported: how many of them the evidence does not support.
    """
    ceiling = STOP_CONFIDENCE.get(state.get("stop_reason") or "", CAVEAT_CONFIDENCE)
    relevance = sum(chunk.get("relevance", 0.0) for _, chunk in cited) / len(cited) if cited else 0.0
    supported = 1.0 - unsupported / checked if checked else 1.0
    return round(ceiling * (0.5 + 0.5 * relevance) * supported, 3)


def first_search(state: AgentState) -> str:
    """The node that starts retrieval for this question: ``decompose`` with the run's
    ``decompose`` switch, ``expand_query`` with an ``expansion`` strategy, else ``retrieve``."""
    settings = state.get("run_context", {})
    if settings.get("decompose"):
        return "decompose"
    return "retrieve" if settings.get("expansion", "none") == "none" else "expand_query"


def generation_plan(state: AgentState) -> tuple[str, list]:
    """(mode, evidence) for the generator: ``direct`` for small talk; ``answer`` from the kept
    evidence (without chunks a newer version supersedes) after an answering stop; otherwise
    ``caveat`` with the evidence, or when none was kept, the best ``CAVEAT_SHOWN`` chunks of
    the last hop."""
    if state.get("route") == "direct":
        return "direct", []
    if state.get("stop_reason") in ANSWER_STOPS and state.get("evidence"):
        return "answer", [c for c in state["evidence"] if not c.get("superseded_by")]
    return "caveat", list(state.get("evidence") or state.get("chunks", [])[:CAVEAT_SHOWN])
