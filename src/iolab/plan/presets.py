"""Built-in plans."""

from __future__ import annotations

from iolab.models import Plan, Workload

QUICK_RAMP_S = 2
QUICK_RUNTIME_S = 8


def _timed(runtime: int, ramp: int, **options: str) -> dict[str, str]:
    base = {"ioengine": "libaio", "time_based": "1", "runtime": str(runtime), "ramp_time": str(ramp),
            "randrepeat": "0", "norandommap": "1"}
    base.update(options)
    return base


def quick(runtime: int = QUICK_RUNTIME_S, ramp: int = QUICK_RAMP_S) -> Plan:
    """Five points that characterise a drive in about a minute (ramp + runtime each)."""
    return Plan(
        name="quick",
        workloads=[
            Workload("seq-read", _timed(runtime, ramp, rw="read", bs="1M", iodepth="32", numjobs="1")),
            Workload("seq-write", _timed(runtime, ramp, rw="write", bs="1M", iodepth="32", numjobs="1")),
            Workload("rand-read", _timed(runtime, ramp, rw="randread", bs="4k", iodepth="32", numjobs="4")),
            Workload("rand-write", _timed(runtime, ramp, rw="randwrite", bs="4k", iodepth="32", numjobs="4")),
            Workload("lat-read", _timed(runtime, ramp, rw="randread", bs="4k", iodepth="1", numjobs="1")),
        ],
    )
