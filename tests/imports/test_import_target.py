"""An imported job's target says direct as fio read the job's options (one flag reader: JobOptions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.imports.fio_files import read_fio, target_of

DATA = Path(__file__).resolve().parent.parent / "data" / "fio"


@pytest.mark.parametrize(
    ("options", "direct"),
    [({}, False), ({"direct": "1"}, True), ({"direct": "0.0"}, False), ({"direct": "00"}, False)]
    + [({"buffered": "0"}, True), ({"direct": "1", "buffered": "1"}, False)],
)
def test_direct_is_read_as_fio_reads_it(options, direct):
    # fio 3.33 reads direct=0.0 and 00 as 0, and buffered=0 as direct=1; the import read them the other way
    assert target_of({"filename": "/data/f", **options}).direct is direct


def test_a_size_with_fio_s_suffix_is_read_in_bytes():
    """fio's JSON echoes `size=64m` as the job gave it; the import read anything but digits as 0 bytes."""
    path = DATA / "randread-4jobs.json"
    data = path.read_bytes()
    jobs = read_fio(path, data, data.decode(), terse=False, logs=False).jobs
    assert [(job.options["size"], target_of(job.options).size_bytes) for job in jobs] == [("64m", 64 << 20)]
