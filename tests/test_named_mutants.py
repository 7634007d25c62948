"""Four bugs the whole suite let through (issue 41 item 7), each made by hand once and each killed here, on
real data: fio's own status blocks, its JSON outputs under tests/data, this machine's /proc/meminfo.

- a stopped point's rate over its total runtime instead of the kept window (`runner.stopping.Watch.record`);
- a dip's depth from its mean instead of its lowest value (`analysis.dips`);
- per-job percentile tables averaged for jobs without histograms (`fio.parse._pooled_percentiles`);
- MemTotal read x1000 instead of x1024 (`probe.host.read_memory`).
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from iolab.analysis.dips import detect_dips
from iolab.fio.parse import aggregate, parse_output
from iolab.probe.host import read_memory
from iolab.probe.root import Root
from iolab.runner.stopping import StopRule, Watch

DATA = Path(__file__).parent / "data"
STATUS = DATA / "fio" / "stopping" / "status-interval-12s.json"


def _documents(text: str) -> list[dict]:
    """Every JSON document of a --status-interval output, in order (read here, not by iolab's reader)."""
    decoder, out, at = json.JSONDecoder(), [], 0
    while (start := text.find("{", at)) >= 0:
        doc, at = decoder.raw_decode(text, start)
        out.append(doc)
    return out


def test_a_stopped_point_s_rate_is_its_kept_window_s_bytes_over_the_kept_seconds():
    watch = Watch(STATUS, StopRule(target=0.5, min_s=3, max_s=30))
    assert watch()  # a 50% target is met on fio's real 12 s of rate-capped reads
    assert watch.decision is not None
    cut = 3  # the warm-up left out: a kept window that is not the whole run
    watch.decision = replace(watch.decision, discarded=cut)
    text = STATUS.read_text()
    docs = _documents(text)
    final = docs[-1]
    result = aggregate([e for g in parse_output(json.dumps(final)).groups for e in g.entries], "fio-3.33")
    watch.record(result)
    assert result.stopping is not None and result.stopping.discarded_s == cut
    read = result.directions["read"]
    # the window: from the cut-th status block to fio's final document, as kept_s says
    status = [d for d in docs[:-1] if d.get("jobs")]
    start_bytes = sum(j["read"]["io_bytes"] for j in status[cut - 1]["jobs"])
    end_bytes = sum(j["read"]["io_bytes"] for j in final["jobs"])
    kept = read.bw_bytes * result.stopping.kept_s
    assert kept == pytest.approx(end_bytes - start_bytes, rel=0.15)  # kept_s is rounded to whole seconds
    whole_rate = end_bytes / (final["jobs"][0]["read"]["runtime"] / 1000)
    # rate_iops=2000 holds the whole run at one rate: the window's rate is the whole run's, not below it
    assert read.bw_bytes == pytest.approx(whole_rate, rel=0.1)


def test_a_dip_s_depth_is_from_its_lowest_second_not_its_mean():
    x = np.full(30, 6900e6)
    x[8:11] = [4000e6, 2600e6, 5000e6]  # a V, not a flat floor: mean 3,867 against lowest 2,600
    (dip,) = detect_dips(np.arange(1, 31, dtype=float), x).dips
    assert dip.lowest == 2600e6
    assert dip.depth == pytest.approx(1 - 2600 / 6900)
    assert dip.depth > dip.mean_drop == pytest.approx(1 - (11600 / 3) / 6900)


def test_several_jobs_without_histograms_get_no_percentiles_in_real_outputs():
    """Per-job percentile tables cannot be averaged into a percentile; every real output here whose
    direction has several jobs' tables and no json+ histogram must come out with none."""
    judged = 0
    for path in sorted((DATA / "fio").rglob("*.json")):
        try:
            groups = parse_output(path.read_text()).groups
        except Exception:
            continue
        for group in groups:
            result = aggregate(group.entries, "fio-3.33")
            for ddir, direction in result.directions.items():
                objects = [e.get(ddir) or {} for e in group.entries]
                tables = [o for o in objects if any(isinstance(v, dict) and v.get("percentile") for v in o.values())]
                binned = [o for o in objects if any(isinstance(v, dict) and v.get("bins") for v in o.values())]
                if len(tables) >= 2 and not binned and direction.latency is not None:
                    assert direction.latency.percentiles == {}, (path.name, group.name, ddir)
                    judged += 1
    assert judged >= 2  # tests/data/fio/logs/logged.json and logs-dip/dip.json: two jobs, no histograms


def test_memtotal_is_kibibytes_as_the_kernel_counts_its_pages():
    """/proc/meminfo's MemTotal is totalram pages x page size / 1024: the same bytes sysconf gives."""
    pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    assert read_memory(Root()) == pages * size


@pytest.mark.parametrize("factor", [2.0, 0.5])
def test_a_one_job_rate_off_its_bytes_over_time_either_way_breaks_the_invariant(factor):
    """The rate invariant is two-sided where the time is known: bandwidth and IOPS x2 together passed it."""
    from iolab.analysis.invariants import violations

    text = (DATA / "fio" / "quick" / "seqread-1m-qd32.json").read_text()
    (group,) = parse_output(text).groups
    result = aggregate(group.entries, "fio-3.33")
    assert result.jobs == 1 and violations(result, group.options) == []
    result.directions["read"].bw_bytes *= factor
    result.directions["read"].iops *= factor  # IOPS x block size still agrees: only the bytes over time can tell
    assert [v.invariant for v in violations(result, group.options)] == ["rate is bytes over time"]
