"""Optional cross-encoder reranking of the evidence pool.

By default a later hop's finds are ranked against the question by fused BM25 + dense scores
among the pool (:meth:`store.chunks.ChunkStore.rank_among`). A user who has a cross-encoder
(sentence-transformers ``CrossEncoder``; Nogueira & Cho 2019, "Passage Re-ranking with BERT")
can configure it with ``AGENTIC_RAG_RERANKER=cross-encoder:<model name or local folder>``; it
then scores each (question, chunk) pair instead. Nothing is downloaded unless the model is
already available to sentence-transformers.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

from core.errors import ConfigurationError

PREFIX = "cross-encoder:"


class CrossEncoderReranker:
    """Relevance of chunks to a query from a cross-encoder.

    Raises:
        ConfigurationError: sentence-transformers is not installed, or the model cannot be loaded.
    """

    def __init__(self, model: str) -> None:
        try:
            from sentence_transformers import CrossEncoder
        except ImportError as exc:
            raise ConfigurationError(_missing_package(model)) from exc
        try:
            self._model = CrossEncoder(model)
        except Exception as exc:  # sentence-transformers raises OSError, ValueError, HTTP errors …
            raise ConfigurationError(
                f"cannot load the cross-encoder '{model}' ({type(exc).__name__}: {str(exc).splitlines()[0][:160]}); "
                "give a model folder on disk or one already in the Hugging Face cache"
            ) from exc
        self.model = model

    def scores(self, query: str, passages: dict[str, str]) -> dict[str, float]:
        """Relevance of each passage to ``query``, 0–1 (the logistic of the cross-encoder's
        score).

        Args:
            query: the question.
            passages: id → passage text (title and text of a chunk).

        Returns:
            id → relevance, for every id of ``passages``.
        """
        if not passages:
            return {}
        logits = self._model.predict([(query, text) for text in passages.values()])
        return {pid: 1.0 / (1.0 + math.exp(-float(logit))) for pid, logit in zip(passages, logits, strict=True)}


def _installed(package: str) -> bool:
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):  # a parent package missing; a module set to None in sys.modules
        return False


def check_reranker(spec: str | None) -> None:
    """Check, without loading it, that the reranker ``spec`` names can be loaded: its form, and
    that sentence-transformers is installed. Called when the app starts, so a misconfigured
    reranker is an error before any thread is written, not at a question's first link hop;
    importing sentence-transformers (and torch) is left to the first hop that needs it.

    Args:
        spec: the ``reranker`` setting (``AGENTIC_RAG_RERANKER``); ``None`` or empty: none.

    Raises:
        ConfigurationError: another kind of reranker, sentence-transformers is not installed, or
            the model is given as a path (``/…``, ``./…``, ``~/…``) to a folder that does not exist.
    """
    if not spec:
        return
    model = _model_of(spec)
    if not _installed("sentence_transformers"):
        raise ConfigurationError(_missing_package(model))
    folder = Path(model).expanduser()
    if model.startswith(("/", "./", "../", "~")) and not folder.is_dir():  # a path, not a Hugging Face name
        raise ConfigurationError(
            f"AGENTIC_RAG_RERANKER={spec}: no model folder {folder}; give a folder holding the cross-encoder, "
            "or unset AGENTIC_RAG_RERANKER to rank by fused scores"
        )


def _model_of(spec: str) -> str:
    if not spec.startswith(PREFIX) or not spec[len(PREFIX) :]:
        raise ConfigurationError(f"unknown reranker '{spec}'; use {PREFIX}<model name or folder>, or leave it unset")
    return spec[len(PREFIX) :]


def _missing_package(model: str) -> str:
    return (
        f"AGENTIC_RAG_RERANKER={PREFIX}{model} needs sentence-transformers: pip install -e '.[rerank]', "
        "or unset AGENTIC_RAG_RERANKER to rank by fused scores"
    )


def load_reranker(spec: str | None) -> CrossEncoderReranker | None:
    """The reranker ``spec`` names (``cross-encoder:<model>``), or ``None`` for fused scores.

    Raises:
        ConfigurationError: another kind of reranker, or the model cannot be loaded.
    """
    if not spec:
        return None
    return CrossEncoderReranker(_model_of(spec))
