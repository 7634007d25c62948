"""A fill or precondition on a file system that refuses O_DIRECT runs buffered, whatever its job says:
`direct` and its inverse `buffered` are applied by fio in the order of the job file, so iolab's `direct=0`
must come after a job's `buffered=0` (the options branch found the same order wrong in the measured points'
job file; this is the unmeasured phases' own)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from iolab.models import Target
from iolab.runner import phases


def _effective_direct(jobfile: str) -> bool:
    """O_DIRECT as fio ends up with it: the last of `direct=` and `buffered=` (its inverse) wins."""
    direct = False
    for line in jobfile.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "direct":
            direct = value.strip() != "0"
        elif key.strip() == "buffered":
            direct = value.strip() == "0"
    return direct


class _Dirs:
    def __init__(self, where: Path) -> None:
        self.where = where

    @contextlib.contextmanager
    def made(self, kind: str) -> Iterator[Path]:
        yield self.where


class _Ran:
    returncode = 0
    elapsed_s = 0.1


@pytest.mark.parametrize(
    ("target_direct", "job", "expected"),
    [
        (False, {"rw": "write", "bs": "1m", "buffered": "0"}, False),
        (False, {"rw": "write", "bs": "1m", "direct": "1"}, False),
        (False, {"rw": "write", "bs": "1m"}, False),
        (True, {"rw": "write", "bs": "1m"}, True),
        (True, {"rw": "write", "bs": "1m", "buffered": "1"}, False),  # the job's own choice where O_DIRECT works
    ],
)
def test_an_unmeasured_phase_is_buffered_where_the_file_system_refuses_o_direct(
    tmp_path, monkeypatch, target_direct, job, expected
):
    seen: list[str] = []

    def fake_run_fio(jobfile: Path, *args: object, **kwargs: object) -> _Ran:
        seen.append(jobfile.read_text())
        return _Ran()

    monkeypatch.setattr(phases, "run_fio", fake_run_fio)
    target = Target(
        str(tmp_path),
        "directory",
        str(tmp_path / "iolab-scratch-0123456789ab.dat"),
        1 << 20,
        scratch=True,
        writable=True,
        direct=target_direct,
    )
    phases.run_unmeasured(target, "precondition", dict(job), "fio", _Dirs(tmp_path))  # type: ignore[arg-type]
    (text,) = seen
    assert _effective_direct(text) is expected, text
