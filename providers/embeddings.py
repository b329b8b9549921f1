"""Embedding models behind LangChain's :class:`~langchain_core.embeddings.Embeddings`.

The offline default is WordLlama (Miller 2024, https://github.com/dleemiller/WordLlama): static
token embeddings distilled from an LLM's embedding table, 256-d, whose weights ship inside the
``wordllama`` wheel.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings
from scipy import sparse

from core.errors import ConfigurationError


class WordLlamaEmbeddings(Embeddings):
    """WordLlama ``l2_supercat`` embeddings loaded from the files bundled in the wheel.

    ``WordLlama.load()`` looks for its tokenizer in ``wordllama/tokenizer/`` while the wheel ships
    it in ``wordllama/tokenizers/``, then falls back to a Hugging Face download. Pointing its cache
    folder at the package folder finds both bundled files, and ``disable_download`` makes a missing
    file an error instead of a network call.

    A text's vector is what WordLlama's own ``embed(texts, norm=True)`` returns — the mean of its
    tokens' rows of the embedding table (no truncation), L2-normalised — computed as one sparse
    product (scipy.sparse) of the texts' bag-of-tokens matrix, each row weighted 1/length, with
    the table. WordLlama gathers a padded texts × tokens × dim array instead; on paragraphs the
    product is ~3× faster overall (tokenising then dominates) and equal to 1e-6
    (``bench/scale.py`` prints the embedding rate).
    """

    def __init__(self, dim: int = 256) -> None:
        import wordllama
        from tokenizers import Tokenizer
        from wordllama import WordLlama

        self.dim = dim
        model = WordLlama.load(
            config="l2_supercat",
            dim=dim,
            cache_dir=Path(wordllama.__file__).parent,
            disable_download=True,
        )
        self._table = model.embedding  # vocabulary × dim, float32
        # a copy without the padding WordLlama turns on: each text's own tokens only
        self._tokenizer = Tokenizer.from_str(model.tokenizer.to_str())
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts; returns one ``dim``-long, L2-normalised vector per text (all zeros for a
        text with no token)."""
        if not texts:
            return []
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
        ids = np.concatenate([np.asarray(e.ids, dtype=np.int64) for e in encodings])
        np.clip(ids, 0, self._table.shape[0] - 1, out=ids)  # as WordLlama does for out-of-range ids
        weights = np.repeat((1.0 / np.maximum(lengths, 1)).astype(np.float32), lengths)
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        bags = sparse.csr_matrix((weights, ids, indptr), shape=(len(texts), self._table.shape[0]))
        vectors = np.asarray(bags @ self._table)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
        return vectors.tolist()

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
