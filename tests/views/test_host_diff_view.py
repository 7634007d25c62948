"""`iolab diff-env A B` lists every difference between the two runs' hosts (a disk no target was on too: the
user asked about the hosts, not the runs' targets), says so when there is none, and refuses a run without a
snapshot by naming that run; every format shows each difference, a value absent on one side as absent.
Snapshots stored with the Store's own writes; no fio."""

from __future__ import annotations

import csv
import io
import json

import pytest

from iolab.errors import UserError
from iolab.models.snapshot import BlockDevice, Change, Snapshot, TargetInfo
from iolab.report import csv_output, json_output, markdown, terminal
from iolab.store.db import open_store
from iolab.views.host_diff import HostDiff, load_host_diff
from tests.store.test_series import SEQ_READ, _bw, _run


def _snapshot(cmdline: str, other_scheduler: str) -> dict:
    """A host whose target is on sdb, with sdc beside it (no target on it)."""
    return Snapshot(
        kernel="6.8.0",
        cmdline=cmdline,
        devices=[BlockDevice("sdb", scheduler="none"), BlockDevice("sdc", scheduler=other_scheduler)],
        targets=[TargetInfo("/data", "sdb", "/data", "ext4")],
    ).to_dict()


@pytest.fixture
def store(tmp_path):  # type: ignore[no-untyped-def]
    opened = open_store(tmp_path / "store")
    yield opened
    opened.close()


def _runs(store, *snapshots: dict[str, dict]) -> list[int]:  # type: ignore[no-untyped-def]
    ids = []
    for phases in snapshots:
        run_id, _ = _run(store, "seq", SEQ_READ, [_bw(100)])
        for phase, data in phases.items():
            store.save_snapshot(run_id, phase, data)
        ids.append(run_id)
    return ids


def test_every_difference_between_the_hosts_is_listed_a_disk_without_a_target_too(store):
    a, b = _runs(
        store, {"before": _snapshot("quiet", "mq-deadline")}, {"before": _snapshot("quiet mitigations=off", "bfq")}
    )
    diff = load_host_diff(store, a, b)
    assert {c.subject for c in diff.changes} == {"host", "sdc"}
    (sdc,) = [c for c in diff.changes if c.subject == "sdc"]
    assert (sdc.before, sdc.after) == ("mq-deadline", "bfq")


def test_hosts_alike_have_no_differences_and_say_so(store):
    a, b = _runs(store, {"before": _snapshot("quiet", "none")}, {"before": _snapshot("quiet", "none")})
    diff = load_host_diff(store, a, b)
    assert diff.changes == []
    assert diff.nothing() == f"No differences between the hosts of run {a} and run {b}."


@pytest.mark.parametrize(
    ("earlier", "later", "missing"),
    [({}, {"before": "x"}, "earlier"), ({"before": "x"}, {}, "later"), ({"after": "x"}, {"after": "x"}, "later")],
)
def test_a_run_without_a_snapshot_is_refused_by_naming_it(store, earlier, later, missing):
    snapshot = _snapshot("quiet", "none")
    a, b = _runs(store, {k: snapshot for k in earlier}, {k: snapshot for k in later})
    with pytest.raises(UserError) as refused:
        load_host_diff(store, a, b)
    named = a if missing == "earlier" else b
    assert str(refused.value).startswith(f"run {named} has no host snapshot")


def test_the_earlier_runs_state_at_its_end_is_compared(store):
    a, b = _runs(
        store,
        {"before": _snapshot("quiet", "none"), "after": _snapshot("quiet", "bfq")},
        {"before": _snapshot("quiet", "bfq")},
    )
    assert load_host_diff(store, a, b).changes == []


def test_every_format_shows_each_difference_and_a_value_absent_on_one_side_as_absent():
    diff = HostDiff(
        3, 7, [Change("host", "cmdline", "quiet", "quiet mitigations=off"), Change("sdc", "scheduler", "", "bfq")]
    )
    table = markdown.render_host_diff(diff).splitlines()
    assert table[0] == "| Where | What | Run 3 | Run 7 |"
    assert table[2:] == ["| host | cmdline | quiet | quiet mitigations=off |", "| sdc | scheduler | (absent) | bfq |"]
    rows = list(csv.DictReader(io.StringIO(csv_output.render_host_diff(diff))))
    assert [(r["earlier_run"], r["subject"], r["before"], r["after"]) for r in rows] == [
        ("3", "host", "quiet", "quiet mitigations=off"),
        ("3", "sdc", "", "bfq"),
    ]
    document = json.loads(json_output.render_host_diff(diff))
    assert (document["earlier"], document["later"], len(document["changes"])) == (3, 7, 2)
    assert terminal.render_host_diff(diff).splitlines() == [c.render() for c in diff.changes]
    none = HostDiff(3, 7, [])
    assert markdown.render_host_diff(none).strip() == terminal.render_host_diff(none).strip() == none.nothing()
