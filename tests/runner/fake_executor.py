"""An executor whose fio is fio's saved outputs: the run loop unit-tested through `runner.execute` in milliseconds.

It is this host's executor (`LocalExecutor`: targets checked and locked here, job files written, fio's
output parsed) in all but one member: `run` does not start fio. It writes into fio's output file a real
output saved under tests/data/fio (never typed), copies the per-job logs fio wrote beside it, and exits
as fio would. Whatever else a point meets in the runner — repeats, resume, refusals, stopping, a failed
point, Ctrl-C or SIGTERM in the middle — is the real code's. The real executors keep their end-to-end
tests against the real fio.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from iolab.fio.run import FioInvocation
from iolab.models import Point
from iolab.runner.executors import Jobs, LocalExecutor

DATA = Path(__file__).parents[1] / "data" / "fio"
FIO_STOPPED = 128  # fio 3.33's exit status after SIGINT, its results written (`iolab.runner.measure`)


@dataclass(frozen=True)
class Answer:
    """What fio did for one point: the output it wrote, the logs beside it, how it exited."""

    output: str = "randread-4jobs.json"  # under tests/data/fio, as fio wrote it
    logs: str | None = None  # a directory under tests/data/fio holding the `point_*.log` fio wrote
    returncode: int = 0
    stderr: str = ""
    raises: BaseException | None = None  # raised instead, as from `run_fio` (RunFailed: hung and killed)
    before: Callable[[], None] | None = None  # called first: a signal sent to the run mid-point


def documents(text: str) -> list[str]:
    """The JSON documents of an output written with --status-interval, each as fio wrote it."""
    decoder = json.JSONDecoder()
    out: list[str] = []
    at = 0
    while (start := text.find("{", at)) >= 0:
        _, end = decoder.raw_decode(text, start)
        out.append(text[start:end])
        at = end
    return out


@dataclass
class FakeExecutor(LocalExecutor):
    """This host's executor with fio's saved outputs: `script(point, n)` answers the run's n-th fio run."""

    fio_version: str = "fio-3.33"
    script: Callable[[Point, int], Answer] = field(default=lambda point, n: Answer())
    ran: list[Point] = field(default_factory=list)  # every point fio was asked to run, in order
    stopped: list[str] = field(default_factory=list)  # points the runner asked to stop early
    closed: bool = False
    _point: Point | None = None

    def jobs(self, point: Point, workdir: Path, clocksource: str | None) -> Jobs:
        self._point = point
        return super().jobs(point, workdir, clocksource)

    def run(
        self, jobs: Jobs, output: Path, fio: str, timeout_s: float, workdir: Path, watch: Callable[[], bool] | None
    ) -> FioInvocation:
        assert self._point is not None
        point, self._point = self._point, None
        self.ran.append(point)
        answer = self.script(point, len(self.ran) - 1)
        if answer.before is not None:
            answer.before()
        if answer.raises is not None:
            raise answer.raises
        command = [fio, "--output-format=json+", f"--output={output}", str(jobs.jobfile)]
        if answer.logs is not None:
            for log in sorted((DATA / answer.logs).glob("point_*.log")):
                shutil.copy(log, workdir / log.name)
        text = (DATA / answer.output).read_text()
        if watch is None:
            output.write_text(text)
            return FioInvocation(command, answer.returncode, answer.stderr, 0.0)
        blocks = documents(text)  # fio appends a status block a second, then its final document
        with output.open("a") as out:
            for block in blocks[:-1]:
                out.write(block + "\n")
                out.flush()
                if watch():  # asked to stop: fio (SIGINT) writes its final document and exits 128
                    self.stopped.append(point.name)
                    out.write(blocks[-1] + "\n")
                    return FioInvocation(command, FIO_STOPPED, answer.stderr, 0.0)
            out.write(blocks[-1] + "\n")
        return FioInvocation(command, answer.returncode, answer.stderr, 0.0)

    def close(self) -> None:
        self.closed = True
