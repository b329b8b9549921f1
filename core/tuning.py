"""Tuned constants, in one frozen object.

Every number below was chosen by hand or on the multi-hop dev sets in ``../shared/data``
(HotpotQA, 2WikiMultihopQA, MuSiQue, SQuAD 2.0) with ``agentic-rag eval`` and
``bench/hotpotqa.py``; the README's measured tables give the scores. Components take a
:class:`Tuning` (default :data:`TUNING`) in their constructor instead of reading module
constants, so an experiment can change one value without editing code.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tuning:
    """Tuned constants of retrieval, the graph hop, the model-free deciders and confidence."""

    # -- hybrid retrieval (store) -------------------------------------------------------------
    dense_weight: float = 0.5
    """Weight of the dense ranking in reciprocal-rank fusion (BM25's is 1). WordLlama is the
    weaker ranker; a lower weight lets BM25 lead while dense still breaks its ties. Chosen on
    HotpotQA against equal weights."""
    exact_weight: float = 1.0
    """Weight of the exact-name ranking (chunks naming the query's ``snake_case`` or dotted
    names literally, :meth:`store.lexical.LexicalIndex.naming`) in the fusion, for queries that
    have such names. 0.25, 0.5 and 1.0 gave the same pgdocs answers; at 0.5 "What is the default
    value of work_mem?" still ranked the work_mem entry fifth, behind hash_mem_multiplier's."""
    bm25_k1: float = 1.2
    """BM25 term-frequency saturation (Robertson & Zaragoza 2009's usual value)."""
    bm25_b: float = 0.75
    """BM25 length normalisation (the usual value)."""
    fusion_depth: int = 50
    """Depth of each ranking fed to the fusion: deeper finds chunks ranked well by only one
    retriever, at the cost of a longer query."""

    bm25_posting_cap: int = 1000
    """Postings read per query term, highest BM25 impact first (store/lexical.py): a term in
    more chunks than this adds nothing to the chunks beyond its top postings. Bounds a query's
    work: at 106k chunks p50 / p95 103 / 359 ms uncapped, 16 / 32 ms at 1,000 (7 / 15 ms at 300,
    29 / 65 ms at 3,000); all supporting found on HotpotQA moved by at most 0.005 (README,
    "Scale"). Lower is faster and drops more of the common terms' weak matches."""

    # -- scale (store) --------------------------------------------------------------------------
    ingest_batch: int = 512
    """Chunks embedded and written (one ``COPY``, one transaction) per batch when ingesting:
    larger batches amortise the round trips and the BM25 statement; smaller ones show progress
    sooner and hold less in memory."""
    parse_workers: int = 0
    """Worker processes that parse files while the ingest writes (``0``: one per CPU core):
    reading HTML is most of a manual's ingest time (:mod:`ingest.parallel`)."""
    parallel_parse_files: int = 32
    """Fewest changed files an ingest parses in worker processes: starting them costs about a
    second, more than parsing a few files here."""
    hnsw_min_chunks: int = 10_000
    """Collections from this size get a pgvector HNSW index (built after the load): below it an
    exact scan takes a few milliseconds and is exact."""
    hnsw_m: int = 16
    """HNSW graph degree (pgvector's default): higher raises recall and build time and size."""
    hnsw_ef_construction: int = 64
    """HNSW build-time candidate list (pgvector's default): higher builds a better graph, slower."""
    hnsw_ef_search: int = 200
    """HNSW query-time candidate list (at least the ``k`` asked for): higher is closer to exact
    search and slower. At 106k chunks the 50-deep ranking shared 0.70 / 0.86 / 0.92 of the exact
    one with 40 / 100 / 200, for 1.7 / 1.5 / 2.3 ms (README, "Scale")."""
    hnsw_build_memory_mb: int = 2048
    """Most ``maintenance_work_mem`` an index build asks for (it asks for what its graph needs,
    :meth:`store.vectors.VectorIndex.build_memory_mb`): a graph that fits builds several times
    faster; a million 256-d chunks need about 1.3 GB."""

    # -- hops (nodes) ---------------------------------------------------------------------------
    spaced_name_candidates: int = 8
    """Most names written with spaces ("autovacuum naptime") a question is checked for, one entry
    lookup each (:func:`agentic_rag.spelling.spelled_as_entries`): a long pasted text names no
    setting this way (378 lookups took 2.9 s, eight of common words 0.8 s)."""
    misspelling_candidates: int = 4
    """Most words a question is checked for typos (:func:`agentic_rag.spelling.corrected`): each costs
    a lookup of its one-edit variants (~35 ms); a pasted text of 20 rare words took 1 s unbounded."""
    long_scene_chars: int = 600
    """Characters of scene before a question's last sentence past which, when that sentence names a
    setting the collection holds, only it is searched (:meth:`agentic_rag.services.Services.searched_question`):
    a 2,400-character story ending "what is the default value of effective_cache_size?" was declined,
    its hops searching the story's words; a 450-character one is answered whole."""
    common_word_idf: float = 4.0
    """IDF below which a word is used widely by the collection (held by about 2 % of its chunks or more): a
    name made of such words that no chunk says is a product the collection does not cover."""
    own_name_share: float = 0.15
    """Share of a collection's chunks that must hold a CamelCase title word for it to be a name the
    collection is about (:meth:`store.reads.CollectionReads.own_names`): "PostgreSQL" 0.24 of the
    manual's chunks; "pgSQL" (PL/pgSQL) far fewer."""
    per_query_k: int = 3
    """Chunks kept per query when a hop searches several (one per bridge entity), merged round
    robin: every bridge hypothesis's best chunk comes before any second one. More per query
    crowds out the other hypotheses; fewer drops a bridge's second paragraph."""
    graph_frontier: int = 3
    """Evidence chunks whose mention links one graph hop follows (the best not followed yet):
    more reaches more bridges but floods the hop with look-alikes."""
    anchors: int = 2
    """First-hop chunks (by rank for the question) that later hops cannot displace: keeps the
    best first-hop evidence while a bridge hop replaces the first hop's tail."""

    # -- mention graph (store) ------------------------------------------------------------------
    max_links: int = 64
    """Most links one lookup returns (the graph hop ranks them afterwards)."""
    links_per_entity: int = 3
    """Most target chunks per linked entity (the first chunks of its document), so that one
    long document cannot fill ``max_links``."""
    hub_share: float = 0.01
    """Entities mentioned by more than this share of the chunks (and by more than
    ``hub_floor``) are hubs ("United States") and are not followed: the low-idf analogue of
    stop words."""
    hub_floor: int = 20
    """See ``hub_share``: small collections have no hubs."""

    # -- model-free grader ----------------------------------------------------------------------
    coverage_weight: float = 0.7
    """Share of a chunk's grade from its match with the question (the rest from its retrieval
    score): term coverage is the stronger signal, retrieval breaks ties."""
    chain_weight: float = 0.8
    """How much a later hop's match with the query (or followed entity) that found a chunk
    counts against question coverage: enough to rank the bridge entity's page above the weaker
    first-hop chunks, not above the strongest ones."""
    sufficient_coverage: float = 0.75
    """After the first hop, the evidence suffices when the relevant chunks together cover this
    share of the question's terms (lower stops earlier, with more missed bridges)."""

    # -- model-free reformulator, generator, grounder ---------------------------------------------
    bridge_queries: int = 3
    """Bridge entities searched per entity-query hop (one query each)."""
    part_coverage: float = 0.5
    """Least share of a sub-question's terms an evidence sentence must hold to answer that part."""
    rare_name_chunks: int = 2
    """A name of the question that at most this many chunks hold is mentioned only in passing.
    A code-like one (``MySQL``, ``AUTO_INCREMENT``) must be in the answer's chunks ("What is
    MySQL's default port?" is not answered from PGPORT's entry; every answerable pgdocs
    question's names are in 4 or more chunks, MySQL in 1); a capitalised word of prose
    (``Westphalia``) in a single-hop answer's sentence, its context or title. On the SQuAD 2.0
    sample's fitted half, 4 instead of 2 gave abstention recall 0.351 → 0.366 but cost a
    HotpotQA answer."""
    min_support: float = 0.8
    """Lexical grounding: share of a claim's content terms its cited chunks must hold."""

    # -- LLM deciders ---------------------------------------------------------------------------
    llm_passage_chars: int = 2000
    """Longest passage text shown to a model, in characters."""
    llm_decision_tokens: int = 200
    """Most tokens a model may write for one decision (route, grades, links, grounding, queries)."""
    llm_answer_tokens: int = 250
    """Most tokens a model may write for one answer."""
    max_sub_questions: int = 4
    """Most sub-questions a decomposition may have."""

    # -- answers --------------------------------------------------------------------------------
    caveat_shown: int = 3
    """Chunks of the last hop shown in a caveat answer when no evidence was kept."""
    confidence_sufficient: float = 0.8
    """Confidence ceiling of an answer after the grader judged the evidence enough."""
    confidence_partial: float = 0.6
    """Ceiling after a stop on the evidence budget or a single retrieval (adaptive routing)."""
    confidence_caveat: float = 0.2
    """Ceiling of an answer after every other stop (the search ran out of retries, progress or
    time): the generator found a supporting sentence, but the search never judged the evidence
    enough."""
    extractive_over_model: float = 0.75
    """Support (0–1, :attr:`deciders.generator.Answer.support`) at and above which the extractive
    answer is kept when a model's short answer disagrees with it: small local models pick a
    neighbouring name or date more often than a sentence holding most of the question does. Tuned
    on HotpotQA dev questions 1–50 with the 0.5B local model (0.65–0.9 tried), checked on 51–100."""


TUNING = Tuning()
"""The default tuning, used wherever none is passed."""
