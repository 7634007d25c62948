"""Terse lines' clat percentiles (fio.terse._direction) are read from their own 20 slots, right after the clat
min/max/mean/stdev: every one of fio's default percentile list (1st to 99.99th, 17 of them; the 3 unused slots
are written "0%=0"), each value a latency within the direction's clat min and max (to its histogram bin), never decreasing. A slot
read one field late loses the 1st percentile; one early reads the clat stdev as a percentile."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.fio.terse import parse_terse

TERSE = Path(__file__).parent.parent / "data" / "fio" / "terse"
# fio's default percentile_list (HOWTO: percentile_list)
DEFAULT = [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99]


@pytest.mark.parametrize("name", ["terse-v2.txt", "terse-v3.txt", "terse-v5.txt", "terse-v3-client-server.txt"])
def test_every_default_percentile_is_read_from_its_slot(name: str) -> None:
    output = parse_terse((TERSE / name).read_text(), name)
    entries = [e for group in output.groups for e in group.entries]
    assert entries
    for entry in entries:
        for ddir in ("read", "write"):
            clat = entry[ddir]["clat"]
            table = clat["percentile"]
            assert [float(k) for k in table] == DEFAULT, (name, ddir)
            values = list(table.values())
            assert values == sorted(values)
            if entry[ddir]["io_kbytes"]:
                # a percentile is its histogram bin's value: up to 1/64 above the latency it holds
                assert clat["min"] <= values[0] and values[-1] <= clat["max"] * (1 + 1 / 64) + 1, (name, ddir)
