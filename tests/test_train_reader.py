"""Fitting the reader and its span scorer (evaluation/train_reader.py, evaluation/train_spans.py)
on small made-up feature rows: what the fit and the thresholds decide, not a shipped figure."""

from __future__ import annotations

import numpy as np

from deciders.headline import SPAN_FEATURES
from evaluation.train_reader import thresholds
from evaluation.train_spans import SpanQuestion, export_spans, fit_spans, span_f1


def test_the_decline_threshold_weighs_each_set_the_same():
    # a big set whose answers are right at any confidence, and a small one whose low-confidence
    # answers are all unanswerable questions: counting questions, the big set would forbid declining
    big = [(0.2, True, True, False, "big")] * 50
    small = [(0.2, False, False, False, "small")] * 5 + [(0.8, True, True, False, "small")] * 5
    decline, trust = thresholds(big + small)
    assert decline == 0.0  # 50 right answers lost outweigh 5 unanswerables declined, per set too
    big_low = [(0.2, True, True, False, "big")] * 5 + [(0.9, True, True, False, "big")] * 45
    decline, _ = thresholds(big_low + small)
    assert decline == 0.8  # the big set loses 10 % of its answers; the small one gains half its questions
    assert trust <= decline  # every answer shown is right: trusted as soon as it is shown


def span_question(right_first: bool) -> SpanQuestion:
    rows = np.zeros((2, len(SPAN_FEATURES)))
    rows[0 if right_first else 1, SPAN_FEATURES.index("nearness")] = 1.0
    labels = np.array([1.0, 0.0])
    return SpanQuestion(rows, labels, f1=labels.copy(), sentence_f1=0.1)


def test_the_span_scorer_learns_the_telling_feature_and_gives_spans_when_they_pay():
    questions = [span_question(True) for _ in range(30)] + [span_question(False) for _ in range(3)]
    coef, intercept, span_from = fit_spans(questions)
    assert coef[SPAN_FEATURES.index("nearness")] > 0
    # a span is given from a level that keeps the near, right spans: F1 1 against the sentence's 0.1
    assert span_f1(questions, coef, intercept, span_from) > 0.8
    exported = export_spans(coef, intercept, span_from)
    assert exported["features"] == list(SPAN_FEATURES) and exported["from"] == span_from
