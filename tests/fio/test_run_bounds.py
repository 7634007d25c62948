"""One bounded fio invocation, with a stand-in fio (a shell script) under the real keeper: the command iolab
gives fio, fio's own words for a failure, a hang killed at its bound, a watched run asked to stop, and fio's
version and place refused in words a user can act on."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from iolab.errors import RunFailed, UserError
from iolab.fio import run as fio_run
from iolab.fio.run import FioInvocation, find_fio, fio_version, reported_messages, run_fio
from tests.fake_fio import fake_fio

DOC = '{"fio version": "fio-3.33", "jobs": []}'


def _jobfile(tmp_path: Path) -> Path:
    job = tmp_path / "point.fio"
    job.write_text("[point]\nrw=read\n")
    return job


def test_fio_runs_with_json_plus_into_its_output_and_a_failure_says_fio_s_own_line(tmp_path):
    fio = fake_fio(
        tmp_path,
        'echo "fio: pid=7, err=28/file:io_u.c:1, error=No space left on device" > "$out"\n'
        f"echo '{DOC}' >> \"$out\"; echo 'fio: some jobs failed' >&2; exit 1",
    )
    output = tmp_path / "out.json"
    done = run_fio(_jobfile(tmp_path), output, fio, timeout_s=30)
    assert done.command == [
        fio,
        "--output-format=json+",
        f"--output={output}",
        "--eta=never",
        str(tmp_path / "point.fio"),
    ]
    assert done.returncode == 1 and done.stderr == "fio: some jobs failed\n" and done.elapsed_s < 30
    assert done.reported == "fio: pid=7, err=28/file:io_u.c:1, error=No space left on device"
    assert done.error_line() == done.reported  # the output file's line is the later of the two


def test_a_run_that_succeeds_reads_no_messages_and_clients_each_get_their_job(tmp_path):
    fio = fake_fio(tmp_path, 'echo "fio: a note" > "$out"; exit 0')
    output = tmp_path / "out.json"
    jobs = [("sock:/a.sock", tmp_path / "a.fio"), ("10.0.0.2,8765", tmp_path / "b.fio")]
    done = run_fio(_jobfile(tmp_path), output, fio, timeout_s=30, clients=jobs, watch=lambda: False)
    assert done.returncode == 0 and done.reported == ""
    assert done.command[4:] == [
        "--status-interval=1",
        "--client=sock:/a.sock",
        str(tmp_path / "a.fio"),
        "--client=10.0.0.2,8765",
        str(tmp_path / "b.fio"),
    ]


def test_a_hung_fio_is_killed_at_its_bound_and_the_run_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(fio_run, "STOP_GRACE_S", 5.0)
    fio = fake_fio(tmp_path, "exec sleep 30")
    started = time.monotonic()
    with pytest.raises(RunFailed, match="^fio did not finish within 0.6 s and was killed$"):
        run_fio(_jobfile(tmp_path), tmp_path / "out.json", fio, timeout_s=0.6)
    assert time.monotonic() - started < 5


def test_a_watched_run_is_asked_to_stop_once_and_writes_its_results(tmp_path, monkeypatch):
    monkeypatch.setattr(fio_run, "WATCH_S", 0.05)
    fio = fake_fio(tmp_path, 'trap \'echo stopped >> "$out"; exit 0\' INT\necho running > "$out"\nsleep 30 & wait')
    output, asked = tmp_path / "out.json", []

    def watch() -> bool:  # True from the moment fio runs (its trap set): the keeper forwards the SIGINT to it
        asked.append(output.exists())
        return output.exists()

    done = run_fio(_jobfile(tmp_path), output, fio, timeout_s=30, watch=watch)
    assert done.returncode == 0 and asked[-1] and asked.count(True) == 1
    assert (tmp_path / "out.json").read_text() == "running\nstopped\n"


def test_a_fio_that_ignores_the_stop_has_the_stop_grace_not_the_whole_deadline(tmp_path, monkeypatch):
    monkeypatch.setattr(fio_run, "WATCH_S", 0.05)
    monkeypatch.setattr(fio_run, "STOP_GRACE_S", 0.6)
    fio = fake_fio(tmp_path, "trap '' INT\necho running > \"$out\"\nsleep 30 & wait; sleep 30 & wait")
    output = tmp_path / "out.json"
    started = time.monotonic()
    with pytest.raises(RunFailed, match="^fio did not stop within 0.6 s of being asked and was killed$"):
        run_fio(_jobfile(tmp_path), output, fio, timeout_s=60, watch=output.exists)
    assert time.monotonic() - started < 10


def test_the_messages_fio_wrote_before_its_json_are_its_fio_lines_only(tmp_path):
    output = tmp_path / "out.json"
    output.write_text("note\nfio: first\nfio: second\n{\nfio: inside json\n")
    assert reported_messages(output) == "fio: first\nfio: second"
    assert reported_messages(tmp_path / "missing") == ""


def test_a_failure_s_words_are_its_last_error_line_else_the_job_s_errno_else_the_exit_code():
    said = FioInvocation(["fio"], 1, "starting\nfio: bad option\nError here\nbye\n", 0.1)
    assert said.error_line() == "Error here"
    quiet = FioInvocation(["fio"], 1, "", 0.1)
    assert quiet.error_line(28) == "fio: a job failed with error 28 (No space left on device)"
    assert quiet.error_line() == "fio exited with code 1"
    assert FioInvocation(["fio"], 2, "last words\n", 0.1).error_line() == "last words"


@pytest.mark.parametrize(
    ("says", "answer"),
    [
        ("fio-3.33", "fio-3.33"),
        ("fio-3.0", "fio-3.0"),
        ("fio-2.99", "fio-2.99 is too old (iolab needs fio 3.0 or newer)"),
        ("fio version unknown", "cannot read fio's version from 'fio version unknown'"),
    ],
)
def test_fio_s_version_is_read_and_one_too_old_or_unreadable_refused(tmp_path, monkeypatch, says, answer):
    fio = fake_fio(tmp_path, f"echo '{says}'")
    monkeypatch.setenv("PATH", f"{Path(fio).parent}:/usr/bin:/bin")
    assert find_fio() == fio
    if answer == says:
        assert fio_version() == says
    else:
        with pytest.raises(UserError, match="^" + answer.replace("(", "\\(").replace(")", "\\)")):
            fio_version()


def test_no_fio_on_path_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(UserError, match="^fio was not found on PATH: install it with `apt-get install fio`"):
        find_fio()
