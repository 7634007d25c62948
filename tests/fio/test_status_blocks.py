"""fio's status blocks read as they arrive: a block split across two reads, blocks before any job, file
operations that move no bytes, an output file not there yet."""

from __future__ import annotations

import json

from iolab.fio.status import Counters, StatusReader, counters, rates, window_ios


def _doc(runtime: int, ios: int, io_bytes: int) -> dict:
    read = {"runtime": runtime, "total_ios": ios, "io_bytes": io_bytes, "clat_ns": {"N": ios}}
    return {"jobs": [{"read": read, "write": {}, "trim": {}}]}


def test_a_block_split_across_reads_is_taken_whole_once_it_is_complete(tmp_path):
    output = tmp_path / "out.json"
    reader = StatusReader(output)
    assert reader.poll() == []  # fio has not made its output file yet
    text = json.dumps(_doc(1000, 10, 40960)) + "\n" + json.dumps(_doc(2000, 30, 122880))
    output.write_text("fio: a note\n" + text[:-20])
    assert reader.poll() == [_doc(1000, 10, 40960)]
    with output.open("a") as f:
        f.write(text[-20:] + "\n[1, 2]\n")
    assert reader.poll() == [_doc(2000, 30, 122880)]  # a JSON value that is no document is passed over
    assert reader.poll() == [] and reader.documents == [_doc(1000, 10, 40960), _doc(2000, 30, 122880)]


def test_a_block_before_any_job_has_no_counters():
    assert counters({"jobs": []}) is None and counters({}) is None and counters({"jobs": ["x"]}) is None


def test_file_operations_count_completed_operations_not_bytes():
    start, final = Counters(1000.0, {"read": 50}, {"read": 0}), Counters(3000.0, {"read": 250}, {"read": 0})
    assert window_ios(start, final, "read") == 200
    assert rates([start, final]) == [50.0, 100.0]
    moved = Counters(3000.0, {"read": 250}, {"read": 250 * 4096})
    assert window_ios(Counters(1000.0, {"read": 60}, {"read": 50 * 4096}), moved, "read") == 200
    assert rates([]) == []
