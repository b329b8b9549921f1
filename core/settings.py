"""Process settings: where data lives and which models to use, read from the environment
(``AGENTIC_RAG_*``, plus ``DATABASE_URL`` and ``OPENAI_*``) and overridable from the CLI."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from dotenv import dotenv_values
from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.errors import ConfigurationError


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/agentic-rag``, or ``~/.local/share/agentic-rag`` when XDG is unset."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "agentic-rag"


def load_env_file(path: Path) -> list[str]:
    """Set the variables of a ``.env`` file (python-dotenv syntax: ``KEY=VALUE`` lines, ``#``
    comments) in the process environment, leaving those already set as they are: the shell wins.
    The environment, not only :class:`Settings`, because the model clients read it too
    (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``).

    Args:
        path: the file; a missing one sets nothing.

    Returns:
        The names set, in file order (a ``KEY`` line without ``=`` sets nothing).
    """
    if not path.is_file():
        return []
    values = {key: value for key, value in dotenv_values(path).items() if value is not None}
    added = [key for key in values if key not in os.environ]
    os.environ.update({key: values[key] for key in added})
    return added


LOCAL_LLM_DECIDERS = "generator,link_chooser,decomposer,expander"
"""Decision points a ``local`` model takes by default (see ``Settings.llm_deciders``)."""


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
    """External PostgreSQL (with pgvector) to use instead of the embedded server; it then holds
    the checkpoints too, so several processes share threads."""
    checkpoint_pool_size: int = Field(default=4, ge=2, le=64)
    """Most connections one process opens to PostgreSQL for checkpoints (with ``DATABASE_URL``):
    bounds what N processes take from the server's ``max_connections``."""
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
    """Chat model for the LLM deciders: an OpenAI model name (``gpt-4o-mini``; any
    OpenAI-compatible server through ``OPENAI_BASE_URL``), an ``init_chat_model`` string
    (``anthropic:claude-…``, ``ollama:llama3.1``), or ``local`` / ``local:<name or .gguf path>``
    for a llama.cpp server started on 127.0.0.1 (see :mod:`providers.local_llm`). When unset and
    ``OPENAI_API_KEY`` is set, ``gpt-4o-mini`` is used; when neither is set, deciders are model-free."""
    llm_timeout_s: float = Field(default=60.0, gt=0)
    """Longest one model call may take, in seconds (also cut to the question's remaining time)."""
    llm_max_retries: int = Field(default=1, ge=0, le=5)
    """Retries of a model call that failed with a connection error, timeout or rate limit."""
    llm_concurrency: int = Field(default=1, ge=1, le=32)
    """Model calls in flight at once (per-chunk grading); 1 suits a single-slot local server."""
    llm_grading: Literal["batch", "per_chunk"] = "batch"
    """``batch``: one model call grades all chunks of a hop and the evidence's sufficiency;
    ``per_chunk``: one call per chunk (``llm_concurrency`` at once), then one for sufficiency."""
    llm_deciders: str | None = None
    """Comma-separated decision points that use the chat model in ``llm``/``auto`` mode (the
    others stay model-free). Unset: all of them, or for a ``local`` model
    :data:`LOCAL_LLM_DECIDERS`, the ones where the small local model measured at least as good as
    the model-free decider (README, "Use a local model")."""
    models_dir: Path = Field(default_factory=lambda: default_data_dir() / "models")
    """Where ``agentic-rag model install`` puts GGUF files and ``local:<name>`` finds them."""
    local_port: int = Field(default=0, ge=0, le=65535)
    """Port of the local model server on 127.0.0.1 (0: a free port)."""
    local_context: int = Field(default=8192, ge=512)
    """Context window of the local model server, in tokens."""
    local_threads: int | None = None
    """CPU threads of the local model server (unset: all cores)."""
    openai_api_key: str | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    chunk_size: int = 1200
    """Target chunk length for file ingestion, in characters."""
    chunk_overlap: int = 150
    """Overlap between consecutive chunks, in characters."""
    otel_traces_exporter: str | None = Field(default=None, validation_alias="OTEL_TRACES_EXPORTER")
    """``otlp``, ``console`` or ``none``: where trace spans go (:mod:`core.telemetry`; unset and no
    OTLP endpoint: no traces)."""
    otel_metrics_exporter: str | None = Field(default=None, validation_alias="OTEL_METRICS_EXPORTER")
    """``otlp``, ``console`` or ``none``: where metrics go (unset and no OTLP endpoint: none)."""
    otel_exporter_otlp_endpoint: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
    )
    """An OTLP collector; when set, an unset exporter means ``otlp`` (the exporter reads the
    ``OTEL_EXPORTER_OTLP_*`` variables itself)."""
    otel_sdk_disabled: bool = Field(default=False, validation_alias="OTEL_SDK_DISABLED")
    """``true`` turns telemetry off whatever else is set."""
    otel_capture_content: bool = Field(
        default=False, validation_alias="OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
    )
    """Opt-in: put query texts and the retrieved chunk ids with scores on retrieval spans, and the
    queries of each hop on node events."""
    server_idle_s: float = Field(default=900.0, ge=0)
    """Seconds without a command after which the data folder's warm service stops itself, and the
    embedded PostgreSQL with it (``agentic-rag server``); 0: no service, each command loads the
    app in its own process."""
    mcp_ingest: bool = False
    """Let MCP clients call the ``ingest`` tool of ``agentic-rag mcp`` (also ``--allow-ingest``)."""

    @field_validator("data_dir", mode="before")
    @classmethod
    def _data_dir_is_a_folder(cls, value: object) -> object:
        if isinstance(value, (str, Path)) and not str(value).strip():
            raise ValueError("the data folder is empty; give a folder's path")
        if isinstance(value, (str, Path)) and Path(value).exists() and not Path(value).is_dir():
            raise ValueError(f"{value} is a file, not a folder; give the data folder's path")
        return value

    def ensure_data_dir(self) -> Path:
        """The data folder, created if missing.

        Raises:
            ConfigurationError: it cannot be created (a read-only place, a file on its path).
        """
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigurationError(
                f"cannot create the data folder {self.data_dir} ({exc.strerror or exc}); "
                "give --data-dir (or AGENTIC_RAG_DATA_DIR) a folder you can write to"
            ) from None
        return self.data_dir

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
    def local_chat_model(self) -> bool:
        """Whether the chat model is a local one (``local`` or ``local:<name or path>``)."""
        return (self.chat_model or "").split(":")[0] == "local"

    @property
    def model_decision_points(self) -> list[str] | None:
        """The decision points that use the chat model (``None``: all of them)."""
        spec = self.llm_deciders
        if spec is None:
            spec = LOCAL_LLM_DECIDERS if self.local_chat_model else None
        return None if spec is None else [name.strip() for name in spec.split(",") if name.strip()]

    @property
    def resolved_chat_model(self) -> str | None:
        """The chat model to use, or ``None`` when no model is configured."""
        if self.chat_model:
            return self.chat_model
        return "gpt-4o-mini" if self.openai_api_key else None
