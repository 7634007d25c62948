"""Every number of a real fio output, planted bad one at a time: a one-line refusal, never an acceptance.

Issue 39 found fio JSON with `sync/lat_ns/min=-1`, `read/drop_ios=NaN` and `trim/bw_min=null` accepted:
the checks covered the fields iolab reads, not the document. Here every numeric field of every job entry
(fio's own output under tests/data/fio, mutated in the test) gets NaN, infinity, 1e400, -1, null, "" and a
word in turn; the parser must refuse each with a UserError of one line naming the field, or (a steady-state
slope, which may be negative) read it cleanly. Nothing else may come out: no traceback, no silent acceptance.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.fio.parse import parse_output
from iolab.fio.validate import check_document

DATA = Path(__file__).resolve().parents[1] / "data" / "fio"
# Real fio 3.33 outputs of each shape: json (one job, all directions and fsync), json+ (bins), client/server
# (per-host entries and "All clients"), steady state (its own object, with a slope).
FILES = ["randrw-json.json", "randread-4jobs.json", "client-server-3hosts.json", "steadystate-attained.json"]
# What is planted, as JSON text: 1e400 cannot be written by json.dumps, so each value goes in as text.
BAD = {"nan": "NaN", "inf": "Infinity", "huge": "1e400", "negative": "-1", "null": "null", "empty": '""', "word": '"x"'}
PLACEHOLDER = 987654321987654321  # written by json.dumps as these digits, found and replaced
# json+ outputs hold thousands of bins per direction: each file gives every other field once (its jobs and
# hosts share them), and this many of its bin, percentile and steady-state window fields, drawn with a fixed
# seed.
TABLE_SAMPLE = 12


def numeric_paths(tree: object, path: tuple = ()) -> Iterator[tuple]:
    """The path of every number under `tree` (job options, which fio writes as strings, left out)."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            if key != "job options":
                yield from numeric_paths(value, (*path, key))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            yield from numeric_paths(value, (*path, index))
    elif isinstance(tree, int | float) and not isinstance(tree, bool):
        yield path


@functools.cache
def document(name: str) -> tuple[str, dict, int]:
    """(text before fio's JSON, the JSON, where it starts) of a file under tests/data/fio, read once; `planted`
    puts back what it changes."""
    text = (DATA / name).read_text()
    start = text.index("{")
    return text[:start], json.loads(text[start:]), start


def cases() -> list[tuple[str, tuple]]:
    chosen = []
    for name in FILES:
        _, doc, _ = document(name)
        key = "client_stats" if "client_stats" in doc else "jobs"
        fields: dict[tuple, tuple] = {}  # one path per field: the jobs and hosts of a file share their fields
        for i, job in enumerate(doc[key]):
            for path in numeric_paths(job, (key, i)):
                fields.setdefault((job.get("jobname") == "All clients", *path[2:]), path)
        paths = list(fields.values())
        table = [p for p in paths if {"bins", "percentile", "data"} & set(p)]
        plain = [p for p in paths if p not in table]
        chosen += [(name, p) for p in plain + random.Random(name).sample(table, min(TABLE_SAMPLE, len(table)))]
    return chosen


CASES = cases()


def planted(name: str, path: tuple, value: str) -> str:
    """The file's text with the number at `path` replaced by `value` (JSON text)."""
    before, doc, _ = document(name)
    node = doc
    for step in path[:-1]:
        node = node[step]
    kept, node[path[-1]] = node[path[-1]], PLACEHOLDER
    try:
        return before + json.dumps(doc).replace(str(PLACEHOLDER), value, 1)
    finally:
        node[path[-1]] = kept


def test_the_cases_cover_every_shape():
    """fsync's latencies, drop_ios, bw_min, iodepth levels, per-host entries and the steady-state window."""
    shown = {".".join(map(str, p[2:])) for _, p in CASES}
    for field in ("sync.lat_ns.min", "read.drop_ios", "trim.bw_min", "iodepth_level.1", "latency_ns.2", "ctx"):
        assert field in shown
    assert any("steadystate" in p for _, p in CASES) and any(p[0] == "client_stats" for _, p in CASES)
    assert len(CASES) > 400


# The same values as Python values, planted straight into the parsed document that the parser then checks
# (`check_document`, the parser's first step after reading the text): every field, quickly.
VALUES = {"nan": float("nan"), "inf": float("inf"), "negative": -1, "null": None, "empty": "", "word": "x"}
# And through the whole parser from text (fio's file as read: orjson, then the bounded decoder), a seeded
# sample of the fields for each value, 1e400 included (only text can hold it).
TEXT_SAMPLE = random.Random(39).sample(CASES, 60)


def refused_or_read(run, bad: str, cases: list) -> list[str]:
    """The fields whose planted value was accepted; each refusal is checked to be one line naming the field."""
    accepted = []
    for name, path in cases:
        where = ".".join(map(str, path))
        try:
            run(name, path)
        except UserError as exc:
            message = str(exc)
            assert "\n" not in message and len(message) < 300, message
            assert "not fio output as fio writes it" in message, message
            continue
        accepted.append(where)
    # A steady-state slope may be negative (fio's least-squares fit of a falling series): the only acceptance.
    assert all("steadystate" in where for where in accepted), accepted[:10]
    assert not accepted or bad == "negative", accepted[:10]
    return accepted


@pytest.mark.parametrize("bad", list(VALUES))
def test_every_numeric_field_planted_bad_is_refused_in_one_line(bad):
    def run(name: str, path: tuple) -> None:
        _, doc, _ = document(name)
        node = doc
        for step in path[:-1]:
            node = node[step]
        kept, node[path[-1]] = node[path[-1]], VALUES[bad]
        try:
            check_document(doc, name)
        finally:
            node[path[-1]] = kept

    refused_or_read(run, bad, CASES)


@pytest.mark.parametrize("bad", list(BAD))
def test_a_sample_planted_in_the_text_is_refused_by_the_parser(bad):
    refused_or_read(lambda name, path: parse_output(planted(name, path, BAD[bad]), name), bad, TEXT_SAMPLE)


def test_the_issue_s_three_examples_name_their_field():
    for path, value, said in [
        (("jobs", 0, "sync", "lat_ns", "min"), "-1", "jobs[0].sync.lat_ns.min: -1 is not possible"),
        (("jobs", 0, "read", "drop_ios"), "NaN", "jobs[0].read.drop_ios: nan is not possible"),
        (("jobs", 0, "trim", "bw_min"), "null", "jobs[0].trim.bw_min: expected a number, got null"),
    ]:
        with pytest.raises(UserError, match=said.replace("[", r"\[").replace("]", r"\]")):
            parse_output(planted("randrw-json.json", path, value), "randrw-json.json")


def test_the_real_files_themselves_parse():
    for name in FILES:
        assert parse_output((DATA / name).read_text(), name).groups
