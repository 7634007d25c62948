"""The usual document passed at once (`validate._usual`) is never one the walk field by field refuses.

`check_document` asks `_usual` first and walks the document (`_document`, which names the first bad field) only
when `_usual` says no: so `_usual` may say no to a document that is fine (it is walked, at the walk's cost), never
yes to one that is not. Held here on every fio JSON output under tests/data, and on thousands of documents
damaged from them one field at a time, where the damage goes anywhere (a job, a direction, latency statistics,
percentiles, bins, a nested object) and is of any kind fio never writes.
"""

from __future__ import annotations

import copy
import functools
import math
import random
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.fio import validate
from iolab.fio.parse import extract_document

DATA = Path(__file__).resolve().parents[1] / "data"
ODD = [
    math.nan,
    math.inf,
    -math.inf,
    -1,
    -0.5,
    True,
    False,
    None,
    "",
    "1",
    "x",
    [],
    [1],
    {},
    {"a": -1},
    {"a": "x"},
    {"bins": {"1": 1}},
    1.5,
    10**19,
    2**64 - 1,
    1e300,
    1e19,
    0,
]
ODD_KEYS = [
    "",
    "-1",
    "1e3",
    "nan",
    "x",
    "9" * 19,
    "101",
    "100.5",
    "slat",
    "clat",
    "lat",
    "io_bytes",
    "N",
    "percentile",
    "bins",
]


@functools.cache
def documents() -> list[dict]:
    """Every fio JSON document under tests/data that `extract_document` reads (outputs of fio 2.x and 3.x,
    json and json+, client/server, steady state, published ones), in a fixed order."""
    found = []
    for path in sorted(DATA.rglob("*")):
        if not path.is_file() or ".log" in path.name or path.stat().st_size > 2_000_000:
            continue
        try:
            text = path.read_text()
            found.append(extract_document(text, str(path)))
        except (UnicodeDecodeError, UserError):
            continue
    return found


def passes(doc: dict) -> bool:
    """Whether the walk field by field (`_document`) passes `doc`."""
    try:
        validate._document(doc)
    except validate.BadField:
        return False
    return True


def places(tree: object, at: tuple = ()) -> list[tuple]:
    """The path of every object, list and value under `tree`."""
    found = [at]
    if isinstance(tree, dict):
        for key, value in tree.items():
            found += places(value, (*at, key))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            found += places(value, (*at, index))
    return found


@functools.cache
def spots(number: int) -> list[tuple]:
    """The places of document `number` that damage may reach: most in its jobs, where fio's numbers are, and a
    few of its tables' entries (json+ holds hundreds of bins a direction: all of them would leave little damage
    for the rest)."""
    rng = random.Random(number)
    return [
        p
        for p in places(documents()[number])
        if p
        and (p[0] in ("jobs", "client_stats") or rng.random() < 0.1)
        and (len(p) < 2 or p[-2] not in ("bins", "percentile") or rng.random() < 0.05)
    ]


def damaged(number: int, rng: random.Random) -> dict:
    """Document `number` with one place changed: a value replaced, a key removed, renamed or added. The objects
    and lists on the way to it are copied, the rest shared (the walk and `_usual` only read)."""
    path = rng.choice(spots(number))
    doc = parent = copy.copy(documents()[number])
    for part in path[:-1]:
        parent[part] = copy.copy(parent[part])
        parent = parent[part]
    last = path[-1]
    action = rng.random()
    if isinstance(parent, dict) and action < 0.15:
        del parent[last]
    elif isinstance(parent, dict) and action < 0.3:
        parent[rng.choice(ODD_KEYS)] = parent.pop(last)
    elif isinstance(parent, dict) and action < 0.4:
        parent[rng.choice(ODD_KEYS)] = copy.deepcopy(rng.choice(ODD))
    else:
        parent[last] = copy.deepcopy(rng.choice(ODD))
    return doc


def test_the_outputs_under_tests_data_are_usual_where_fio_3_wrote_them():
    docs = documents()  # fio's own outputs, and the malformed corpus's (tests/data/malformed)
    usual = [doc for doc in docs if validate._usual(doc)]
    assert all(passes(doc) for doc in usual)
    # the fast way is the usual way: fio 3's outputs (json, json+, several jobs) take it; fio 2's latencies, client
    # and server outputs and steady-state objects are walked
    fine = [doc for doc in docs if passes(doc)]
    assert len(usual) > 3 * len(fine) // 4 and len(docs) - len(fine) > 50, (len(usual), len(fine), len(docs))
    assert any("bins" in str(doc) for doc in usual)


@pytest.mark.parametrize("seed", range(4))
def test_a_damaged_document_passed_at_once_passes_the_walk(seed):
    rng = random.Random(seed)
    numbers = [number for number, doc in enumerate(documents()) if passes(doc)]
    refused = usual = 0
    for _ in range(500):
        doc = damaged(rng.choice(numbers), rng)
        fine = passes(doc)
        if validate._usual(doc):
            usual += 1
            assert fine, doc
        refused += not fine
    assert refused > 200  # the damage reaches what the walk refuses
    assert usual > 40  # and harmless damage (a value fio could have written) is still passed at once


def test_check_document_names_what_the_walk_names():
    """A document `_usual` does not pass is walked: the message is the walk's own."""
    rng = random.Random(9)
    for _ in range(300):
        doc = damaged(rng.randrange(len(documents())), rng)
        try:
            validate._document(doc)
            expected = None
        except validate.BadField as exc:
            expected = f"x.json: not fio output as fio writes it: {exc}"
        try:
            validate.check_document(doc, "x.json")
            found = None
        except UserError as exc:
            found = str(exc)
        assert found == expected
