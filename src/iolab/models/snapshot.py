"""What a host looked like when it was probed: kernel, CPU, devices, file systems.

A `Snapshot` is plain data so it can be stored next to a run (JSON via
`to_dict`/`from_dict`), compared with another (`iolab.models.snapshot_diff`) and judged
by the doctor. A value that could not be read is None, never a guess, so
rules can say "not evaluated" instead of passing silently.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

# Per-lane bandwidth in MB/s per direction after line encoding, as the kernel
# computes it (PCIE_SPEED2MBS_ENC, drivers/pci/pci.h): 8b/10b up to Gen2,
# 128b/130b for Gen3-5, Flit mode counted 1:1 from Gen6.
PCIE_MBS_PER_LANE: dict[float, float] = {
    2.5: 250.0,
    5.0: 500.0,
    8.0: 984.6,
    16.0: 1969.2,
    32.0: 3938.5,
    64.0: 8000.0,
    128.0: 16000.0,
}


def pcie_generation(gts: float | None) -> int | None:
    """PCIe generation (1-7) from a transfer rate in GT/s."""
    order = sorted(PCIE_MBS_PER_LANE)
    return order.index(gts) + 1 if gts in PCIE_MBS_PER_LANE else None


# Kernel build options whose cost shows up in every I/O (catalogue KERN-DEBUG): the probe reads them, the
# doctor flags those set.
KERNEL_DEBUG_OPTIONS = (
    "CONFIG_PROVE_LOCKING",
    "CONFIG_DEBUG_LOCK_ALLOC",
    "CONFIG_LOCKDEP",
    "CONFIG_KASAN",
    "CONFIG_DEBUG_PAGEALLOC",
    "CONFIG_SLUB_DEBUG_ON",
    "CONFIG_DEBUG_VM",
    "CONFIG_KMEMLEAK",
    "CONFIG_DEBUG_OBJECTS",
)


@dataclass(frozen=True)
class PciPort:
    """One PCIe function's link: what it runs at and what it can do.

    `max_*` is the function's own capability (LnkCap), not the negotiated
    minimum with its partner, which is why upstream ports are kept too.
    """

    address: str
    current_gts: float | None = None
    max_gts: float | None = None
    current_width: int | None = None
    max_width: int | None = None
    aer_fatal: int | None = None
    aer_nonfatal: int | None = None
    aer_correctable: int | None = None
    driver: str | None = None
    iommu_group: str | None = None
    iommu_type: str | None = None

    @staticmethod
    def ceiling(gts: float | None, width: int | None) -> float | None:
        """Hard bandwidth ceiling in bytes/s per direction, or None if unknown."""
        if gts not in PCIE_MBS_PER_LANE or not width:
            return None
        return PCIE_MBS_PER_LANE[gts] * width * 1e6

    @property
    def current_ceiling(self) -> float | None:
        return self.ceiling(self.current_gts, self.current_width)

    @property
    def capable_ceiling(self) -> float | None:
        return self.ceiling(self.max_gts, self.max_width)

    def describe(self, current: bool = True) -> str:
        """`16.0 GT/s x4` (current) or the capability, for evidence lines."""
        gts, width = (self.current_gts, self.current_width) if current else (self.max_gts, self.max_width)
        return f"{gts if gts is not None else '?'} GT/s x{width if width is not None else '?'}"


@dataclass(frozen=True)
class NvmeSmart:
    """The SMART / health log of an NVMe controller (nvme-cli JSON keys).

    Temperatures are Kelvin as the log reports them.
    """

    critical_warning: int | None = None
    temperature_k: int | None = None
    avail_spare: int | None = None
    spare_thresh: int | None = None
    percent_used: int | None = None
    media_errors: int | None = None
    num_err_log_entries: int | None = None
    warning_temp_time: int | None = None
    critical_comp_time: int | None = None
    wctemp_k: int | None = None
    cctemp_k: int | None = None


@dataclass(frozen=True)
class BlockDevice:
    """A block device with its queue settings, identity and where it hangs on the bus."""

    name: str
    major_minor: str | None = None
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    size_bytes: int | None = None
    rotational: bool | None = None
    scheduler: str | None = None
    schedulers: list[str] = field(default_factory=list)
    wbt_lat_usec: int | None = None
    read_ahead_kb: int | None = None
    nr_requests: int | None = None
    max_sectors_kb: int | None = None
    # the value in force of each block-queue setting a plan can sweep (`models.host_settings`), by name
    host_settings: dict[str, str] = field(default_factory=dict)
    discard_max_bytes: int | None = None
    numa_node: int | None = None
    holders: list[str] = field(default_factory=list)
    slaves: list[str] = field(default_factory=list)
    partitions: list[str] = field(default_factory=list)
    sysfs_path: str | None = None
    dm_uuid: str | None = None
    md_level: str | None = None
    md_sync_action: str | None = None
    md_stripe_cache_size: int | None = None
    nvme_controller: str | None = None
    transport: str | None = None
    pcie: PciPort | None = None
    upstream: list[PciPort] = field(default_factory=list)
    smart: NvmeSmart | None = None
    smart_error: str | None = None

    @property
    def is_nvme(self) -> bool:
        return self.nvme_controller is not None or self.name.startswith("nvme")

    @property
    def link_limit(self) -> PciPort | None:
        """The port with the lowest current ceiling between the device and the CPU."""
        ports = [p for p in [self.pcie, *self.upstream] if p and p.current_ceiling]
        return min(ports, key=lambda p: p.current_ceiling or 0.0) if ports else None


# File system types, as a FileSystem's `fs_type` names them: the probe, the runner's target checks and the
# doctor's rules class a mount by the same sets.
# File systems whose data lives in memory: a result on them measures RAM.
RAM_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "devtmpfs", "hugetlbfs"})
NETWORK_FILESYSTEMS = frozenset({"nfs", "nfs4", "lustre", "cifs", "smb3", "ceph", "glusterfs", "beegfs"})


@dataclass(frozen=True)
class FileSystem:
    """A mount with its options and, where statvfs could be read, its fullness."""

    mount_point: str
    fs_type: str
    source: str
    major_minor: str
    options: list[str] = field(default_factory=list)
    size_bytes: int | None = None
    used_bytes: int | None = None
    avail_bytes: int | None = None
    read_ahead_kb: int | None = None

    @property
    def used_percent(self) -> float | None:
        """Used share of the file system as `df` computes it (blocks - free)."""
        if not self.size_bytes or self.used_bytes is None:
            return None
        return 100.0 * self.used_bytes / self.size_bytes


@dataclass(frozen=True)
class TargetInfo:
    """A path the user named, resolved to its mount and block devices."""

    path: str
    device: str | None = None
    mount_point: str | None = None
    fs_type: str | None = None
    is_block_device: bool = False
    # A block device's blocks read at evenly spaced offsets when the snapshot was taken, and how many of
    # them held anything but zeros: never-written (or trimmed) blocks read as zeros without touching media.
    blocks_sampled: int | None = None
    blocks_with_data: int | None = None
    # Its data lives in RAM: a RAM file system, zram/brd, or a loop device whose backing file is on one
    # (probe.fs.ram_backed_device), which the device's name alone does not show.
    ram_backed: bool = False


@dataclass
class Snapshot:
    """Everything probed from one host at one moment.

    `unreadable` lists inputs that exist on a normal host but could not be
    read (permissions, missing tools), so rules can say why they were not
    evaluated.
    """

    hostname: str | None = None
    os_name: str | None = None
    kernel: str | None = None
    cmdline: str | None = None
    cpu_model: str | None = None
    cpu_vendor: str | None = None
    cpus_online: int | None = None
    sockets: int | None = None
    hypervisor: bool | None = None
    numa_nodes: dict[str, str] = field(default_factory=dict)
    vulnerabilities: dict[str, str] = field(default_factory=dict)
    governors: dict[str, str] = field(default_factory=dict)
    cpufreq_driver: str | None = None
    iommu_units: list[str] = field(default_factory=list)
    iommu_group_types: dict[str, str] = field(default_factory=dict)
    mem_total_bytes: int | None = None
    thp_enabled: str | None = None
    aspm_policy: str | None = None
    clocksource: str | None = None  # the kernel's current clock source (tsc, kvm-clock, hpet ...)
    kernel_config: dict[str, str] = field(default_factory=dict)
    fstrim_timer: str | None = None
    nfsd_threads: int | None = None
    lustre_checksums: dict[str, str] = field(default_factory=dict)
    userspace_nvme: dict[str, str] = field(default_factory=dict)
    devices: list[BlockDevice] = field(default_factory=list)
    filesystems: list[FileSystem] = field(default_factory=list)
    targets: list[TargetInfo] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)

    def device(self, name: str) -> BlockDevice | None:
        return next((d for d in self.devices if d.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; `from_dict(to_dict())` gives an equal snapshot."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Snapshot:
        """Rebuild from `to_dict` output; unknown keys (newer writers) are ignored."""
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["devices"] = [_block_from_dict(d) for d in data.get("devices", [])]
        kwargs["filesystems"] = [_build(FileSystem, f) for f in data.get("filesystems", [])]
        kwargs["targets"] = [_build(TargetInfo, t) for t in data.get("targets", [])]
        return cls(**kwargs)


# The settings (`models.host_settings`) a snapshot kept as typed fields before `BlockDevice.host_settings`.
_TYPED_SETTINGS = ("scheduler", "nr_requests", "wbt_lat_usec", "read_ahead_kb")


def _build(kind: type, data: dict[str, Any]) -> Any:
    known = {f.name for f in fields(kind)}
    return kind(**{k: v for k, v in data.items() if k in known})


def _block_from_dict(data: dict[str, Any]) -> BlockDevice:
    values = dict(data)
    if "host_settings" not in values:  # stored before the settings were kept by name: from the typed fields
        values["host_settings"] = {k: str(v) for k in _TYPED_SETTINGS if (v := values.get(k)) is not None}
    if values.get("pcie") is not None:
        values["pcie"] = _build(PciPort, values["pcie"])
    values["upstream"] = [_build(PciPort, p) for p in values.get("upstream", [])]
    if values.get("smart") is not None:
        values["smart"] = _build(NvmeSmart, values["smart"])
    return _build(BlockDevice, values)


@dataclass(frozen=True)
class Change:
    """One difference between two snapshots, e.g. a new kernel or a queue setting.

    `subject` says where ("host", "nvme0n1", "/data"); `what` names the
    setting; before/after are the values as text ("" when absent).
    """

    subject: str
    what: str
    before: str
    after: str

    def render(self) -> str:
        """One line a person reads in `iolab diff-env`."""
        before = self.before if self.before != "" else "(absent)"
        after = self.after if self.after != "" else "(absent)"
        return f"{self.subject}: {self.what} {before} -> {after}"
