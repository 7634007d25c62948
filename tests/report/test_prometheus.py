"""The textfile-collector output, read back with the Prometheus client's own parser."""

from __future__ import annotations

import os
import random
import re
import threading
from types import SimpleNamespace

import pytest
from prometheus_client.parser import text_string_to_metric_families

from iolab.printable import printable
from iolab.report.formats import EXPORT, renderer
from iolab.report.prometheus import SeriesMetrics, render_textfile, write_textfile

NASTY = 'say "hi"\\ to\nme'  # a quote, a backslash and a newline


def samples(text: str) -> dict[tuple[str, tuple], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        assert family.type == "gauge" and family.documentation
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def full(host: str = "node1", target: str = "/dev/nvme0n1", workload: str = "randread-4k-qd32") -> SeriesMetrics:
    return SeriesMetrics(
        host=host,
        target=target,
        workload=workload,
        workload_id="3f2a9c0d1e4b5a67",
        bandwidth_bytes_per_second=6.9e9,
        iops=1.68e6,
        latency_mean_seconds=76e-6,
        latency_p99_seconds=0.000212,
        rolling_cov=0.031,
        healthy=True,
        last_run_timestamp_seconds=1_763_780_000.0,
        filesystem_used_ratio=0.42,
        last_change_run=812,
        last_change_timestamp_seconds=1_763_000_000.0,
    )


def test_every_metric_parses_with_its_labels_and_value():
    parsed = samples(render_textfile([full()]))
    labels = (
        ("host", "node1"),
        ("target", "/dev/nvme0n1"),
        ("workload", "randread-4k-qd32"),
        ("workload_id", "3f2a9c0d1e4b5a67"),
    )
    assert parsed == {
        ("iolab_bandwidth_bytes_per_second", labels): 6.9e9,
        ("iolab_io_operations_per_second", labels): 1.68e6,
        ("iolab_latency_mean_seconds", labels): 76e-6,
        ("iolab_latency_p99_seconds", labels): 0.000212,
        ("iolab_rolling_cov_ratio", labels): 0.031,
        ("iolab_healthy", labels): 1.0,
        ("iolab_last_run_timestamp_seconds", labels): 1_763_780_000.0,
        ("iolab_filesystem_used_ratio", labels): 0.42,
        ("iolab_last_change_point_run", labels): 812.0,
        ("iolab_last_change_point_timestamp_seconds", labels): 1_763_000_000.0,
    }


def test_label_values_with_quotes_backslashes_and_newlines_survive():
    text = render_textfile([full(host=NASTY, target="C:\\path\\x", workload="a\nb")])
    assert 'host="say \\"hi\\"\\\\ to\\nme"' in text  # escaped as the format says, by the client library
    for (name, labels), _ in samples(text).items():
        assert dict(labels) == {
            "host": NASTY,
            "target": "C:\\path\\x",
            "workload": "a\nb",
            "workload_id": "3f2a9c0d1e4b5a67",
        }, name
    assert text.count("\n") == len(text.splitlines())  # no raw newline inside a sample line


def test_unknown_values_are_left_out_and_unhealthy_is_zero():
    partial = SeriesMetrics(
        "n2", "/scratch", "seq-write", bandwidth_bytes_per_second=1e9, rolling_cov=0.12, healthy=False
    )
    text = render_textfile([partial, full()])
    parsed = samples(text)
    n2 = (("host", "n2"), ("target", "/scratch"), ("workload", "seq-write"), ("workload_id", ""))
    assert parsed[("iolab_healthy", n2)] == 0.0
    assert ("iolab_io_operations_per_second", n2) not in parsed
    # HELP/TYPE appear once per family, with both series' samples under it.
    assert text.count("# TYPE iolab_healthy gauge") == 1
    assert sum(1 for k in parsed if k[0] == "iolab_bandwidth_bytes_per_second") == 2


def test_output_is_sorted_and_stable_and_empty_input_is_an_empty_file():
    a, b = full(host="b"), full(host="a")
    assert render_textfile([a, b]) == render_textfile([b, a])
    assert render_textfile([a, b]).index('host="a"') < render_textfile([a, b]).index('host="b"')
    assert render_textfile([]) == ""


def test_duplicate_series_are_refused():
    with pytest.raises(ValueError, match="duplicate"):
        render_textfile([full(), full()])


def test_non_finite_values_use_the_format_spelling():
    text = render_textfile([SeriesMetrics("h", "t", "w", latency_p99_seconds=float("inf"), rolling_cov=float("nan"))])
    assert "iolab_latency_p99_seconds" in text and "+Inf" in text and "NaN" in text
    parsed = samples(text)
    labels = (("host", "h"), ("target", "t"), ("workload", "w"), ("workload_id", ""))
    assert parsed[("iolab_latency_p99_seconds", labels)] == float("inf")


def test_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "iolab.prom"
    path.write_text("old\n")
    write_textfile(path, render_textfile([full()]))
    assert samples(path.read_text())
    assert os.stat(path).st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["iolab.prom"]


def test_a_reader_never_sees_a_partial_file(tmp_path):
    path = tmp_path / "iolab.prom"
    texts = [render_textfile([full(workload=f"w{i}" * 2000)]) for i in range(2)]
    write_textfile(path, texts[0])
    seen: set[str] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.add(path.read_text())

    reader = threading.Thread(target=read)
    reader.start()
    for i in range(200):
        write_textfile(path, texts[i % 2])
    stop.set()
    reader.join()
    assert seen <= set(texts) and seen


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "iolab.prom"
    path.write_text("old\n")
    with pytest.raises(TypeError):
        write_textfile(path, None)  # type: ignore[arg-type]
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["iolab.prom"]


# The text format's grammar (https://prometheus.io/docs/instrumenting/exposition_formats/#text-format-details),
# strictly: a label value holds any character but backslash, double quote and line feed, which appear only as
# the escapes \\, \" and \n; HELP text escapes backslash and line feed; a value is Go's float syntax.
_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
_FLOAT = r"[-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|Inf|NaN)"
_SAMPLE = re.compile(rf"{_NAME}(?:\{{((?:{_LABEL})(?:,{_LABEL})*,?)\}})? {_FLOAT}")
_COMMENT = re.compile(
    rf"# HELP {_NAME} (?:[^\\\n]|\\[\\n])*|# TYPE {_NAME} (?:counter|gauge|histogram|summary|untyped)"
)
_UNESCAPE = {"\\": "\\", '"': '"', "n": "\n"}


def strict_labels(text: str) -> list[dict[str, str]]:
    """The labels of every sample of `text`, unescaped; an AssertionError on any line the format does not allow."""
    assert text == "" or text.endswith("\n")
    found = []
    for line in text.splitlines():
        if _COMMENT.fullmatch(line):
            continue
        sample = _SAMPLE.fullmatch(line)
        assert sample, f"not a line of the text format: {line!r}"
        pairs = re.findall(_LABEL, sample.group(1) or "")
        found.append({k: re.sub(r"\\(.)", lambda m: _UNESCAPE[m.group(1)], v) for k, v in pairs})
    return found


def test_the_strict_checker_refuses_an_escape_the_format_does_not_have():
    assert strict_labels('m{a="b\\\\x1b\\"\\n"} 1\n') == [{"a": 'b\\x1b"\n'}]
    for bad in ('m{a="\\x1b"} 1\n', 'm{a="\x1b"q"} 1\n', 'm{a="b\\"} 1\n', 'm{a="b"} x\n'):
        with pytest.raises(AssertionError):
            strict_labels(bad)


def test_a_hostile_label_is_a_valid_line_and_reads_back_as_the_escape_shown():
    """A host holding ESC (a terminal title), a quote, a backslash and a newline, through the page every format
    goes through (`renderer`, which escapes control characters): each line is the format's, and a scraper
    reads the host back as iolab shows it, ESC as the four characters `\x1b`, the rest as they were."""
    host = 'db\x1b]0;x\x07 "q" \\ \nend'
    page = renderer("prometheus", EXPORT)(SimpleNamespace(metrics=[full(host=host)]))
    labels = strict_labels(page)
    assert len(labels) == 10 and all(found["host"] == 'db\\x1b]0;x\\x07 "q" \\ \nend' for found in labels)
    assert 'host="db\\\\x1b]0;x\\\\x07 \\"q\\" \\\\ \\nend"' in page
    assert {dict(s.labels)["host"] for f in text_string_to_metric_families(page) for s in f.samples} == {
        printable(host)
    }


def test_any_label_value_writes_a_valid_line_that_reads_back_as_printed():
    """Generated label values (controls, backslashes before them, quotes, newlines, text) in every label."""
    alphabet = ["\x1b", "\x9b", "\u202e", "\x00", "\x7f", "\r", "\\", '"', "\n", "\t", "x", "1", "b", "é", " "]
    pick = random.Random(4747)
    for _ in range(150):
        values = ["".join(pick.choices(alphabet, k=pick.randint(0, 10))) for _ in range(4)]
        series = SeriesMetrics(*values, iops=1.0)
        page = renderer("prometheus", EXPORT)(SimpleNamespace(metrics=[series]))
        assert strict_labels(page) == [
            dict(zip(("host", "target", "workload", "workload_id"), map(printable, values), strict=True))
        ]
