"""How fast does iolab read an archive, beside fio-plot charting the same logs? (issue: benchmarks of iolab)

Real fio runs make the material, which is then copied:

- 1,000 json+ outputs (copies of 10 real runs of different workloads);
- 100 log sets, each a json+ output with its per-second bw/iops/lat logs
  (log_avg_msec=1000) and a per-I/O latency log, named as bench-fio names
  them so fio-plot reads them.

Measured: `iolab import` of the 1,000 outputs and of the 100 log sets (rows
stored per second: points plus samples), and then, per log set, `iolab
import` + `iolab report --png` against fio-plot (PyPI `fio-plot`) drawing
its time chart of the same logs. fio-plot is installed into its own venv
under the work directory when it is not on PATH. Writes
bench/results/import_speed.json.

    .venv/bin/python bench/import_speed.py [--charts 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import add_smoke_flag, host, write_result

RESULT = Path(__file__).parent / "results" / "import_speed.json"
WORKLOADS = [
    (rw, bs, qd)
    for rw in ("randread", "randwrite")
    for bs, qd in (("4k", 1), ("4k", 8), ("64k", 4), ("128k", 16), ("1m", 2))
]


def fio(args: list[str], cwd: Path) -> None:
    subprocess.run(["fio", *args], cwd=cwd, check=True, capture_output=True)


def make_outputs(work: Path, target: Path, copies: int = 100, workloads: int = len(WORKLOADS)) -> Path:
    """10 real json+ outputs, each copied 100 times: 1,000 files (a smoke run: fewer of each)."""
    originals = work / "originals"
    originals.mkdir()
    for rw, bs, qd in WORKLOADS[:workloads]:
        fio(
            [
                f"--name={rw}-{bs}",
                f"--filename={target}",
                "--size=64m",
                f"--rw={rw}",
                f"--bs={bs}",
                f"--iodepth={qd}",
                "--ioengine=libaio",
                "--direct=1",
                "--time_based=1",
                "--runtime=1",
                "--output-format=json+",
                f"--output={originals / f'{rw}-{bs}-qd{qd}.json'}",
            ],
            work,
        )
    archive = work / "outputs"
    archive.mkdir()
    # Each copy ends in its own number of newlines: other bytes, so the import stores all 1,000 (the same
    # bytes again would be recognised as imported already and skipped).
    for copy in range(copies):
        for original in sorted(originals.glob("*.json")):
            (archive / f"{original.stem}-{copy:03d}.json").write_text(original.read_text() + "\n" * copy)
    return archive


def make_log_sets(work: Path, target: Path, copies: int = 100, runtime: int = 10) -> Path:
    """One real run with per-second and per-I/O logs (`runtime` s, the per-I/O one half of it), copied into
    100 directories (a smoke run: fewer)."""
    first = work / "logset"
    first.mkdir()
    prefix = "randread-iodepth-4-numjobs-1"  # bench-fio's naming, which fio-plot parses
    fio(
        [
            f"--name={prefix}",
            f"--filename={target}",
            "--size=64m",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=4",
            "--ioengine=libaio",
            "--direct=1",
            "--time_based=1",
            f"--runtime={runtime}",
            "--rate_iops=2000",
            f"--write_bw_log={prefix}",
            f"--write_iops_log={prefix}",
            f"--write_lat_log={prefix}",
            "--log_avg_msec=1000",
            "--output-format=json+",
            f"--output={prefix}.json",
        ],
        first,
    )
    fio(
        [
            f"--name={prefix}-perio",
            f"--filename={target}",
            "--size=64m",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=4",
            "--ioengine=libaio",
            "--direct=1",
            "--time_based=1",
            f"--runtime={max(1, runtime // 2)}",
            "--rate_iops=2000",
            f"--write_lat_log={prefix}-perio",
            "--output-format=json+",
            f"--output={prefix}-perio.json",
        ],
        first,
    )
    sets = work / "logsets"
    sets.mkdir()
    for copy in range(copies):
        shutil.copytree(first, sets / f"set-{copy:03d}")
        for output in (sets / f"set-{copy:03d}").glob("*.json"):  # other bytes per set, as above
            output.write_text(output.read_text() + "\n" * copy)
    return sets


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {proc.stderr.strip()[-400:]}")
    return time.monotonic() - started


def stored_rows(home: Path) -> int:
    """Points plus log rows (each series keeps its row count: `iolab.store.columns`)."""
    conn = sqlite3.connect(home / "iolab.db")
    try:
        points = conn.execute("SELECT COUNT(*) FROM points").fetchone()[0]
        return points + conn.execute("SELECT COALESCE(SUM(rows), 0) FROM series").fetchone()[0]
    finally:
        conn.close()


def fio_plot(work: Path) -> str:
    found = shutil.which("fio-plot")
    if found:
        return found
    venv = work / "fio-plot-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "fio-plot"], check=True)
    return str(venv / "bin" / "fio-plot")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charts", type=int, default=5, help="log sets charted by each tool (median time reported)")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.charts = 1
    work = Path(tempfile.mkdtemp(prefix="iolab-import-bench-"))
    iolab = [sys.executable, "-m", "iolab"]
    try:
        target = work / "data.img"
        copies = 2 if args.smoke else 100
        outputs = make_outputs(work, target, copies, 1 if args.smoke else len(WORKLOADS))
        sets = make_log_sets(work, target, copies, 1 if args.smoke else 10)
        env = {**os.environ, "IOLAB_HOME": str(work / "home-outputs")}
        outputs_s = timed([*iolab, "import", str(outputs)], env)
        outputs_rows = stored_rows(work / "home-outputs")
        env = {**os.environ, "IOLAB_HOME": str(work / "home-logs")}
        logs_s = timed([*iolab, "import", str(sets)], env)
        logs_rows = stored_rows(work / "home-logs")
        plotter = None if args.smoke else fio_plot(work)  # a smoke run installs nothing from PyPI
        if plotter is None:
            print("smoke run: fio-plot's side skipped (it is installed from PyPI)")
        ours, theirs = [], []
        for number in range(args.charts):
            logset = sets / f"set-{number:03d}"
            env = {**os.environ, "IOLAB_HOME": str(work / f"home-chart-{number}")}
            ours.append(
                timed([*iolab, "import", str(logset)], env)
                + timed([*iolab, "report", "1", "--png", str(work / f"png-{number}")], env)
            )
            if plotter is None:
                continue
            theirs.append(
                timed(
                    [
                        plotter,
                        "-i",
                        str(logset),
                        "-T",
                        "bench",
                        "-g",
                        "-t",
                        "bw",
                        "iops",
                        "lat",
                        "-r",
                        "randread",
                        "-d",
                        "4",
                        "-n",
                        "1",
                        "-o",
                        str(work / f"fio-plot-{number}.png"),
                    ],
                    dict(os.environ),
                )
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    fio_plot_s = statistics.median(theirs) if theirs else float("nan")
    figures = {
        "outputs": {
            "files": len(WORKLOADS[:1] if args.smoke else WORKLOADS) * copies,
            "seconds": outputs_s,
            "rows": outputs_rows,
            "rows_per_s": outputs_rows / outputs_s,
        },
        "log_sets": {"sets": copies, "seconds": logs_s, "rows": logs_rows, "rows_per_s": logs_rows / logs_s},
        "chart": {
            "iolab_import_and_png_s": statistics.median(ours),
            "fio_plot_s": fio_plot_s,
            "fio_plot_over_iolab": fio_plot_s / statistics.median(ours),
        },
    }
    print(
        f"import {figures['outputs']['files']:,} json+ outputs: {outputs_s:.1f} s, {outputs_rows} rows, {figures['outputs']['rows_per_s']:,.0f} rows/s"
    )
    print(
        f"import {copies} log sets (json+, 1 s logs, per-I/O lat log): {logs_s:.1f} s, {logs_rows} rows, "
        f"{figures['log_sets']['rows_per_s']:,.0f} rows/s"
    )
    print(
        f"one log set to charts: iolab import + report --png {figures['chart']['iolab_import_and_png_s']:.2f} s, "
        f"fio-plot -g {figures['chart']['fio_plot_s']:.2f} s (ratio fio-plot/iolab "
        f"{figures['chart']['fio_plot_over_iolab']:.2f})"
    )
    write_result(
        RESULT,
        "import_speed",
        {
            "host": host(),
            **figures,
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
