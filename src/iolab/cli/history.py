"""Commands that look across runs: `compare`, `history` and `export`."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from iolab.cli.application import app
from iolab.cli.output import FormatOpt, HtmlOpt, JsonOpt, OutputOpt
from iolab.errors import UserError
from iolab.numbers import real

if TYPE_CHECKING:  # imported when compare runs: `iolab --help` stays light
    from iolab.analysis.compare import CompareParams
    from iolab.views.comparison import Comparison

_WINDOW = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(m|min|h|d)\s*$")
_WINDOW_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400}
MAX_WINDOW_S = 3650 * 86400
# Runs of each series `history` reads unless told otherwise: three weeks of hourly runs, enough for the
# 48 h health window, the days' COV and recent change points; 100 such series answer within 2 s.
DEFAULT_LAST = 500


def _window_seconds(text: str) -> float:
    """--window as 48h, 90m or 7d: above zero, at most ten years."""
    match = _WINDOW.match(text or "")
    if not match:
        raise UserError(f"--window {text[:24]!r} is not a duration: write it like 48h, 90m or 7d")
    seconds = real(match[1], "--window", 0.0, MAX_WINDOW_S) * _WINDOW_UNITS[match[2]]
    if not 0 < seconds <= MAX_WINDOW_S:
        raise UserError(f"--window {text[:24]!r}: give a duration above zero and at most ten years (3650d)")
    return seconds


def _fraction(text: str, option: str, zero: bool = False) -> float:
    """A percentage as 8% or 0.08: above 0 (or 0 itself, with `zero`) and below 1000%."""
    stripped = text.strip()
    try:
        value = real(stripped[:-1].strip(), option) / 100 if stripped.endswith("%") else real(stripped, option)
    except UserError:
        raise UserError(f"{option} {text[:24]!r} is not a percentage: write it like 8% or 0.08") from None
    if not (0 <= value if zero else 0 < value) or value >= 10:
        raise UserError(f"{option} {text!r} is out of range: give a positive percentage such as 8%")
    return value


def _compare_params(noise_floor: str | None) -> CompareParams:
    """The statistics' parameters; --noise-floor from 0 (any change the CI shows) to below the equivalence
    margin, its default `CompareParams`'s own."""
    from iolab.analysis.compare import CompareParams

    if noise_floor is None:
        return CompareParams()
    floor = _fraction(noise_floor, "--noise-floor", zero=True)
    margin = CompareParams().equivalence_margin
    if floor >= margin:
        raise UserError(f"--noise-floor {noise_floor!r} must be below the {margin:.0%} equivalence margin")
    return CompareParams(noise_floor=floor)


@app.command()
def compare(
    selection_a: Annotated[
        str,
        typer.Argument(
            metavar="A",
            help="Runs: an id, `last`, a range 6-13, a list 1,4,7, `tag:NAME`, or a window 2025-06-01..2025-06-07;"
            " RUNS:KEY=VALUE takes only their points with that host setting or fio option (3:scheduler=none).",
        ),
    ],
    selection_b: Annotated[str, typer.Argument(metavar="B", help="Runs, written as for A.")],
    since: Annotated[
        str | None,
        typer.Option(
            "--since", metavar="WHEN", help="Only runs started then or later, in both groups (ISO date/time)."
        ),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until", metavar="WHEN", help="Only runs started up to then (a date: its whole day), in both groups."
        ),
    ] = None,
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
    fail_on_regression: Annotated[
        str | None,
        typer.Option(
            "--fail-on-regression",
            metavar="PCT",
            help="Exit 1 when a workload is slower by more than PCT (e.g. 5%), with a verdict that holds statistically.",
        ),
    ] = None,
    noise_floor: Annotated[
        str | None,
        typer.Option(
            "--noise-floor",
            metavar="PCT",
            help="Call B faster or slower only when the whole 95% CI of the change lies beyond this"
            " (default 1%, Criterion's; 0 for any change the CI shows).",
        ),
    ] = None,
    html: HtmlOpt = None,
    png: Annotated[
        Path | None, typer.Option("--png", metavar="DIR", help="Also write its chart as PNG into DIR.")
    ] = None,
) -> None:
    """Is B faster, slower or the same as A? Per workload: geometric means, change with 95% CI, p, verdict; and what differs on the host.

    A and B are groups of one or more runs (`iolab compare 1-5 6-10`, `iolab compare tag:before tag:after`);
    every repeat of every run of a group is one sample. A run may not be in both groups.
    """
    from iolab.cli.output import check, emit_all, outputs
    from iolab.printable import escaping_console
    from iolab.report.formats import COMPARISON

    wanted = outputs(fmt, output, as_json, {"html": html}, elsewhere=png is not None)
    check(COMPARISON, wanted)  # a format compare cannot write is refused before the runs are read
    threshold = _fraction(fail_on_regression, "--fail-on-regression") if fail_on_regression is not None else None
    result = _comparison(selection_a, selection_b, since, until, _compare_params(noise_floor))
    if png is not None:
        from functools import partial

        from iolab.cli.report import write_pngs
        from iolab.report.cross_sections import comparison_page

        write_pngs([], png, [partial(comparison_page, result)])
    emit_all(COMPARISON, result, wanted)
    if threshold is not None:
        failed = result.regressions(threshold)
        if failed:
            escaping_console(stderr=True).print(
                f"regression gate failed: {len(failed)} workload(s) slower by more than {threshold:.1%}: "
                + ", ".join(row.a.name for row in failed),
                highlight=False,
                markup=False,
            )
            raise typer.Exit(1)


def _comparison(
    selection_a: str, selection_b: str, since: str | None, until: str | None, params: CompareParams
) -> Comparison:
    """The two groups' runs read and compared; a run in both groups (unless one axis parts its points) or
    groups without a workload in common are the user's to fix."""
    from iolab.store.db import open_store
    from iolab.store.integrity import warn_unreadable
    from iolab.store.selection import select_runs, window
    from iolab.views.comparison import compare_runs, split_group

    narrow = window(since, until)
    store = open_store(for_reading=True)
    (spec_a, within_a), (spec_b, within_b) = split_group(selection_a), split_group(selection_b)
    runs_a, runs_b = select_runs(store, spec_a, narrow), select_runs(store, spec_b, narrow)
    both = sorted(set(runs_a) & set(runs_b))
    apart = within_a is not None and within_b is not None and within_a.key == within_b.key and within_a != within_b
    if both and not apart:  # a run's points are in one group only, unless one axis's values part them
        shown = ", ".join(map(str, both[:5])) + (" ..." if len(both) > 5 else "")
        raise UserError(
            f"run(s) {shown} are in both groups ({selection_a} and {selection_b}): a run can be in one group only,"
            " or part it by one setting or option in both groups (3:scheduler=none 3:scheduler=mq-deadline)"
        )
    warn_unreadable(store, sorted({*runs_a, *runs_b}))
    label_a, label_b = (f"{text} ({narrow.text})" if narrow else text for text in (selection_a, selection_b))
    result = compare_runs(store, label_a, runs_a, label_b, runs_b, params, within=(within_a, within_b))
    if not result.rows:
        raise UserError(
            f"{label_a} and {label_b} have no workload in common (same name, options and target) and none with one access pattern on each side: nothing to compare"
        )
    return result


@app.command()
def history(
    host: Annotated[str | None, typer.Option(help="Only this host.")] = None,
    target: Annotated[str | None, typer.Option(help="Only this target (as given to `iolab run`).")] = None,
    workload: Annotated[str | None, typer.Option(help="Only workloads of this name.")] = None,
    window: Annotated[str, typer.Option(help="Rolling window for mean and COV, e.g. 48h.")] = "48h",
    cov_target: Annotated[
        str, typer.Option("--cov-target", help="Healthy when the rolling COV is at most this.")
    ] = "8%",
    min_runs: Annotated[int, typer.Option("--min-runs", min=2, help="Fewest runs in the window to judge health.")] = 24,
    last: Annotated[
        int,
        typer.Option(
            "--last",
            min=1,
            metavar="N",
            help="Each series' N newest runs; a line says how many older ones were left out.",
        ),
    ] = DEFAULT_LAST,
    every_run: Annotated[bool, typer.Option("--all", help="Every run of each series, however many.")] = False,
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
    html: HtmlOpt = None,
    png: Annotated[
        Path | None, typer.Option("--png", metavar="DIR", help="Also write the charts as PNG into DIR.")
    ] = None,
) -> None:
    """Each workload over time: latest value, rolling mean and COV, health, change points and what changed on the host.

    Each series is read over its newest runs (--last, 500 by default; --all for every run), so a store of
    years of hourly runs answers in a second or two.
    """
    from iolab.cli.output import check, emit_all, outputs
    from iolab.report.formats import HISTORY
    from iolab.store.db import open_store
    from iolab.views.history import load_histories

    wanted = outputs(fmt, output, as_json, {"html": html}, elsewhere=png is not None)
    check(HISTORY, wanted)
    window_s, target_cov = _window_seconds(window), _fraction(cov_target, "--cov-target")
    store = open_store(for_reading=True)
    histories = load_histories(
        store, window_s, target_cov, min_runs, host, target, workload, None if every_run else last, warn=True
    )
    if not histories:
        asked = ", ".join(f"{k} {v!r}" for k, v in (("host", host), ("target", target), ("workload", workload)) if v)
        raise UserError(f"no runs match {asked}" if asked else "there are no runs yet: start one with `iolab run`")
    if png is not None:
        from functools import partial

        from iolab.cli.report import write_pngs
        from iolab.report.cross_sections import history_page

        write_pngs([], png, [partial(history_page, histories)])
    emit_all(HISTORY, histories, wanted)


@app.command()
def export(
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
    prometheus: Annotated[
        Path | None,
        typer.Option(
            "--prometheus",
            metavar="FILE",
            help="node_exporter textfile: latest values, rolling COV, health, file system fullness and last change "
            "point of every series (replaced atomically); the same as --format prometheus --output FILE.",
        ),
    ] = None,
    csv_file: Annotated[
        Path | None,
        typer.Option("--csv", metavar="FILE", help="Every point of every run as CSV (--format csv --output FILE)."),
    ] = None,
    old_json_file: Annotated[list[Path] | None, typer.Argument(hidden=True)] = None,  # `--json FILE`, as before
    window: Annotated[str, typer.Option(help="Rolling window for the COV in the Prometheus file.")] = "48h",
    cov_target: Annotated[str, typer.Option("--cov-target", help="COV target for the healthy gauge.")] = "8%",
    min_runs: Annotated[int, typer.Option("--min-runs", min=2, help="Fewest runs in the window to judge health.")] = 24,
) -> None:
    """Write results for other tools: Prometheus textfile, CSV or JSON (several at once with the FILE options)."""
    from iolab.cli.output import check, outputs
    from iolab.report.formats import EXPORT, renderer
    from iolab.store.db import open_store
    from iolab.store.integrity import warn_unreadable
    from iolab.views.export_set import ExportSet

    files = {"prometheus": prometheus, "csv": csv_file, "json": _old_json_file(old_json_file, as_json)}
    wanted = outputs(fmt, output, as_json and files["json"] is None, files)
    check(EXPORT, wanted)  # each format checked first
    window_s, target_cov = _window_seconds(window), _fraction(cov_target, "--cov-target")  # checked if unused too
    store = open_store(for_reading=True)
    warn_unreadable(store)
    exported = ExportSet(store, window_s, target_cov, min_runs)
    for out in wanted:
        text = renderer(out.fmt, EXPORT)(exported)
        if out.path is None:
            sys.stdout.write(text)
        else:
            _write(out.path, out.fmt, text)


def _old_json_file(words: list[Path] | None, as_json: bool) -> Path | None:
    """`export --json FILE` as it was written before --json was the flag it is on every command: the file,
    with a note saying the new spelling; any other word after `export` is refused."""
    if not words:
        return None
    if not as_json or len(words) > 1:
        raise UserError(
            f"export takes no arguments (got {str(words[0])!r}): name files with --output, --csv, --prometheus"
        )
    typer.echo(f"note: `--json {words[0]}` is `--format json -o {words[0]}` now (--json alone prints JSON)", err=True)
    return words[0]


def _write(path: Path, fmt: str, text: str) -> None:
    """Write one export; a file that cannot be written is the user's to fix, not a traceback. The Prometheus
    textfile is replaced atomically and readable by node_exporter (`report.prometheus.write_textfile`)."""
    from iolab.private import write_private
    from iolab.report.prometheus import write_textfile

    try:
        write_textfile(path, text) if fmt == "prometheus" else write_private(path, text)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
