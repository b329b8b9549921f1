"""Embedding models behind LangChain's :class:`~langchain_core.embeddings.Embeddings`.

The offline default is WordLlama (Miller 2024, https://github.com/dleemiller/WordLlama): static
token embeddings distilled from an LLM's embedding table, 256-d, whose weights ship inside the
``wordllama`` wheel.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from langchain_core.embeddings import Embeddings

from core.errors import ConfigurationError


class WordLlamaEmbeddings(Embeddings):
    """WordLlama ``l2_supercat`` embeddings loaded from the files bundled in the wheel.

    ``WordLlama.load()`` looks for its tokenizer in ``wordllama/tokenizer/`` while the wheel ships
    it in ``wordllama/tokenizers/``, then falls back to a Hugging Face download. Pointing its cache
    folder at the package folder finds both bundled files, and ``disable_download`` makes a missing
    file an error instead of a network call.
    """

    def __init__(self, dim: int = 256) -> None:
        import wordllama
        from wordllama import WordLlama

        self.dim = dim
        self._model = WordLlama.load(
            config="l2_supercat",
            dim=dim,
            cache_dir=Path(wordllama.__file__).parent,
            disable_download=True,
        )

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts; returns one ``dim``-long, L2-normalised vector per text."""
        if not texts:
            return []
        return self._model.embed(list(texts), norm=True).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query; returns a ``dim``-long, L2-normalised vector."""
        return self.embed_documents([text])[0]


@dataclass(frozen=True)
class EmbeddingModel:
    """An embedding model with the identity a collection records."""

    model_id: str
    """Stable name such as ``wordllama:l2_supercat-256`` or ``openai:text-embedding-3-small``."""
    dimension: int
    embeddings: Embeddings


@lru_cache(maxsize=4)
def load_embedding_model(spec: str) -> EmbeddingModel:
    """Load the embedding model named by ``spec``.

    Args:
        spec: ``wordllama`` (256-d, offline) or ``openai:<model>`` (needs ``OPENAI_API_KEY``).

    Returns:
        The loaded model with its id and dimension.

    Raises:
        ConfigurationError: unknown spec, OpenAI requested without a key, or the OpenAI model
            unreachable (no network: tiktoken's encoding or the API call; a rejected key or model).
    """
    if spec == "wordllama":
        return EmbeddingModel("wordllama:l2_supercat-256", 256, WordLlamaEmbeddings(256))
    if spec.startswith("openai:"):
        import os

        if not os.environ.get("OPENAI_API_KEY"):
            raise ConfigurationError(f"embedding '{spec}' needs OPENAI_API_KEY; set it or use --embedding wordllama")
        from langchain_openai import OpenAIEmbeddings
        from openai import OpenAIError

        model = spec.split(":", 1)[1]
        embeddings = OpenAIEmbeddings(model=model)
        try:
            dimension = len(embeddings.embed_query("dimension probe"))
        except (OSError, OpenAIError) as exc:  # offline: tiktoken fetches its encoding, then the API is called
            reason = " ".join(str(exc).split())  # requests' errors span lines and run long
            reason = reason if len(reason) <= 200 else reason[:200] + "…"
            raise ConfigurationError(
                f"embedding '{spec}' is unavailable ({type(exc).__name__}: {reason}); "
                "check the network and OPENAI_API_KEY, or use --embedding wordllama (offline)"
            ) from None
        return EmbeddingModel(spec, dimension, embeddings)
    raise ConfigurationError(f"unknown embedding '{spec}'; use 'wordllama' or 'openai:<model>'")
