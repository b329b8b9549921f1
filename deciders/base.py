"""The decider protocols (one per node) and the values they return.

Nodes depend on these protocols only. Every returned value names the decider that produced it
and, when an LLM reply was unusable and a conservative default was used instead, says so in
``note`` — that note goes into the run's trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, Sequence

from langchain_core.messages import BaseMessage

from store.chunks import Chunk

RouteName = Literal["retrieve", "direct"]
ExpansionKind = Literal["multi_query", "hyde", "step_back"]
Complexity = Literal["none", "single", "multi"]
"""Adaptive-RAG query complexity (Jeong et al. 2024): no retrieval, one retrieval, or the
iterative loop."""
GenerationMode = Literal["answer", "caveat", "direct"]


@dataclass
class RouteDecision:
    route: RouteName
    reason: str
    decider: str
    note: str | None = None
    standalone_question: str | None = None
    """The question rewritten to stand alone when it refers to earlier turns ("and when was he
    born?" → "when was Neil Peart born?"); ``None`` when it already stands alone."""
    complexity: Complexity = "multi"
    """How much retrieval the question needs (``none`` for a direct route); used when the run's
    ``adaptive`` switch is on."""
    complexity_reason: str = ""


@dataclass
class ChunkVerdict:
    chunk_id: str
    relevant: bool
    score: float
    """Relevance to the question, 0–1 (for LLM verdicts: 1.0 relevant, 0.0 not)."""


@dataclass
class Grading:
    verdicts: list[ChunkVerdict]
    sufficient: bool
    """Whether the kept evidence (including the relevant chunks of this hop) answers the question."""
    decider: str
    note: str | None = None


@dataclass
class Reformulation:
    query: str
    reason: str
    decider: str
    note: str | None = None
    queries: list[str] = field(default_factory=list)
    """Every query of the next hop, each searched on its own (e.g. one per bridge entity);
    empty means ``[query]``."""


@dataclass
class LinkChoice:
    chosen: list[int]
    """Indices into the offered candidates, in the order to keep them."""
    reason: str
    decider: str
    note: str | None = None


@dataclass
class Expansion:
    queries: list[str]
    """Extra queries searched beside the question (empty: the strategy was skipped)."""
    reason: str
    decider: str
    note: str | None = None


@dataclass
class Decomposition:
    sub_questions: list[str]
    """2–4 sub-questions, or empty when the question does not split."""
    reason: str
    decider: str
    note: str | None = None


@dataclass
class Grounding:
    unsupported: list[str]
    """The answer's claims that the cited evidence does not support (empty: grounded)."""
    checked: int
    """How many claims were checked."""
    decider: str
    note: str | None = None


@dataclass
class Answer:
    text: str
    cited: list[tuple[int, str]] = field(default_factory=list)
    """(mark, chunk id) for every citation mark ``[mark]`` used in ``text``."""
    decider: str = ""
    note: str | None = None


class Router(Protocol):
    """Decides whether a turn needs documents (when unsure: ``retrieve``), and rewrites a
    follow-up that leans on the conversation into a self-contained question."""

    def route(self, question: str, conversation: Sequence[BaseMessage]) -> RouteDecision: ...


class Grader(Protocol):
    """Judges each chunk of a hop, and whether the evidence kept so far suffices. ``query`` is
    what the hop searched for (the question itself on the first hop, a bridge entity or rewrite
    later)."""

    def grade(self, question: str, query: str, chunks: Sequence[Chunk], evidence: Sequence[Chunk]) -> Grading: ...


class Reformulator(Protocol):
    """Writes the next query from what has been tried and found, and chooses which mention
    links a graph hop follows."""

    def reformulate(
        self, question: str, tried: Sequence[str], evidence: Sequence[Chunk], last_chunks: Sequence[Chunk]
    ) -> Reformulation: ...

    def choose_links(self, question: str, candidates: Sequence[Chunk], k: int) -> LinkChoice:
        """Pick at most ``k`` of ``candidates`` (chunks reached by links, each with ``via`` and
        ``linked_from``, ranked best first by relevance to the question) to keep."""
        ...


class Generator(Protocol):
    """Writes the final answer, citing chunk ids of ``evidence``; ``avoid`` lists claims a
    grounding check found unsupported in the previous draft (leave them out)."""

    def generate(
        self,
        question: str,
        evidence: Sequence[Chunk],
        mode: GenerationMode,
        conversation: Sequence[BaseMessage],
        avoid: Sequence[str] = (),
        sub_questions: Sequence[str] = (),
    ) -> Answer: ...

    """With ``sub_questions`` (evidence chunks carry ``sub_question``, an index into them), the
    answer says which sub-question answered which part, and which part stayed unanswered."""


class Expander(Protocol):
    """Writes extra first-hop queries: paraphrases (multi-query), a hypothetical answer passage
    (HyDE) or a broader question (step-back)."""

    def expand(self, question: str, kind: ExpansionKind) -> Expansion: ...


class Decomposer(Protocol):
    """Splits a compound or comparison question into 2–4 sub-questions (none when it does not
    split)."""

    def decompose(self, question: str) -> Decomposition: ...


class Grounder(Protocol):
    """Lists the claims of an answer that its cited evidence does not support."""

    def check(self, answer: str, cited: Sequence[tuple[int, Chunk]]) -> Grounding: ...


@dataclass
class Deciders:
    """One decider per node."""

    router: Router
    grader: Grader
    reformulator: Reformulator
    generator: Generator
    grounder: Grounder
    decomposer: Decomposer
    expander: Expander
