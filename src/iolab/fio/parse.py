"""fio JSON and json+ output → `Result`s.

Hazards this survives (see shared/reference/fio_tools.md §2.1): text or
warnings before the JSON, several concatenated documents
(--status-interval; the last one is final), client/server lines prefixed
with `<host>`, "All clients" summary entries, `global options` as an object
or a list, and every fio since 2.0: `fioversion` for the version (2.1.3),
`io_bytes` in KiB before `io_kbytes` came (2.x), no `total_ios` (2.1) and
no `N` (before 3.18), so I/O counts come from IOPS x runtime, and latencies
in µs under `lat`/`clat` before 3.0.

Aggregation is honest: throughput is summed over jobs and hosts, latency
is pooled by I/O count, and percentiles come from the merged json+
histogram, never from averaging per-job percentiles.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from itertools import accumulate

from iolab.errors import UserError
from iolab.fio.validate import check_document
from iolab.models import PERCENTILES, DirectionResult, LatencyStats, Result, SteadyState
from iolab.numbers import NumberError, bounded_decoder

DIRECTIONS = ("read", "write", "trim")
ALL_CLIENTS = "All clients"


@dataclass
class JobGroup:
    """All entries of one job name (its numjobs clones, on every host)."""

    name: str
    entries: list[dict] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)
    hosts: list[str] = field(default_factory=list)


@dataclass
class FioOutput:
    """One parsed fio output document."""

    version: str
    timestamp_ms: int
    groups: list[JobGroup]
    all_clients: list[dict] = field(default_factory=list)
    raw: dict = field(default_factory=dict)


def extract_document(text: str, source: str = "fio output") -> dict:
    """The last complete JSON document in fio's output text.

    Raises UserError when there is none (not fio output, or truncated).
    """
    whole = _plain_document(text)
    if whole is not None:
        return whole
    decoder = bounded_decoder()  # not the usual file: a number beyond a double or int64 is one reason, so bounded
    candidates = [text]
    # Client/server mode can interleave "<host> message" lines (fio #731).
    if "\n<" in text or text.startswith("<"):
        candidates.append("\n".join(ln for ln in text.splitlines() if not ln.startswith("<")))
    for candidate in candidates:
        try:
            docs = _decode_all(decoder, candidate)
        except NumberError as exc:
            raise UserError(f"{source}: not fio output as fio writes it: {exc}") from None
        if docs:
            return docs[-1]
    if "{" not in text:
        raise UserError(f"{source}: no JSON found; is this fio output written with --output-format=json or json+?")
    raise UserError(
        f"{source}: the fio JSON is incomplete (truncated file or an interrupted fio?); rerun fio or give the complete file"
    )


def _plain_document(text: str) -> dict | None:
    """The usual file, one fio document and nothing else, read by orjson (2-3x json's speed); None for any other
    text (warnings around it, several documents, NaN, a number orjson cannot hold or may read otherwise)."""
    import orjson  # here, not on top: `iolab import` forks its parsing process before orjson loads

    if _LONG_NUMBER.search(text) is not None:  # orjson reads every shorter number as the bounded decoder does
        return None
    try:
        whole = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return whole if isinstance(whole, dict) and ("jobs" in whole or "client_stats" in whole) else None


# 19 digits or more in a row: an integer that may lie beyond int64 (INT64_MAX has 19 digits). orjson keeps one
# up to 2**64 - 1 as an int and turns a longer one into a float, where the bounded decoder refuses both: the
# same document was read or refused by which decoder happened to read it. Any text with such a run goes to
# the bounded decoder alone (a long fraction too, read right, only slower), so one decoder decides.
_LONG_NUMBER = re.compile(r"[0-9]{19}")


def _decode_all(decoder: json.JSONDecoder, text: str) -> list[dict]:
    """Every fio JSON document (an object with jobs or client_stats) in `text`."""
    docs: list[dict] = []
    pos = text.find("{")
    while pos != -1:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except RecursionError:  # nested deeper than any fio output: not fio's
            break
        except json.JSONDecodeError:
            pos = text.find("\n{", pos + 1)
            pos = pos + 1 if pos != -1 else -1
            continue
        if isinstance(obj, dict) and ("jobs" in obj or "client_stats" in obj):
            docs.append(obj)
        pos = text.find("{", end)
    return docs


def parse_output(text: str, source: str = "fio output") -> FioOutput:
    """Parse fio's JSON/json+ text into job groups, keyed by job name."""
    doc = extract_document(text, source)
    check_document(doc, source)
    entries = doc.get("client_stats") if "client_stats" in doc else doc.get("jobs")
    if not isinstance(entries, list):
        raise UserError(f"{source}: fio JSON without a jobs list; is this fio output?")
    groups, all_clients = _job_groups(entries, _global_options(doc))
    return FioOutput(
        version=str(doc.get("fio version", doc.get("fioversion", ""))),
        timestamp_ms=int(doc.get("timestamp_ms") or int(doc.get("timestamp", 0)) * 1000),
        groups=groups,
        all_clients=all_clients,
        raw=doc,
    )


def _job_groups(entries: list, global_opts: dict[str, dict[str, str]]) -> tuple[list[JobGroup], list[dict]]:
    """The entries grouped by job name (each group's options: its host's global options, then its own), and
    the "All clients" summaries apart."""
    groups: dict[str, JobGroup] = {}
    all_clients: list[dict] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        name = str(entry.get("jobname", "job"))
        if name == ALL_CLIENTS:
            all_clients.append(entry)
            continue
        host = str(entry.get("hostname", ""))
        group = groups.get(name)
        if group is None:
            opts = dict(global_opts.get(host, global_opts.get("", {})))
            opts.update({k: str(v) for k, v in (entry.get("job options") or {}).items()})
            group = groups[name] = JobGroup(name=name, options=opts)
        group.entries.append(entry)
        if host and host not in group.hosts:
            group.hosts.append(host)
    return list(groups.values()), all_clients


def _global_options(doc: dict) -> dict[str, dict[str, str]]:
    """Global options by host ("" when standalone); a list with >1 server in client mode."""
    value = doc.get("global options") or {}
    items = value if isinstance(value, list) else [value]
    by_host: dict[str, dict[str, str]] = {}
    for item in items:
        if isinstance(item, dict):
            host = str(item.get("hostname", ""))
            by_host[host] = {k: str(v) for k, v in item.items() if k not in ("hostname", "port")}
    return by_host


def aggregate(entries: list[dict], version: str = "", hosts: list[str] | None = None) -> Result:
    """One Result from the entries of a job group: summed, pooled, merged."""
    errors = [int(e.get("error", 0) or 0) for e in entries]
    return Result(
        steady=steady_state(entries),
        directions=_directions(entries),
        usr_cpu=sum(float(e.get("usr_cpu", 0.0)) for e in entries),
        sys_cpu=sum(float(e.get("sys_cpu", 0.0)) for e in entries),
        jobs=len(entries),
        fio_version=version,
        hosts=list(hosts or []),
        error=next((code for code in errors if code), 0),
    )


def _directions(entries: list[dict]) -> dict[str, DirectionResult]:
    """Each direction the entries moved I/O in, their parts combined (`_combine_direction`)."""
    directions: dict[str, DirectionResult] = {}
    for ddir in DIRECTIONS:
        combined = _combine_direction(ddir, [e[ddir] for e in entries if isinstance(e.get(ddir), dict)])
        if combined is not None:
            directions[ddir] = combined
    return directions


def entry_runtime_ms(entry: dict) -> int:
    """A job entry's measured runtime in ms: fio 3.x's `job_runtime` (after the ramp), else its longest
    direction's."""
    if "job_runtime" in entry:
        return int(entry["job_runtime"])
    return max((int(entry[d].get("runtime", 0)) for d in DIRECTIONS if isinstance(entry.get(d), dict)), default=0)


def steady_state(entries: list[dict]) -> SteadyState | None:
    """fio's steady-state verdict over a job group's entries (fio writes `steadystate` for jobs with ss=).

    Attained when every job attained it; the moment is the latest job's runtime (when fio stopped it),
    else the longest. `job_runtime` (fio 3.x) is the job's measured runtime in ms; a direction's runtime
    stands in where it is missing.
    """
    found = [(e, e["steadystate"]) for e in entries if isinstance(e.get("steadystate"), dict)]
    if not found:
        return None
    first = found[0][1]
    return SteadyState(
        criterion=str(first.get("ss", "")),
        attained=all(bool(ss.get("attained")) for _, ss in found),
        runtime_ms=max(entry_runtime_ms(entry) for entry, _ in found),
        measured=str(max((ss for _, ss in found), key=lambda ss: _percent(ss.get("criterion"))).get("criterion", "")),
        duration_s=float(first.get("duration", 0) or 0),
    )


def _percent(text: object) -> float:
    """fio's criterion value ("0.366972%") as a number, for picking the job furthest from steady."""
    try:
        return abs(float(str(text).rstrip("%")))
    except ValueError:
        return 0.0


def _bw_bytes(part: dict) -> float:
    """Bandwidth in bytes/s: `bw_bytes` from fio 3.2 on, else KiB/s × 1024."""
    if "bw_bytes" in part:
        return float(part["bw_bytes"])
    if "bw" in part:
        return float(part["bw"]) * 1024.0
    runtime = float(part.get("runtime", 0))
    return float(part.get("io_bytes", 0)) * 1000.0 / runtime if runtime else 0.0


def _iops(part: dict) -> float:
    """I/Os completed per second, counted as the bytes are.

    With ramp_time, fio's `iops` (from `total_ios`) leaves out the I/Os that were in flight when the
    ramp ended, while `io_bytes` (and so bandwidth) counts them when they complete: at QD32 of 1 MiB on
    a 50 MiB/s device that is 150 I/Os against 181 MiB, 42 IOPS beside 52.7 MB/s. The latency count N is
    the completions `io_bytes` holds, so IOPS from it agree with bandwidth and block size.
    """
    runtime = float(part.get("runtime", 0) or 0)
    found = _latency_object(part)
    completions = int(found[1].get("N", 0)) if found is not None else 0
    if runtime > 0 and completions > int(part.get("total_ios", 0) or 0):
        return completions * 1000.0 / runtime
    return float(part.get("iops", 0.0))


def _io_bytes(part: dict) -> int:
    """Bytes moved. fio 3 writes `io_bytes` in bytes beside `io_kbytes`; fio 2 wrote only `io_bytes`, in KiB.

    Without `io_kbytes`, the figure is read as KiB when it matches bandwidth x runtime in KiB (2.1.3:
    2166860 "io_bytes" at 36113 KiB/s for 60.001 s), so a file whose version string was edited away
    is still read right; with no bandwidth to check against, as fio 2 wrote it.
    """
    if "io_kbytes" in part:
        return int(part.get("io_bytes", int(part["io_kbytes"]) * 1024))
    value = int(part.get("io_bytes", 0))
    expected_kib = float(part.get("bw", 0)) * float(part.get("runtime", 0)) / 1000.0
    if expected_kib > 0:
        return value * 1024 if abs(value - expected_kib) < abs(value - expected_kib * 1024) else value
    return value * 1024


def _count(part: dict) -> int:
    """I/Os completed: `total_ios` (fio 2.17 on), else IOPS x runtime, which is how fio computed its IOPS."""
    if part.get("total_ios"):
        return int(part["total_ios"])
    return round(float(part.get("iops", 0.0)) * float(part.get("runtime", 0)) / 1000.0)


def _combine_direction(ddir: str, parts: list[dict]) -> DirectionResult | None:
    total_ios = sum(_count(p) for p in parts)
    io_bytes = sum(_io_bytes(p) for p in parts)
    if total_ios == 0 and io_bytes == 0:
        return None
    return DirectionResult(
        ddir=ddir,
        bw_bytes=sum(_bw_bytes(p) for p in parts),
        iops=sum(_iops(p) for p in parts),
        total_ios=total_ios,
        io_bytes=io_bytes,
        runtime_ms=max(int(p.get("runtime", 0)) for p in parts),
        latency=pool_latency(parts),
    )


def _latency_object(part: dict) -> tuple[str, dict, float] | None:
    """(kind, stats, scale to ns) of the best latency object a direction has.

    Total latency ("lat") is preferred when it carries a histogram
    (lat_percentiles=1); otherwise completion latency, which is what
    fio reports percentiles for by default.
    """
    lat, clat = part.get("lat_ns"), part.get("clat_ns")
    if isinstance(lat, dict) and "bins" in lat:
        return "lat", lat, 1.0
    if isinstance(clat, dict) and clat:
        return "clat", clat, 1.0
    if isinstance(lat, dict) and lat:
        return "lat", lat, 1.0
    # fio before 3.0: microseconds under "lat" / "clat".
    for kind in ("clat", "lat"):
        old = part.get(kind)
        if isinstance(old, dict) and old:
            return kind, old, 1000.0
    return None


def pool_latency(parts: list[dict]) -> LatencyStats | None:
    """Pool per-job latency stats by sample count and merge their histograms."""
    # A latency object whose N says 0 holds no sample (a job that failed at its first I/O writes mean 0): it is
    # no latency, where a missing N (before fio 3.18) means the direction's I/O count.
    found = [(p, f) for p in parts if (f := _latency_object(p)) is not None and f[1].get("N", 1) != 0]
    if not found:
        return None
    kinds = {f[0] for _, f in found}
    kind = "lat" if kinds == {"lat"} else "clat"
    chosen = [(p, obj, scale) for p, (k, obj, scale) in found if k == kind]
    stats = [(obj, scale) for _, obj, scale in chosen]
    # N is the sample count from fio 3.18 on; before it, the direction's I/O count (`_count`) is.
    counts = [int(obj.get("N", 0)) or _count(p) for p, obj, _ in chosen]
    moments = _pooled_moments(counts, stats)
    if moments is None:
        return None
    mean, stddev = moments
    return LatencyStats(
        kind=kind,
        count=sum(counts),
        mean_ns=mean,
        stddev_ns=stddev,
        min_ns=min(float(obj.get("min", 0.0)) * scale for obj, scale in stats),
        max_ns=max(float(obj.get("max", 0.0)) * scale for obj, scale in stats),
        percentiles=_pooled_percentiles(stats),
    )


def _pooled_moments(counts: list[int], stats: list[tuple[dict, float]]) -> tuple[float, float] | None:
    """(mean, stddev) in ns of jobs' latency objects pooled by their sample counts; one job's own figures
    whatever its count; None for several jobs with nothing to weight them by (no honest pooled mean)."""
    means = [float(obj.get("mean", 0.0)) * scale for obj, scale in stats]
    if len(stats) == 1:
        return means[0], float(stats[0][0].get("stddev", 0.0)) * stats[0][1]
    total = sum(counts)
    if total == 0:
        return None
    mean = sum(n * m for n, m in zip(counts, means, strict=True)) / total
    return mean, _pooled_stddev(counts, means, [float(obj.get("stddev", 0.0)) * scale for obj, scale in stats])


def _pooled_percentiles(stats: list[tuple[dict, float]]) -> dict[float, float]:
    """Percentiles in ns from the jobs' merged json+ histograms; one job's own percentiles without them;
    none for several jobs without histograms (per-job percentiles cannot be combined honestly)."""
    histograms = [(obj["bins"], scale) for obj, scale in stats if obj.get("bins")]
    if histograms:
        return percentiles_from_bins(*merged_histogram(histograms))
    if len(stats) != 1:
        return {}
    obj, scale = stats[0]
    percentiles = {float(p): float(v) * scale for p, v in (obj.get("percentile") or {}).items()}
    return {p: v for p, v in percentiles.items() if p in PERCENTILES}


def merged_histogram(histograms: list[tuple[dict, float]]) -> tuple[list[int], list[int]]:
    """(bucket values in ns, ascending; their counts) of jobs' json+ histograms ({latency key: count}, scale to
    ns) together, a value shared by several jobs counted once with their sum.

    fio writes a histogram's buckets in ascending order (stat.c walks them by index), so one job's needs
    no sort: its keys are checked to be in order (a C-speed comparison) and only then taken as they are.
    Keys are scaled and cut to whole ns as fio's own values are; that keeps their order.
    """
    if len(histograms) == 1:
        bins, scale = histograms[0]
        whole = _whole_ns(bins) if scale == 1.0 else None
        if whole is not None:
            return whole, list(bins.values())
        keys = list(map(float, bins))
        if keys == sorted(keys):
            return [int(key * scale) for key in keys], list(bins.values())
    merged: dict[int, int] = {}
    for bins, scale in histograms:
        for key, count in bins.items():
            value = int(float(key) * scale)
            merged[value] = merged.get(value, 0) + count
    ordered = sorted(merged.items())
    return [value for value, _ in ordered], [count for _, count in ordered]


def _whole_ns(bins: dict) -> list[int] | None:
    """The keys of fio 3's histogram in ns as `merged_histogram` makes them (`int(float(key) * 1.0)`), read as whole
    numbers at once where that gives the same (every key a whole number below 2**53, which a double holds exactly)
    and they are in order; else None. Converting each key to a float and back was ~10 µs of a json+ output's ~50."""
    try:
        keys = list(map(int, bins))
    except ValueError:  # "1.5", "1e3": read as floats
        return None
    if keys and keys == sorted(keys) and -EXACT_WHOLE < keys[0] and keys[-1] < EXACT_WHOLE:
        return keys
    return None


EXACT_WHOLE = 2**53  # every whole number of smaller size is a double exactly


def _pooled_stddev(counts: list[int], means: list[float], stddevs: list[float]) -> float:
    """The standard deviation of all samples together, from each job's count, mean and deviation."""
    total = sum(counts)
    mean = sum(n * m for n, m in zip(counts, means, strict=True)) / total
    sq = sum(max(n - 1, 0) * sd * sd + n * (m - mean) ** 2 for n, m, sd in zip(counts, means, stddevs, strict=True))
    return math.sqrt(sq / (total - 1)) if total > 1 else 0.0


def percentiles_from_bins(
    values: list[int], counts: list[int], wanted: tuple[float, ...] = PERCENTILES
) -> dict[float, float]:
    """Percentiles of a fio latency histogram (bucket values ascending, their counts), computed as fio
    computes them.

    fio walks the buckets in order and reports the first bucket value at which the running count
    reaches p% of all samples (stat.c, calc_clat_percentiles), so merged bins give exactly what fio
    would print for the merged jobs. The running counts are summed and searched at C speed (a json+
    direction holds up to ~1,800 buckets; numpy did it as fast but cost its 60-ms import in the
    parsing process).
    """
    running = list(accumulate(counts))
    if not running or running[-1] <= 0:
        return {}
    total = running[-1]
    found: dict[float, float] = {}
    for target in sorted(wanted):
        at = bisect_left(running, target / 100.0 * total)
        if at < len(values):
            found[target] = float(values[at])
    return found
