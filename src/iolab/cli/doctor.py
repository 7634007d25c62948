"""Commands that read the machine: `probe`, `doctor`, `lint`.

Heavy modules (rich, the probe, the rule table) are imported inside each
command so `iolab --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from iolab.cli.application import app
from iolab.cli.output import FormatOpt, OutputOpt

if TYPE_CHECKING:
    from iolab.models import Snapshot

RootOpt = Annotated[
    Path | None, typer.Option("--root", help="Analyse a captured tree (sys/, proc/, etc/) instead of /.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
TargetsArg = Annotated[list[str] | None, typer.Argument(help="Files, directories or block devices to focus on.")]


def _findings_json(findings: list) -> str:
    import json
    from dataclasses import asdict

    return json.dumps([{**asdict(f), "severity": f.severity.value} for f in findings], indent=2)


@app.command()
def probe(
    targets: TargetsArg = None,
    json_out: JsonOpt = False,
    save: Annotated[
        Path | None, typer.Option("--save", help="Write the raw files read into FILE.tar.gz (a support bundle).")
    ] = None,
    root: RootOpt = None,
) -> None:
    """Snapshot the host: kernel, CPU, block devices, PCIe links, NVMe SMART, file systems."""
    import json

    from iolab.errors import UserError
    from iolab.probe import Root, take_snapshot
    from iolab.probe.bundle import save_bundle

    if save is not None and root is not None:
        raise UserError("--save captures the live machine; drop --root (or --save)")
    source = Root(root or "/", record=save is not None)
    snapshot = take_snapshot(source, targets or [])
    if save is not None:
        entries = save_bundle(source, save)
        typer.echo(f"saved {entries} entries to {save}; analyse elsewhere with `iolab doctor --from {save}`", err=True)
    if json_out:
        typer.echo(json.dumps(snapshot.to_dict(), indent=2))
    elif save is None:
        _print_snapshot(snapshot)


def _print_snapshot(snapshot: Snapshot) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from iolab.models.host_settings import describe

    console = Console()
    console.print(
        f"[bold]{escape(str(snapshot.hostname))}[/bold]  {escape(str(snapshot.os_name))}  kernel {escape(str(snapshot.kernel))}"
    )
    governors = ", ".join(sorted(set(snapshot.governors.values()))) or "n/a"
    console.print(
        f"CPU {escape(str(snapshot.cpu_model))} ({snapshot.cpus_online} online, {len(snapshot.numa_nodes)} NUMA node(s)); "
        f"RAM {(snapshot.mem_total_bytes or 0) / 2**30:.1f} GiB; governors "
        f"{escape(governors)}; IOMMU {escape(str(snapshot.iommu_units or 'off/absent'))}"
    )
    console.print(f"cmdline: {escape(str(snapshot.cmdline))}", highlight=False)
    table = Table("device", "model", "size", "rot", "sched", "wbt", "ra KiB", "PCIe now / max", "NUMA", "SMART")
    for d in snapshot.devices:
        link = f"{d.pcie.describe()} / {d.pcie.describe(False)}" if d.pcie and d.pcie.current_gts else "-"
        smart = f"warn={d.smart.critical_warning} used={d.smart.percent_used}%" if d.smart else (d.smart_error or "-")
        table.add_row(
            d.name,
            d.model or "-",
            f"{(d.size_bytes or 0) / 1e9:.0f} GB",
            str(int(d.rotational)) if d.rotational is not None else "?",
            d.scheduler or "?",
            str(d.wbt_lat_usec),
            str(d.read_ahead_kb),
            link,
            str(d.numa_node),
            smart,
        )
    console.print(table)
    for d in snapshot.devices:  # every setting a plan's [host] can sweep, as the probe read it
        if d.host_settings:
            console.print(f"{d.name} queue: {describe(d.host_settings)}", markup=False, highlight=False)
    fs_table = Table("mount", "type", "source", "used", "options")
    for f in snapshot.filesystems:
        used = f"{f.used_percent:.0f}%" if f.used_percent is not None else "-"
        fs_table.add_row(f.mount_point, f.fs_type, f.source, used, ",".join(dict.fromkeys(f.options)))
    console.print(fs_table)
    for target in snapshot.targets:
        console.print(
            f"target {target.path}: device {target.device}, mount {target.mount_point} ({target.fs_type})", markup=False
        )


@app.command()
def doctor(
    targets: TargetsArg = None,
    bundle: Annotated[
        Path | None, typer.Option("--from", help="Analyse a bundle written by `iolab probe --save`.")
    ] = None,
    root: RootOpt = None,
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    json_out: JsonOpt = False,
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
    from iolab.report.formats import renderer

    if rules_md:
        typer.echo(rules_markdown(), nl=False)
        return
    shown = chosen(fmt, json_out)
    renderer(shown, "doctor")
    if bundle is not None and root is not None:
        raise UserError("use either --from BUNDLE or --root DIR, not both")
    if bundle is not None:
        with open_bundle(bundle) as bundle_root:
            snapshot = take_snapshot(bundle_root, targets or [])
    else:
        snapshot = take_snapshot(Root(root or "/"), targets or [])
    emit("doctor", diagnose(snapshot), shown, output)


@app.command()
def lint(
    jobfile: Annotated[Path, typer.Argument(help="A fio job file.")],
    json_out: JsonOpt = False,
) -> None:
    """Methodology findings for a fio job file (buffered I/O, queue depth, data-set size, run length...),
    and what it would write and run."""
    from rich.console import Console

    from iolab.doctor import lint_jobs
    from iolab.fio.jobfile import read_jobfile
    from iolab.plan.effects import job_effects
    from iolab.probe import Root
    from iolab.probe.host import read_memory
    from iolab.report.findings import render_findings

    sections = read_jobfile(jobfile)
    findings = lint_jobs(sections, mem_total_bytes=read_memory(Root("/")))
    writes, commands = job_effects(sections)
    if json_out:
        import json

        typer.echo(
            json.dumps({"findings": json.loads(_findings_json(findings)), "writes": writes, "runs": commands}, indent=2)
        )
        return
    render_findings(findings, Console())
    for line in writes or ["nothing: reads only"]:
        typer.echo(f"writes: {line}")
    for line in commands:
        typer.echo(f"runs: {line} (iolab runs it only with --allow-commands)")
