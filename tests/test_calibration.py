"""Calibrated confidence (core/calibration.py): the shipped maps are monotone and applied, one per
answer group."""

from __future__ import annotations

import json

import pytest

from core.calibration import CALIBRATION_FILE, calibrate
from deciders.answer_types import confidence_group

TABLE = json.loads(CALIBRATION_FILE.read_text())


@pytest.mark.parametrize("group", [None, *TABLE["groups"]])
def test_every_shipped_map_is_non_decreasing_into_0_1(group):
    entry = TABLE if group is None else TABLE["groups"][group]
    x, y = entry["x"], entry["y"]
    assert len(x) == len(y) >= 2
    assert all(a < b for a, b in zip(x, x[1:], strict=False)) and all(a <= b for a, b in zip(y, y[1:], strict=False))
    assert 0.0 <= y[0] and y[-1] <= 1.0
    assert calibrate(x[0], group) == round(y[0], 3) and calibrate(x[-1], group) == round(y[-1], 3)
    assert calibrate(0.1, group) <= calibrate(0.5, group) <= calibrate(0.9, group)


def test_a_group_without_a_map_uses_the_overall_one(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text(
        json.dumps({"x": [0.0, 1.0], "y": [0.1, 0.9], "groups": {"value": {"x": [0.0, 1.0], "y": [0.5, 1.0]}}})
    )
    assert calibrate(0.5, "value", path) == 0.75
    assert calibrate(0.5, "name", path) == calibrate(0.5, None, path) == 0.5


def test_responses_fall_in_groups_by_the_type_asked_for():
    assert confidence_group("What is the default of work_mem?", abstained=False) == "value"
    assert confidence_group("Is libpq thread-safe?", abstained=False) == "yes_no"
    assert confidence_group("Who directed Jaws?", abstained=False) == "name"
    assert confidence_group("What encouraged trade?", abstained=False) == "other"
    assert confidence_group("What is the default of work_mem?", abstained=True) == "abstention"


def test_without_a_calibration_file_confidence_stays_raw(tmp_path):
    assert calibrate(0.42, path=tmp_path / "none.json") == 0.42
