"""Fit the span scorer of :mod:`deciders.headline` beside the reader (:mod:`evaluation.train_reader`).

For each answerable question that is not yes/no, the sentences the generator would cite
(:func:`deciders.generator.chosen_sentences` over the candidates ranked by the reader fitted in the
same fold) give candidate spans (:func:`deciders.headline.span_features`); a span is labelled 1 when
its token F1 with a gold alias (SQuAD's measure) is at least :data:`LABEL_F1`, or it is an alias
as written. A logistic regression (scikit-learn, fixed seed) gives each span's probability of
being the answer; the threshold ``span_from`` from which the best span becomes the short answer
is the one that makes the most of the fitted questions' token F1 (the span's F1 when it is given,
else the cited sentences' F1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from deciders.answer_types import options
from deciders.generator import chosen_sentences
from deciders.headline import SPAN_FEATURES, span_features
from deciders.passages import cite
from deciders.reader import Candidate
from evaluation.metrics import token_f1

SEED = 0
LABEL_F1 = 0.5
"""Least token F1 with a gold alias of a span labelled as the answer."""
C = 1.0
"""Inverse L2 strength of the logistic regression (scikit-learn's default)."""


@dataclass
class SpanQuestion:
    """One question's candidate spans under one fold's reader."""

    rows: np.ndarray
    labels: np.ndarray
    f1: np.ndarray
    """Each span's token F1 with the gold answers."""
    sentence_f1: float
    """The cited sentences' token F1: what the answer scores with no short answer."""


def span_question(question, weights: np.ndarray) -> SpanQuestion | None:
    """The candidate spans of ``question`` (a :class:`evaluation.train_reader.Question`) when its
    sentences are ranked by the reader weights ``weights``; ``None`` for a question that is
    unanswerable, yes/no, a choice between named options (answered by comparing them,
    :mod:`deciders.comparison`), or has no sentence."""
    if not question.answerable or question.kind == "yes_no" or not question.candidates or options(question.text):
        return None
    scores = question.rows @ weights
    ranked = sorted(
        (
            Candidate(c.sentence, c.chunk, c.context, c.spans, c.support, float(s))
            for c, s in zip(question.candidates, scores, strict=True)
        ),
        key=lambda c: -c.score,
    )
    chosen = chosen_sentences(question.text, ranked, question.weights)
    found, rows = span_features(question.kind, chosen, question.text, question.weights, question.chunks)
    aliases = {a.strip().lower() for a in question.answers}
    f1 = np.asarray([token_f1(s, question.answers) for s in found])
    labels = np.asarray([f >= LABEL_F1 or s.strip().lower() in aliases for s, f in zip(found, f1, strict=True)])
    return SpanQuestion(rows, labels.astype(float), f1, token_f1(cite(chosen)[0], question.answers))


def fit_spans(questions: list[SpanQuestion]) -> tuple[np.ndarray, float, float]:
    """(coefficients, intercept, span_from) fitted on ``questions`` (see the module docstring)."""
    from sklearn.linear_model import LogisticRegression

    with_spans = [q for q in questions if len(q.rows)]
    rows = np.vstack([q.rows for q in with_spans])
    labels = np.concatenate([q.labels for q in with_spans])
    model = LogisticRegression(C=C, max_iter=3000, random_state=SEED).fit(rows, labels)
    coef, intercept = model.coef_[0], float(model.intercept_[0])
    best = []
    for q in questions:
        if len(q.rows):
            p = 1.0 / (1.0 + np.exp(-(q.rows @ coef + intercept)))
            top = int(np.argmax(p))
            best.append((float(p[top]), float(q.f1[top]), q.sentence_f1))
        else:
            best.append((0.0, 0.0, q.sentence_f1))
    grid = sorted({p for p, _, _ in best} | {1.01})

    def total(t: float) -> float:
        return sum(f if p >= t else s for p, f, s in best)

    return coef, intercept, math.floor(max(grid, key=lambda t: (total(t), t)) * 1e4) / 1e4  # rounded down: kept


def span_f1(questions: list[SpanQuestion], coef: np.ndarray, intercept: float, span_from: float) -> float | None:
    """Mean token F1 of the answers (the best span from ``span_from``, else the cited sentences)."""
    if not questions:
        return None
    total = 0.0
    for q in questions:
        p = 1.0 / (1.0 + np.exp(-(q.rows @ coef + intercept))) if len(q.rows) else np.zeros(0)
        top = int(np.argmax(p)) if len(p) else -1
        total += float(q.f1[top]) if top >= 0 and p[top] >= span_from else q.sentence_f1
    return round(total / len(questions), 3)


def export_spans(coef: np.ndarray, intercept: float, span_from: float) -> dict:
    """The ``span`` section of a reader model file."""
    return {
        "features": list(SPAN_FEATURES),
        "coef": [round(float(v), 6) for v in coef],
        "intercept": round(intercept, 6),
        "from": span_from,
        "method": "logistic regression (scikit-learn) over candidate spans",
    }
