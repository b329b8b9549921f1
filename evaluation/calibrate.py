"""Fit a calibration map from raw answer ``confidence`` to the probability that the answer is
right, from the per-question records ``agentic-rag eval`` writes (``questions.jsonl``).

Method: isotonic regression (Zadrozny & Elkan 2002, "Transforming classifier scores into
accurate multiclass probability estimates", KDD; scikit-learn's ``IsotonicRegression``): the
non-decreasing step function of the raw confidence that best fits the 0/1 ``correct`` flags
in squared error (pool adjacent violators). It keeps the order of answers within a map and
turns the scores into observed accuracies. One map is fitted over every record and one per
answer group (:func:`deciders.answer_types.confidence_group`: abstention, value, yes/no, name,
other) with at least ``--min-group`` records in the fitted half: a value answer and a name
answer of the same support are not right equally often.

Questions are split into two halves by a stable hash of their id (SHA-256, even → fitted,
odd → held out; every mode's record of a question falls in the same half). The map is fitted
on the first half; both halves are reported: questions, accuracy, confidence AUROC (raw and
calibrated), Brier score (mean squared error of the probability; raw and calibrated), and
the share and accuracy of answers at or above the trust level (raw and calibrated).

Usage::

    python -m evaluation.calibrate eval-out/*/questions.jsonl --out core/calibration.json \
        [--modes agentic] [--min-group 30] [--keep abstention [--base core/calibration.json]]

Output (JSON)::

    {"method": "isotonic regression (Zadrozny & Elkan 2002)",
     "x": [0.2, 0.41, …],          # raw confidence breakpoints, strictly increasing, in 0–1
     "y": [0.05, 0.12, …],         # calibrated probability at each breakpoint, non-decreasing, in 0–1
     "apply": "numpy.interp(confidence, x, y)",
     "groups": {"value": {"x": […], "y": […], "n": 38}, …},   # per answer group, same format
     "trust": 0.7, "split": "…", "sources": […], "modes": […],
     "halves": {"fit": {…}, "held_out": {…}}}

Apply it with ``numpy.interp(raw, x, y)`` of the response's group (the overall ``x``, ``y`` when
the group has no map): linear between breakpoints, and the end values outside ``[x[0], x[-1]]``
(as the fitted model does with ``out_of_bounds="clip"``).

Records without a ``correct`` flag (runs of older code) or without a ``confidence``
(``standard`` mode) are left out. Exits with status 2 and a message when fewer than two
records remain in the fitted half.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Sequence

from core.calibration import CALIBRATION_FILE
from deciders.answer_types import confidence_group
from deciders.reader import trust_level
from evaluation.calibration import auroc

METHOD = "isotonic regression (Zadrozny & Elkan 2002), one map per answer group"
MIN_GROUP = 30
"""Least records of a group in the fitted half for it to get its own map."""


def fitted_half(question_id: str) -> bool:
    """Whether a question falls in the fitted half: SHA-256 of its id is even."""
    return hashlib.sha256(question_id.encode()).digest()[-1] % 2 == 0


def raw_confidence(record: dict) -> float | None:
    """The confidence before calibration (``raw_confidence``; older records: ``confidence``)."""
    raw = record.get("raw_confidence")
    return record.get("confidence") if raw is None else raw


def read_records(paths: Sequence[Path], modes: Sequence[str] | None = None) -> list[dict]:
    """Records with a ``correct`` flag and a ``confidence`` from ``questions.jsonl`` files,
    only of ``modes`` when given.

    Raises:
        FileNotFoundError: a path does not exist. json.JSONDecodeError: a line is not JSON.
    """
    records = []
    for path in paths:
        for line in Path(path).read_text().splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            if record.get("correct") is None or raw_confidence(record) is None:
                continue
            if modes and record.get("mode") not in modes:
                continue
            records.append(record)
    return records


def fit(confidences: Sequence[float], correct: Sequence[bool]) -> tuple[list[float], list[float]]:
    """Isotonic regression of 0/1 correctness on confidence.

    Returns:
        ``(x, y)`` breakpoints: ``x`` strictly increasing raw confidences, ``y`` the
        non-decreasing calibrated probabilities (0–1) at them.

    Raises:
        ImportError: scikit-learn (the ``eval`` extra) is not installed.
    """
    from sklearn.isotonic import IsotonicRegression

    model = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip")
    model.fit([float(c) for c in confidences], [float(bool(c)) for c in correct])
    return [round(float(v), 6) for v in model.X_thresholds_], [round(float(v), 6) for v in model.y_thresholds_]


def group_of(record: dict) -> str:
    """The calibration group of an eval record (its question and whether it abstained)."""
    return confidence_group(str(record.get("question", "")), bool(record.get("abstained")))


def _figures(records: list[dict], maps: dict[str | None, tuple[list[float], list[float]]], trust: float) -> dict:
    import numpy

    raw = numpy.array([raw_confidence(r) for r in records], dtype=float)
    right = numpy.array([bool(r["correct"]) for r in records])
    calibrated = numpy.array(
        [numpy.interp(c, *maps.get(group_of(r), maps[None])) for c, r in zip(raw, records, strict=True)]
    )
    figures: dict = {"questions": len(records)}
    if not len(records):
        return figures
    figures["accuracy"] = round(float(right.mean()), 4)
    for name, scores in (("raw", raw), ("calibrated", calibrated)):
        confident = scores >= trust
        figures[name] = {
            "auroc": auroc(right.tolist(), scores.tolist()),
            "brier": round(float(numpy.mean((scores - right) ** 2)), 4),
            "trusted_share": round(float(confident.mean()), 4),
            "accuracy_when_trusted": round(float(right[confident].mean()), 4) if confident.any() else None,
        }
    return figures


def calibrate(
    paths: Sequence[Path],
    modes: Sequence[str] | None = None,
    trust: float | None = None,
    min_group: int = MIN_GROUP,
    kept: dict[str, dict] | None = None,
) -> dict:
    """Fit on one half of the questions, report both halves (see the module docstring).

    ``kept`` holds group maps (``{"x", "y", …}``, from an earlier calibration file) used as they are
    instead of fitted: the abstention map, whose accuracy is the share of unanswerable questions in
    the runs it was fitted on (none in HotpotQA or MuSiQue, many in pgdocs), not a property of the
    answer.

    Raises:
        ValueError: fewer than two usable records in the fitted half.
    """
    trust = trust_level() if trust is None else trust
    records = read_records(paths, modes)
    halves = {"fit": [r for r in records if fitted_half(str(r["id"]))]}
    halves["held_out"] = [r for r in records if not fitted_half(str(r["id"]))]
    if len(halves["fit"]) < 2:
        raise ValueError(
            f"{len(records)} records with a correct flag and a confidence ({len(halves['fit'])} in the fitted "
            "half); need at least 2 there: run agentic-rag eval with an agentic mode first"
        )
    x, y = fit([raw_confidence(r) for r in halves["fit"]], [r["correct"] for r in halves["fit"]])
    maps: dict[str | None, tuple[list[float], list[float]]] = {None: (x, y)}
    groups = {}
    by_group: dict[str, list[dict]] = {}
    for record in halves["fit"]:
        by_group.setdefault(group_of(record), []).append(record)
    for group, rows in sorted(by_group.items()):
        if group not in (kept or {}) and len(rows) >= min_group:
            maps[group] = fit([raw_confidence(r) for r in rows], [r["correct"] for r in rows])
            groups[group] = {"x": maps[group][0], "y": maps[group][1], "n": len(rows)}
    for group, entry in sorted((kept or {}).items()):  # whether or not the fitted half has records of it
        maps[group] = (entry["x"], entry["y"])
        groups[group] = {**entry, "kept": True}
    return {
        "method": METHOD,
        "x": x,
        "y": y,
        "apply": "numpy.interp(confidence, x, y), with the group's x and y when it has a map",
        "groups": groups,
        "trust": trust,
        "split": "sha256(question id): last byte even → fit, odd → held out",
        "sources": [str(p) for p in paths],
        "modes": sorted({r.get("mode", "") for r in records}),
        "halves": {name: _figures(rows, maps, trust) for name, rows in halves.items()},
    }


def _summary(result: dict) -> str:
    sizes = ", ".join(f"{g} {len(m['x'])}" for g, m in result["groups"].items())
    lines = [f"{METHOD}: {len(result['x'])} breakpoints overall ({sizes}); trust level {result['trust']}", ""]
    lines += ["| half | n | accuracy | AUROC raw / cal. | Brier raw / cal. | trusted share raw / cal. "
              "| accuracy when trusted raw / cal. |", "|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, h in result["halves"].items():
        if h["questions"] == 0:
            lines.append(f"| {name} | 0 | – | – | – | – | – |")
            continue
        raw, cal = h["raw"], h["calibrated"]
        pairs = [(raw[k], cal[k]) for k in ("auroc", "brier", "trusted_share", "accuracy_when_trusted")]
        cells = " | ".join(" / ".join("–" if v is None else f"{v:.3f}" for v in pair) for pair in pairs)
        lines.append(f"| {name} | {h['questions']} | {h['accuracy']:.3f} | {cells} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.calibrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="questions.jsonl files written by agentic-rag eval")
    parser.add_argument("--out", type=Path, help="write the breakpoints JSON here (default: print it)")
    parser.add_argument("--modes", help="comma-separated modes to use (default: every mode with a confidence)")
    parser.add_argument("--trust", type=float, help=f"trust level (default {trust_level()})")
    parser.add_argument("--min-group", type=int, default=MIN_GROUP, help="least fitted records for a group's own map")
    parser.add_argument("--keep", help="comma-separated groups whose maps --base gives, used as they are, not fitted")
    parser.add_argument("--base", type=Path, help="the calibration file --keep reads (default: the shipped one)")
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()] if args.modes else None
    try:
        base_file = args.base or CALIBRATION_FILE
        base = json.loads(base_file.read_text()).get("groups", {}) if args.keep else {}
        keep = [g.strip() for g in (args.keep or "").split(",") if g.strip()]
        if missing := [g for g in keep if g not in base]:
            raise ValueError(f"{base_file} has no map of {', '.join(missing)} to keep (it has: {', '.join(base)})")
        result = calibrate(args.files, modes, args.trust, args.min_group, {g: base[g] for g in keep})
    except (ValueError, FileNotFoundError, json.JSONDecodeError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
        print(_summary(result))
        print(f"\nwrote {args.out}")
    else:
        print(text)
        print(_summary(result), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
