"""Typed graph state.

Reducers are chosen per field:

* ``messages`` accumulates across turns (``add_messages``): it is the thread's conversation.
* The per-question lists — ``trace`` (:func:`merge_trace`: entries of one hop merge), ``notes``,
  ``tried_queries``, ``seen_ids``, ``expanded_ids``, ``sub_results`` — append: a node returns
  only what it adds.
* Every other field is last-write-wins.

The route node writes every per-question field at the start of each turn (see
:func:`fresh_turn`), the appending ones through LangGraph's ``Overwrite`` (the reset marker that
bypasses a reducer), so a new question on the same thread starts with a fresh retry budget,
empty evidence and an empty trace — never inherited from the last turn.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Callable, Literal, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from langgraph.types import Overwrite

from deciders.chunks import HopChunk
from graph.evidence import EvidenceChunk

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
    "answer_not_found",  # the loop stopped with evidence, but no sentence of it answers (abstained)
    "not_in_collection",  # the question names something no document contains: no hop can find it
]
"""Why the search loop stopped (see :mod:`graph.policy`)."""


class Citation(TypedDict):
    mark: int
    """The ``[mark]`` used in the answer text."""
    chunk_id: str
    source: str
    title: str
    locator: str | None
    """``<source>#<chunk index>``."""
    version: str | None
    """The date or version the document states, if any."""
    ingested_at: str | None


class HopTrace(TypedDict, total=False):
    """What one retrieval hop did."""

    hop: int
    query: str
    """The hop's queries, joined by " | " when there are several."""
    query_by: str
    """Decider that wrote the query (``question`` for the first hop)."""
    query_reason: str
    chunk_ids: list[str]
    new: int
    """Chunks not returned by any earlier hop of this question."""
    overlap: float
    """Fraction of the hop's chunks already seen (0–1)."""
    verdicts: dict[str, bool]
    scores: dict[str, float]
    admitted: int
    """Chunks this hop added to the kept evidence."""
    grader: str
    sufficient: bool
    grader_note: str
    """Set when the grader fell back to a conservative verdict (invalid model reply)."""
    next_query_by: str
    """Decider that wrote the next hop's query (set when the loop goes on)."""
    next_query_reason: str
    next_query_note: str
    links: list[dict]
    """Graph hops: each link followed, ``{"from": chunk id, "entity": name, "to": chunk id}``."""
    elapsed_ms: float
    """Time spent on this hop (retrieval, grading, writing the next query), in milliseconds."""


def merge_trace(current: list[HopTrace] | None, update: list[HopTrace]) -> list[HopTrace]:
    """Reducer of ``trace``: an entry for a hop already traced is merged into it (its
    ``elapsed_ms`` added), any other is appended; so grading or reformulating a hop only sends
    what it adds to that hop's entry."""
    merged = list(current or [])
    for entry in update:
        at = next((i for i, e in enumerate(merged) if e.get("hop") == entry.get("hop")), None)
        if at is None:
            merged.append(entry)
        else:
            elapsed = merged[at].get("elapsed_ms", 0.0) + entry.get("elapsed_ms", 0.0)
            merged[at] = {**merged[at], **entry, "elapsed_ms": round(elapsed, 2)}
    return merged


class InputState(TypedDict):
    question: str
    run_context: NotRequired[dict]
    """The run settings (``RunContext`` as a dict), sent with the question so that the run's
    first checkpoint holds them (see :func:`graph.context.question_input`); the route node then
    records the run's ``context`` in their place."""


class OutputState(TypedDict, total=False):
    question: str
    standalone_question: str
    answer: str
    citations: list[Citation]
    route: str
    route_reason: str
    complexity: str
    stop_reason: StopReason | None
    hops: int
    retries: int
    trace: list[HopTrace]
    notes: list[str]
    reviewed: str
    short_answer: str | None
    abstained: bool
    support: float | None
    confidence: float | None
    unsupported_claims: list[str]
    conflicts: list[dict]


class AgentState(TypedDict, total=False):
    question: str
    standalone_question: str
    """The question made self-contained from the conversation (equal to ``question`` for a
    first turn); graded against, searched for, and answered."""
    messages: Annotated[list[AnyMessage], add_messages]
    route: str
    """``retrieve`` or ``direct``."""
    route_reason: str
    complexity: str
    """The router's Adaptive-RAG class: ``none``, ``single`` or ``multi`` (acted on when the
    run's ``adaptive`` switch is on)."""
    sub_questions: list[str]
    """Sub-questions of a decomposed question (``decompose`` switch), else empty."""
    sub_results: Annotated[list[dict], operator.add]
    """Fan-in of the parallel sub-question searches: ``{"index", "chunks", "elapsed_ms"}``."""
    query: str
    """The (first) query of the current hop."""
    hop_queries: list[str]
    """Every query of the current hop, each searched on its own."""
    fuse_queries: bool
    """Fuse the hop's per-query rankings by reciprocal rank (query expansion) instead of
    taking the top few of each in turn (bridge entities)."""
    tried_queries: Annotated[list[str], operator.add]
    chunks: list[HopChunk]
    """Chunks returned by the last hop."""
    evidence: list[EvidenceChunk]
    """Relevant chunks kept so far, unique by chunk id, best first, at most ``max_evidence``."""
    conflicts: list[dict]
    """Versions of one document found together; the newest is preferred (see
    :func:`graph.evidence.prefer_newer`)."""
    seen_ids: Annotated[list[str], operator.add]
    expanded_ids: Annotated[list[str], operator.add]
    """Evidence chunks whose mention links a graph hop has followed."""
    links: list[dict]
    """Links the last graph hop followed (empty: nothing new to follow, fall back to a query)."""
    retries: int
    hops: int
    sufficient: bool
    absent_terms: list[str]
    """The question's names no document contains (found on the first hop; see ``not_in_collection``)."""
    stop_reason: StopReason | None
    answer: str
    short_answer: str | None
    """The value, name, date, command or yes/no the question asks for (``None``: none found,
    or the answer abstained)."""
    abstained: bool
    """The answer says the documents do not answer the question."""
    support: float | None
    """The generator's support for its answer (see :class:`deciders.generator.Answer`)."""
    citations: list[Citation]
    grounding: dict
    """The last grounding check: ``status`` (``grounded``, ``regenerate``: the draft goes back to
    the generator once, ``unsupported``: still ungrounded after that, ``unchecked``: a caveat or
    abstention), ``checked`` (claims), ``decider``."""
    unsupported_claims: list[str]
    confidence: float | None
    """Confidence that the answer (or the abstention) is right, 0–1, calibrated (see
    :func:`graph.policy.answer_confidence`); ``None`` for a direct reply."""
    trace: Annotated[list[HopTrace], merge_trace]
    notes: Annotated[list[str], operator.add]
    """Decider fallbacks and other events worth a look (``node: what happened``)."""
    elapsed_ms: float
    """Time spent working on this question so far, in milliseconds (resumes are not charged
    for the time a run spent stopped)."""
    human_hops: int
    """Extra hops a reviewer granted at the stop review (at most ``MAX_HUMAN_HOPS``)."""
    reviewed: str
    """Outcome of a review: ``approved``/``edited`` (answer review), ``accepted``/``stopped``
    (stop review), or empty."""
    run_context: dict
    """The run settings this question started with (``RunContext`` as a dict), so that resuming
    a killed run continues under the same caps — LangGraph does not checkpoint the context.
    Written with the question by :meth:`agentic_rag.app.App.ask` (the first checkpoint holds
    them, so a run killed before ``route`` finishes resumes under them too), then by ``route``."""


APPENDING = {
    "trace": merge_trace,
    "notes": operator.add,
    "tried_queries": operator.add,
    "seen_ids": operator.add,
    "expanded_ids": operator.add,
    "sub_results": operator.add,
}
"""The per-question fields whose updates append, with their reducers."""


def fresh_turn(question: str) -> dict:
    """Values of every per-question field at the start of a turn (the appending ones wrapped in
    ``Overwrite``: a reset, not an append)."""
    values: dict[str, Any] = {
        "question": question,
        "standalone_question": question,
        "route": "",
        "route_reason": "",
        "complexity": "",
        "sub_questions": [],
        "sub_results": [],
        "query": question,
        "hop_queries": [question],
        "fuse_queries": False,
        "tried_queries": [],
        "chunks": [],
        "evidence": [],
        "conflicts": [],
        "seen_ids": [],
        "expanded_ids": [],
        "links": [],
        "retries": 0,
        "hops": 0,
        "sufficient": False,
        "absent_terms": [],
        "stop_reason": None,
        "answer": "",
        "short_answer": None,
        "abstained": False,
        "support": None,
        "citations": [],
        "grounding": {},
        "unsupported_claims": [],
        "confidence": None,
        "trace": [],
        "notes": [],
        "elapsed_ms": 0.0,
        "human_hops": 0,
        "reviewed": "",
    }
    return {k: Overwrite(v) if k in APPENDING else v for k, v in values.items()}


def apply_update(state: dict, update: dict) -> dict:
    """The state as it will be once ``update`` is applied (appending fields through their
    reducers, ``Overwrite`` as a reset, the rest replaced); ``messages`` is left as it was."""
    after = dict(state)
    for key, value in update.items():
        if key == "messages":
            continue
        reducer: Callable | None = APPENDING.get(key)
        if isinstance(value, Overwrite):
            after[key] = value.value
        elif reducer is not None:
            after[key] = reducer(state.get(key) or [], value)
        else:
            after[key] = value
    return after
