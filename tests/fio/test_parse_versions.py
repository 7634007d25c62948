"""Every fio output since 2.0, published by other projects (tests/data/fio/published, README there) and
terse lines from the fio here (tests/data/fio/terse): latency kept, bandwidth as the file says it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.fio.parse import aggregate, parse_output
from iolab.fio.terse import parse_terse

DATA = Path(__file__).parent.parent / "data" / "fio"
PUBLISHED = DATA / "published"
JSON_FILES = {
    "yardstick-fio_read_sample_output.json": "fio-2.1.3",
    "yardstick-fio_rw_sample_output.json": "fio-2.1.3",
    "yardstick-fio_write_sample_output.json": "fio-2.1.3",
    "pkb-fio-parser-sample-result.json": "fio-2.1.4",
    "pkb-hist-pkb-7fb0c9d8-0_fio.json": "fio-2.17",
    "pbench-perf-fio-0-fio-result.txt": "fio-3.19",
    "pbench-fio-0/fio-result.txt": "fio-3.7",
}


def _document(text: str) -> dict:
    return json.loads(text[text.index("\n{") + 1 :] if not text.startswith("{") else text)


@pytest.mark.parametrize("name", sorted(JSON_FILES))
def test_every_version_keeps_latency_and_the_files_own_bandwidth(name):
    text = (PUBLISHED / name).read_text()
    output = parse_output(text, name)
    assert output.version == JSON_FILES[name]
    doc = _document(text)
    jobs = doc.get("client_stats", doc.get("jobs"))
    checked = 0
    for group in output.groups:
        result = aggregate(group.entries, output.version, group.hosts)
        entries = [j for j in jobs if j["jobname"] == group.name]
        for ddir, direction in result.directions.items():
            own_kib_s = sum(j[ddir]["bw"] for j in entries)  # fio's KiB/s, in every version
            assert direction.bw_bytes == pytest.approx(own_kib_s * 1024, rel=0.01), (name, ddir)
            # io_bytes in bytes whatever the version wrote (KiB before 3.0): it agrees with bandwidth x runtime
            runtime_s = max(j[ddir]["runtime"] for j in entries) / 1000
            assert direction.io_bytes == pytest.approx(direction.bw_bytes * runtime_s, rel=0.02), (name, ddir)
            assert direction.latency is not None and direction.latency.mean_ns > 0, (name, ddir)
            assert direction.latency.count > 0 and direction.total_ios > 0
            checked += 1
    assert checked


def test_a_single_2_1_job_keeps_its_own_latency_and_percentiles():
    # fio 2.1.3: no N, no total_ios; clat in µs; io_bytes in KiB (2166860 KiB at 36113 KiB/s for 60.001 s)
    name = "yardstick-fio_read_sample_output.json"
    output = parse_output((PUBLISHED / name).read_text(), name)
    read = aggregate(output.groups[0].entries, output.version).directions["read"]
    own = _document((PUBLISHED / name).read_text())["jobs"][0]["read"]
    assert read.io_bytes == own["io_bytes"] * 1024
    assert read.total_ios == round(own["iops"] * own["runtime"] / 1000)
    assert read.latency is not None and read.latency.kind == "clat"
    assert read.latency.mean_ns == pytest.approx(own["clat"]["mean"] * 1000)
    assert read.latency.stddev_ns == pytest.approx(own["clat"]["stddev"] * 1000)
    assert read.latency.percentiles[99.0] == own["clat"]["percentile"]["99.000000"] * 1000


def test_client_server_hosts_are_summed_and_pooled_by_io_count():
    # pbench: fio 3.7 on two hosts, five jobs each, text and "<host>" status lines before the JSON
    output = parse_output((PUBLISHED / "pbench-fio-0" / "fio-result.txt").read_text())
    (group,) = output.groups
    assert sorted(group.hosts) == ["perf36", "perf84"] and len(group.entries) == 10
    read = aggregate(group.entries, output.version, group.hosts).directions["read"]
    counts = [e["read"]["total_ios"] for e in group.entries]  # fio 3.7 writes no N: total_ios counts
    means = [e["read"]["clat_ns"]["mean"] for e in group.entries]
    assert read.latency is not None and read.latency.count == sum(counts)
    assert read.latency.mean_ns == pytest.approx(sum(n * m for n, m in zip(counts, means, strict=True)) / sum(counts))


@pytest.mark.parametrize("version", [2, 3, 5])
def test_terse_lines_of_every_version_read_as_fio_wrote_them(version):
    text = (DATA / "terse" / f"terse-v{version}.txt").read_text()
    output = parse_terse(text, "terse")
    assert output.version == ("" if version == 2 else "fio-3.33")
    (group,) = output.groups
    assert group.name == "mixed" and len(group.entries) == 2  # numjobs=2 without group_reporting
    lines = [ln.split(";") for ln in text.splitlines() if ln.startswith(f"{version};")]
    first = 4 if version == 2 else 5  # the read status starts after the header
    width = 47 if version == 5 else 41
    result = aggregate(group.entries, output.version)
    for offset, ddir in enumerate(("read", "write")):
        at = first + offset * width
        direction = result.directions[ddir]
        assert direction.bw_bytes == pytest.approx(sum(float(ln[at + 1]) for ln in lines) * 1024, rel=0.01)
        assert direction.io_bytes == sum(int(ln[at]) for ln in lines) * 1024
        assert direction.latency is not None and direction.latency.kind == "clat"
        own_means = [float(ln[at + 10]) * 1000 for ln in lines]  # clat mean, µs
        assert min(own_means) <= direction.latency.mean_ns <= max(own_means)


def test_terse_client_server_matches_fios_own_all_clients_line():
    text = (DATA / "terse" / "terse-v3-client-server.txt").read_text()
    output = parse_terse(text, "terse")
    (group,) = output.groups  # "All clients" is fio's sum, not a job
    assert len(group.entries) == 2
    read = aggregate(group.entries, output.version).directions["read"]
    summary = next(ln.split(";") for ln in text.splitlines() if ";All clients;" in ln)
    assert read.bw_bytes == pytest.approx(float(summary[6]) * 1024, rel=0.01)
    assert read.latency is not None
    assert read.latency.mean_ns == pytest.approx(float(summary[15]) * 1000, rel=0.01)


def test_a_cut_terse_line_is_refused_with_its_line_number():
    line = (DATA / "terse" / "terse-v3.txt").read_text().splitlines()[0]
    with pytest.raises(UserError, match="line 2: a terse v3 line has 40 fields"):
        parse_terse("fio said something first\n" + ";".join(line.split(";")[:40]), "cut")
