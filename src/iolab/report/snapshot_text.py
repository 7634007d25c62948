"""A host snapshot as the terminal shows it (`iolab probe`): one line each for the host and its CPUs, a
table of block devices and one of file systems, then each target asked about."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from iolab.models import Snapshot
from iolab.models.host_settings import describe


def print_snapshot(snapshot: Snapshot, console: Console) -> None:
    """What `iolab probe` prints: the host, its CPUs and memory, each block device and file system, and
    the targets asked about."""
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
    console.print(_devices(snapshot))
    for d in snapshot.devices:  # every setting a plan's [host] can sweep, as the probe read it
        if d.host_settings:
            console.print(f"{d.name} queue: {describe(d.host_settings)}", markup=False, highlight=False)
    console.print(_filesystems(snapshot))
    for target in snapshot.targets:
        console.print(
            f"target {target.path}: device {target.device}, mount {target.mount_point} ({target.fs_type})", markup=False
        )


def _devices(snapshot: Snapshot) -> Table:
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
    return table


def _filesystems(snapshot: Snapshot) -> Table:
    fs_table = Table("mount", "type", "source", "used", "options")
    for f in snapshot.filesystems:
        used = f"{f.used_percent:.0f}%" if f.used_percent is not None else "-"
        fs_table.add_row(f.mount_point, f.fs_type, f.source, used, ",".join(dict.fromkeys(f.options)))
    return fs_table
