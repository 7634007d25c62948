"""A steady-state block's numbers at their bounds, in the real steadystate-attained.json edited one field at
a time (issue 41: a `duration` out of range was held by no fast test). fio writes `attained` as 0 or 1 and
`duration` as whole seconds of a run, which iolab bounds at ten years like every runtime."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.fio.validate import MAX_RUNTIME_MS, check_document

DOC = json.loads((Path(__file__).parent.parent / "data" / "fio" / "steadystate-attained.json").read_text())
LONGEST_S = MAX_RUNTIME_MS // 1000


def _with(**fields: object) -> dict:
    doc = copy.deepcopy(DOC)
    doc["jobs"][0]["steadystate"].update(fields)
    return doc


@pytest.mark.parametrize(
    ("field", "value"), [("duration", 0), ("duration", LONGEST_S), ("attained", 0), ("attained", 1)]
)
def test_a_steady_state_number_within_its_bounds_passes(field, value):
    check_document(_with(**{field: value}), "ss.json")


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("duration", LONGEST_S + 1, "is not possible"),
        ("duration", -1, "is not possible"),
        ("duration", 2.5, "expected a whole number"),
        ("duration", "3", "expected a number"),
        ("attained", 2, "is not possible"),
    ],
)
def test_a_steady_state_number_fio_would_not_write_is_named(field, value, said):
    with pytest.raises(UserError, match=rf"jobs\[0\]\.steadystate\.{field}: .*{said}"):
        check_document(_with(**{field: value}), "ss.json")


def test_a_steady_state_block_without_its_window_passes():
    doc = copy.deepcopy(DOC)
    del doc["jobs"][0]["steadystate"]["duration"], doc["jobs"][0]["steadystate"]["attained"]
    check_document(doc, "ss.json")
