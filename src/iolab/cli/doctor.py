"""Commands that read the machine: `probe`, `doctor`, `lint`.

Heavy modules (rich, the probe, the rule table) are imported inside each
command so `iolab --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iolab.cli.application import app
from iolab.cli.output import FormatOpt, JsonOpt, OutputOpt

RootOpt = Annotated[
    Path | None, typer.Option("--root", help="Analyse a captured tree (sys/, proc/, etc/) instead of /.")
]
TargetsArg = Annotated[list[str] | None, typer.Argument(help="Files, directories or block devices to focus on.")]


@app.command()
def probe(
    targets: TargetsArg = None,
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
    save: Annotated[
        Path | None, typer.Option("--save", help="Write the raw files read into FILE.tar.gz (a support bundle).")
    ] = None,
    root: RootOpt = None,
) -> None:
    """Snapshot the host: kernel, CPU, block devices, PCIe links, NVMe SMART, file systems."""
    from iolab.cli.output import check, emit_all, outputs
    from iolab.errors import UserError
    from iolab.probe import Root, take_snapshot
    from iolab.probe.bundle import save_bundle
    from iolab.report.formats import SNAPSHOT

    wanted = outputs(fmt, output, as_json, {}, elsewhere=save is not None)  # --save alone prints nothing
    check(SNAPSHOT, wanted)
    if save is not None and root is not None:
        raise UserError("--save captures the live machine; drop --root (or --save)")
    source = Root(root or "/", record=save is not None)
    snapshot = take_snapshot(source, targets or [])
    if save is not None:
        entries = save_bundle(source, save)
        typer.echo(f"saved {entries} entries to {save}; analyse elsewhere with `iolab doctor --from {save}`", err=True)
    emit_all(SNAPSHOT, snapshot, wanted)


@app.command()
def doctor(
    targets: TargetsArg = None,
    bundle: Annotated[
        Path | None, typer.Option("--from", help="Analyse a bundle written by `iolab probe --save`.")
    ] = None,
    root: RootOpt = None,
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
    rules_md: Annotated[
        bool, typer.Option("--rules-md", help="Print the rule catalogue as Markdown (docs/rules.md) and exit.")
    ] = False,
) -> None:
    """Pre-flight check (no I/O): what in this machine holds the storage back, with evidence and fix."""
    from iolab.cli.output import chosen, emit
    from iolab.doctor import diagnose, rules_markdown
    from iolab.errors import UserError
    from iolab.probe import Root, take_snapshot
    from iolab.probe.bundle import open_bundle
    from iolab.report.formats import DOCTOR, renderer

    if rules_md:
        typer.echo(rules_markdown(), nl=False)
        return
    shown = chosen(fmt, as_json)
    renderer(shown, DOCTOR)
    if bundle is not None and root is not None:
        raise UserError("use either --from BUNDLE or --root DIR, not both")
    if bundle is not None:
        with open_bundle(bundle) as bundle_root:
            snapshot = take_snapshot(bundle_root, targets or [])
    else:
        snapshot = take_snapshot(Root(root or "/"), targets or [])
    emit(DOCTOR, diagnose(snapshot), shown, output)


@app.command()
def lint(
    jobfile: Annotated[Path, typer.Argument(help="A fio job file.")],
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Methodology findings for a fio job file (buffered I/O, queue depth, data-set size, run length...),
    and what it would write and run."""
    from iolab.cli.output import chosen, emit
    from iolab.doctor import lint_jobs
    from iolab.fio.jobfile import read_jobfile
    from iolab.plan.effects import job_effects
    from iolab.probe import Root
    from iolab.probe.host import read_memory
    from iolab.report.formats import LINT, renderer
    from iolab.views.lint import LintView

    shown = chosen(fmt, as_json)
    renderer(shown, LINT)
    sections = read_jobfile(jobfile)
    findings = lint_jobs(sections, mem_total_bytes=read_memory(Root("/")))
    writes, commands = job_effects(sections)
    emit(LINT, LintView(findings, writes, commands), shown, output)
