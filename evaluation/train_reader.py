"""Fit the learned reader (:mod:`deciders.reader`) leave-one-corpus-out and ship it.

From the records :mod:`bench.reader_data` wrote (one file per manual), every evidence
sentence becomes a row of :data:`deciders.reader.FEATURES`, labelled 1 when the text shown for it
(its context and itself) holds a gold alias as a whole token — an alias shorter than
:data:`MIN_ALIAS` only when it comes from a gold page or shares half its terms with a gold
evidence quote (for a yes/no question: shares half its
terms with a quote). A listwise linear ranker (:func:`fit`) is fitted on
the answerable questions of the other manuals for each held-out manual; its best candidate's
linear score is calibrated by isotonic regression (Zadrozny & Elkan 2002) fitted on the other
manuals' own held-out predictions (an inner leave-one-out), and the decline and trust thresholds
are chosen on those too (:func:`thresholds`) — so nothing about the scored manual is seen.

Reported per held-out manual: right (the best sentence holds an alias and is not declined), the
share of answerable questions trusted and the precision there, unanswerable ones declined and
answerable ones wrongly declined. The shipped model is fitted on every manual; its calibration
and thresholds come from the pooled held-out predictions. Usage::

    python -m evaluation.train_reader [--data eval-out/reader] [--folds evaluation/reader_folds] \
        [--out deciders/reader_model.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from deciders.answer_types import expected_type
from deciders.reader import FEATURES, MODEL_FILE
from deciders.reader import featurize as reader_features
from evaluation.docsets import DOCSETS
from evaluation.train_spans import export_spans, fit_spans, span_f1, span_question

MANUALS = frozenset(d.fold for d in DOCSETS)
FOLDS = Path(__file__).with_name("reader_folds")
"""The shipped fold models, ``without-<manual>.json`` (``agentic-rag eval-docs --loco``)."""
TRUST_PRECISION = 0.9
"""Least precision of answers shown as "trust it" (issue 49): pooled over the calibration sets for a
level to be chosen, and on every held-out set for the shipped model to keep it."""
MIN_ALIAS = 3
"""Aliases at least this long label a sentence holding them wherever it is; shorter ones only on
a gold page or in a sentence quoting the evidence."""
L2 = 1.0
"""L2 penalty of the ranker's weights (the strength of scikit-learn's default logistic regression)."""


@dataclass
class Question:
    set: str
    id: str
    answerable: bool
    rows: np.ndarray
    labels: np.ndarray
    absent: bool
    """The question names something no chunk holds: declined whatever the reader says."""
    text: str
    kind: str
    weights: dict
    chunks: list
    answers: list[str]
    candidates: list
    """The :class:`deciders.reader.Candidate` of each row."""


def whole_token(text: str, aliases: list[str]) -> bool:
    """Whether an alias occurs in ``text`` as a whole token (not "10" in "100"), case- and
    whitespace-insensitively."""
    folded = " ".join(text.lower().split())
    return any(
        a.strip() and re.search(rf"(?<![\w]){re.escape(' '.join(a.lower().split()))}(?![\w])", folded) for a in aliases
    )


def _overlap(sentence: str, quotes: list[str]) -> float:
    words = set(re.findall(r"\w+", sentence.lower()))
    return max((len(words & set(re.findall(r"\w+", q.lower()))) / (len(words) or 1) for q in quotes), default=0.0)


def _gold_page(source: str, pages: list[str]) -> bool:
    path = (source or "").split("#", 1)[0]
    return any(path.endswith("/" + p) or path == p for p in pages)


def load_questions(folder: Path, embeddings) -> list[Question]:
    """Every record of ``folder/*.jsonl`` as feature rows and labels."""
    questions = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            question = record["question"]
            candidates, rows = reader_features(
                question, expected_type(question), record["chunks"], record["weights"], embeddings
            )
            record["gold_pages"] = record["gold_pages"] or []
            answers, quotes = record["answers"], record.get("evidence") or []
            yes_no = answers in (["yes"], ["no"])
            labels = []
            for c in candidates:
                shown = f"{c.context or ''} {c.sentence}"
                if yes_no:
                    labels.append(_overlap(c.sentence, quotes) >= 0.5)
                else:
                    # a short alias ("0", "on") is said by many sentences: only one on a gold page or quoting
                    # the evidence holds it as the answer
                    sourced = (
                        _gold_page(c.chunk.get("source", ""), record["gold_pages"])
                        or c.chunk.get("title") in record["gold_pages"]  # a pooled set's gold paragraph
                        or _overlap(c.sentence, quotes) >= 0.5
                    )
                    said = [a for a in answers if len(a.strip()) >= MIN_ALIAS or sourced]
                    labels.append(whole_token(shown, said))
            questions.append(
                Question(
                    record["set"],
                    record["id"],
                    bool(answers),
                    rows,
                    np.asarray(labels, dtype=float),
                    bool(record["absent"]),
                    question,
                    expected_type(question),
                    record["weights"],
                    record["chunks"],
                    answers,
                    candidates,
                )
            )
    return questions


def fit(questions: list[Question]) -> np.ndarray:
    """Listwise linear ranker: a softmax over each answerable question's candidates (the
    conditional logit of McFadden 1973; ListNet's top-one probability, Cao et al. 2007), fitted to
    put the most probability on its right candidates — the loss is ``−log Σ_right softmax(X·w)``
    per question, plus :data:`L2` ``· |w|² / 2`` — by L-BFGS (scipy). Each set weighs the same in
    the loss, however many questions it has (a manual with many questions would otherwise set the
    weights for all). Deterministic (no sampling). Returns the weight vector (no intercept: a
    ranking)."""
    from scipy.optimize import minimize

    per_set = Counter(q.set for q in questions if q.answerable)
    kept = [q for q in questions if q.answerable and len(q.labels) and 0 < (q.labels > 0).sum() < len(q.labels)]
    rows = np.vstack([q.rows for q in kept])
    right = np.concatenate([q.labels > 0 for q in kept])
    sizes = np.array([len(q.labels) for q in kept])
    starts, owner = np.r_[0, np.cumsum(sizes)[:-1]], np.repeat(np.arange(len(kept)), sizes)
    weight = np.array([1.0 / per_set[q.set] for q in kept])
    weight *= len(kept) / weight.sum()

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        scores = rows @ w
        e = np.exp(scores - np.maximum.reduceat(scores, starts)[owner])
        total, held = np.add.reduceat(e, starts), np.add.reduceat(np.where(right, e, 0.0), starts)
        slope = weight[owner] * (e / total[owner] - np.where(right, e / held[owner], 0.0))
        return weight @ (np.log(total) - np.log(held)) + L2 * w @ w / 2, rows.T @ slope + L2 * w

    start = np.zeros(rows.shape[1])
    return minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": 1000}).x


def best(weights: np.ndarray, question: Question) -> tuple[float, bool]:
    """(linear score of the best candidate, whether it is right); (0, False) with none."""
    if not len(question.rows):
        return 0.0, False
    scores = question.rows @ weights
    top = int(np.argmax(scores))
    return float(scores[top]), bool(question.labels[top]) and question.answerable


def held_out_predictions(questions: list[Question], sets: list[str]) -> dict[str, list[tuple[float, bool]]]:
    """For each set, each question's (best linear score, right) by a model fitted without it."""
    out = {}
    for held in sets:
        model = fit([q for q in questions if q.set != held and q.set in sets])
        out[held] = [best(model, q) for q in questions if q.set == held]
    return out


def calibrate(pairs: list[tuple[float, bool]]) -> tuple[list[float], list[float]]:
    """Isotonic map (breakpoints x, y) from the best candidate's linear score to P(right)."""
    from sklearn.isotonic import IsotonicRegression

    raw = np.asarray([p for p, _ in pairs])
    right = np.asarray([r for _, r in pairs], dtype=float)
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(raw, right)
    return [round(float(v), 4) for v in iso.X_thresholds_], [round(float(v), 4) for v in iso.y_thresholds_]


def thresholds(scored: list[tuple[float, bool, bool, bool, str]]) -> tuple[float, float]:
    """(decline_below, trust_from) from (calibrated confidence, right, answerable, absent, set)
    records: the lowest decline threshold whose share of questions coming out right (answerable:
    right and not declined; unanswerable: declined; each set weighing the same) is within one
    standard error of the best threshold's — the one-standard-error rule (Breiman et al. 1984,
    *Classification and Regression Trees*): where the figure is flat, decline less, so a refit on
    slightly other data does not move the level far — and the lowest trust threshold whose
    precision is at least :data:`TRUST_PRECISION` (1.01 when none is)."""
    grid = sorted({c for c, *_ in scored} | {0.0})
    per_set = Counter(s for *_, s in scored)

    def correct(t: float) -> float:
        return sum(((r and c >= t and not a) if ans else (c < t or a)) / per_set[s] for c, r, ans, a, s in scored)

    best = max(grid, key=lambda t: (correct(t), -t))
    shares = {s: sum(((r and c >= best and not a) if ans else (c < best or a)) for c, r, ans, a, x in scored if x == s)
              / n for s, n in per_set.items()}  # fmt: skip
    error = math.sqrt(sum(p * (1 - p) / per_set[s] for s, p in shares.items()))  # of the sum over sets
    decline = min(t for t in grid if correct(t) >= correct(best) - error)
    trust = 1.01
    for t in grid:
        shown = [r for c, r, ans, a, _ in scored if c >= t and c >= decline and not a]
        if len(shown) >= 5 and sum(shown) / len(shown) >= TRUST_PRECISION:
            trust = t
            break
    return math.floor(decline * 1e4) / 1e4, math.floor(trust * 1e4) / 1e4 if trust <= 1 else trust  # kept when rounded


def fold(questions: list[Question], held: str, sets: list[str]) -> dict:
    """The model fitted without ``held``, its calibration and thresholds from an inner
    leave-one-out over the other sets, and its scores on ``held``."""
    others = [s for s in sets if s != held]
    inner = held_out_predictions(questions, others)
    pairs = [p for s in others for p in inner[s]]
    xs, ys = calibrate(pairs)
    flags = [(q.answerable, q.absent, s) for s in others for q in questions if q.set == s]
    scored = [(float(np.interp(p, xs, ys)), r, *flag) for (p, r), flag in zip(pairs, flags, strict=True)]
    decline, trust = thresholds(scored)
    model = fit([q for q in questions if q.set in others])
    span = fit_spans([sq for q in questions if q.set in others if (sq := span_question(q, model))])
    mine = [q for q in questions if q.set == held]
    results = [(float(np.interp(p, xs, ys)), r, q.answerable, q.absent) for q in mine for p, r in [best(model, q)]]
    held_spans = [sq for q in mine if (sq := span_question(q, model))]
    return {
        "model": model,
        "calibration": (xs, ys),
        "decline_below": decline,
        "trust_from": trust,
        "span": span,
        "scores": {**scores(results, decline, trust), "token_f1": span_f1(held_spans, *span)},
    }


def scores(results: list[tuple[float, bool, bool, bool]], decline: float, trust: float) -> dict:
    """Right, trust and decline figures of (calibrated confidence, right, answerable, absent) records."""
    answerable = [(c, r, a) for c, r, ans, a in results if ans]
    unanswerable = [(c, a) for c, r, ans, a in results if not ans]
    declined = [c < decline or a for c, _, a in answerable]
    trusted = [r for c, r, a in answerable if c >= max(trust, decline) and not a]
    trusted_wrong = sum(1 for c, _, ans, a in results if not ans and c >= max(trust, decline) and not a)
    return {
        "answerable": len(answerable),
        "right": round(
            sum(r and not d for (_, r, _), d in zip(answerable, declined, strict=True)) / (len(answerable) or 1), 3
        ),
        "trusted_share": round(len(trusted) / (len(answerable) or 1), 3),
        "trusted_precision": round(sum(trusted) / (len(trusted) + trusted_wrong), 3) if trusted else None,
        "unanswerable": len(unanswerable),
        "declined_unanswerable": round(sum(c < decline or a for c, a in unanswerable) / len(unanswerable), 3)
        if unanswerable
        else None,
        "false_decline": round(sum(declined) / (len(answerable) or 1), 3),
    }


def export(weights: np.ndarray, xs, ys, decline: float, trust: float, span: tuple, manifest: dict) -> dict:
    return {
        "span": export_spans(*span),
        "features": list(FEATURES),
        "coef": [round(float(v), 6) for v in weights],
        "intercept": 0.0,
        "calibration": {"method": "isotonic regression (Zadrozny & Elkan 2002)", "x": xs, "y": ys},
        "decline_below": decline,
        "trust_from": trust,
        "manifest": manifest,
    }


def main(argv: list[str] | None = None) -> int:
    from providers.embeddings import load_embedding_model

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("eval-out/reader"))
    parser.add_argument("--folds", type=Path, default=FOLDS)
    parser.add_argument("--out", type=Path, default=MODEL_FILE)
    args = parser.parse_args(argv)
    questions = load_questions(args.data, load_embedding_model("wordllama").embeddings)
    sets = sorted({q.set for q in questions})
    if len(sets) < 3:
        print(f"need records of at least 3 manuals in {args.data}; found {sets}", file=sys.stderr)
        return 2
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    data = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:12] for p in sorted(args.data.glob("*.jsonl"))}
    args.folds.mkdir(parents=True, exist_ok=True)
    held_out = {}
    for held in sets:
        result = fold(questions, held, sets)
        held_out[held] = result["scores"]
        manifest = {"held_out": held, "data": data, "commit": commit}
        fitted = export(
            result["model"],
            *result["calibration"],
            result["decline_below"],
            result["trust_from"],
            result["span"],
            manifest,
        )
        if held in MANUALS:  # the folds eval-docs --loco answers with; a Wikipedia set's is not used
            (args.folds / f"without-{held}.json").write_text(json.dumps(fitted, indent=1))
        print(f"{held:16} {json.dumps(result['scores'])}")
    # the shipped model: every manual; its calibration and thresholds from their held-out predictions
    outer = held_out_predictions(questions, sets)
    pairs = [p for s in sets for p in outer[s]]
    xs, ys = calibrate(pairs)
    flags = [(q.answerable, q.absent, s) for s in sets for q in questions if q.set == s]
    scored = [(float(np.interp(p, xs, ys)), r, *flag) for (p, r), flag in zip(pairs, flags, strict=True)]
    decline, trust = thresholds(scored)
    if any((held_out[s]["trusted_precision"] or 1.0) < TRUST_PRECISION for s in sets):
        trust = 1.01  # "trust it" only at a level whose precision held on every held-out set
    manifest = {
        "data": data,
        "commit": commit,
        "held_out_scores": held_out,
        "questions": len(questions),
        "method": "listwise linear ranker (softmax over candidates, scipy L-BFGS), leave-one-corpus-out",
    }
    weights = fit(questions)
    span = fit_spans([sq for q in questions if (sq := span_question(q, weights))])
    args.out.write_text(json.dumps(export(weights, xs, ys, decline, trust, span, manifest), indent=1) + "\n")
    print(f"wrote {args.out} (decline below {decline}, trust from {trust})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
