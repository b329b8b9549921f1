"""Calibrated confidence (core/calibration.py): the shipped map is monotone and applied."""

from __future__ import annotations

import json

from core.calibration import CALIBRATION_FILE, calibrate


def test_the_shipped_calibration_is_a_non_decreasing_map_into_0_1():
    table = json.loads(CALIBRATION_FILE.read_text())
    x, y = table["x"], table["y"]
    assert len(x) == len(y) >= 2
    assert all(a < b for a, b in zip(x, x[1:], strict=False)) and all(a <= b for a, b in zip(y, y[1:], strict=False))
    assert 0.0 <= y[0] and y[-1] <= 1.0
    assert calibrate(x[0]) == round(y[0], 3) and calibrate(x[-1]) == round(y[-1], 3)
    assert calibrate(0.1) <= calibrate(0.5) <= calibrate(0.9)


def test_without_a_calibration_file_confidence_stays_raw(tmp_path):
    assert calibrate(0.42, tmp_path / "none.json") == 0.42
