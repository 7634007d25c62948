"""A background sampler of /proc counters, run around a fio subprocess.

The benchmark must not pay for its own observation, so at each tick the thread
only reads each /proc file into a bytes object and appends it to a list: no
parsing, no numpy, one small allocation per file. Parsing and rates happen in
`samples()`, after the run.

    with Sampler(devices=["nvme0n1"]) as sampler:
        subprocess.run(["fio", ...])
    series = sampler.samples()
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from types import TracebackType

from iolab.errors import UserError
from iolab.models import Sample
from iolab.probe.root import Root
from iolab.telemetry.cpu import cpu_percent, parse_proc_stat
from iolab.telemetry.diskstats import disk_rates, parse_diskstats
from iolab.telemetry.net import net_rates, parse_net_dev
from iolab.telemetry.processes import ProcessTimes, other_cpu, process_times

MIN_INTERVAL_S = 0.1
_READ_CHUNK = 65536

# Metric names of telemetry samples. Device samples have ddir read/write, or
# "total" where the kernel does not split by direction; net samples rx/tx.
DISK_BW = "disk.bw"  # bytes/s
DISK_IOPS = "disk.iops"  # I/O per second
DISK_UTIL = "disk.util"  # % of the interval with at least one I/O in flight
DISK_QUEUE_DEPTH = "disk.queue_depth"  # mean I/O in flight over the interval
DISK_IN_FLIGHT = "disk.in_flight"  # I/O in flight at the end of the interval
CPU_METRICS = ("usr", "sys", "iowait", "irq", "softirq", "steal", "busy")  # "cpu.<name>", percent
NET_BW = "net.bw"  # bytes/s
# Percent of one CPU used over the whole point by a process that is neither fio nor iolab
# (source: its name; "(others)" sums those under MIN_PROCESS_PCT each). One sample per name, at the end.
PROC_CPU = "proc.cpu"
MIN_PROCESS_PCT = 1.0


def _read_all(fd: int) -> bytes:
    """The whole current content of an open /proc file: rewind, read to EOF."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunk = os.read(fd, _READ_CHUNK)
    if len(chunk) < _READ_CHUNK:
        more = os.read(fd, _READ_CHUNK)
        if not more:
            return chunk
        chunk += more
    parts = [chunk]
    while part := os.read(fd, _READ_CHUNK):
        parts.append(part)
    return b"".join(parts)


class Sampler:
    """Reads /proc/diskstats, /proc/stat and /proc/net/dev every `interval_s` while in a `with` block.

    `devices` are kernel names of whole devices (see `devices_for_path`);
    `interfaces=None` watches every interface, `lo` too (storage served by
    this host itself, a loopback NFS export or fio servers on 127.x, moves
    its traffic there), an empty list none.
    """

    def __init__(
        self,
        devices: Iterable[str] = (),
        *,
        interval_s: float = 1.0,
        cpu: bool = True,
        interfaces: Iterable[str] | None = None,
        root: Root | None = None,
    ) -> None:
        if not interval_s >= MIN_INTERVAL_S:
            raise UserError(f"telemetry interval {interval_s} s is too short; use {MIN_INTERVAL_S} s or more")
        self.interval_s = float(interval_s)
        self.devices = tuple(dict.fromkeys(devices))
        self.cpu = cpu
        self._root = root or Root("/")
        self._interfaces = None if interfaces is None else tuple(interfaces)
        self._files: list[str] = []
        self._fds: list[int] = []
        self._ticks: list[tuple[int, tuple[bytes, ...]]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = 0
        self.started_ms = 0  # the wall clock (ms since the epoch) at the samplers' zero, to meet fio's stamps on
        self._processes: list[tuple[int, ProcessTimes]] = []  # (monotonic ns, times) at start and stop
        self.error: str | None = None  # set when a read failed mid-run; samples stop there

    # -- lifecycle -------------------------------------------------------

    def __enter__(self) -> Sampler:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Open the files, check the devices exist, take the first reading and start ticking."""
        if self._thread is not None:
            raise RuntimeError("Sampler already started")
        if self.devices:
            self._files.append("/proc/diskstats")
        if self.cpu:
            self._files.append("/proc/stat")
        if self._interfaces is None or self._interfaces:
            self._files.append("/proc/net/dev")
        try:
            self._fds = [os.open(self._root.path(f), os.O_RDONLY) for f in self._files]
        except OSError as e:
            self._close()
            raise UserError(f"cannot read {e.filename} for telemetry: {e.strerror}") from None
        self._processes = [(time.monotonic_ns(), process_times(self._root.path("/proc"), frozenset({os.getpid()})))]
        self._t0 = time.monotonic_ns()
        self.started_ms = time.time_ns() // 1_000_000
        self._take()
        self._check_names()
        self._thread = threading.Thread(target=self._run, name="iolab-telemetry", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop ticking, take a last reading and close the files. Safe to call twice."""
        if self._thread is None or self._stop.is_set():
            return
        self._stop.set()
        self._thread.join()
        if self.error is None:
            self._take()
        self._close()
        if self.cpu:
            self._processes.append(
                (time.monotonic_ns(), process_times(self._root.path("/proc"), frozenset({os.getpid()})))
            )

    def elapsed_ms(self) -> int:
        """Milliseconds since the first reading: the time base of every sample's `t_ms`."""
        return (time.monotonic_ns() - self._t0) // 1_000_000

    def _close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []

    def _check_names(self) -> None:
        if not self.devices:
            return
        text = self._ticks[0][1][self._files.index("/proc/diskstats")].decode()
        missing = [d for d in self.devices if d not in parse_diskstats(text, frozenset(self.devices))]
        if missing:
            self._close()
            raise UserError(f"no such block device in /proc/diskstats: {', '.join(missing)}")

    # -- the sampling thread: read and keep, nothing else ----------------

    def _take(self) -> None:
        t = time.monotonic_ns()
        self._ticks.append((t, tuple(_read_all(fd) for fd in self._fds)))

    def _run(self) -> None:
        period = int(self.interval_s * 1e9)
        due = self._t0 + period
        while not self._stop.wait(max(0.0, (due - time.monotonic_ns()) / 1e9)):
            try:
                self._take()
            except OSError as e:
                self.error = f"telemetry read failed: {e}"
                return
            due += period
            now = time.monotonic_ns()
            if due <= now:  # we were descheduled past a tick: skip it rather than burst
                due = now + period - (now - self._t0) % period

    # -- after the run ---------------------------------------------------

    def samples(self) -> list[Sample]:
        """Every reading turned into rates per interval, `t_ms` at the end of each interval.

        The last interval, from the last tick to `stop()`, is usually short; it
        is kept so that rate x interval adds up to every byte the devices moved.
        """
        ticks = [tick for i, tick in enumerate(self._ticks) if i == 0 or tick[0] > self._ticks[i - 1][0]]
        parsed = [self._parse(texts) for _, texts in ticks]
        out: list[Sample] = []
        for i in range(1, len(ticks)):
            t_ms = (ticks[i][0] - self._t0) // 1_000_000
            seconds = (ticks[i][0] - ticks[i - 1][0]) / 1e9
            out.extend(self._interval(parsed[i - 1], parsed[i], seconds, t_ms))
        return out + self._other_processes()

    def _other_processes(self) -> list[Sample]:
        """PROC_CPU samples: who else used the CPUs between start() and stop()."""
        if len(self._processes) != 2:
            return []
        (t0, before), (t1, after) = self._processes
        used = other_cpu(before, after, (t1 - t0) / 1e9)
        t_ms = (t1 - self._t0) // 1_000_000
        named = {name: pct for name, pct in used.items() if pct >= MIN_PROCESS_PCT}
        rest = sum(pct for name, pct in used.items() if name not in named)
        if rest >= MIN_PROCESS_PCT:
            named["(others)"] = rest
        return [Sample(PROC_CPU, "total", name, t_ms, pct) for name, pct in sorted(named.items())]

    def _parse(self, texts: tuple[bytes, ...]) -> dict[str, dict]:
        by_file = dict(zip(self._files, texts, strict=True))
        parsed: dict[str, dict] = {}
        if "/proc/diskstats" in by_file:
            parsed["disk"] = parse_diskstats(by_file["/proc/diskstats"].decode(), frozenset(self.devices))
        if "/proc/stat" in by_file:
            parsed["cpu"] = parse_proc_stat(by_file["/proc/stat"].decode())
        if "/proc/net/dev" in by_file:
            wanted = None if self._interfaces is None else frozenset(self._interfaces)
            parsed["net"] = parse_net_dev(by_file["/proc/net/dev"].decode(), wanted)
        return parsed

    @staticmethod
    def _interval(before: dict[str, dict], after: dict[str, dict], seconds: float, t_ms: int) -> list[Sample]:
        out: list[Sample] = []
        for dev, now in after.get("disk", {}).items():
            prev = before["disk"].get(dev)
            rates = disk_rates(prev, now, seconds) if prev else None
            if rates is None:
                continue
            out += [
                Sample(DISK_BW, "read", dev, t_ms, rates.read_bytes_s),
                Sample(DISK_BW, "write", dev, t_ms, rates.write_bytes_s),
                Sample(DISK_IOPS, "read", dev, t_ms, rates.read_iops),
                Sample(DISK_IOPS, "write", dev, t_ms, rates.write_iops),
                Sample(DISK_UTIL, "total", dev, t_ms, rates.util_pct),
                Sample(DISK_QUEUE_DEPTH, "total", dev, t_ms, rates.queue_depth),
                Sample(DISK_IN_FLIGHT, "total", dev, t_ms, float(rates.in_flight)),
            ]
        for name, now in after.get("cpu", {}).items():
            prev = before["cpu"].get(name)
            pct = cpu_percent(prev, now) if prev else None
            if pct is None:
                continue
            out += [Sample(f"cpu.{m}", "total", name, t_ms, getattr(pct, m)) for m in CPU_METRICS]
        for iface, now in after.get("net", {}).items():
            prev = before["net"].get(iface)
            rx_tx = net_rates(prev, now, seconds) if prev else None
            if rx_tx is None:
                continue
            out += [Sample(NET_BW, "rx", iface, t_ms, rx_tx[0]), Sample(NET_BW, "tx", iface, t_ms, rx_tx[1])]
        return out
