"""Commands that produce results: `run` and `import`."""

from __future__ import annotations

import os
import shlex
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from iolab.cli.application import app
from iolab.cli.output import FormatOpt, JsonOpt, OutputOpt
from iolab.errors import UserError
from iolab.plan.limits import MAX_REPEATS

if TYPE_CHECKING:  # the commands import these inside, so `iolab --help` stays fast
    from rich.console import Console

    from iolab.runner.request import RunRequest
    from iolab.store.db import Store

MIN_SIZE = 1 << 20
MAX_SECONDS = 30 * 86400  # a month per point: beyond it, a typo


def size_option(text: str) -> int:
    """--size as fio writes sizes: 512M, 4G, 1T (binary multiples)."""
    from iolab.models.option_values import parse_size

    value = parse_size(text)
    if value is None or value <= 0:
        raise UserError(f"--size {text!r} is not a size: write it like 512M, 4G or 1T")
    if value < MIN_SIZE:
        raise UserError(f"--size {text} is below 1M, the least iolab measures on (it writes in 1 MiB blocks)")
    return int(value)


@app.command()
def run(
    args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[PLAN] [TARGET...]",
            help="A TOML plan or fio job file (optional), then directories (a scratch file is made inside), files or block devices. Default: the quick preset on the current directory.",
        ),
    ] = None,
    preset_name: Annotated[str | None, typer.Option("--preset", help="A built-in plan (see `iolab presets`).")] = None,
    allow_write: Annotated[
        bool,
        typer.Option(
            "--allow-write",
            help="Allow writes to a blank block device (refused anyway if it holds data; an existing file is never written).",
        ),
    ] = False,
    verify_blank: Annotated[
        str,
        typer.Option(
            "--verify-blank",
            metavar="full|sample",
            help="How a block device is found blank before iolab first writes it: full reads every byte (the default); sample reads both ends and one block per MiB, and says so (docs/safety-devices.md).",
        ),
    ] = "full",
    allow_commands: Annotated[
        bool,
        typer.Option(
            "--allow-commands",
            help="Let the plan run programs: fio's exec_prerun/exec_postrun, I/O engines iolab cannot check, pre/post-point commands (`iolab plan check` lists them).",
        ),
    ] = False,
    allow_unknown_options: Annotated[
        bool,
        typer.Option(
            "--allow-unknown-options",
            help="Pass fio options iolab has not classified (what they read, write or run is unknown to it); needs --allow-write and --allow-commands too.",
        ),
    ] = False,
    allow_host_changes: Annotated[
        bool,
        typer.Option(
            "--allow-host-changes",
            help="Let the plan's [host] table set block-queue settings and the CPU governor before each point (root; the original values are put back afterwards, after a crash by the next run or `iolab clean`).",
        ),
    ] = False,
    runtime: Annotated[int | None, typer.Option(min=1, max=MAX_SECONDS, help="Measured seconds per point.")] = None,
    ramp: Annotated[
        int | None, typer.Option(min=0, max=MAX_SECONDS, help="Unmeasured warm-up seconds before each point.")
    ] = None,
    size: Annotated[
        str | None, typer.Option(help="Bytes of the target to use, e.g. 8G (scratch file size for directories).")
    ] = None,
    stop_when_known: Annotated[
        bool,
        typer.Option(
            "--stop-when-known",
            help="Stop each point once its mean rate is known within --target-ci and steady (no ramp: the warm-up "
            "is found in the per-second series); at --max-seconds in any case. One host only (not with --hosts).",
        ),
    ] = False,
    target_ci: Annotated[
        str | None, typer.Option("--target-ci", help="With --stop-when-known: the 95% interval wanted (default 2%).")
    ] = None,
    min_seconds: Annotated[
        float | None,
        typer.Option("--min-seconds", min=1, max=MAX_SECONDS, help="With --stop-when-known: never stop sooner (3)."),
    ] = None,
    max_seconds: Annotated[
        float | None,
        typer.Option(
            "--max-seconds",
            min=1,
            max=MAX_SECONDS,
            help="With --stop-when-known: stop by then (60; a job's own ramp_time + runtime when shorter).",
        ),
    ] = None,
    repeat: Annotated[
        int | None,
        typer.Option(
            min=1, max=MAX_REPEATS, help="Run each point this many times (separate samples: mean, stddev, COV, CI)."
        ),
    ] = None,
    adaptive: Annotated[
        bool, typer.Option("--adaptive", help="qd-sweep: search the queue depth instead of running every one.")
    ] = False,
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
    devices: Annotated[
        list[str] | None,
        typer.Option(
            "--devices",
            help="An array of block devices (comma list or glob, e.g. '/dev/nvme*n1', expanded in natural order: "
            "nvme2n1 before nvme10n1): measured together, each alone, and in sets (--subsets).",
        ),
    ] = None,
    array_modes: Annotated[
        str | None,
        typer.Option(
            "--array-modes",
            help="Which array views to run: together,alone,scaling (the default: all; scaling: the --subsets sets).",
        ),
    ] = None,
    subsets: Annotated[
        str | None,
        typer.Option(
            "--subsets",
            help="The device sets of the scaling mode, a comma list of: N (the first N devices in --devices "
            "order), doubling (1, 2, 4 ... all; the default), leave-one-out (every device but one, each in turn) "
            "or DEV+DEV+... (those devices, by name or path), e.g. 30,28,24.",
        ),
    ] = None,
    telemetry: Annotated[
        bool, typer.Option("--telemetry/--no-telemetry", help="Sample devices and CPUs beside fio.")
    ] = True,
    interval: Annotated[float, typer.Option(min=0.1, help="Telemetry interval in seconds.")] = 1.0,
    hosts: Annotated[
        str | None,
        typer.Option(
            "--hosts",
            help="Run on these hosts at once through fio's client/server mode: name,... (fio servers started over ssh on Unix sockets only their user can reach); name:PORT is a server already on TCP (`iolab agent --insecure`).",
        ),
    ] = None,
    hostfile: Annotated[
        str | None,
        typer.Option(
            "--hostfile",
            help="Hosts one a line: name [ssh=DEST|no] [socket=PATH] [address=IP] [port=N] [fio=PATH] [target=PATH] "
            "(docs/many-hosts.md).",
        ),
    ] = None,
    skip_unreachable: Annotated[
        bool,
        typer.Option(
            "--skip-unreachable", help="Run without hosts that cannot be reached at the start (default: refuse)."
        ),
    ] = False,
    on_host_failure: Annotated[
        str, typer.Option("--on-host-failure", help="When a host dies mid-run: continue (without it) or stop.")
    ] = "continue",
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only errors and the run's tables (for cron).")
    ] = False,
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
    write_report: Annotated[
        bool,
        typer.Option(
            "--report/--no-report",
            envvar="IOLAB_RUN_REPORT",
            help="Write the run's HTML page into IOLAB_HOME/reports (default); --no-report (or IOLAB_RUN_REPORT=0) "
            "saves about a second of charts per run where nobody opens it, e.g. hourly scheduled runs.",
        ),
    ] = True,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="List every finding, information and rules not evaluated too.")
    ] = False,
) -> None:
    """Run a preset or plan: the quick preset by default (sequential and random read/write, QD1 latency, about a minute)."""
    from rich.console import Console
    from rich.markup import escape

    from iolab.cli.output import chosen, emit
    from iolab.errors import RunFailed
    from iolab.report.formats import renderer
    from iolab.report.terminal import ConsoleProgress
    from iolab.runner.blank import verify_mode
    from iolab.runner.execute import execute
    from iolab.runner.progress import SilentProgress
    from iolab.runner.request import RunRequest
    from iolab.store.db import open_store
    from iolab.store.queries import resolve_run_id, run_request
    from iolab.views.run import RunSet

    store = open_store()
    if resume is not None:
        run_id = resolve_run_id(store, resume)
        request = RunRequest.from_dict(run_request(store, run_id))
    else:
        run_id = None
        request = _request(args or [], preset_name, allow_write, runtime, ramp, size, adaptive)
        request.repeat = repeat
        request.allow_commands = allow_commands
        request.allow_unknown_options = allow_unknown_options
        request.verify_blank = verify_mode(verify_blank)
        if subsets is not None and not devices:
            raise UserError("--subsets chooses sets of --devices: name the array's devices with --devices")
        if array_modes is not None and not devices:
            raise UserError("--array-modes chooses views of --devices: name the array's devices with --devices")
        request.allow_host_changes = allow_host_changes
        if devices:
            if request.targets:
                raise UserError("give either targets or --devices, not both")
            request.devices = devices
            if array_modes is not None:
                request.array_modes = _array_modes(array_modes)
            if subsets is not None:
                request.subsets = [subsets]
            if request.plan == "quick" and not preset_name:
                request.plan = "array-read"
        request.hosts = _hosts(hosts, hostfile, on_host_failure)
        request.skip_unreachable = skip_unreachable
        request.on_host_failure = on_host_failure
        request.stopping = _stopping(stop_when_known, target_ci, min_seconds, max_seconds)
    request.telemetry_interval = interval if telemetry else None
    shown = chosen(fmt, as_json)
    renderer(shown, "runs")  # a format `run` cannot write is refused before anything runs
    err = Console(stderr=True, soft_wrap=True)
    if dry:
        _print_dry_run(request, err)
        return
    progress = SilentProgress() if quiet else ConsoleProgress(err)
    outcome = execute(request, store, progress, resume=run_id, fresh=fresh)
    emit("runs", RunSet(store, [outcome.run_id]), shown, output, verbose)
    if write_report:
        _write_run_report(store, outcome.run_id, err, quiet)
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
    from iolab.private import private_dir, write_private
    from iolab.report.html import render_html
    from iolab.views.run import load_run

    path = store.path.parent / "reports" / f"run-{run_id}.html"
    try:
        private_dir(path.parent)
        html, _ = render_html([load_run(store, run_id)])
        write_private(path, html)
    except Exception as exc:
        console.print(
            f"warning: no HTML report for run {run_id}: {type(exc).__name__}: {exc}", markup=False, highlight=False
        )
        return
    if not quiet:
        console.print(f"report: {path}", markup=False, highlight=False)


def _request(
    args: list[str],
    preset_name: str | None,
    allow_write: bool,
    runtime: int | None,
    ramp: int | None,
    size: str | None,
    adaptive: bool,
) -> RunRequest:
    """A RunRequest from the command line: plan file or preset, targets, settings."""
    import os

    from iolab.runner.request import PLAN_SUFFIXES, PresetSettings, RunRequest

    plans = [a for a in args if a.endswith(PLAN_SUFFIXES)]
    targets = [a for a in args if not a.endswith(PLAN_SUFFIXES)]
    if len(plans) > 1 or (plans and preset_name):
        raise UserError("give one plan: a plan file or --preset, not both")
    settings = PresetSettings()
    if runtime is not None:
        settings["runtime"] = runtime
    if ramp is not None:
        settings["ramp"] = ramp
    if adaptive:
        if (preset_name or "") != "qd-sweep":
            raise UserError("--adaptive applies to --preset qd-sweep")
        settings["adaptive"] = True
    plan = os.path.abspath(plans[0]) if plans else (preset_name or "quick")
    if plans and not os.path.isfile(plan):
        raise UserError(f"{plans[0]}: no such plan file")
    return RunRequest(
        plan=plan,
        settings=settings,
        targets=targets,
        allow_write=allow_write,
        size=size_option(size) if size else None,
        command=shlex.join(["iolab", *sys.argv[1:]]),
    )


def _array_modes(text: str) -> list[str]:
    """--array-modes as a list of known modes, each once; an empty item or an unknown mode is refused."""
    from iolab.runner.arrays import MODES

    modes = [m.strip() for m in text.split(",")]
    wrong = [m for m in modes if m not in MODES]
    if wrong or len(set(modes)) < len(modes):
        problem = f"{wrong[0]!r} is not an array mode" if wrong else "a mode is named twice"
        raise UserError(f"--array-modes {text[:80]!r}: {problem}; give some of {','.join(MODES)}, comma-separated")
    return modes


def _hosts(hosts: str | None, hostfile: str | None, on_host_failure: str) -> list[dict]:
    """--hosts / --hostfile as HostSpec dicts for the request (empty: this host only)."""
    from iolab.cluster.cluster import ON_FAILURE
    from iolab.cluster.hosts import parse_hosts, read_hostfile

    if on_host_failure not in ON_FAILURE:
        raise UserError(f"--on-host-failure {on_host_failure!r}: use one of {', '.join(ON_FAILURE)}")
    if hosts is not None and hostfile is not None:
        raise UserError("give --hosts or --hostfile, not both")
    specs = parse_hosts(hosts) if hosts is not None else read_hostfile(hostfile) if hostfile is not None else []
    return [spec.to_dict() for spec in specs]


def _print_dry_run(request: RunRequest, console: Console) -> None:
    from rich.markup import escape

    from iolab.runner.dryrun import dry_run

    plan = dry_run(request)
    for line in plan.array:
        console.print(line, markup=False, highlight=False)
    for point in plan.points:
        rep = f" repeat {point.repeat + 1}" if point.repeat else ""
        # an array's sets are listed above, device by device
        where = f"{len(point.target.members)} devices" if point.target.kind == "group" else point.target.path
        options = " ".join(f"{k}={v}" for k, v in {**point.options, **point.host_settings}.items())
        console.print(f"  {point.name}{rep} on {where}: {options}", markup=False, highlight=False)
    for line in plan.notes + plan.open_ended:
        console.print(f"[yellow]note:[/yellow] {escape(line)}")
    for line in plan.writes or ["nothing: reads only"]:
        console.print(f"writes: {line}", markup=False, highlight=False)
    for line in plan.manifest.lines():
        console.print(f"fio touches: {line}", markup=False, highlight=False)
    for line in plan.checks:
        console.print(f"checks: {line}", markup=False, highlight=False)
    for line in plan.commands:
        console.print(f"runs: {line}", markup=False, highlight=False)
    for line in plan.changes:
        console.print(f"changes: {line}", markup=False, highlight=False)
    console.print(plan.summary, markup=False, highlight=False)
    if plan.refused:
        raise UserError(f"the run would be refused: {plan.refused}")


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
        outcome = import_paths(paths, store, shlex.join(["iolab", *sys.argv[1:]]), logs=not no_logs, progress=progress)
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
    from rich.console import Console

    from iolab.runner.host_settings import restore_leftovers
    from iolab.runner.scratch import leftovers, remove
    from iolab.store.db import open_store

    store = open_store()
    settings = restore_leftovers(store, dry_run=dry_run)
    done = remove(store, leftovers(store), dry_run=dry_run)
    console = Console(highlight=False, soft_wrap=True)
    verb = "would remove" if dry_run else "removed"
    for line in settings:
        console.print(line, markup=False)
    for path in done.removed:
        console.print(f"{verb} {path}", markup=False)
    for line in done.kept_notes():
        console.print(line, markup=False)
    if not done.removed and not done.kept and not settings:
        console.print("nothing to clean: no scratch or host settings left by killed runs")


def _stopping(on: bool, target_ci: str | None, min_s: float | None, max_s: float | None) -> dict[str, str | float]:
    """The request's stopping settings, checked now so a bad one is a usage error before anything runs."""
    from iolab.runner.stopping import StopRule

    given = {k: v for k, v in (("target_ci", target_ci), ("min_s", min_s), ("max_s", max_s)) if v is not None}
    if given and not on:
        raise UserError("--target-ci, --min-seconds and --max-seconds go with --stop-when-known")
    if not on:
        return {}
    StopRule.from_settings(given)
    return {"on": 1.0, **given}
