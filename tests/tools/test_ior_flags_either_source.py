"""IOR's on/off flags (O_DIRECT, collective, fsync, random offsets) from the real IOR 4.0 JSON output, each
turned on by the test's parameters alone, by each spelling on the command line alone, and by neither (issue
41: `bench/mutation.py` found `params or command` turned into `and` held by no fast test: the real file has
every flag off in both places, so only one side of each `or` was ever read)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from iolab.tools.ior import FLAGS, parse_json, parse_text

REAL = json.loads((Path(__file__).parents[1] / "data" / "ior" / "compspec-ior-4.0.0rc1.json").read_text())
PARAMETER = {"direct": "useO_DIRECT", "collective": "collective", "fsync": "fsync", "random_offsets": "randomOffset"}


def _points(parameters: dict[str, int], command: str) -> list:
    doc = copy.deepcopy(REAL)
    for test in doc["tests"]:
        test["Parameters"].update(parameters)
    doc["Command line"] = command
    return parse_json(json.dumps(doc), "ior.json").points


def _on(point, flag: str) -> bool:
    return point.direct if flag == "direct" else point.options.get(flag) == "1"


@pytest.mark.parametrize("flag", sorted(FLAGS))
def test_each_flag_is_on_from_its_parameter_alone_or_any_command_spelling_alone(flag):
    off = {key: 0 for key in PARAMETER.values()}
    for point in _points(off, "ior -O summaryFormat=JSON"):
        assert not any(_on(point, f) for f in FLAGS)
    for point in _points({**off, PARAMETER[flag]: 1}, "ior -O summaryFormat=JSON"):
        assert [f for f in FLAGS if _on(point, f)] == [flag]
    for spelling in FLAGS[flag]:
        for point in _points(off, f"ior -a POSIX {spelling} -O summaryFormat=JSON"):
            assert [f for f in FLAGS if _on(point, f)] == [flag], spelling


TEXT = (Path(__file__).parents[1] / "data" / "ior" / "akrr-v33-ior-3.3.0.txt").read_text()
FIRST = TEXT.split("Began", 2)[0] + "Began" + TEXT.split("Began", 2)[1]  # the file's first IOR invocation


def _text_points(command_extra: str = "", kind: str = "independent", ordering: str = "sequential") -> list:
    text = FIRST.replace("-a POSIX -o", f"-a POSIX {command_extra} -o".replace("  ", " "), 1)
    text = text.replace("type                : independent", f"type                : {kind}", 1)
    text = text.replace("ordering in a file  : sequential", f"ordering in a file  : {ordering}", 1)
    return parse_text(text, "ior.txt").points


@pytest.mark.parametrize("flag", sorted(FLAGS))
def test_each_flag_of_a_text_output_is_on_from_any_command_spelling_alone(flag):
    for point in _text_points():
        assert not any(_on(point, f) for f in FLAGS)
    for spelling in FLAGS[flag]:
        for point in _text_points(spelling):
            assert [f for f in FLAGS if _on(point, f)] == [flag], spelling


def test_collective_and_random_offsets_are_also_read_from_the_text_headers_words():
    for point in _text_points(kind="collective"):
        assert [f for f in FLAGS if _on(point, f)] == ["collective"]
    for point in _text_points(ordering="random offsets"):
        assert [f for f in FLAGS if _on(point, f)] == ["random_offsets"]
