"""Commands that produce results: `run` and `import`."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from iolab.cli.application import app
from iolab.cli.output import FormatOpt, JsonOpt, OutputOpt
from iolab.cli.request_flags import RunFlags, build_request, command_line, run_flags, split_args
from iolab.errors import UserError

if TYPE_CHECKING:  # the commands import these inside, so `iolab --help` stays fast
    from rich.console import Console

    from iolab.models import Point
    from iolab.runner.execute import RunOutcome
    from iolab.runner.request import RunRequest
    from iolab.store.db import Store


@app.command()
@run_flags()
def run(
    args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[PLAN] [TARGET...]",
            help="A TOML plan or fio job file (optional), then directories (a scratch file is made inside), files or block devices. Default: the quick preset on the current directory.",
        ),
    ] = None,
    resume: Annotated[
        str | None, typer.Option(help="Finish an interrupted run (id or `last`) without rerunning its finished points.")
    ] = None,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Start a new run even if the same plan was interrupted before.")
    ] = False,
    dry: Annotated[
        bool,
        typer.Option("--dry-run", help="Show the points, the estimated time and what would be written; run nothing."),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only errors and the run's tables (for cron).")
    ] = False,
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="List every finding, information and rules not evaluated too.")
    ] = False,
    *,
    flags: RunFlags,
) -> None:
    """Run a preset or plan: the quick preset by default (sequential and random read/write, QD1 latency, about a minute)."""
    from iolab.cli.output import chosen, emit
    from iolab.printable import escaping_console
    from iolab.report.formats import RUNS, renderer
    from iolab.store.db import open_store

    store = open_store()
    run_id, request = _resumed(store, resume, flags) if resume is not None else (None, _new_request(args, flags))
    shown = chosen(fmt, as_json)
    renderer(shown, RUNS)  # a format `run` cannot write is refused before anything runs
    err = escaping_console(stderr=True, soft_wrap=True)
    if dry:
        _print_dry_run(request, err)
        return
    # after the dry run's return: the run's machinery (numpy, the rules, the probes) is half a CPU-second to load
    from iolab.report.terminal import ConsoleProgress
    from iolab.runner.execute import execute
    from iolab.runner.progress import SilentProgress
    from iolab.views.run import RunSet

    progress = SilentProgress() if quiet else ConsoleProgress(err)
    outcome = execute(request, store, progress, resume=run_id, fresh=fresh)
    emit(RUNS, RunSet(store, [outcome.run_id]), shown, output, verbose)
    if flags.write_report:
        _write_run_report(store, outcome.run_id, err, quiet)
    _say_outcome(outcome, err, quiet)


def _new_request(args: list[str] | None, flags: RunFlags) -> RunRequest:
    plan_file, targets = split_args(args or [], flags.preset_name)
    return build_request(flags, plan_file, targets, command_line())


def _resumed(store: Store, resume: str, flags: RunFlags) -> tuple[int, RunRequest]:
    """The interrupted run's id and its request as stored; only the telemetry interval is this command's."""
    from dataclasses import replace

    from iolab.runner.request import RunRequest
    from iolab.store.queries import resolve_run_id, run_request

    run_id = resolve_run_id(store, resume)
    request = RunRequest.from_dict(run_request(store, run_id))
    return run_id, replace(request, telemetry_interval=flags.interval if flags.telemetry else None)


def _say_outcome(outcome: RunOutcome, err: Console, quiet: bool) -> None:
    """The run's notes (only those never to be unsaid, with --quiet), then its failure as exit 3."""
    from rich.markup import escape

    from iolab.errors import RunFailed

    if not quiet:
        for note in outcome.notes:
            err.print(f"[yellow]note:[/yellow] {escape(note)}")
    else:  # a run merged into an older one, files left behind, a server's error: never unsaid, even for cron
        if outcome.resumed:
            points = f"{outcome.skipped} finished point{'s' * (outcome.skipped != 1)}"
            err.print(f"note: resumed run {outcome.run_id} ({points} kept); --fresh starts anew", markup=False)
        for warning in outcome.warnings:
            err.print(f"note: {warning}", markup=False)
    if outcome.failed:
        raise RunFailed(
            f"{len(outcome.failed)} point(s) failed, the others are kept in run {outcome.run_id}: {outcome.failed[0]}"
        )
    if outcome.failed_hosts:
        raise RunFailed(
            f"host(s) failed during run {outcome.run_id}, whose points are kept without them: "
            + "; ".join(outcome.failed_hosts)
        )


def _write_run_report(store: Store, run_id: int, console: Console, quiet: bool) -> None:
    """The run's HTML page in $IOLAB_HOME/reports, and one line saying where it is.

    The page is a convenience on top of a run whose results are already
    stored, so any failure making it is a one-line warning, never a failed run.
    """
    from iolab.printable import printable
    from iolab.private import private_dir, write_private
    from iolab.report.html import render_html
    from iolab.views.run import load_run

    path = store.path.parent / "reports" / f"run-{run_id}.html"
    try:
        private_dir(path.parent)
        html, _ = render_html([load_run(store, run_id)])
        write_private(path, printable(html))
    except Exception as exc:
        console.print(
            f"warning: no HTML report for run {run_id}: {type(exc).__name__}: {exc}", markup=False, highlight=False
        )
        return
    if not quiet:
        console.print(f"report: {path}", markup=False, highlight=False)


def _print_dry_run(request: RunRequest, console: Console) -> None:
    """What `run --dry-run` prints: each point, then what the run would write, touch, check, run and change."""
    from rich.markup import escape

    from iolab.runner.dryrun import dry_run

    plan = dry_run(request)
    for line in plan.array:
        console.print(line, markup=False, highlight=False)
    for point in plan.points:
        console.print(_point_line(point), markup=False, highlight=False)
    for line in plan.notes + plan.open_ended:
        console.print(f"[yellow]note:[/yellow] {escape(line)}")
    said = (
        ("writes", plan.writes or ["nothing: reads only"]),
        ("fio touches", plan.manifest.lines()),
        ("checks", plan.checks),
        ("runs", plan.commands),
        ("changes", plan.changes),
    )
    for what, lines in said:
        for line in lines:
            console.print(f"{what}: {line}", markup=False, highlight=False)
    console.print(plan.summary, markup=False, highlight=False)
    if plan.refused:
        raise UserError(f"the run would be refused: {plan.refused}")


def _point_line(point: Point) -> str:
    """One planned point as `run --dry-run` lists it: name, repeat, where, options and host settings."""
    rep = f" repeat {point.repeat + 1}" if point.repeat else ""
    # an array's sets are listed above, device by device
    where = f"{len(point.target.members)} devices" if point.target.kind == "group" else point.target.path
    options = " ".join(f"{k}={v}" for k, v in {**point.options, **point.host_settings}.items())
    return f"  {point.name}{rep} on {where}: {options}"


@app.command("import")
def import_(
    paths: Annotated[
        list[str],
        typer.Argument(help="Outputs of fio (JSON, json+, terse), IOR, mdtest or IOzone, or folders holding them."),
    ],
    no_logs: Annotated[
        bool, typer.Option("--no-logs", help="Leave fio's per-second and per-I/O logs unread: results only.")
    ] = False,
    snapshot: Annotated[
        bool,
        typer.Option(
            "--snapshot",
            help="The outputs ran on this host, as it is now (an hourly job importing its own output): keep "
            "this host's snapshot with each imported run, so history names what changed at a change point.",
        ),
    ] = False,
) -> None:
    """Import benchmark outputs as runs: fio since 2.0 (standalone or client/server), IOR, mdtest, IOzone.

    fio's logs beside an output (or in clients/HOST/) are stored with its points as compressed columns.
    """
    from iolab.cli.import_progress import ImportProgress
    from iolab.imports import import_paths, report_lines
    from iolab.store.db import open_store

    store = open_store()
    progress = ImportProgress()
    try:
        outcome = import_paths(paths, store, command_line(), logs=not no_logs, progress=progress)
        if snapshot:
            _snapshot_imported(store, outcome.run_ids)
    finally:
        progress.close()
        store.close()
    for line in report_lines(outcome):  # plain lines, as they are (rich's console cost 17 ms to load)
        print(line, file=sys.stderr)
    if outcome.problems:
        shown = outcome.problems[0] + (f" (and {len(outcome.problems) - 1} more)" if len(outcome.problems) > 1 else "")
        raise UserError(f"could not import {shown}")


def _snapshot_imported(store: Store, run_ids: list[int]) -> None:
    """This host's snapshot, with the files and devices the imported points ran on that exist here, kept as
    each run's "before": the user says the outputs ran here as the host is now. Without it an imported run
    has no snapshot, and history's change points say "host differences unknown"."""
    from iolab.probe import Root, take_snapshot
    from iolab.store.queries import run_points

    if not run_ids:
        return
    named = {r.point.target.path for run_id in run_ids for r in run_points(store, run_id)}
    targets = sorted(path for path in named if path and os.path.exists(path))
    data = take_snapshot(Root(), targets).to_dict()
    for run_id in run_ids:
        store.save_snapshot(run_id, "before", data)


@app.command()
def clean(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would be removed.")] = False,
) -> None:
    """Remove scratch files and directories that killed runs left behind (fio's temporary work
    directories included), and put back the host settings they changed.

    Only paths iolab recorded creating are touched, and only while they are still what it created
    (owner, device and inode): a file replaced by another, or by a link, is left and listed. Nothing
    is removed for its name. A setting is written back only on the
    boot and device it was taken from. Runs still going keep theirs.
    """
    from iolab.printable import escaping_console
    from iolab.runner.host_settings import restore_leftovers
    from iolab.runner.scratch import leftovers, remove
    from iolab.store.db import open_store

    store = open_store()
    settings = restore_leftovers(store, dry_run=dry_run)
    done = remove(store, leftovers(store), dry_run=dry_run)
    console = escaping_console(highlight=False, soft_wrap=True)
    verb = "would remove" if dry_run else "removed"
    for line in settings:
        console.print(line, markup=False)
    for path in done.removed:
        console.print(f"{verb} {path}", markup=False)
    for line in done.kept_notes():
        console.print(line, markup=False)
    if not done.removed and not done.kept and not settings:
        console.print("nothing to clean: no scratch or host settings left by killed runs")
