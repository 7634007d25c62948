"""An imported job's target says direct as fio read the job's options (one flag reader: JobOptions)."""

from __future__ import annotations

import pytest

from iolab.imports.fio_files import target_of


@pytest.mark.parametrize(
    ("options", "direct"),
    [({}, False), ({"direct": "1"}, True), ({"direct": "0.0"}, False), ({"direct": "00"}, False)]
    + [({"buffered": "0"}, True), ({"direct": "1", "buffered": "1"}, False)],
)
def test_direct_is_read_as_fio_reads_it(options, direct):
    # fio 3.33 reads direct=0.0 and 00 as 0, and buffered=0 as direct=1; the import read them the other way
    assert target_of({"filename": "/data/f", **options}).direct is direct
