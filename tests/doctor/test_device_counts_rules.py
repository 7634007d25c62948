"""RES-FROM-CACHE and RES-WRITES-UNSEEN on traffic figures and on the points it is measured for, without a
device (moved from test_device_counts.py, whose other tests read loop devices end to end)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from iolab.analysis.device_traffic import DeviceTraffic
from iolab.doctor.derived import device_traffic
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context
from iolab.fio.parse import aggregate, parse_output
from iolab.models import Point, Target
from iolab.models.option_values import NOMINAL_BYTES_ENGINES
from iolab.models.run import PointRecord
from iolab.models.sample_series import SampleSeries

CACHE_RULES = ("RES-FROM-CACHE", "RES-WRITES-UNSEEN")


def _cache_findings(traffic: DeviceTraffic) -> list:
    return evaluate(Context(traffic=[traffic]), [r for r in all_rules() if r.id in CACHE_RULES])


def test_reads_the_device_did_not_serve_and_writes_it_did_not_see_are_flagged_with_both_figures():
    cached = DeviceTraffic("rd", {"read": 900 << 20}, {"read": float(64 << 20), "write": 0.0}, ("loop3",))
    (finding,) = _cache_findings(cached)
    assert finding.rule_id == "RES-FROM-CACHE" and finding.severity.value == "critical"
    assert finding.title == "rd: read 900.0 MiB but loop3 read 64.0 MiB (7%): served from memory"
    assert finding.evidence == {"fio read": "900.0 MiB", "device read": "64.0 MiB", "devices": "loop3"}
    unseen = DeviceTraffic("wr", {"write": 100 << 20}, {"read": 0.0, "write": float(10 << 20)}, ("sda",))
    assert [f.rule_id for f in _cache_findings(unseen)] == ["RES-WRITES-UNSEEN"]
    # the device carried what fio counted (and more: the ramp, metadata): nothing to say
    served = DeviceTraffic("rd", {"read": 900 << 20, "write": 100 << 20}, {"read": 920e6, "write": 60e6}, ("sda",))
    assert _cache_findings(served) == []
    # too few bytes to weigh against a device's
    assert _cache_findings(DeviceTraffic("rd", {"read": 8 << 20}, {"read": 0.0}, ("sda",))) == []


def test_only_data_moved_is_weighed_whatever_the_engine():
    """Every engine whose bytes are nominal is left out; a data engine's point is weighed."""
    text = (Path(__file__).parents[1] / "data/fio/randread-4jobs.json").read_text()
    result = aggregate(parse_output(text).groups[0].entries)
    assert result.directions["read"].io_bytes >= 16 << 20  # enough to be weighed
    idle = [
        SampleSeries("disk.bw", ddir, "sdz", np.array([1000, 2000]), np.array([0.0, 0.0])) for ddir in ("read", "write")
    ]
    target = Target(path="/d", kind="directory", filename="/d/f", size_bytes=1 << 30)
    engines = sorted(NOMINAL_BYTES_ENGINES) + ["psync", "libaio", "io_uring", "sync", "mmap", "posixaio"]
    for number, engine in enumerate(engines):
        point = Point(name=engine, target=target, options={"rw": "read", "ioengine": engine})
        record = PointRecord(number, 1, number, point, "done", result=result)
        weighed = device_traffic([record], {number: idle})
        assert bool(weighed) == (engine not in NOMINAL_BYTES_ENGINES), engine
    mdtest = Point(name="create", target=target, options={"tool": "mdtest", "rw": "read"})
    assert device_traffic([PointRecord(99, 1, 99, mdtest, "done", result=result)], {99: idle}) == []
