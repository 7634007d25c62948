"""`iolab import`: a user's archive of fio JSON/json+ files becomes runs and points.

Each file becomes a point per job name (numjobs clones and client/server
hosts aggregated), all in one run labelled "import". A file that cannot
be read is reported and skipped; the others are still imported.

fio's per-interval and per-I/O logs (write_bw_log, write_iops_log,
write_lat_log) that sit beside a JSON file come with it: the job's log
options name their prefix (fio wrote `<prefix>_bw.1.log` and so on), and
the samples are stored with the point, as they are for a run of iolab's own.

A module of its own, not the runner's: it measures nothing, it only hands
fio's output to the store and the run to the doctor.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from iolab.errors import UserError
from iolab.fio.logs import read_logs
from iolab.fio.parse import JobGroup, aggregate, parse_output
from iolab.models import Point, Sample, Target, TargetKind
from iolab.models.job_options import JobOptions
from iolab.store.db import Artifact, Store
from iolab.textfile import read_input


@dataclass
class ImportOutcome:
    run_id: int | None
    points: int = 0
    files: int = 0
    problems: list[str] = field(default_factory=list)


def _files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        elif path.is_file():
            found.append(path)
        else:
            raise UserError(f"{raw}: no such file or directory; give fio JSON files or directories holding them")
    if not found:
        raise UserError("no .json files found in " + ", ".join(paths))
    return found


def _target_of(options: dict[str, str]) -> Target:
    filename = options.get("filename", options.get("directory", ""))
    kind: TargetKind = "block" if filename.startswith("/dev/") else "file"
    size = options.get("size", "0")
    return Target(
        path=filename,
        kind=kind,
        filename=filename,
        size_bytes=int(size) if size.isdigit() else 0,
        direct=JobOptions(options).direct,
    )


LOG_OPTIONS = ("write_bw_log", "write_iops_log", "write_lat_log")


def _logs_beside(json_path: Path, group: JobGroup) -> tuple[list[Sample], list[Artifact]]:
    """The samples (and raw texts) of the job's logs found next to its JSON file.

    The prefix is the log option's value (its last path part: the archive has
    moved) or, for a bare `write_bw_log=`, the job name, as fio does.
    """
    prefixes = {Path(group.options[key] or group.name).name for key in LOG_OPTIONS if key in group.options}
    samples: list[Sample] = []
    artifacts: list[Artifact] = []
    for prefix in sorted(prefixes):
        found, raw = read_logs(json_path.parent, prefix)
        samples += found
        artifacts += [Artifact(f"logs/{name}", text.encode()) for name, text in raw.items()]
    return samples, artifacts


def import_paths(paths: list[str], store: Store, command: str) -> ImportOutcome:
    """Import every fio output file under `paths` into one new run."""
    files = _files(paths)
    parsed = []
    outcome = ImportOutcome(run_id=None)
    for path in files:
        try:
            text = read_input(path, "fio output")
            parsed.append((path, text, parse_output(text, source=str(path))))
        except UserError as exc:
            outcome.problems.append(str(exc))
        except OSError as exc:
            outcome.problems.append(f"{path}: {exc.strerror}")
    if not parsed:
        return outcome
    versions = sorted({out.version for _, _, out in parsed if out.version})
    run_id = store.create_run("import", command, [str(p) for p in paths], ", ".join(versions))
    outcome.run_id = run_id
    for path, text, output in parsed:
        outcome.files += 1
        for group in output.groups:
            point = Point(name=group.name, target=_target_of(group.options), options=group.options)
            (point_id,) = store.plan_points(run_id, [point])
            result = aggregate(group.entries, output.version, group.hosts)
            when = output.timestamp_ms / 1000.0 if output.timestamp_ms else time.time()
            samples, logs = _logs_beside(path, group)
            artifacts = [Artifact("fio.json", text.encode()), Artifact("source", str(path.resolve()).encode()), *logs]
            store.record_point(point_id, result, samples, artifacts, when, when)
            outcome.points += 1
    _judge(store, run_id)
    store.finish_run(run_id, "complete" if not outcome.problems else "partial", "; ".join(outcome.problems))
    return outcome


def _judge(store: Store, run_id: int) -> None:
    """The imported run's findings, from the same diagnosis stage as a run's: method and results (there is no
    snapshot of the host the output came from, so no host rules)."""
    from iolab.doctor.engine import diagnose_run
    from iolab.store.queries import run_material

    store.save_findings(run_id, diagnose_run(run_material(store, run_id)))
