"""Calibrated confidence: raw answer confidence mapped to the accuracy it had on the dev sets.

``core/calibration.json`` holds the breakpoints of an isotonic regression (Zadrozny & Elkan
2002, "Transforming Classifier Scores into Accurate Multiclass Probability Estimates") fitted
by ``python -m evaluation.calibrate`` on eval runs: ``{"x": [raw, …], "y": [accuracy, …]}``,
both non-decreasing. Between breakpoints the map is linear (``numpy.interp``); without the
file, confidence stays raw.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")


@lru_cache(maxsize=4)
def breakpoints(path: Path = CALIBRATION_FILE) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """The (x, y) breakpoints in ``path``, or ``None`` when there is no such file."""
    if not path.exists():
        return None
    table = json.loads(path.read_text())
    return tuple(table["x"]), tuple(table["y"])


def calibrate(raw: float, path: Path = CALIBRATION_FILE) -> float:
    """``raw`` (0–1) mapped through the calibration at ``path``: the accuracy answers of that
    raw confidence had on the dev sets, 0–1 (``raw`` itself when there is no calibration)."""
    table = breakpoints(path)
    if table is None:
        return raw
    return round(float(np.interp(raw, table[0], table[1])), 3)
