"""Commands that produce results: `run` and `import`."""

from __future__ import annotations

import shlex
import sys
from typing import Annotated, Optional

import typer

from iolab.cli import app
from iolab.errors import UserError


def _size_option(text: str) -> int:
    """--size as fio writes sizes: 512M, 4G, 1T (binary multiples)."""
    from iolab.fio.values import parse_size

    value = parse_size(text)
    if value is None or value <= 0:
        raise UserError(f"--size {text!r} is not a size: write it like 512M, 4G or 1T")
    return int(value)


@app.command()
def run(
    targets: Annotated[Optional[list[str]], typer.Argument(help="Directories (a scratch file is made inside), files or block devices. Default: the current directory.")] = None,
    allow_write: Annotated[bool, typer.Option("--allow-write", help="Allow writes to a block device or existing file (refused anyway if it holds data).")] = False,
    runtime: Annotated[int, typer.Option(min=1, help="Measured seconds per point.")] = 8,
    ramp: Annotated[int, typer.Option(min=0, help="Unmeasured warm-up seconds before each point.")] = 2,
    size: Annotated[Optional[str], typer.Option(help="Bytes of the target to use, e.g. 8G (scratch file size for directories).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run as JSON on stdout.")] = False,
) -> None:
    """Run the quick preset: sequential and random read/write and QD1 latency, about a minute."""
    from rich.console import Console

    from iolab.errors import RunFailed
    from iolab.plan import preset
    from iolab.report.terminal import ConsoleProgress
    from iolab.runner.execute import RunOptions, execute
    from iolab.store.db import open_store

    plan = preset("quick", runtime=runtime, ramp=ramp)
    options = RunOptions(
        targets=targets or ["."],
        allow_write=allow_write,
        size=_size_option(size) if size else None,
        command=shlex.join(["iolab", *sys.argv[1:]]),
    )
    store = open_store()
    err = Console(stderr=True, soft_wrap=True)
    outcome = execute(plan, options, store, ConsoleProgress(err))
    _print_run(store, outcome.run_id, as_json)
    if outcome.failed:
        raise RunFailed(f"{len(outcome.failed)} point(s) failed, the others are kept in run {outcome.run_id}: {outcome.failed[0]}")


def _print_run(store, run_id: int, as_json: bool) -> None:
    """The stored run as a table (or JSON): what `run` ends with and `show` prints."""
    import json

    from rich.console import Console

    from iolab.report.export import record_dict, run_dict
    from iolab.report.terminal import results_table
    from iolab.store.queries import get_run, run_points

    run_info = get_run(store, run_id)
    records = run_points(store, run_id)
    if as_json:
        print(json.dumps({"run": run_dict(run_info), "points": [record_dict(r) for r in records]}, indent=2))
        return
    console = Console()
    title = f"Run {run_info.id} · {run_info.label} · {run_info.host} · {run_info.fio_version} · {run_info.status}"
    console.print(results_table(records, title=title))


@app.command("import")
def import_(
    paths: Annotated[list[str], typer.Argument(help="fio JSON/json+ output files, or directories holding them.")],
) -> None:
    """Import existing fio JSON and json+ outputs (standalone or client/server) as a run."""
    from rich.console import Console

    from iolab.runner.importer import import_paths
    from iolab.store.db import open_store

    store = open_store()
    outcome = import_paths(paths, store, shlex.join(["iolab", *sys.argv[1:]]))
    console = Console(stderr=True)
    if outcome.run_id is not None:
        console.print(f"Imported {outcome.points} points from {outcome.files} files as run {outcome.run_id} (`iolab show {outcome.run_id}`)")
    if outcome.problems:
        shown = outcome.problems[0] + (f" (and {len(outcome.problems) - 1} more)" if len(outcome.problems) > 1 else "")
        raise UserError(f"could not import {shown}")
