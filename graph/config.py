"""All configuration, in one place.

Two objects:

* :class:`Settings` — where things live and which models to use, read from the environment
  (``AGENTIC_RAG_*``, plus ``DATABASE_URL`` and ``OPENAI_*``) and overridable from the CLI.
* :class:`RunContext` — per-run knobs of the graph (deciders and loop caps). It is the graph's
  ``context_schema``: pass it as ``graph.invoke(..., context=RunContext(...))`` or a dict; LangGraph
  Studio renders its fields as a form.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from agentic_rag.errors import ConfigurationError
from store.filters import ChunkFilter

DeciderMode = Literal["auto", "llm", "rules"]
MAX_RETRIES_LIMIT = 3
"""Highest ``max_retries`` accepted: keeps the worst case (4 × 3 + 10 = 22 steps, see
:meth:`RunContext.step_bound`) under LangGraph's default recursion limit of 25, so even a caller
that sets no limit is stopped by the caps, never by the recursion limit."""


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/agentic-rag``, or ``~/.local/share/agentic-rag`` when XDG is unset."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "agentic-rag"


class Settings(BaseSettings):
    """Process-wide settings: storage, models, input limits.

    Every field reads ``AGENTIC_RAG_<FIELD>`` from the environment; ``database_url`` also reads
    ``DATABASE_URL`` and ``openai_api_key``/``openai_base_url`` read the standard OpenAI variables.
    """

    model_config = SettingsConfigDict(env_prefix="AGENTIC_RAG_", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)
    """Folder of the embedded PostgreSQL cluster (``pg/``) and the SQLite checkpoints."""
    database_url: str | None = Field(
        default=None, validation_alias=AliasChoices("DATABASE_URL", "AGENTIC_RAG_DATABASE_URL")
    )
    """External PostgreSQL (with pgvector) to use instead of the embedded server."""
    collection: str = "default"
    """Name of the chunk collection (one table per collection)."""
    embedding: str = "wordllama"
    """``wordllama`` (offline, bundled weights) or ``openai:<model>``."""
    reranker: str | None = None
    """``cross-encoder:<model>`` to rank later hops' finds with a sentence-transformers
    cross-encoder (optional extra ``rerank``); unset: fused BM25 + dense scores."""
    sources: str | None = None
    """Default source allowlist of the collection: comma-separated glob patterns (a run's
    ``sources`` replaces it)."""
    chat_model: str | None = None
    """Chat model for the LLM deciders: an OpenAI model name (``gpt-4o-mini``) or an
    ``init_chat_model`` string (``anthropic:claude-…``, ``ollama:llama3.1``). When unset and
    ``OPENAI_API_KEY`` is set, ``gpt-4o-mini`` is used; when neither is set, deciders are model-free."""
    openai_api_key: str | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    chunk_size: int = 1200
    """Target chunk length for file ingestion, in characters."""
    chunk_overlap: int = 150
    """Overlap between consecutive chunks, in characters."""

    @field_validator("collection")
    @classmethod
    def _collection_is_identifier(cls, value: str) -> str:
        if not value.replace("_", "").isalnum() or not value.isascii() or len(value) > 40:
            raise ValueError("collection names use letters, digits and '_' only (at most 40)")
        return value.lower()

    @property
    def checkpoint_path(self) -> Path:
        """SQLite file holding the checkpoints of every thread."""
        return self.data_dir / "checkpoints.sqlite"

    @property
    def resolved_chat_model(self) -> str | None:
        """The chat model to use, or ``None`` when no model is configured."""
        if self.chat_model:
            return self.chat_model
        return "gpt-4o-mini" if self.openai_api_key else None


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
    decompose: bool = False
    """Split compound and comparison questions into sub-questions searched in parallel (see
    :mod:`nodes.decompose`); the answer says which sub-question answered which part."""
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
    more hop), accept the caveat answer, or stop."""
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
            raise ConfigurationError(f"invalid run setting {', '.join(problems)}")

    @classmethod
    def from_mapping(cls, values: dict | None) -> "RunContext":
        """Build from a dict, ignoring ``None`` values and rejecting unknown keys."""
        values = {k: v for k, v in (values or {}).items() if v is not None}
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigurationError(f"unknown run setting(s): {', '.join(unknown)}")
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


def turn_context(state: dict, context: "RunContext | dict | None") -> "RunContext":
    """The settings of the question in progress: those recorded when it started (the route
    node stores them in ``state['run_context']``), else the run's. LangGraph does not keep the
    context across a resume, so a review answered through the server, or a killed run resumed,
    continues under the caps it started with."""
    recorded = state.get("run_context")
    return RunContext.from_mapping(recorded) if recorded else run_context(context)
