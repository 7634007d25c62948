"""Imports at their edges (issue 41: `bench/mutation.py --whole` found these held by no fast test): a format's
mark past the part of a file that is looked at, an output's end time from fio's timestamp in ms, a tool's
target of no known size, and the parallel reader's claiming of chunks, in this process (the child is played by
the test: forking under pytest is what tests/imports/test_reading.py runs in fresh interpreters for)."""

from __future__ import annotations

import json
import multiprocessing
import threading
from pathlib import Path

import pytest

from iolab.imports import reading
from iolab.imports.discover import Candidate, kind_of
from iolab.imports.fio_files import read_fio
from iolab.imports.sessions import Span
from iolab.imports.tool_files import read_tool, store_tool
from iolab.models.effective_options import effective_options

DATA = Path(__file__).resolve().parent.parent / "data"
MARK = '{\n  "fio version" : "fio-3.33",\n'


@pytest.mark.parametrize(("before", "kind"), [((1 << 16) - len(MARK), "fio"), ((1 << 16) + 1, "")])
def test_a_format_is_recognised_by_a_mark_within_its_first_64_kib_only(before, kind):
    """A harness's log may run long before fio's JSON; the recognition reads the first 64 KiB of a file (a
    multi-GB log is not searched whole), so a mark that ends inside them counts and one after them does not."""
    assert kind_of(" " * before + MARK) == kind


def test_an_outputs_span_ends_at_fios_timestamp_in_ms_and_begins_its_longest_job_before():
    path = DATA / "fio" / "randread-4jobs.json"
    data = path.read_bytes()
    raw = json.loads(data)
    longest_ms = max(job[d]["runtime"] for job in raw["jobs"] for d in ("read", "write", "trim") if job[d]["io_bytes"])
    file = read_fio(path, data, data.decode(), terse=False, logs=False)
    end = raw["timestamp_ms"] / 1000
    assert file.started == end
    assert file.span == Span(end - longest_ms / 1000, end)


def test_terse_output_has_no_span():
    path = next((DATA / "fio" / "terse").glob("*"))
    data = path.read_bytes()
    file = read_fio(path, data, data.decode(), terse=True, logs=False)
    assert (file.started, file.span) == (None, None)


class _Planning:
    """A store that keeps the points it is asked to plan (all store_tool hands a store is points and results)."""

    def __init__(self) -> None:
        self.points: list = []

    def plan_points(self, run_id: int, points: list) -> list[int]:
        self.points += points
        return list(range(len(self.points) - len(points), len(self.points)))

    def record_point(self, *args: object) -> None:
        pass


@pytest.mark.parametrize(("kind", "name"), [("ior", "akrr-v33-ior-3.3.0.txt"), ("mdtest", "akrr-v1-mdtest-1.9.3.txt")])
def test_a_tools_target_has_no_known_size_and_adds_none_to_the_job(kind, name):
    """IOR and mdtest print no size of the file system they ran on: the target's size is unknown (0), and the
    job's options as fio would read them hold only the tool's own sizes, no size made up from the target's."""
    path = DATA / kind / name
    data = path.read_bytes()
    store = _Planning()
    ids = store_tool(store, 1, read_tool(path, data, data.decode(), kind))  # type: ignore[arg-type]
    assert ids and len(store.points) == len(ids)
    assert {p.target.size_bytes for p in store.points} == {0}
    assert {effective_options(p).get("size") for p in store.points} == {None}


def _candidates(count: int) -> list[Candidate]:
    return [Candidate(Path(f"/in/{n:02d}.json"), b"", "", "fio", True) for n in range(count)]


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 2 files, at most 3 parsed ahead, and a parse that says who parsed what."""
    monkeypatch.setattr(reading, "CHUNK", 2)
    monkeypatch.setattr(reading, "AHEAD", 3)
    parsed_by: dict[str, str] = {}

    def parse(candidate: Candidate, logs: bool) -> str:
        parsed_by[candidate.path.name] = threading.current_thread().name
        return candidate.path.name

    monkeypatch.setattr(reading, "read_one", parse)
    return parsed_by


def _shared(read: reading.Reading) -> multiprocessing.connection.Connection:
    """`read` as if it had a second process: a shared chunk counter and a pipe from that process."""
    read.next_chunk = multiprocessing.Value("i", 0)
    read.receiving, sending = multiprocessing.Pipe(duplex=False)
    return sending


def test_every_chunk_is_claimed_once_and_the_files_come_in_order(small_chunks):
    """The other process claims the first chunk and sends it; this one claims the rest as it needs them."""
    read = reading.Reading(_candidates(7), logs=False, parallel_from=10**9)
    assert [len(c) for c in read.chunks] == [2, 2, 2, 1]
    sending = _shared(read)
    assert reading._claim(read.next_chunk, len(read.chunks)) == 0
    sending.send((0, ["child 00", "child 01"]))
    assert list(read) == ["child 00", "child 01", *[f"{n:02d}.json" for n in range(2, 7)]]
    assert read.next_chunk is not None and read.next_chunk.value == 4  # every chunk claimed, none twice
    assert reading._claim(read.next_chunk, len(read.chunks)) is None


def test_this_process_parses_at_most_ahead_chunks_while_the_other_holds_the_one_it_needs(small_chunks):
    read = reading.Reading(_candidates(12), logs=False, parallel_from=10**9)
    sending = _shared(read)
    assert reading._claim(read.next_chunk, len(read.chunks)) == 0  # claimed by the other, not sent yet
    ahead_when_sent: list[int] = []

    def child() -> None:  # sends its chunk once this process has parsed as far ahead as it may
        while len(small_chunks) < reading.AHEAD * reading.CHUNK:
            threading.Event().wait(0.005)
        ahead_when_sent.append(len(small_chunks))
        sending.send((0, ["child 00", "child 01"]))

    other = threading.Thread(target=child, name="child")
    other.start()
    first = next(iter(read))
    other.join(5)
    assert first == "child 00" and ahead_when_sent == [reading.AHEAD * reading.CHUNK]
    assert sorted(small_chunks) == [f"{n:02d}.json" for n in range(2, 2 + reading.AHEAD * reading.CHUNK)]


def test_a_child_gone_before_sending_leaves_its_chunk_to_this_process(small_chunks):
    read = reading.Reading(_candidates(4), logs=False, parallel_from=10**9)
    sending = _shared(read)
    assert reading._claim(read.next_chunk, len(read.chunks)) == 0
    sending.close()  # the other process died holding chunk 0
    assert list(read) == [f"{n:02d}.json" for n in range(4)]
    assert read.receiving is None and read.next_chunk is None
