"""Typed graph state.

Reducers are chosen per field:

* ``messages`` accumulates across turns (``add_messages``): it is the thread's conversation.
* Every other field is per question and plain last-write-wins. The route node writes all of them
  at the start of each turn (see :func:`fresh_turn`), so a new question on the same thread starts
  with a fresh retry budget, empty evidence and an empty trace — never inherited from the last
  turn. Nodes return whole new lists (``trace + [entry]``) instead of relying on an appending
  reducer, which could not be reset.
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from store.chunks import Chunk


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


class InputState(TypedDict):
    question: str


class OutputState(TypedDict, total=False):
    question: str
    standalone_question: str
    answer: str
    citations: list[Citation]
    route: str
    route_reason: str
    complexity: str
    stop_reason: str | None
    hops: int
    retries: int
    trace: list[HopTrace]
    notes: list[str]
    reviewed: str
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
    sub_results: Annotated[list[dict], extend_or_reset]
    """Fan-in of the parallel sub-question searches: ``{"index", "chunks", "elapsed_ms"}``."""
    query: str
    """The (first) query of the current hop."""
    hop_queries: list[str]
    """Every query of the current hop, each searched on its own."""
    fuse_queries: bool
    """Fuse the hop's per-query rankings by reciprocal rank (query expansion) instead of
    taking the top few of each in turn (bridge entities)."""
    tried_queries: list[str]
    chunks: list[Chunk]
    """Chunks returned by the last hop."""
    evidence: list[Chunk]
    """Relevant chunks kept so far, unique by chunk id, best first, at most ``max_evidence``."""
    conflicts: list[dict]
    """Versions of one document found together; the newest is preferred (see
    :func:`nodes.grade.prefer_newer`)."""
    seen_ids: list[str]
    expanded_ids: list[str]
    """Evidence chunks whose mention links a graph hop has followed."""
    links: list[dict]
    """Links the last graph hop followed (empty: nothing new to follow, fall back to a query)."""
    retries: int
    hops: int
    sufficient: bool
    stop_reason: str | None
    answer: str
    citations: list[Citation]
    grounding: dict
    """The last grounding check: ``status`` (``grounded``, ``regenerate``: the draft goes back to
    the generator once, ``unsupported``: still ungrounded after that, ``unchecked``: caveat
    answer), ``checked`` (claims), ``decider``."""
    unsupported_claims: list[str]
    confidence: float | None
    """Confidence in the answer, 0–1 (see :func:`graph.control.answer_confidence`); ``None``
    for a direct reply."""
    trace: list[HopTrace]
    notes: list[str]
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
    a killed run continues under the same caps — LangGraph does not checkpoint the context."""


def extend_or_reset(current: list | None, update: list | None) -> list:
    """Reducer of ``sub_results``: parallel sub-question searches append; ``None`` empties it."""
    return [] if update is None else [*(current or []), *update]


def fresh_turn(question: str) -> dict:
    """Values of every per-question field at the start of a turn."""
    return {
        "question": question,
        "standalone_question": question,
        "route": "",
        "route_reason": "",
        "complexity": "",
        "sub_questions": [],
        "sub_results": None,
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
        "stop_reason": None,
        "answer": "",
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
