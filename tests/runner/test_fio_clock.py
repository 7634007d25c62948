"""The samplers' zero is fio's: their seconds are moved back by fio's start-up, read from fio's own output.

fio stamps its JSON as its jobs end (`timestamp_ms`) and says how long they measured (`job_runtime`, after the
ramp); that stamp less the runtime is where fio's logs start, within some 15 ms of the logs' own epoch stamps
(fio 3.33 here, ramps of 0 and 2 s). The samplers read the wall clock at their zero, so fio's start-up (tens of
ms idle, seconds on a loaded host) is their difference less the ramp. An array run's first device sample then
carries the share of its second that fio ran (0.68 s of I/O in the sample dated 0.68 s: 3,077 of 4,400 MB/s).
The output read here is real fio's (tests/data/fio/ramp-qd32-throttled.json: ramp 2 s, job_runtime 3,604 ms).
"""

from __future__ import annotations

from pathlib import Path

from iolab.fio.parse import parse_output
from iolab.models import Point, Sample, Target
from iolab.models.side import STAMP_SLACK_MS, fio_startup_ms
from iolab.runner.measure import _on_fios_clock

OUTPUT = parse_output((Path(__file__).resolve().parents[1] / "data" / "fio" / "ramp-qd32-throttled.json").read_text())
POINT = Point("ramped", Target(path="/dev/x", kind="block", filename="/dev/x", size_bytes=1 << 30), {"ramp_time": "2"})
RUNTIME_MS, RAMP_MS = 3604, 2000


def _telemetry() -> list[Sample]:
    return [Sample("disk.bw", "read", "loop0", t, 1.0) for t in range(1000, 7001, 1000)]


def test_the_samplers_seconds_move_back_by_fio_s_start_up():
    started = OUTPUT.timestamp_ms - RUNTIME_MS - RAMP_MS - 700  # the samplers started 0.7 s before fio's jobs
    moved, startup = _on_fios_clock(_telemetry(), started, OUTPUT, POINT)
    assert [s.t_ms for s in moved] == [300, 1300, 2300, 3300, 4300, 5300, 6300] and startup == 700


def test_a_start_up_that_cannot_be_read_moves_nothing():
    telemetry = _telemetry()
    stamp = OUTPUT.timestamp_ms
    assert _on_fios_clock(telemetry, 0, OUTPUT, POINT) == (telemetry, 0)  # no wall clock read at the samplers' zero
    late = stamp - RUNTIME_MS - RAMP_MS - 9000  # fio "started" after the samplers stopped: another clock
    assert _on_fios_clock(telemetry, late, OUTPUT, POINT) == (telemetry, 0)
    assert fio_startup_ms(1, 0, RUNTIME_MS, RAMP_MS, 7000) is None  # an output without its stamp
    assert fio_startup_ms(stamp - RUNTIME_MS - RAMP_MS + 100, stamp, RUNTIME_MS, RAMP_MS, 7000) == 0  # the slack
    assert fio_startup_ms(stamp - RUNTIME_MS - RAMP_MS + STAMP_SLACK_MS + 1, stamp, RUNTIME_MS, RAMP_MS, 7000) is None


def test_a_run_whose_fio_starts_late_stores_its_telemetry_on_fio_s_clock(tmp_path):
    """A job that waits 2 s before it starts (fio's startdelay: a start-up as long as a loaded host's): the
    samplers' first 2 s are stored before fio's zero (switched off, the first reading is at +0.5 s)."""
    import shutil

    import pytest

    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    from iolab.models import Plan, Workload
    from iolab.runner.execute import execute
    from iolab.runner.progress import SilentProgress
    from iolab.runner.request import RunRequest
    from iolab.store.db import open_store
    from iolab.store.queries import point_series

    options = {"rw": "read", "bs": "64k", "runtime": "2", "time_based": "1", "ramp_time": "0", "startdelay": "2"}
    plan = Plan(name="late", workloads=[Workload(name="late", options=options)])
    request = RunRequest(plan=plan.name, targets=[str(tmp_path)], size=16 << 20, telemetry_interval=0.5)
    store = open_store(tmp_path / "home")
    run_id = execute(request, store, SilentProgress(), plan=plan).run_id
    (point_id,) = [row["id"] for row in store.conn.execute("SELECT id FROM points WHERE run_id = ?", (run_id,))]
    sampled = [s for s in point_series(store, point_id) if s.metric.startswith(("cpu.", "disk.", "net."))]
    assert sampled, "the point kept no telemetry"
    first = min(int(s.t_ms.min()) for s in sampled)
    last = max(int(s.t_ms.max()) for s in sampled)
    assert first <= -1000, first  # the samplers ran 2 s before fio's jobs: their first readings come before zero
    assert last >= 1500, last  # and read on through fio's 2 s of I/O (when they stopped is the host's pace)
