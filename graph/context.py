"""Run settings: :class:`RunContext`, the per-run knobs of the graph (deciders and loop caps).

It is the graph's ``context_schema``: pass it as ``graph.invoke(..., context=RunContext(...))``
or a dict; LangGraph Studio renders its fields as a form. Process settings live in
:mod:`core.settings`, tuned constants in :mod:`core.tuning`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Literal

from core.errors import ConfigurationError, InvalidQuestionError
from store.filters import ChunkFilter

DeciderMode = Literal["auto", "llm", "rules"]
MAX_RETRIES_LIMIT = 3
"""Highest ``max_retries`` accepted: keeps the worst case (4 × 3 + 12 = 24 steps, see
:meth:`RunContext.step_bound`) under LangGraph's default recursion limit of 25, so even a caller
that sets no limit is stopped by the caps, never by the recursion limit."""


@dataclass
class RunContext:
    """Per-run settings of the graph. Every loop cap is enforced in code, not in a prompt."""

    deciders: DeciderMode = "auto"
    """``rules`` forces the model-free deciders; ``llm`` requires a chat model; ``auto`` uses the
    chat model when one is configured."""
    max_retries: int = 2
    """Hops allowed after the first, per question (a retry is one graph hop, or one reformulate →
    retrieve round)."""
    max_evidence: int = 8
    """Evidence budget: most chunks kept and handed to the generator."""
    retrieve_k: int = 5
    """Chunks returned by each retrieval hop."""
    overlap_stop: float = 0.7
    """Stop when at least this fraction of a hop's chunks were already seen (no progress)."""
    time_limit_s: float = 60.0
    """Wall-clock budget of one question's work, in seconds (summed over node executions, so a
    resumed run is not charged for the time it spent stopped)."""
    expansion: Literal["none", "multi_query", "hyde", "step_back"] = "none"
    """Query expansion before the first hop (needs a chat model; skipped with a note without
    one): ``multi_query`` (3 phrasings), ``hyde`` (a hypothetical answer passage, Gao et al.
    2022), ``step_back`` (the broader question, Zheng et al. 2023); fused by reciprocal rank."""
    decompose: bool = True
    """Split compound and comparison questions into sub-questions searched in parallel (see
    :mod:`nodes.decompose`), so each option of "A or B?" gets its own search; the answer is to
    the whole question, by part only when the evidence does not answer it whole."""
    sources: list[str] | None = None
    """Source allowlist: glob patterns over chunk sources (``*/handbook/*.md``); only matching
    chunks are retrieved. ``None``: the collection default (``AGENTIC_RAG_SOURCES``), else all."""
    filters: dict | None = None
    """Metadata filters: field (``source``, ``title``, ``chunk_index``, ``version``) → value or
    list of values; an unknown field is an error."""
    adaptive: bool = False
    """Adaptive routing (Jeong et al. 2024): questions the router classifies as ``single`` stop
    after one retrieval; ``multi`` ones run the loop; small talk gets no retrieval."""
    graph_hop: bool = True
    """Follow the collection's entity-mention graph from the evidence before writing a new query
    (see :mod:`nodes.follow_links`); off: every retry is a reformulated query."""
    min_relevance: float = 0.4
    """Model-free grader: lowest score (0–1) for a chunk to count as relevant."""
    max_question_chars: int = 4000
    """Longest question accepted, in characters."""
    review_route: bool = False
    """Interrupt after routing so a human can approve or override the route."""
    review_stop: bool = False
    """Interrupt when the loop stops without enough evidence so a human can supply a query (one
    more hop), accept the answer from what was found, or stop."""
    review_answer: bool = False
    """Interrupt before returning an answer so a human can approve it, edit it, or drop evidence
    chunks and have it regenerated."""

    def __post_init__(self) -> None:
        ranges = {
            "max_retries": (0, MAX_RETRIES_LIMIT),
            "max_evidence": (1, 50),
            "retrieve_k": (1, 50),
            "overlap_stop": (0.01, 1.0),
            "time_limit_s": (0.001, 3600.0),
            "min_relevance": (0.0, 1.0),
            "max_question_chars": (1, 100_000),
        }
        problems = [
            f"{name}={getattr(self, name)!r} (allowed {low}–{high})"
            for name, (low, high) in ranges.items()
            if not isinstance(getattr(self, name), (int, float)) or not low <= getattr(self, name) <= high
        ]
        problems += [
            f"{name}={getattr(self, name)!r} (allowed true, false)"
            for name in ("decompose", "adaptive", "graph_hop", "review_route", "review_stop", "review_answer")
            if not isinstance(getattr(self, name), bool)
        ]
        try:
            ChunkFilter.build(self.sources, self.filters)
        except ConfigurationError as exc:
            problems.append(str(exc))
        if self.expansion not in ("none", "multi_query", "hyde", "step_back"):
            problems.append(f"expansion={self.expansion!r} (allowed none, multi_query, hyde, step_back)")
        if self.deciders not in ("auto", "llm", "rules"):
            problems.append(f"deciders={self.deciders!r} (allowed auto, llm, rules)")
        if problems:
            raise ConfigurationError(f"invalid run setting: {', '.join(problems)}")

    @classmethod
    def from_mapping(cls, values: dict | None) -> "RunContext":
        """Build from a dict, ignoring ``None`` values and rejecting unknown keys."""
        values = {k: v for k, v in (values or {}).items() if v is not None}
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigurationError(
                f"unknown run setting(s): {', '.join(unknown)}; valid settings: {', '.join(sorted(known))}"
            )
        return cls(**values)

    def step_bound(self) -> int:
        """Most graph steps one invocation can take: route (and its review), the first retrieve
        and grade, then per retry at most follow_links (finding nothing), reformulate, retrieve
        and grade, then the stop review, generate, the grounding check, one regeneration and
        its check, and the answer review; decomposition adds two steps (decompose, merge), or
        else query expansion one. A resumed interrupt starts a new invocation."""
        first = 2 + 2 * int(self.decompose) + int(self.expansion != "none")
        return 1 + int(self.review_route) + first + 4 * self.max_retries + 1 + 4 + 1


def run_context(context: "RunContext | dict | None") -> "RunContext":
    """The run's settings: ``runtime.context`` when given (a dict is validated), else defaults."""
    if context is None:
        return RunContext()
    if isinstance(context, RunContext):
        return context
    return RunContext.from_mapping(dict(context))


def question_input(question: str, context: RunContext) -> dict:
    """The graph input that asks ``question`` under ``context``: ``{"question", "run_context"}``.

    Pass the same ``context`` as the run's ``context``. The settings travel with the question so
    that the run's first checkpoint holds them: a run killed before ``route`` finishes is
    resumed (:meth:`agentic_rag.app.App.resume`) under the settings it was asked with, not the
    defaults."""
    return {"question": question, "run_context": asdict(context)}


def turn_context(state: dict, context: "RunContext | dict | None") -> "RunContext":
    """The settings of the question in progress: those recorded when it started (sent with the
    question by :func:`question_input`, and stored by the route node in
    ``state['run_context']``), else the run's. LangGraph does not keep the context across a
    resume, so a review answered through the server, or a killed run resumed, continues under the
    caps it started with."""
    recorded = state.get("run_context")
    return RunContext.from_mapping(recorded) if recorded else run_context(context)


def validate_question(question: object, max_chars: int) -> str:
    """The question stripped of outer whitespace.

    Raises:
        InvalidQuestionError: not a string, empty, without a letter or digit ("?!"), or longer
            than ``max_chars``.
    """
    if not isinstance(question, str) or not question.strip():
        raise InvalidQuestionError("the question is empty; ask a question in words")
    if not any(ch.isalnum() for ch in question):
        raise InvalidQuestionError("the question has no words, only punctuation; ask a question in words")
    if len(question) > max_chars:
        raise InvalidQuestionError(
            f"the question is {len(question):,} characters, over the limit of {max_chars:,}; "
            "shorten it (or raise the run setting max_question_chars, from Python or Studio)"
        )
    return question.strip()
