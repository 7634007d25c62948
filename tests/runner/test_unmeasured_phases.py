"""The unmeasured phases around the points: the fill's and a precondition's job as fio is given it (a fio that
keeps its job file), their bound, a failure that stops the run, a plan's command and its artifact, the discard
refused where it cannot apply, and a phase's record of what ended it."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.errors import RunFailed
from iolab.fio.run import HANG_GRACE_S
from iolab.models import Target
from iolab.runner import phases
from iolab.runner.phases import PhaseLog, discard, fill_scratch, run_command, run_unmeasured
from iolab.store.db import open_store
from iolab.store.queries import run_phases
from tests.fake_fio import fake_fio


def _fio(tmp_path: Path, body: str = "exit 0") -> str:
    """A fake fio keeping a copy of the job file it was given, as tmp_path/given.fio."""
    return fake_fio(tmp_path, body, f'for a; do case "$a" in *.fio) cp "$a" {tmp_path}/given.fio;; esac; done')


def _scratch(tmp_path: Path, size: int, direct: bool = True) -> Target:
    name = str(tmp_path / "iolab-scratch-x.dat")
    return Target(
        path=str(tmp_path), kind="directory", filename=name, size_bytes=size, scratch=True, writable=True, direct=direct
    )


def _given(tmp_path: Path) -> dict[str, str]:
    lines = (tmp_path / "given.fio").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


@pytest.mark.parametrize(("size", "bs"), [(64 << 20, 1 << 20), (256 << 10, 256 << 10), (3 << 19, 1 << 19), (1000, 8)])
def test_the_fill_writes_the_whole_file_in_the_largest_block_that_divides_it(tmp_path, workdirs, size, bs):
    fill_scratch(_scratch(tmp_path, size), _fio(tmp_path), workdirs)
    job = _given(tmp_path)
    assert (job["rw"], job["bs"], job["size"], job["end_fsync"]) == ("write", str(bs), str(size), "1")
    assert job["filename"] == str(tmp_path / "iolab-scratch-x.dat")
    assert job["direct"] == ("0" if bs % 512 else "1")  # O_DIRECT needs whole sectors


def test_a_target_refusing_o_direct_is_written_buffered_whatever_the_job_asked(tmp_path, workdirs):
    run_unmeasured(
        _scratch(tmp_path, 1 << 20, direct=False),
        "precondition",
        {"rw": "write", "buffered": "0"},
        _fio(tmp_path),
        workdirs,
    )
    text = (tmp_path / "given.fio").read_text()
    assert text.index("buffered=0") < text.index("direct=0") and "direct=1" not in text


def test_an_unmeasured_job_is_bounded_by_its_loops_at_the_slowest_fill_rate(tmp_path, workdirs, monkeypatch):
    bounds: list[float] = []
    real = phases.run_fio

    def run_fio(jobfile, output, fio, timeout_s, **kw):
        bounds.append(timeout_s)
        return real(jobfile, output, fio, timeout_s, **kw)

    monkeypatch.setattr(phases, "run_fio", run_fio)
    run_unmeasured(
        _scratch(tmp_path, 50 << 20), "precondition", {"rw": "write", "loops": "3"}, _fio(tmp_path), workdirs
    )
    assert bounds == [pytest.approx(3 * (50 << 20) / 5e6 + HANG_GRACE_S)]


def test_a_failed_unmeasured_job_stops_the_run_with_fio_s_words(tmp_path, workdirs):
    fio = _fio(tmp_path, 'echo "fio: pid=1, err=28/file:x, error=No space left on device" >&2; exit 1')
    with pytest.raises(RunFailed, match=f"^fill on {tmp_path} failed: fio: pid=1, err=28/file:x, error=No space left"):
        fill_scratch(_scratch(tmp_path, 1 << 20), fio, workdirs)


def test_a_plan_command_keeps_what_it_printed_and_says_how_it_failed(tmp_path, monkeypatch):
    artifacts: list = []
    done = run_command(("sh", "-c", "echo out; echo err >&2; exit 3"), "post", artifacts)
    assert (done.stdout, done.problem, done.ok) == ("out\n", "exit 3", False)
    assert artifacts[-1].name == "post-command"
    assert artifacts[-1].data.decode() == "sh -c 'echo out; echo err >&2; exit 3'\nexit 3\nout\nerr\n"
    assert run_command(("true",), "pre", artifacts).ok
    missing = run_command((str(tmp_path / "nothing"),), "pre", artifacts)
    assert missing.problem.startswith("[Errno 2] No such file or directory") and not missing.ok
    assert artifacts[-1].data.decode().startswith(f"{tmp_path / 'nothing'}\n[Errno 2]")
    monkeypatch.setattr(phases, "COMMAND_TIMEOUT_S", 0.2)
    assert run_command(("sleep", "5"), "pre", artifacts).problem == "stopped after 0.2 s"


class Held:
    def __init__(self, error: OSError | None = None) -> None:
        self.error, self.discarded = error, []

    def discard(self, device: str) -> None:
        if self.error:
            raise self.error
        self.discarded.append(device)


def test_a_discard_applies_only_to_a_block_device_opened_for_writing_and_says_why_it_failed():
    device = Target(path="/dev/sdz", kind="block", filename="/dev/sdz", size_bytes=2**30, writable=True)
    held = Held()
    assert discard(device, held) is None and held.discarded == ["/dev/sdz"]  # type: ignore[arg-type]
    refused = "/dev/sdz: discard applies only to block devices opened with --allow-write"
    assert discard(Target(path="/dev/sdz", kind="block", filename="/dev/sdz", size_bytes=2**30), held) == refused  # type: ignore[arg-type]
    file = Target(path="/f", kind="file", filename="/f", size_bytes=1, writable=True)
    assert discard(file, held) == "/f: discard applies only to block devices opened with --allow-write"  # type: ignore[arg-type]
    assert discard(device, Held(OSError(95, "Operation not supported"))) == (  # type: ignore[arg-type]
        "/dev/sdz: discard failed (Operation not supported)"
    )


def test_a_phase_ended_by_an_exception_without_words_is_recorded_by_its_kind(tmp_path):
    store = open_store(tmp_path)
    run_id = store.create_run("p", "iolab run", ["/x"], "fio-3.33", {}, "identity")
    log = PhaseLog(store, run_id)
    with pytest.raises(KeyboardInterrupt), log.phase("fill", "/x", point_id=None) as problems:
        problems.append("a problem before it")
        raise KeyboardInterrupt
    (record,) = run_phases(store, run_id)
    assert record.outcome == "KeyboardInterrupt" and 0 <= record.seconds < 60
