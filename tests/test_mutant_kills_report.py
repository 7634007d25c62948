"""Report edges that `bench/mutation.py --whole` found no fast test holding (issue 41 item 8)."""

from __future__ import annotations

from iolab.report.html import _snapshot_facts


def test_a_target_the_probe_knew_nothing_about_is_listed_with_a_dash():
    facts = dict(
        _snapshot_facts({"kernel": "6.1", "targets": [{"path": "/mnt/x"}, {"path": "/dev/sdb", "device": "sdb"}]})
    )
    assert facts["target /mnt/x"] == "-"
    assert facts["target /dev/sdb"] == "device sdb"
