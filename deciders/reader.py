"""The learned reader: which evidence sentence answers the question, and how likely it is right.

Answer sentence selection as learning to rank (WikiQA, Yang et al. 2015, "WikiQA: A Challenge
Dataset for Open-Domain Question Answering"; a linear scorer fitted with a listwise softmax loss,
Cao et al. 2007): every sentence of the evidence chunks is a candidate, described by general
features that name no corpus — IDF-weighted overlap with the question (in the sentence, with its
preceding sentence, in its chunk's title), soft word matches and dense similarity, whether it holds a span of the
expected answer type, its chunk's retrieval rank and grader relevance, its position and length,
whether the entry it falls under (a definition list's term) names the code name the question asks
about or another one ("autovacuum_work_mem (integer) … It defaults to -1, indicating that the value
of maintenance_work_mem should be used" answers nothing about maintenance_work_mem) —
and a fitted linear model scores it. The best candidate's probability, mapped through an
isotonic calibration fitted on manuals held out of the fit, is the answer's confidence.

The model is a small JSON file (:data:`MODEL_FILE`: feature names, coefficients, calibration and
the training manifest) written by ``python -m evaluation.train_reader``.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from core.text import content_words, exact_names, is_heading, sentences, term_set, terms
from deciders.answer_types import UNTYPED, AnswerType
from deciders.chunks import HopChunk
from deciders.spans import spans

VALUES = frozenset({"default", "quantity", "number", "date"})
"""Answer types whose span is a value: a sentence holding one is rare, and telling."""
MODEL_FILE = Path(__file__).with_name("reader_model.json")
"""The shipped model (see the module docstring)."""

FEATURES = (
    "lexical",
    "lexical_context",
    "lexical_title",
    "lexical_heading",
    "lexical_window",
    "bigrams",
    "focus",
    "coverage",
    "dense",
    "dense_context",
    "soft_match",
    "soft_match_context",
    "typed",
    "typed_value",
    "typed_rarity",
    "digits",
    "chunk_rank",
    "kept",
    "relevance",
    "position",
    "length",
    "short",
    "heading",
    "table_row",
    "entry_same",
    "entry_other",
)
"""Feature names, in the order of a feature vector. None is the same for every candidate of a
question, nor such a feature's shift by a per-question constant (a gap to the question's best): the
listwise loss (:func:`evaluation.train_reader.fit`) cannot weigh either."""


@dataclass(frozen=True)
class Candidate:
    """An evidence sentence as a possible answer."""

    sentence: str
    chunk: HopChunk
    context: str | None
    """Shown before it: the heading-like line it falls under in its chunk when that says question
    terms the sentence and the one before it do not (a definition list's term), else the sentence
    before it; ``None`` for a chunk's first sentence."""
    spans: tuple[str, ...]
    """Spans of the expected answer type in the sentence (empty for an untyped question)."""
    support: float
    """IDF-weighted share (0–1) of the question's terms the sentence and its context hold."""
    score: float
    """The reader's linear score (a logit; higher: likelier the answer; uncalibrated)."""


@dataclass(frozen=True)
class ReaderModel:
    """A fitted linear scorer over :data:`FEATURES` and its calibration."""

    coef: tuple[float, ...]
    intercept: float
    calibration_x: tuple[float, ...]
    """Best-candidate linear scores, increasing (isotonic breakpoints)."""
    calibration_y: tuple[float, ...]
    """Probability that the answer is right at each breakpoint, non-decreasing."""
    decline_below: float
    """Calibrated confidence under which the answer is declined."""
    trust_from: float
    """Calibrated confidence from which an answer is shown as "trust it"."""
    span_features: tuple[str, ...] = ()
    """Feature names of the span scorer (:data:`deciders.headline.SPAN_FEATURES`); empty: none."""
    span_coef: tuple[float, ...] = ()
    span_intercept: float = 0.0
    span_from: float = 1.01
    """Probability (0–1) from which the best span is the short answer."""

    def span_probability(self, rows: np.ndarray) -> np.ndarray:
        """Per-row probability (0–1) that a span is the answer, of a ``(n, len(span_features))`` matrix."""
        return 1.0 / (1.0 + np.exp(-(rows @ np.asarray(self.span_coef) + self.span_intercept)))

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """Per-row linear score (a logit, uncalibrated) of a ``(n, len(FEATURES))`` feature matrix.
        Calibration reads the score itself, not its logistic: that saturates at 1.0 for the best
        candidates, and the isotonic map would lose them."""
        return rows @ np.asarray(self.coef) + self.intercept

    def calibrated(self, raw: float) -> float:
        """The probability (0–1) that an answer whose best candidate scored ``raw`` is right (the
        logistic of ``raw`` for a model without a calibration)."""
        if not self.calibration_x:
            return float(1.0 / (1.0 + np.exp(-raw)))
        return float(np.interp(raw, self.calibration_x, self.calibration_y))


def load_model(path: Path | None = None) -> ReaderModel:
    """The model at ``path``; by default ``AGENTIC_RAG_READER_MODEL`` when set (a model fitted
    without the manual being scored, in a leave-one-corpus-out run), else :data:`MODEL_FILE`.

    Raises:
        FileNotFoundError: no such file; ValueError: its features are not :data:`FEATURES`.
    """
    return _load(path or Path(os.environ.get("AGENTIC_RAG_READER_MODEL") or MODEL_FILE))


def trust_level() -> float:
    """The calibrated confidence (0–1) from which an answer is shown as "trust it": the lowest whose
    answers were right at least 90 % of the time on manuals held out of the fit; above 1 (no answer
    is trusted) when no level was."""
    return load_model().trust_from


@lru_cache(maxsize=4)
def _load(path: Path) -> ReaderModel:
    data = json.loads(path.read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{path} was fitted on other features; refit it: python -m evaluation.train_reader")
    calibration, span = data.get("calibration", {}), data.get("span", {})
    return ReaderModel(
        tuple(data["coef"]),
        data["intercept"],
        tuple(calibration.get("x", ())),
        tuple(calibration.get("y", ())),
        data["decline_below"],
        data["trust_from"],
        tuple(span.get("features", ())),
        tuple(span.get("coef", ())),
        span.get("intercept", 0.0),
        span.get("from", 1.01),
    )


def _share(said: frozenset[str], weights: Mapping[str, float], total: float) -> float:
    return sum(w for t, w in weights.items() if t in said) / total if total else 0.0


def _bigram_share(pairs: set[tuple[str, str]], text: str) -> float:
    """Share of the question's adjacent term pairs that ``text`` holds adjacent too: term
    proximity, as in the sequential dependence model (Metzler & Croft 2005)."""
    if not pairs:
        return 0.0
    said = terms(text)
    return len(pairs & set(zip(said, said[1:], strict=False))) / len(pairs)


def _similarities(question: str, texts: Sequence[str], embeddings: Embeddings | None) -> np.ndarray:
    """Cosine similarity (clipped to 0–1) of each text's embedding to the question's; zeros without a model."""
    if embeddings is None or not texts:
        return np.zeros(len(texts))
    vectors = np.asarray(embeddings.embed_documents([question, *texts]), dtype=float)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
    return np.clip(vectors[1:] @ vectors[0], 0.0, 1.0)


_WORD_VECTORS: dict[str, np.ndarray] = {}
"""WordLlama vectors of the words seen so far in this process (see :func:`_soft_matches`)."""
WORD_CACHE = 200_000
"""Words kept in :data:`_WORD_VECTORS` (about 200 MB at 256 dimensions) before it starts afresh."""


def _word_vectors(words: Sequence[str]) -> np.ndarray:
    """A ``(len(words), 256)`` matrix of WordLlama word vectors (a word's tokens' mean, unit length;
    :class:`providers.embeddings.WordLlamaEmbeddings`), computed once per word and process."""
    from providers.embeddings import load_embedding_model

    missing = [w for w in dict.fromkeys(words) if w not in _WORD_VECTORS]
    if missing:
        if len(_WORD_VECTORS) + len(missing) > WORD_CACHE:
            _WORD_VECTORS.clear()
        vectors = load_embedding_model("wordllama").embeddings.embed_documents(missing)
        _WORD_VECTORS.update(zip(missing, np.asarray(vectors, dtype=np.float32), strict=True))
    return np.stack([_WORD_VECTORS[w] for w in words])


def _soft_matches(question: str, weights: Mapping[str, float], texts: Sequence[str]) -> np.ndarray:
    """Per text, the mean over the question's content words, weighted by their IDF, of each word's
    highest cosine similarity to a word of the text on WordLlama's word vectors: overlap that
    counts near words ("slurps" and "reads"), a word-by-word translation matrix as in K-NRM (Xiong
    et al. 2017, "End-to-End Neural Ad-hoc Ranking with Kernel Pooling"); 0 for a text without
    content words. Returns a ``len(texts)`` array in −1–1."""
    asked = list(dict.fromkeys(content_words(question)))
    said = [content_words(text) for text in texts]
    if not asked or not any(said):
        return np.zeros(len(texts))
    idf = np.array([sum(weights.get(t, 0.0) for t in terms(w)) for w in asked])
    idf = idf / idf.sum() if idf.sum() > 0 else np.full(len(asked), 1.0 / len(asked))
    question_vectors = _word_vectors(asked)
    return np.array([idf @ (question_vectors @ _word_vectors(w).T).max(axis=1) if w else 0.0 for w in said])


def featurize(
    question: str,
    kind: AnswerType,
    evidence: Sequence[HopChunk],
    weights: Mapping[str, float],
    embeddings: Embeddings | None = None,
    avoid: Sequence[str] = (),
) -> tuple[list[Candidate], np.ndarray]:
    """Every distinct sentence of ``evidence`` (chunks best first; a ``kept`` key ``False``
    marks one the grader did not keep) and its feature row.

    Args:
        question: the standalone question.
        kind: its expected answer type (:func:`deciders.answer_types.expected_type`).
        evidence: the chunks, in the order they were handed on.
        weights: IDF of each question term over the collection (:func:`core.text.terms` keys).
        embeddings: the collection's embedding model; ``None`` leaves the dense and soft-match
            features 0 (soft matches use WordLlama's word vectors whatever the collection's model).
        avoid: sentences not to use (claims a grounding check rejected).

    Returns:
        (candidates with ``score`` 0, a ``(len(candidates), len(FEATURES))`` float matrix).
    """
    total = sum(weights.values())
    asked = terms(question)
    pairs = {(a, b) for a, b in zip(asked, asked[1:], strict=False) if a != b}
    heaviest = max(weights.values(), default=0.0)
    focus = {t for t, w in weights.items() if w == heaviest}
    named = {n.lower() for n in exact_names(question)}
    found: list[tuple[str, HopChunk, str | None, str | None, int, int]] = []
    seen: set[str] = set()
    for rank, chunk in enumerate(evidence):
        said = sentences(chunk["text"])
        heading = None  # the heading-like line the sentence falls under (a definition list's term)
        for position, sentence in enumerate(said):
            if sentence not in seen and sentence not in avoid:
                seen.add(sentence)
                found.append((sentence, chunk, said[position - 1] if position else None, heading, rank, position))
            if is_heading(sentence):
                heading = sentence
    if not found:
        return [], np.zeros((0, len(FEATURES)))
    dense = _similarities(question, [s for s, *_ in found], embeddings)
    with_context = [f"{c or ''} {s}".strip() for s, _, c, *_ in found]
    dense_context = _similarities(question, with_context, embeddings)
    soft = np.zeros((len(found), 2))
    if embeddings is not None:
        alone = _soft_matches(question, weights, [s for s, *_ in found])
        soft = np.column_stack([alone, _soft_matches(question, weights, with_context)])
    candidates, rows = [], []
    for (sentence, chunk, context, heading, rank, position), sim, sim_context, (match, match_context) in zip(
        found, dense, dense_context, soft, strict=True
    ):
        own = term_set(sentence)
        near = own | term_set(context or "")
        title = term_set(chunk.get("title", ""))
        head = term_set(heading or "")
        entry = {n.lower() for n in exact_names(heading or "")}  # the entry it falls under names these
        typed = tuple(spans(sentence, kind, question)) if kind not in UNTYPED | {"yes_no"} else ()
        words = len(sentence.split())
        support = _share(near | title | head, weights, total)
        shown = heading if heading and heading != context and _share(head - near, weights, total) > 0 else context
        candidates.append(Candidate(sentence, chunk, shown, typed, round(support, 4), 0.0))
        rows.append(
            [
                _share(own, weights, total),
                _share(near, weights, total),
                _share(title, weights, total),
                _share(head, weights, total),
                support,
                _bigram_share(pairs, f"{context or ''} {sentence}"),
                float(bool(focus & near)),
                len(own & weights.keys()) / len(weights) if weights else 0.0,
                float(sim),
                float(sim_context),
                float(match),
                float(match_context),
                float(bool(typed)),
                float(bool(typed) and kind in VALUES),
                0.0,
                float(any(ch.isdigit() for ch in sentence)),
                1.0 / (1 + rank),
                float(chunk.get("kept", True)),
                float(chunk.get("relevance") or 0.0),
                1.0 / (1 + position),
                math.log1p(words) / 5,
                float(words < 4),
                float(is_heading(sentence)),
                float(sentence.startswith("|")),
                float(bool(entry & named)),
                float(bool(named) and bool(entry) and not entry & named),
            ]
        )
    matrix = np.asarray(rows, dtype=float)
    typed = matrix[:, FEATURES.index("typed")]
    matrix[:, FEATURES.index("typed_rarity")] = typed * (1.0 - typed.mean())  # a span few sentences hold
    return candidates, matrix


def rank(
    question: str,
    kind: AnswerType,
    evidence: Sequence[HopChunk],
    weights: Mapping[str, float],
    model: ReaderModel,
    embeddings: Embeddings | None = None,
    avoid: Sequence[str] = (),
) -> list[Candidate]:
    """The candidates of :func:`featurize`, each with the model's ``score``, best first (ordered by
    the unrounded score: near 1 a 4-decimal one ties candidates the model tells apart)."""
    candidates, rows = featurize(question, kind, evidence, weights, embeddings, avoid)
    if not candidates:
        return []
    scores = model.scores(rows)
    scored = [
        Candidate(c.sentence, c.chunk, c.context, c.spans, c.support, float(s))
        for c, s in zip(candidates, scores, strict=True)
    ]
    return sorted(scored, key=lambda c: -c.score)
