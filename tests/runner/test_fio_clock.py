"""Where fio's jobs started on the samplers' clock is read from fio's own output and stored beside the samples.

fio stamps its JSON as its jobs end (`timestamp_ms`) and says how long they measured (`job_runtime`, after the
ramp); that stamp less the runtime is where fio's logs start, within some 15 ms of the logs' own epoch stamps
(fio 3.33 here, ramps of 0 and 2 s). The samplers read the wall clock at their zero, so fio's start-up (tens of
ms idle, seconds on a loaded host) is their difference less the ramp. The samples stay as sampled (readers date a
series' first interval from the samplers' zero: moving them shrank a loop device's first 32 MiB to 5.3 MiB); the
start-up is stored as the point's FIO_START and every reader adds it (`PointRecord.measured_from_ms`).
The output read here is real fio's (tests/data/fio/ramp-qd32-throttled.json: ramp 2 s, job_runtime 3,604 ms).
"""

from __future__ import annotations

from pathlib import Path

from iolab.fio.parse import parse_output
from iolab.models import Point, Sample, Target
from iolab.models.side import FIO_START, STAMP_SLACK_MS, fio_startup_ms
from iolab.runner.measure import _fio_startup

OUTPUT = parse_output((Path(__file__).resolve().parents[1] / "data" / "fio" / "ramp-qd32-throttled.json").read_text())
POINT = Point("ramped", Target(path="/dev/x", kind="block", filename="/dev/x", size_bytes=1 << 30), {"ramp_time": "2"})
RUNTIME_MS, RAMP_MS = 3604, 2000


def _telemetry() -> list[Sample]:
    return [Sample("disk.bw", "read", "loop0", t, 1.0) for t in range(1000, 7001, 1000)]


def test_fio_s_start_up_is_read_from_its_stamp_and_runtime():
    started = OUTPUT.timestamp_ms - RUNTIME_MS - RAMP_MS - 700  # the samplers started 0.7 s before fio's jobs
    assert _fio_startup(_telemetry(), started, OUTPUT, POINT) == 700


def test_a_start_up_that_cannot_be_read_is_none():
    stamp = OUTPUT.timestamp_ms
    assert _fio_startup(_telemetry(), 0, OUTPUT, POINT) is None  # no wall clock read at the samplers' zero
    late = stamp - RUNTIME_MS - RAMP_MS - 9000  # fio "started" after the samplers stopped: another clock
    assert _fio_startup(_telemetry(), late, OUTPUT, POINT) is None
    assert fio_startup_ms(1, 0, RUNTIME_MS, RAMP_MS, 7000) is None  # an output without its stamp
    assert fio_startup_ms(stamp - RUNTIME_MS - RAMP_MS + 100, stamp, RUNTIME_MS, RAMP_MS, 7000) == 0  # the slack
    assert fio_startup_ms(stamp - RUNTIME_MS - RAMP_MS + STAMP_SLACK_MS + 1, stamp, RUNTIME_MS, RAMP_MS, 7000) is None


def test_a_run_whose_fio_starts_late_stores_where_it_started_and_every_reader_adds_it(tmp_path):
    """A job that waits 2 s before it starts (fio's startdelay: a start-up as long as a loaded host's): the point
    stores a start-up of 2 s or more, its samples stay as sampled, and its measured seconds start there
    (switched off, nothing is stored and they start at 0)."""
    import shutil

    import pytest

    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    from iolab.models import Plan, Workload
    from iolab.runner.execute import execute
    from iolab.runner.progress import SilentProgress
    from iolab.runner.request import RunRequest
    from iolab.store.db import open_store
    from iolab.store.queries import point_series, run_points

    options = {"rw": "read", "bs": "64k", "runtime": "2", "time_based": "1", "ramp_time": "0", "startdelay": "2"}
    plan = Plan(name="late", workloads=[Workload(name="late", options=options)])
    request = RunRequest(plan=plan.name, targets=[str(tmp_path)], size=16 << 20, telemetry_interval=0.5)
    store = open_store(tmp_path / "home")
    run_id = execute(request, store, SilentProgress(), plan=plan).run_id
    (record,) = run_points(store, run_id)
    assert record.metrics[FIO_START].value is not None and record.metrics[FIO_START].value >= 1900
    assert record.measured_from_ms() == record.metrics[FIO_START].value
    sampled = [s for s in point_series(store, record.id) if s.metric.startswith(("cpu.", "disk.", "net."))]
    assert sampled and min(int(s.t_ms.min()) for s in sampled) > 0  # as sampled: the first interval from zero
