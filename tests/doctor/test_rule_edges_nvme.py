"""NVMe health rules on SMART logs at their thresholds, the lint path with and without a snapshot, and a
quoted figure's unit (issue 41: `bench/mutation.py --whole` found these held by no fast test)."""

from __future__ import annotations

from iolab.doctor import lint_jobs
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.quotes import FORMATS
from iolab.doctor.rule import Context
from iolab.fio.jobfile import parse_jobfile
from iolab.models import Finding, Severity, Snapshot
from iolab.models.snapshot import BlockDevice, NvmeSmart


def _smart(rule_id: str, **values: int) -> list[Finding]:
    snapshot = Snapshot(devices=[BlockDevice("nvme0n1", nvme_controller="nvme0", smart=NvmeSmart(**values))])
    return evaluate(Context(snapshot=snapshot), [r for r in all_rules() if r.id == rule_id])


def test_media_errors_are_named_with_their_count_and_none_are_not():
    (found,) = _smart("NVME-MEDIA-ERRORS", media_errors=3, num_err_log_entries=7)
    assert (found.title, found.subject) == ("nvme0n1 recorded 3 media errors", "nvme0n1")
    assert found.evidence == {"media_errors": "3", "error log entries": "7"}
    assert _smart("NVME-MEDIA-ERRORS", media_errors=0) == []


def test_wear_is_named_from_90_percent_of_rated_endurance():
    (found,) = _smart("NVME-WEAR", percent_used=90)
    assert found.title == "nvme0n1 is 90% through its rated endurance" and found.evidence == {"percent_used": "90"}
    assert _smart("NVME-WEAR", percent_used=89) == [] and _smart("NVME-WEAR") == []


def test_spare_within_10_points_of_its_threshold_is_a_warning_and_at_it_critical():
    (near,) = _smart("NVME-SPARE-LOW", avail_spare=19, spare_thresh=10)
    assert near.title == "nvme0n1 has 19% spare left (threshold 10%)" and near.severity is Severity.WARNING
    (at,) = _smart("NVME-SPARE-LOW", avail_spare=10, spare_thresh=10)
    assert at.severity is Severity.CRITICAL
    assert _smart("NVME-SPARE-LOW", avail_spare=20, spare_thresh=10) == []


def test_a_drive_at_its_warning_temperature_is_named_in_celsius():
    (hot,) = _smart("NVME-THERMAL", temperature_k=343, wctemp_k=343)
    assert hot.title == "nvme0n1 is at 70 C, at or above its warning temperature"
    assert hot.evidence["wctemp"] == "70 C"
    (before,) = _smart("NVME-THERMAL", temperature_k=300, wctemp_k=343, warning_temp_time=5)
    assert before.title == "nvme0n1 has spent 5 min above its warning temperature"
    assert _smart("NVME-THERMAL", temperature_k=342, wctemp_k=343) == []


def test_lint_judges_the_host_only_with_a_snapshot():
    jobs = parse_jobfile("[r]\nrw=randread\nfilename=/dev/nvme0n1\nruntime=60\ntime_based=1\n")
    host_rules = {r.id for r in all_rules() if "snapshot" in r.needs.split("+")}
    assert not {f.rule_id for f in lint_jobs(jobs)} & host_rules
    assert {f.rule_id for f in lint_jobs(jobs, snapshot=Snapshot())} & host_rules


def test_a_quoted_bandwidth_reads_in_gb_s_from_one_gb_s():
    assert FORMATS["GB/s"](1e9) == "1.00 GB/s"
    assert FORMATS["GB/s"](2.5e9) == "2.50 GB/s"
    assert FORMATS["GB/s"](999e6).endswith(" MB/s")
