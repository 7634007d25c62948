"""How a point's measuring hands fio its time limit and reads back what fio wrote (runner.measure), with the
fake executor: a point is called hung only past half again its expected time plus the grace, and fio's
final document is the one kept, however fio was watched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iolab.fio.run import HANG_GRACE_S
from iolab.runner.execute import execute
from iolab.runner.measure import _fio_text
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from tests.runner.fake_executor import DATA, FakeExecutor

PLAN = """
name = "hang"
[options]
runtime = "7s"
ramp_time = "3s"
rw = "randread"
"""


class TimedExecutor(FakeExecutor):
    """The fake executor, keeping the time limit each fio run was given."""

    limits: list[float]

    def run(self, jobs, output, fio, timeout_s, workdir, watch):
        self.limits.append(timeout_s)
        return super().run(jobs, output, fio, timeout_s, workdir, watch)


@pytest.fixture(autouse=True)
def no_perf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))


def test_a_point_is_hung_only_past_half_again_its_expected_time_and_the_grace(tmp_path):
    target = tmp_path / "data.img"
    target.write_bytes(b"\0" * (4 << 20))
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    executor = TimedExecutor()
    executor.limits = []
    request = RunRequest(plan=str(plan), targets=[str(target)], telemetry_interval=None)
    outcome = execute(request, open_store(), SilentProgress(), executor=executor)
    assert outcome.status == "complete"
    (point,) = executor.ran
    assert point.expected_seconds >= 10  # ramp_time + runtime, and fio's start-up
    assert executor.limits == [pytest.approx(point.expected_seconds * 1.5 + HANG_GRACE_S)]
    assert executor.limits[0] > point.expected_seconds + HANG_GRACE_S


def test_fios_text_is_the_file_as_written_or_its_last_document_when_fio_was_polled(tmp_path):
    output = tmp_path / "fio.json"
    assert _fio_text(output, None, polled=False) == ""  # fio wrote nothing
    assert _fio_text(output, None, polled=True) == ""
    blocks = (DATA / "stopping" / "status-interval.json").read_text()
    output.write_text(blocks)
    assert _fio_text(output, None, polled=False) == blocks
    final = json.loads(_fio_text(output, None, polled=True))
    decoder = json.JSONDecoder()
    documents, at = [], 0
    while (start := blocks.find("{", at)) >= 0:
        document, at = decoder.raw_decode(blocks, start)
        documents.append(document)
    assert len(documents) > 2 and final == documents[-1]
