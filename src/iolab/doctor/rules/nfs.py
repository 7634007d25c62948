"""NFS client and server rules (catalogue B15)."""

from __future__ import annotations

from collections.abc import Iterator

from iolab.doctor.rule import Context, Rule, rule
from iolab.doctor.rules.fs import network_filesystems
from iolab.models import Finding

_NFS = frozenset({"nfs", "nfs4"})


@rule(
    id="NFS-READAHEAD",
    family="nfs",
    level="medium",
    needs="snapshot",
    title="NFS client read-ahead at 128 KiB",
    applies="NFS mounts",
    trigger="/sys/class/bdi/<mount dev>/read_ahead_kb <= 128",
    why="Since Linux 5.4 NFS read-ahead is a fixed 128 KiB instead of 15 x rsize; users saw 313 -> 68 MB/s.",
    fix="Write 15 x rsize / 1024 to the bdi's read_ahead_kb (or use nfsrahead / a udev rule).",
    evidence="bdi read_ahead_kb, rsize",
    source="linux-nfs list msg83232; NetApp/Google 'Linux NFS read-ahead'",
)
def readahead(ctx: Context, r: Rule) -> Iterator[Finding]:
    for fs in network_filesystems(ctx, _NFS):
        if fs.read_ahead_kb is not None and fs.read_ahead_kb <= 128:
            rsize = next((o for o in fs.options if o.startswith("rsize=")), "rsize=?")
            yield r.finding(
                f"{fs.mount_point} reads ahead {fs.read_ahead_kb} KiB",
                fs.mount_point,
                {"bdi": fs.major_minor, "read_ahead_kb": fs.read_ahead_kb, "rsize": rsize},
            )


@rule(
    id="NFS-NCONNECT",
    family="nfs",
    level="info",
    needs="snapshot",
    title="NFS mount uses one TCP connection",
    applies="NFS mounts (matters on links of 25 Gb/s and more)",
    trigger="no nconnect= mount option",
    why="One connection per server caps throughput well below fast links.",
    fix="Mount with nconnect=4..16 (NFSv3 and v4.1+), rsize/wsize=1M.",
    evidence="mount options",
    source="Linux commit 53c326307156 (NFS nconnect)",
)
def nconnect(ctx: Context, r: Rule) -> Iterator[Finding]:
    for fs in network_filesystems(ctx, _NFS):
        if not any(o.startswith("nconnect=") for o in fs.options):
            yield r.finding(f"{fs.mount_point} has no nconnect", fs.mount_point, {"options": ",".join(fs.options)})


@rule(
    id="NFS-SERVER-THREADS",
    family="nfs",
    level="medium",
    needs="snapshot",
    heuristic=True,
    title="Few NFS server threads",
    applies="NFS servers (/proc/fs/nfsd/threads readable)",
    trigger="fewer than 16 nfsd threads",
    why="rpc.nfsd starts a fixed number of threads; many clients queue behind them.",
    fix="Raise [nfsd] threads= in /etc/nfs.conf (2 x client nodes and more), tune with nfsstat.",
    evidence="/proc/fs/nfsd/threads",
    source="rpc.nfsd(8)",
)
def server_threads(ctx: Context, r: Rule) -> Iterator[Finding]:
    threads = ctx.snapshot.nfsd_threads if ctx.snapshot else None
    if threads is not None and threads < 16:
        yield r.finding(f"nfsd runs {threads} threads", "nfsd", {"threads": threads})
