"""Block-layer queue rules (catalogue B6): /sys/block/<dev>/queue settings.

The rules on a setting iolab can sweep (`models.host_settings`) take the value in force from
`BlockDevice.host_settings`, judge it by the setting's own `judge` and give its `advice`: the setting
says what costs, the rule says where it applies (fast devices, buffered readers, a scheduler in place).
"""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.models import Finding
from iolab.models.host_settings import host_setting
from iolab.models.snapshot import BlockDevice

SCHEDULER = host_setting("scheduler")
WBT = host_setting("wbt_lat_usec")
READ_AHEAD = host_setting("read_ahead_kb")
NR_REQUESTS = host_setting("nr_requests")


def _fast(device: BlockDevice) -> bool:
    """Flash-class device: NVMe, or a disk that reports itself non-rotational."""
    return device.is_nvme or device.rotational is False


@rule(
    id=SCHEDULER.rule or "",
    family="block",
    level="high",
    needs="snapshot",
    title="I/O scheduler on a fast (NVMe/SSD) device",
    applies="non-rotational devices",
    trigger="active scheduler is bfq (high), kyber (low), or mq-deadline on NVMe (info; medium above ~300k IOPS)",
    why="NVMe's kernel default is 'none'; bfq is built for desktop interactivity, not throughput, and mq-deadline "
    "gets in the way on high-IOPS devices.",
    fix=SCHEDULER.advice,
    evidence="queue/scheduler, rotational",
    source="RHEL 'Setting the disk scheduler'; facebookexperimental/resctl-demo v2.2.1",
)
def scheduler(ctx: Context, r: Rule) -> Iterator[Finding]:
    fast_iops = any(d.iops > 300_000 for j in ctx.results if j.result for d in j.result.directions.values())
    for device in filter(_fast, ctx.devices()):
        value = device.host_settings.get(SCHEDULER.name)
        if value is None:
            yield r.not_evaluated(f"queue/scheduler of {device.name} unreadable", device.name)
            continue
        level = SCHEDULER.judged(value)
        if value == "mq-deadline":  # in the way only on NVMe, and then more so at high IOPS
            level = ("medium" if fast_iops else level) if device.is_nvme else None
        if level:
            yield r.finding(
                f"{device.name} uses the {value} scheduler",
                device.name,
                {"scheduler": value, "rotational": device.rotational},
                level=level,
            )


@rule(
    id=WBT.rule or "",
    family="block",
    level="medium",
    needs="snapshot",
    title="Writeback throttling active on a fast device",
    applies="non-rotational devices; matters for buffered writes and writes from md/dm/Lustre/NFS servers",
    trigger="queue/wbt_lat_usec > 0 (info when every job writes with O_DIRECT, which wbt skips)",
    why="wbt shrinks the write queue when read latency passes its target; under stacked drivers it has cut NVMe writes "
    "from ~1000 to 0-100 MB/s. Under Lustre on NVMe RAID it has held writes back the same way.",
    fix=WBT.advice,
    evidence="queue/wbt_lat_usec and whether the device is stacked",
    source="kernel block/blk-wbt.c wbt_should_throttle; sysfs-block wbt_lat_usec",
)
def wbt(ctx: Context, r: Rule) -> Iterator[Finding]:
    all_direct = bool(ctx.jobs) and all(j.direct for j in ctx.jobs)
    for device in filter(_fast, ctx.devices()):
        value = device.host_settings.get(WBT.name)
        if value is None:
            yield r.not_evaluated(f"queue/wbt_lat_usec of {device.name} unreadable", device.name)
        elif level := WBT.judged(value):
            yield r.finding(
                f"{device.name} has writeback throttling on ({value} us target)",
                device.name,
                {"wbt_lat_usec": value, "holders": ",".join(device.holders) or "(none)"},
                level="info" if all_direct and not device.holders else level,
            )


@rule(
    id=READ_AHEAD.rule or "",
    family="block",
    level="medium",
    needs="snapshot",
    title="Small read-ahead for buffered sequential reads",
    applies="buffered sequential reads (irrelevant with direct=1); info before any job is known",
    trigger="queue/read_ahead_kb <= 128",
    why="With a single synchronous buffered reader (psync at depth 1) read-ahead is the only source of parallelism.",
    fix=READ_AHEAD.advice,
    evidence="queue/read_ahead_kb",
    source="kernel Documentation/ABI/stable/sysfs-block",
)
def readahead(ctx: Context, r: Rule) -> Iterator[Finding]:
    buffered_seq = [j for j in ctx.jobs if not j.direct and j.reads and j.sequential]
    if ctx.jobs and not buffered_seq:
        return
    for device in ctx.devices():
        value = device.host_settings.get(READ_AHEAD.name)
        if level := READ_AHEAD.judged(value):
            yield r.finding(
                f"{device.name} reads ahead only {value} KiB",
                device.name,
                {"read_ahead_kb": value},
                level=level if buffered_seq else "info",
            )


@rule(
    id="BLK-ROTATIONAL-MISREPORT",
    family="block",
    level="medium",
    needs="snapshot",
    title="Flash device reports itself rotational",
    applies="NVMe devices",
    trigger="queue/rotational = 1 on an NVMe namespace",
    why="The flag picks defaults: wbt target 75 ms instead of 2 ms, the scheduler and file-system heuristics.",
    fix='udev rule ATTR{queue/rotational}="0".',
    evidence="queue/rotational",
    source="kernel sysfs-block rotational",
)
def rotational(ctx: Context, r: Rule) -> Iterator[Finding]:
    for device in ctx.devices():
        if device.is_nvme and device.rotational:
            yield r.finding(f"{device.name} (NVMe) reports rotational=1", device.name, {"rotational": 1})


@rule(
    id="BLK-DMCRYPT",
    family="block",
    level="high",
    needs="snapshot",
    title="dm-crypt in the device stack",
    applies="dm devices",
    trigger="dm/uuid starts with CRYPT-",
    why="dm-crypt queues I/O through kcryptd workqueues; without no_read_workqueue/no_write_workqueue NVMe-class "
    "throughput and latency suffer. (The flags need root to read: dmsetup table.)",
    fix="cryptsetup refresh --perf-no_read_workqueue --perf-no_write_workqueue, or measure the raw device for comparison.",
    evidence="dm/uuid, members",
    source="Cloudflare 'Speeding up Linux disk encryption'; dm-crypt workqueue bypass flags",
)
def dmcrypt(ctx: Context, r: Rule) -> Iterator[Finding]:
    for device in ctx.devices():
        if (device.dm_uuid or "").startswith("CRYPT-"):
            yield r.finding(
                f"{device.name} is dm-crypt",
                device.name,
                {"dm uuid": device.dm_uuid, "members": ",".join(device.slaves)},
            )


@rule(
    id=NR_REQUESTS.rule or "",
    family="block",
    level="low",
    needs="snapshot+jobs",
    title="Request pool smaller than the queue depth offered",
    applies="devices with a scheduler (not 'none')",
    trigger="iodepth x numjobs of the jobs on a device > queue/nr_requests",
    why="Extra I/Os wait in the block layer, adding latency without throughput.",
    fix=NR_REQUESTS.advice,
    evidence="offered depth, nr_requests, scheduler",
    source="kernel sysfs-block nr_requests",
)
def nr_requests(ctx: Context, r: Rule) -> Iterator[Finding]:
    for job in ctx.jobs:
        device = ctx.device_of(job)
        if device is None or device.host_settings.get(SCHEDULER.name) in (None, "none"):
            continue
        offered, pool = job.iodepth * job.numjobs, device.host_settings.get(NR_REQUESTS.name)
        if level := NR_REQUESTS.judged(pool, offered):
            yield r.finding(
                f"{job.name} offers {offered} I/Os to {device.name}, whose pool holds {pool}",
                device.name,
                {"offered": offered, "nr_requests": pool},
                level=level,
            )
