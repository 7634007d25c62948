"""Parser tests on real fio output (tests/data/fio, made by generate.sh)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.fio.parse import aggregate, merged_histogram, parse_output, percentiles_from_bins
from iolab.models import PERCENTILES

DATA = Path(__file__).parent.parent / "data" / "fio"


def load(name: str) -> str:
    return (DATA / name).read_text()


def test_percentiles_from_bins_match_fio_for_every_single_job():
    doc = json.loads(load("randread-4jobs.json"))
    checked = 0
    for job in doc["jobs"]:
        lat = job["read"]["lat_ns"]
        ours = percentiles_from_bins(*merged_histogram([(lat["bins"], 1.0)]))
        for p in PERCENTILES:
            assert ours[p] == lat["percentile"][f"{p:f}"], (job["jobname"], p)
            checked += 1
    assert checked == 4 * len(PERCENTILES)


def test_four_jobs_are_summed_pooled_and_merged():
    out = parse_output(load("randread-4jobs.json"))
    assert [g.name for g in out.groups] == ["rr"]
    entries = out.groups[0].entries
    assert len(entries) == 4
    result = aggregate(entries, out.version)
    read = result.directions["read"]
    assert set(result.directions) == {"read"}
    assert result.jobs == 4
    assert read.bw_bytes == sum(e["read"]["bw_bytes"] for e in entries)
    assert read.total_ios == sum(e["read"]["total_ios"] for e in entries)
    lat = read.latency
    assert lat.kind == "lat"
    counts = [e["read"]["lat_ns"]["N"] for e in entries]
    assert lat.count == sum(counts)
    expected_mean = sum(n * e["read"]["lat_ns"]["mean"] for n, e in zip(counts, entries, strict=True)) / sum(counts)
    assert lat.mean_ns == pytest.approx(expected_mean)
    # The merged histogram walked bucket by bucket, as fio walks one (stat.c): the same percentiles.
    merged: dict[int, int] = {}
    for entry in entries:
        for key, count in entry["read"]["lat_ns"]["bins"].items():
            merged[int(key)] = merged.get(int(key), 0) + count
    assert sum(merged.values()) == lat.count
    running, walked = 0, {}
    for value, count in sorted(merged.items()):
        running += count
        walked.update({p: float(value) for p in PERCENTILES if p not in walked and running >= p / 100 * lat.count})
    assert lat.percentiles == walked
    # A quantile of a mixture lies between the components' quantiles.
    for p in PERCENTILES:
        per_job = [e["read"]["lat_ns"]["percentile"][f"{p:f}"] for e in entries]
        assert min(per_job) <= lat.percentiles[p] <= max(per_job)
    assert result.usr_cpu == pytest.approx(sum(e["usr_cpu"] for e in entries))


def test_plain_json_without_bins_uses_fios_own_percentiles_for_one_job():
    out = parse_output(load("randrw-json.json"))
    result = aggregate(out.groups[0].entries, out.version)
    assert set(result.directions) == {"read", "write"}
    job = out.raw["jobs"][0]
    for ddir in ("read", "write"):
        lat = result.directions[ddir].latency
        assert lat.kind == "clat"
        assert lat.percentiles[99.0] == job[ddir]["clat_ns"]["percentile"]["99.000000"]


def test_text_before_the_json_is_skipped():
    text = load("text-before.json")
    assert not text.startswith("{")
    out = parse_output(text)
    assert out.groups[0].name == "note"
    assert aggregate(out.groups[0].entries).directions["read"].io_bytes > 0


def test_status_interval_documents_yield_the_last_one():
    text = load("status-interval.json")
    assert text.count('"fio version"') > 1
    out = parse_output(text)
    docs_runtime = out.raw["jobs"][0]["read"]["runtime"]
    assert docs_runtime >= 2900  # the final 3 s document, not an interim one


def test_fio_job_error_code_is_kept():
    out = parse_output(load("job-error.json"))
    assert aggregate(out.groups[0].entries).error == 22


def test_client_server_output_aggregates_hosts_and_keeps_all_clients_apart():
    out = parse_output(load("client-server-3hosts.json"))
    assert [g.name for g in out.groups] == ["cs"]
    group = out.groups[0]
    assert sorted(group.hosts) == ["127.0.0.11", "127.0.0.12", "127.0.0.13"]
    result = aggregate(group.entries, out.version, group.hosts)
    summary = out.all_clients[0]["read"]
    read = result.directions["read"]
    assert read.total_ios == summary["total_ios"]
    assert read.io_bytes == summary["io_bytes"]
    assert read.latency.count == summary["lat_ns"]["N"]
    assert read.latency.mean_ns == pytest.approx(summary["lat_ns"]["mean"], rel=1e-6)


def test_truncated_json_is_a_clear_error():
    text = load("randread-4jobs.json")
    with pytest.raises(UserError, match="incomplete"):
        parse_output(text[: len(text) // 2], source="cut.json")


def test_text_without_json_is_a_clear_error():
    with pytest.raises(UserError, match="no JSON found"):
        parse_output("fio: failed to open file\n", source="x")


def test_fields_missing_on_older_fio_are_derived():
    """fio before 3.2 had no bw_bytes; before 3.18 no N: derive from bw (KiB/s) and total_ios."""
    doc = json.loads(load("randread-4jobs.json"))
    modern = aggregate(parse_output(json.dumps(doc)).groups[0].entries)
    for job in doc["jobs"]:
        del job["read"]["bw_bytes"]
        del job["read"]["lat_ns"]["N"]
    older = aggregate(parse_output(json.dumps(doc)).groups[0].entries)
    assert older.directions["read"].bw_bytes == pytest.approx(modern.directions["read"].bw_bytes, rel=0.01)
    assert older.directions["read"].latency.count == modern.directions["read"].total_ios


def test_iops_agree_with_bandwidth_when_a_ramp_leaves_ios_in_flight():
    """fio's own iops (42) counts only I/Os issued after the ramp; its bytes (182 MiB) count every completion."""
    doc = json.loads((DATA / "ramp-qd32-throttled.json").read_text())
    raw = doc["jobs"][0]["read"]
    assert raw["lat_ns"]["N"] > raw["total_ios"]  # the saved output shows the disagreement
    read = aggregate(parse_output((DATA / "ramp-qd32-throttled.json").read_text()).groups[0].entries).directions["read"]
    block = 1 << 20
    assert read.iops * block == pytest.approx(read.bw_bytes, rel=0.01)
    assert read.iops == pytest.approx(raw["lat_ns"]["N"] * 1000 / raw["runtime"])


def test_steady_state_is_read_per_job_and_held_only_when_every_job_held_it():
    attained = parse_output(load("steadystate-attained.json"))
    (group,) = attained.groups
    steady = aggregate(group.entries).steady
    assert steady is not None and steady.attained
    assert steady.criterion == "iops:20.000000%" and steady.duration_s == 3.0
    runtimes = [entry["job_runtime"] for entry in group.entries]
    assert len(runtimes) == 2 and steady.runtime_ms == max(runtimes) < 20_000  # fio stopped both jobs early
    missed = aggregate(parse_output(load("steadystate-not-attained.json")).groups[0].entries).steady
    assert missed is not None and not missed.attained
    assert missed.runtime_ms == 4000 and missed.measured == "7.352055%"
    one_missed = json.loads(load("steadystate-attained.json"))
    one_missed["jobs"][1]["steadystate"]["attained"] = 0
    both = aggregate(parse_output(json.dumps(one_missed)).groups[0].entries).steady
    assert both is not None and not both.attained
    assert aggregate(parse_output(load("randread-4jobs.json")).groups[0].entries).steady is None


def test_a_steady_state_object_fio_would_not_write_is_refused():
    doc = json.loads(load("steadystate-not-attained.json"))
    doc["jobs"][0]["steadystate"]["attained"] = "yes"
    with pytest.raises(UserError, match=r"jobs\[0\]\.steadystate\.attained"):
        parse_output(json.dumps(doc))


def test_percentiles_from_bins_walk_as_fio_does_on_random_histograms():
    import random

    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 60)
        bins = {f"{rng.randint(100, 10**7)}": rng.randint(0, 4) for _ in range(n)}
        total, running, walked = sum(bins.values()), 0, {}
        for value, count in sorted((int(k), c) for k, c in bins.items()):
            running += count
            walked.update({p: float(value) for p in PERCENTILES if p not in walked and running >= p / 100 * total})
        assert percentiles_from_bins(*merged_histogram([(bins, 1.0)])) == (walked if total else {})


def test_a_histogram_out_of_order_or_of_several_jobs_is_merged_in_order():
    one = {"3000": 1, "1000": 2, "2000": 3}  # not as fio writes it: sorted before the walk
    assert merged_histogram([(one, 1.0)]) == ([1000, 2000, 3000], [2, 3, 1])
    two = {"1000": 5, "4000": 1}
    assert merged_histogram([(one, 1.0), (two, 1.0)]) == ([1000, 2000, 3000, 4000], [7, 3, 1, 1])
    assert merged_histogram([({"1.5": 2, "2.25": 1}, 1000.0)]) == ([1500, 2250], [2, 1])  # fio 2.x: us to ns


def test_an_empty_or_zero_histogram_has_no_percentiles():
    assert percentiles_from_bins([], []) == {}
    assert percentiles_from_bins([1000, 2000], [0, 0]) == {}
