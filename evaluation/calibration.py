"""Answer-level figures over per-question records: is an answer right, does the system abstain
when it should, and does ``confidence`` tell right answers from wrong ones.

A record (one line of ``questions.jsonl``) is *right* (its ``correct`` flag) when it answers an
answerable question with the gold answer and does not abstain, or abstains on an unanswerable
question. Every other record is *wrong*, a confident false abstention included.

* **Wrong-but-confident rate**: the share of all questions whose answer is wrong while its
  ``confidence`` is at or above ``trust_level()`` (the level the README tells users to
  trust); questions without a confidence count as not confident.
* **Confidence AUROC**: the area under the ROC curve of ``confidence`` as a score for "right"
  (scikit-learn's ``roc_auc_score``; Hanley & McNeil 1982: the probability that a random right
  answer has a higher confidence than a random wrong one, ties counting half). 0.5 is chance.
* **Abstention** precision (abstentions on unanswerable questions / abstentions), recall
  (abstentions on unanswerable questions / unanswerable questions) and the false abstention
  rate (abstentions on answerable questions / answerable questions).
"""

from __future__ import annotations

from statistics import fmean
from typing import Sequence

from deciders.reader import trust_level


def _share(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def auroc(labels: Sequence[bool], scores: Sequence[float]) -> float | None:
    """Area under the ROC curve of ``scores`` for the positive ``labels`` (0–1).

    Returns:
        ``None`` when only one class is present, or scikit-learn (the ``eval`` extra) is missing.
    """
    if len(set(map(bool, labels))) < 2:
        return None
    try:
        from sklearn.metrics import roc_auc_score
    except ImportError:
        return None
    return round(float(roc_auc_score([int(bool(x)) for x in labels], list(scores))), 4)


def confidence_figures(records: list[dict], trust: float | None = None) -> dict:
    """Accuracy, wrong-but-confident rate and confidence AUROC of records with a ``correct`` flag.

    Args:
        records: per-question records with ``correct`` (bool or ``None``: not scored) and
            ``confidence`` (0–1 or ``None``).
        trust: the trusted confidence level; ``trust_level()`` when ``None``.

    Returns:
        ``accuracy`` (share of scored records that are right), ``wrong_but_confident``
        (share of scored records), ``confident_share`` and ``accuracy_when_confident`` (records at
        or above ``trust``), ``confidence_auroc`` and ``confidence_mean_right`` /
        ``confidence_mean_wrong``; the confidence figures are ``None`` when no record has a
        confidence. Empty when no record is scored.
    """
    trust = trust_level() if trust is None else trust
    scored = [r for r in records if r.get("correct") is not None]
    if not scored:
        return {}
    rated = [r for r in scored if r.get("confidence") is not None]
    confident = [r for r in rated if r["confidence"] >= trust]
    figures: dict = {"accuracy": _share(sum(bool(r["correct"]) for r in scored), len(scored))}
    if not rated:
        return {**figures, "wrong_but_confident": None, "confidence_auroc": None}
    right = [r["confidence"] for r in rated if r["correct"]]
    wrong = [r["confidence"] for r in rated if not r["correct"]]
    return {
        **figures,
        "wrong_but_confident": _share(sum(not r["correct"] for r in confident), len(scored)),
        "confident_share": _share(len(confident), len(scored)),
        "accuracy_when_confident": _share(sum(bool(r["correct"]) for r in confident), len(confident)),
        "confidence_auroc": auroc([r["correct"] for r in rated], [r["confidence"] for r in rated]),
        "confidence_mean_right": round(fmean(right), 4) if right else None,
        "confidence_mean_wrong": round(fmean(wrong), 4) if wrong else None,
    }


def abstention_figures(records: list[dict]) -> dict:
    """Abstention precision and recall (when some question is unanswerable) and the false
    abstention rate (when some question is answerable), from ``answerable`` and ``abstained``."""
    figures: dict = {}
    answerable = [r for r in records if r["answerable"]]
    unanswerable = [r for r in records if not r["answerable"]]
    abstentions = [r for r in records if r["abstained"]]
    if unanswerable:
        hits = sum(1 for r in abstentions if not r["answerable"])
        figures["abstention_precision"] = _share(hits, len(abstentions))
        figures["abstention_recall"] = _share(hits, len(unanswerable))
    if answerable:
        figures["false_abstention_rate"] = _share(sum(1 for r in answerable if r["abstained"]), len(answerable))
    return figures
