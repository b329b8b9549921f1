"""Calibrated confidence: raw answer confidence mapped to the accuracy it had on the dev sets.

``core/calibration.json`` holds the breakpoints of isotonic regressions (Zadrozny & Elkan 2002,
"Transforming Classifier Scores into Accurate Multiclass Probability Estimates") fitted by
``python -m evaluation.calibrate`` on eval runs: one over every answer, ``{"x": [raw, …], "y":
[accuracy, …]}``, both non-decreasing, and one per answer group with enough records
(``"groups": {"value": {"x", "y", "n"}, …}``; the group of a response is
:func:`deciders.answer_types.confidence_group`). Between breakpoints a map is linear
(``numpy.interp``); a group without a map uses the overall one; without the file, confidence
stays raw.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")

Breakpoints = tuple[tuple[float, ...], tuple[float, ...]]


@lru_cache(maxsize=4)
def breakpoints(path: Path = CALIBRATION_FILE) -> dict[str | None, Breakpoints] | None:
    """The (x, y) breakpoints in ``path`` by group (``None``: the overall map), or ``None`` when
    there is no such file."""
    if not path.exists():
        return None
    table = json.loads(path.read_text())
    maps: dict[str | None, Breakpoints] = {None: (tuple(table["x"]), tuple(table["y"]))}
    for group, entry in table.get("groups", {}).items():
        maps[group] = (tuple(entry["x"]), tuple(entry["y"]))
    return maps


def calibrate(raw: float, group: str | None = None, path: Path = CALIBRATION_FILE) -> float:
    """``raw`` (0–1) mapped through the calibration at ``path`` — the map of ``group`` when it has
    one, else the overall map: the accuracy responses of that raw confidence had on the dev sets,
    0–1 (``raw`` itself when there is no calibration)."""
    maps = breakpoints(path)
    if maps is None:
        return raw
    x, y = maps.get(group) or maps[None]
    return round(float(np.interp(raw, x, y)), 3)
