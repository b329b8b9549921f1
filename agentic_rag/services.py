"""The services the graph's nodes use (:class:`graph.services.GraphServices`): the chunk store,
the embedding and chat models, the reranker and the deciders, opened lazily from the settings."""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any

from langchain_core.language_models import BaseChatModel

from agentic_rag.spelling import corrected, own_names_spelled, spelled_as_entries, spelled_out
from core import telemetry
from core.errors import CollectionNotFoundError, ConfigurationError
from core.settings import Settings
from core.spelling import coined_words
from core.telemetry_export import configure_telemetry
from core.text import compound_names, exact_names, identifiers, terms
from core.tuning import TUNING, Tuning
from core.wording import asked, equivalents, multiword_names
from deciders import DECISION_POINTS, Deciders, build_deciders
from deciders.answer_types import self_contained_question
from deciders.llm import CallLimits
from graph.context import RunContext
from graph.services import QuestionTerms
from providers.chat import load_chat_model, start_local_model
from providers.embeddings import EmbeddingModel, load_embedding_model
from providers.local_llm import LocalServer
from providers.reranker import CrossEncoderReranker, check_reranker, load_reranker
from store.chunks import Chunk, ChunkStore
from store.embedded import embedded_postgres_url
from store.filters import ChunkFilter
from store.fusion import interleaved
from store.lexical import lucene_idf
from store.mentions import Link

FROM_SETTINGS: Any = object()
"""Marker for "the chat model the settings name" (``None`` means no chat model)."""


class Services:
    """The retriever and deciders the graph's nodes use (implements ``GraphServices``); the store
    and models open lazily, on first use, so importing or compiling the graph starts nothing.

    Args:
        settings: where the data lives and which models to use.
        chat_model: a chat model for the LLM deciders, overriding ``settings`` (tests pass a
            scripted fake); ``None`` means model-free only.
        tuning: the tuned constants of retrieval, hops and deciders.

    Raises:
        ConfigurationError: the reranker setting cannot work (:func:`providers.reranker.check_reranker`).
    """

    def __init__(
        self, settings: Settings, chat_model: BaseChatModel | None = FROM_SETTINGS, tuning: Tuning = TUNING
    ) -> None:
        check_reranker(settings.reranker)  # now, not at a question's first link hop, mid-run
        self.settings = settings
        self.tuning = tuning
        if chat_model is not FROM_SETTINGS:
            self.__dict__["chat_model"] = chat_model
        self._deciders: dict[tuple, Deciders] = {}
        self._has_chunks = False
        self.local_server: LocalServer | None = None
        configure_telemetry(settings)  # OTEL_* → traces and metrics (off when none is set)

    @cached_property
    def database_url(self) -> str:
        return self.settings.database_url or embedded_postgres_url(self.settings.data_dir)

    @cached_property
    def embedding(self) -> EmbeddingModel:
        return load_embedding_model(self.settings.embedding)

    @cached_property
    def store(self) -> ChunkStore:
        """The collection, which must exist (see :meth:`writable_store`)."""
        return ChunkStore.open(
            self.database_url, self.settings.collection, self.embedding, create=False, tuning=self.tuning
        )

    def writable_store(self) -> ChunkStore:
        """The collection, created when missing (for ingestion)."""
        if "store" not in self.__dict__:
            self.__dict__["store"] = ChunkStore.open(
                self.database_url, self.settings.collection, self.embedding, tuning=self.tuning
            )
        return self.store

    @cached_property
    def chat_model(self) -> BaseChatModel | None:
        """The settings' chat model; a ``local`` one starts its server here (stopped by :meth:`close`)."""
        if self.settings.local_chat_model:
            model, self.local_server = start_local_model(self.settings)
            return model
        return load_chat_model(self.settings)

    def require_chunks(self) -> None:
        """Raise :class:`CollectionNotFoundError` when the collection does not exist or holds no chunks."""
        if not self._has_chunks:
            self._has_chunks = self.store.count() > 0
            if not self._has_chunks:
                raise CollectionNotFoundError(
                    f"collection '{self.settings.collection}' holds no chunks; "
                    f"ingest documents first: agentic-rag ingest PATH --collection {self.settings.collection}"
                )

    def search(self, query: str, k: int, where: ChunkFilter | None = None) -> list[Chunk]:
        """Hybrid search of the collection.

        Raises:
            CollectionNotFoundError: the collection does not exist or holds no chunks.
        """
        self.require_chunks()
        with telemetry.tool("search"), telemetry.retrieval(self.settings.collection, query, k) as span:
            found = self.store.search(query, k, where=where)
            if found and (asked := self_contained_question(query)):  # a situation, then a question of its own:
                found = interleaved(found, self.store.search(asked, k, where=where))[:k]  # what it asks ranks too
            return span.found(found)

    def chunk_filter(self, context: RunContext) -> ChunkFilter:
        default = [s.strip() for s in (self.settings.sources or "").split(",") if s.strip()]
        return ChunkFilter.build(context.sources if context.sources is not None else default, context.filters)

    @cached_property
    def reranker(self) -> CrossEncoderReranker | None:
        return load_reranker(self.settings.reranker)

    def rank_among(self, query: str, ids: list[str]) -> dict[str, float]:
        """Relevance of the pooled chunks to ``query``: the configured cross-encoder's scores,
        else fused BM25 + dense ranks among ``ids``."""
        if self.reranker is not None:
            chunks = self.store.fetch(ids).values()
            return self.reranker.scores(query, {c["chunk_id"]: f"{c['title']}\n{c['text']}" for c in chunks})
        return self.store.rank_among(query, ids)

    def links_from(self, chunk_ids: list[str], exclude: list[str], where: ChunkFilter | None = None) -> list[Link]:
        with telemetry.tool("graph_hop") as span:
            return span.found(self.store.graph.links_from(chunk_ids, exclude, where))

    def fetch(self, ids: list[str]) -> dict[str, Chunk]:
        return self.store.fetch(ids)

    def absent_terms(self, question: str) -> list[str]:
        """The question's identifiers, capitalised compounds, names of common words and coined lower-case words
        (:func:`core.text.identifiers`, :func:`core.text.compound_names`, :meth:`common_word_names`,
        :func:`core.spelling.coined_words`) that no chunk contains, but for typos
        of a word some chunk holds (:meth:`store.names.NameIndex.typos`)."""
        compounds, coined = compound_names(question), coined_words(question)
        parts = {part for compound in compounds for part in compound.split("-")}  # "Seven" of "Seven-Day"
        names = [*(n for n in identifiers(question) if n not in parts), *compounds, *self.common_word_names(question)]
        absent = self.store.names.absent([*names, *coined])
        typos = set(self.store.names.typos([a for a in absent if a in coined]))  # looked up once
        return [w for w in absent if w not in typos]

    def common_word_names(self, question: str) -> list[str]:
        """The question's names of several capitalised words (:func:`core.wording.multiword_names`) each of
        which the collection uses widely (IDF below ``tuning.common_word_idf``): "SQL Server Always On" in a
        manual that says "SQL", "server" and "always" everywhere. Not "Tottenham Hotspur": a name of rare
        words the collection holds is a name it is about, however it words it."""
        if not (names := multiword_names(question)):
            return []  # most questions: no lookup
        idf = self.store.lexical.idf([word for name in names for word in name.split()])
        return [n for n in names if all(idf.get(w, 0.0) < self.tuning.common_word_idf for w in n.split())]

    def question_terms(self, question: str, absent: list[str] | None = None) -> QuestionTerms:
        """What the collection says of ``question``'s words (see :class:`graph.services.QuestionTerms`).

        Each content term (:func:`core.text.terms`) weighs its IDF; an exact name (``work_mem``)
        its own idf as a literal word, not its parts'; an identifier
        (:func:`core.text.identifiers`) no chunk contains (``absent``, when already known) the
        most a term can (df 0). The identifiers (code-like — CamelCase, all-caps, snake_case or
        dotted: ``MySQL`` — or capitalised words of prose: ``Westphalia``) and coined words
        (``pgbouncer``, :func:`core.spelling.coined_words`) that some chunk, but
        at most ``tuning.rare_name_chunks`` chunks, hold are its rare names. Each name's literal
        chunk count is read once.
        """
        lexical = self.store.lexical
        words = list(dict.fromkeys(re.findall(r"\w+", question)))
        absent = self.absent_terms(question) if absent is None else absent
        present = [n for n in [*identifiers(question), *coined_words(question)] if n not in absent]
        cap = self.tuning.rare_name_chunks
        names = self.store.names
        exact = names.literal_df([n for n in present if "_" in n])  # their idf needs the whole count
        df = {**exact, **names.literal_df([n for n in present if n not in exact], cap)}
        n = lexical.size()
        idf = {**lexical.idf(words), **{name: lucene_idf(n, count) for name, count in exact.items()}}
        weights: dict[str, float] = {}
        for word in words:
            weight = lucene_idf(n, 0) if word in absent else idf.get(word, 0.0)
            for term in terms(word) if weight else ():
                weights[term] = max(weight, weights.get(term, 0.0))
        synonyms = {term: self.equivalents[term] for term in weights if term in self.equivalents}
        return QuestionTerms(weights, absent, [name for name, count in df.items() if count <= cap], synonyms)

    @cached_property
    def equivalents(self) -> dict[str, tuple[frozenset[str], ...]]:
        """The terms the collection's glossary and alias tables equate (:func:`core.wording.equivalents`: "varchar"
        is "character varying"), read once (again after :meth:`collection_changed`)."""
        return equivalents(self.store.names.see_references())

    @cached_property
    def own_names(self) -> list[str]:
        """The names the collection is about (:meth:`store.reads.CollectionReads.own_names`), read once."""
        return self.store.names.own_names(self.tuning.own_name_share)

    def collection_changed(self) -> None:
        """Forget what was read from the collection's content (its glossary, its own names): an ingest changed it."""
        for read in ("equivalents", "own_names"):
            self.__dict__.pop(read, None)

    def searched_question(self, question: str) -> str:
        """``question`` with each misspelt name read as the collection spells it
        (:func:`agentic_rag.spelling.corrected`: "shared_bufers" → ``shared_buffers``) and, of several
        sentences, only the last when it asks of a name the collection holds and the others name what
        it does not ("… we monitor it with Grafana. What is the default of checkpoint_timeout?": the
        asker's setting, :func:`core.wording.asked`) or run longer than ``tuning.long_scene_chars``, a short
        form of a name the collection is about written in full (:func:`agentic_rag.spelling.own_names_spelled`),
        each snake_case-like name written with spaces spelled as the collection does
        (:func:`agentic_rag.spelling.spelled_as_entries`: "autovacuum naptime"), and an everyday "max" as
        "maximum" (:func:`agentic_rag.spelling.spelled_out`)."""
        question = corrected(self.store, question, self.tuning.misspelling_candidates)
        last = asked(question)
        if last != question and (own := exact_names(last)) and not self.store.names.absent(own):
            scene = question[: -len(last)]
            question = last if len(scene) > self.tuning.long_scene_chars or self.absent_terms(scene) else question
        question = own_names_spelled(question, self.own_names)
        return spelled_out(spelled_as_entries(self.store, question, self.tuning.spaced_name_candidates))

    def describe_source(self, chunk: Chunk) -> str:
        return chunk["source"]

    def check_run(self, context: RunContext) -> None:
        """Check a run's settings before anything is written: its deciders can be built, and its
        source and field filters (with the collection's default ``sources``) match a chunk.

        Raises:
            ConfigurationError: a chat model is needed but not configured, or the filters match
                no chunk of the collection (a mistyped pattern would otherwise read as "the
                documents do not say").
            CollectionNotFoundError: the collection does not exist.
        """
        self.deciders(context)
        where = self.chunk_filter(context)
        if where and not self.store.count(where):
            hint = (
                "sources are absolute paths or scheme:name keys: use patterns such as */name.md"
                if where.sources and not self.store.count(ChunkFilter.build(where.sources, {}))
                else "a filter value must equal a chunk's field exactly (a title as the page spells it)"
            )
            raise ConfigurationError(
                f"no chunk of collection '{self.settings.collection}' matches sources={list(where.sources)} "
                f"filters={dict(where.fields)}; {hint}"
            )

    def deciders(self, context: RunContext) -> Deciders:
        mode = context.deciders
        if mode == "llm" and self.chat_model is None:
            raise ConfigurationError(
                "deciders=llm needs a chat model: set OPENAI_API_KEY or AGENTIC_RAG_CHAT_MODEL "
                "(local: `agentic-rag model install`, then AGENTIC_RAG_CHAT_MODEL=local), or use deciders=rules"
            )
        use_llm = mode == "llm" or (mode == "auto" and self.chat_model is not None)
        key = ("llm",) if use_llm else ("rules", context.min_relevance)
        if key not in self._deciders:
            model = self.chat_model if use_llm else None
            limits = CallLimits(
                self.settings.llm_timeout_s,
                self.settings.llm_max_retries,
                self.settings.llm_concurrency,
                self.settings.llm_grading,
            )
            use_model = self.settings.model_decision_points or DECISION_POINTS
            embeddings = self.embedding.embeddings
            self._deciders[key] = build_deciders(
                model, self.tuning, context.min_relevance, embeddings, limits, use_model
            )
        return self._deciders[key]

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()
        if self.local_server is not None:
            self.local_server.close()
            self.local_server = None
