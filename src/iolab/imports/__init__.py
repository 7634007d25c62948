"""`iolab import`: an archive of benchmark outputs becomes runs and points, with where each came from.

Every fio output since 2.0 (JSON, json+, terse; standalone or client/server) and IOR, mdtest and
IOzone outputs are read, recognised by content (`discover`), not by name. Each tool's files make one
run (label "import <versions>", so `ls` shows it imported), each point keeping its source file,
the file's SHA-256, the tool and its version (`store.provenance`). A file whose bytes were imported
before is not stored again: the run holding it is named. A named file that cannot be read is
reported and the others are still imported; what a directory held besides outputs is skipped and
counted by reason.

A module of its own, not the runner's: it measures nothing, it only hands outputs to the store and
the runs to the doctor.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from iolab.errors import UserError
from iolab.imports.discover import FORMATS, Candidate, discover
from iolab.imports.fio_files import FioFile, read_fio, store_fio
from iolab.imports.tool_files import ToolFile, read_tool, store_tool
from iolab.store.db import Store
from iolab.store.provenance import Provenance, date_imported_run, imported_run, record_provenance

__all__ = ["ImportOutcome", "import_paths", "report_lines"]

# Files stored in one transaction: a commit per file took 13% of importing 1,000 json+ outputs; a killed
# import keeps the batches it finished.
BATCH = 100


@dataclass
class ImportedRun:
    run_id: int
    label: str
    points: int = 0
    files: int = 0


@dataclass
class ImportOutcome:
    runs: list[ImportedRun] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)  # reason -> paths
    logs: int = 0  # fio logs found in directories, read with the outputs that name them
    log_rows: int = 0  # rows of the logs stored (0 with --no-logs)
    with_logs: bool = True
    already: list[tuple[str, int]] = field(default_factory=list)  # (path, run holding its bytes)
    notes: list[str] = field(default_factory=list)

    @property
    def run_ids(self) -> list[int]:
        return [run.run_id for run in self.runs]

    @property
    def run_id(self) -> int | None:
        return self.runs[0].run_id if self.runs else None

    @property
    def points(self) -> int:
        return sum(run.points for run in self.runs)

    @property
    def files(self) -> int:
        return sum(run.files for run in self.runs)


def import_paths(
    paths: list[str], store: Store, command: str, logs: bool = True, progress: Progress | None = None
) -> ImportOutcome:
    """Import every benchmark output under `paths`: a run per tool, with the provenance of each point.

    `logs` off leaves fio's logs unread; `progress` is told of each file stored (done, of how many).
    """
    found = discover(paths)
    if not found.candidates and not found.problems:
        raise UserError(f"no benchmark output ({FORMATS}) found in {', '.join(paths)}; {skipped_text(found.skipped)}")
    outcome = ImportOutcome(problems=list(found.problems), skipped=found.skipped, logs=found.logs, with_logs=logs)
    by_tool: dict[str, list[tuple[FioFile | ToolFile, str]]] = {}
    seen: dict[str, str] = {}
    for candidate in found.candidates:
        digest = hashlib.sha256(candidate.data).hexdigest()
        earlier = imported_run(store, digest)
        if earlier is not None:
            outcome.already.append((str(candidate.path), earlier))
            continue
        if digest in seen:
            outcome.skipped.setdefault("the same bytes as another file here", []).append(str(candidate.path))
            continue
        seen[digest] = str(candidate.path)
        try:
            parsed = _read(candidate)
        except UserError as exc:
            outcome.problems.append(str(exc))
            continue
        tool = "fio" if isinstance(parsed, FioFile) else parsed.output.tool
        by_tool.setdefault(tool, []).append((parsed, digest))
    total = sum(len(files) for files in by_tool.values())
    counter = _Counter(total, progress)
    for tool, files in by_tool.items():
        _store_run(store, command, tool, files, outcome, counter)
    return outcome


# Told after each file is stored: (files done, files in all).
Progress = Callable[[int, int], None]


@dataclass
class _Counter:
    total: int
    progress: Progress | None
    done: int = 0

    def tick(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)


def _read(candidate: Candidate) -> FioFile | ToolFile:
    """The candidate parsed by its format; a named file of no known format is read as fio JSON, whose
    errors say what is wrong with it (no JSON, truncated, a field fio would not write)."""
    if candidate.kind in ("fio", "fio-terse", ""):
        return read_fio(candidate.path, candidate.text, terse=candidate.kind == "fio-terse")
    return read_tool(candidate.path, candidate.text, candidate.kind)


def _store_run(
    store: Store,
    command: str,
    tool: str,
    files: list[tuple[FioFile | ToolFile, str]],
    outcome: ImportOutcome,
    counter: _Counter,
) -> None:
    versions = list(dict.fromkeys(v for f, _ in files for v in f.version.split(", ") if v))
    label = "import " + (", ".join(versions[:3]) + (f" (+{len(versions) - 3})" if len(versions) > 3 else "") or tool)
    fio_versions = ", ".join(versions) if tool == "fio" else ""
    run_id = store.create_run(label, command, [str(f.path) for f, _ in files], fio_versions)
    run = ImportedRun(run_id, label)
    outcome.runs.append(run)
    for start in range(0, len(files), BATCH):
        with store.transaction():  # files' points and where they came from, a batch of files a commit
            for parsed, digest in files[start : start + BATCH]:
                if isinstance(parsed, FioFile):
                    ids, rows = store_fio(store, run_id, parsed, outcome.with_logs)
                    outcome.log_rows += rows
                else:
                    ids = store_tool(store, run_id, parsed)
                    outcome.notes += [f"{parsed.path}: {note}" for note in parsed.output.notes]
                record_provenance(store, ids, Provenance(str(parsed.path.resolve()), digest, tool, parsed.version))
                run.points += len(ids)
                run.files += 1
                counter.tick()
    _judge(store, run_id, tool)
    store.finish_run(run_id, "complete" if not outcome.problems else "partial", "; ".join(outcome.problems))
    began = [f.started for f, _ in files if f.started is not None]
    if began:
        date_imported_run(store, run_id, min(began), max(began))


def _judge(store: Store, run_id: int, tool: str) -> None:
    """The imported run's findings, from the same diagnosis stage as a run's: method and results (there is no
    snapshot of the host the output came from, so no host rules). fio's method rules advise fio options
    (ramp_time=, direct=1...), which mean nothing to another tool's run: they are kept for fio only."""
    from iolab.doctor.engine import diagnose_run
    from iolab.store.queries import run_material

    findings = diagnose_run(run_material(store, run_id))
    store.save_findings(run_id, [f for f in findings if tool == "fio" or f.family != "method"])


def skipped_text(skipped: dict[str, list[str]], names: int = 3) -> str:
    """What was skipped, by reason with a few names: "skipped 5 files: 3 not text (a.png, b.png, ...), ..."."""
    if not skipped:
        return "nothing else was there"
    parts = []
    for reason, paths in sorted(skipped.items(), key=lambda item: -len(item[1])):
        # folder and name: a harness repeats names (README.md, result.json) across folders
        shown = ", ".join("/".join(Path(p).parts[-2:]) for p in paths[:names]) + (", ..." if len(paths) > names else "")
        parts.append(f"{len(paths)} {reason} ({shown})")
    return f"skipped {sum(len(p) for p in skipped.values())} files: " + "; ".join(parts)


def report_lines(outcome: ImportOutcome) -> list[str]:
    """What an import did, for the user: each run made, what was imported before, what was skipped and why."""
    lines = [
        f"Imported {run.points} points from {run.files} file{'s' * (run.files != 1)} as run {run.run_id}"
        f" ({run.label}; `iolab show {run.run_id}`)"
        for run in outcome.runs
    ]
    if outcome.already:
        by_run: dict[int, list[str]] = {}
        for path, run_id in outcome.already:
            by_run.setdefault(run_id, []).append(path.rsplit("/", 1)[-1])
        for run_id, names in sorted(by_run.items()):
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            lines.append(f"Already imported as run {run_id}, not stored again: {shown}")
    if outcome.logs and not outcome.with_logs:
        lines.append(f"{outcome.logs} fio log files found, not read (--no-logs)")
    elif outcome.logs or outcome.log_rows:
        found = f"{outcome.logs} fio log files found, read with the outputs that name them" if outcome.logs else ""
        rows = f"{outcome.log_rows:,} log rows stored" if outcome.log_rows else ""
        lines.append("; ".join(part for part in (found, rows) if part))
    if outcome.skipped:
        text = skipped_text(outcome.skipped)
        lines.append(text[0].upper() + text[1:])
    lines += outcome.notes
    return lines
