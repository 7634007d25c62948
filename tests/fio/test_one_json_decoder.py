"""One decoder behaviour for fio's JSON: whichever decoder reads a document (orjson for a plain file, the
bounded json decoder for text around it or what orjson refuses), the same numbers are read or refused alike.
orjson kept an integer up to 2**64 - 1 and made a longer one a float, where the bounded decoder refuses every
integer beyond int64: a planted 2**63 was read from a plain file and refused from one with a warning line
before it. Real fio outputs under tests/data/fio, one number replaced at a time by values at and around
int64's and uint64's ends, long fractions and exponents, each read plain and behind a warning line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.fio.parse import _decode_all, extract_document
from iolab.numbers import NumberError, bounded_decoder

DATA = Path(__file__).resolve().parents[1] / "data" / "fio"
FILES = ["randrw-json.json", "metadata-filestat.json", "ramp-qd32-throttled.json"]  # small: each read many times
VALUES = [
    str(2**63 - 1), str(2**63), str(2**64 - 1), str(2**64), str(-(2**63)), str(-(2**63) - 1), str(10**30),
    "9" * 18, "1" + "0" * 18, "1e19", "-1e19", "12345678901234567890.5", "0.1234567890123456789", "1e308", "17",
]  # fmt: skip
PLACEHOLDER = 987654321987654  # written by json.dumps as these digits, found and replaced


def _numbers(tree: object, path: tuple = ()) -> list[tuple]:
    if isinstance(tree, dict):
        return [p for k, v in tree.items() for p in _numbers(v, (*path, k))]
    if isinstance(tree, list):
        return [p for i, v in enumerate(tree) for p in _numbers(v, (*path, i))]
    return [path] if isinstance(tree, int | float) and not isinstance(tree, bool) else []


def _planted(doc: dict, path: tuple, value: str) -> str:
    copy = json.loads(json.dumps(doc))
    at = copy
    for key in path[:-1]:
        at = at[key]
    at[path[-1]] = PLACEHOLDER
    return json.dumps(copy, indent=2).replace(str(PLACEHOLDER), value)


def _read(read, text: str) -> str:  # type: ignore[no-untyped-def]
    """The document read, as JSON text (ints and floats apart), or "refused"."""
    try:
        return json.dumps(read(text), sort_keys=True)
    except (UserError, NumberError):
        return "refused"


def _bounded(text: str) -> dict:
    docs = _decode_all(bounded_decoder(), text)
    if not docs:
        raise UserError("none")
    return docs[-1]


@pytest.mark.parametrize("name", FILES)
def test_a_number_is_read_or_refused_alike_by_either_decoder(name):
    doc = json.loads((DATA / name).read_text()[(DATA / name).read_text().index("{") :])
    paths = _numbers(doc)
    rng = random.Random(name)
    outcomes = set()
    for value in VALUES:
        for path in rng.sample(paths, 3):
            text = _planted(doc, path, value)
            for shown in (text, "fio: a warning before the document\n" + text):
                got = _read(extract_document, shown)
                assert got == _read(_bounded, text), (value, path, shown[:40])
                outcomes.add(got == "refused")
    assert outcomes == {True, False}
