"""Logs at full speed: fio-plot's whole published collection through `iolab import`, and 1,000 json+
outputs against fio-plot's own JSON loader, timed in the same run (issue 21).

1. fio-plot's benchmark data (3,450 fio JSON outputs and 106,685 per-interval logs, 30.8M rows) is
   imported with its logs and again with `--no-logs`: wall and CPU time, rows a second, the size
   of the database. The data is not shipped with iolab; get it once with

       git clone https://github.com/louwrentius/fio-plot && cd fio-plot
       git archive 868a7af5d benchmark_data | tar -x -C DIR

   and pass `--data DIR` (or set IOLAB_FIOPLOT_DATA=DIR). Without it this part is skipped, said so.
2. 1,000 json+ outputs of real fio runs (`import_speed.make_outputs`): `iolab import` against
   fio-plot's loader (`fio_plot.fiolib.jsonimport.import_json_data`, the function fio-plot reads
   each JSON file with), alternately (iolab first in even rounds, fio-plot first in odd ones),
   `--rounds` times each; both as whole processes, and each one's reading alone (iolab's
   `import_paths`, fio-plot's loop over its loader). Medians reported with their spread (every
   round's figure, lowest and highest) and the ratio fio-plot / iolab of the whole processes' medians
   (above 1: iolab is faster). fio-plot (PyPI `fio-plot`) is used from this Python when it is
   installed here (`pip install fio-plot`), else installed into its own venv under the work directory.
   iolab's modules are compiled to bytecode first (`compile_iolab`), as pip compiled fio-plot's.

The host's load average is recorded beside the figures: on a shared VM they move with it.
Writes bench/results/fioplot_collection.json.

    .venv/bin/python bench/fioplot_collection.py --data DIR [--rounds 3] [--outputs DIR] [--fio-plot-python PYTHON]

`--outputs` reuses 1,000 outputs made before; `--fio-plot-python` a Python with fio-plot installed. The load
average as each round started is kept with its figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from import_speed import make_outputs
from results_file import add_smoke_flag, host, write_result

RESULT = Path(__file__).parent / "results" / "fioplot_collection.json"
HOW_TO_GET = (
    "fio-plot's data is not here: git clone https://github.com/louwrentius/fio-plot, then in it"
    " `git archive 868a7af5d benchmark_data | tar -x -C DIR`, and give --data DIR (or IOLAB_FIOPLOT_DATA=DIR)"
)
# fio-plot reading every JSON file of a folder with its own loader, timed inside the process.
FIO_PLOT_LOADER = """
import json, os, sys, time
started = time.perf_counter()
from fio_plot.fiolib.jsonimport import import_json_data
imported = time.perf_counter()
folder = sys.argv[1]
data = [import_json_data(os.path.join(folder, name)) for name in sorted(os.listdir(folder)) if name.endswith(".json")]
print(json.dumps({"files": len(data), "library_s": imported - started, "read_s": time.perf_counter() - imported}))
"""
# iolab's import of a folder, the reading and storing alone timed inside the process.
IOLAB_IMPORTER = """
import json, sys, time
started = time.perf_counter()
from iolab.imports import import_paths
from iolab.store.db import open_store
store = open_store()
imported = time.perf_counter()
outcome = import_paths([sys.argv[1]], store, "bench")
print(json.dumps({"files": outcome.files, "library_s": imported - started, "read_s": time.perf_counter() - imported}))
"""


def collection(data: Path | None) -> Path | None:
    """The folder holding fio-plot's outputs (DIR or DIR/benchmark_data), or None when absent."""
    if data is None:
        return None
    for folder in (data / "benchmark_data", data):
        if folder.is_dir() and any(folder.iterdir()):
            return folder
    return None


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process, its stdout); a failure ends the bench with its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {proc.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def database(home: Path) -> tuple[int, int]:
    """(bytes of the database with its WAL, log rows stored)."""
    size = sum(p.stat().st_size for p in home.glob("iolab.db*"))
    conn = sqlite3.connect(home / "iolab.db")
    try:
        rows = conn.execute("SELECT COALESCE(SUM(rows), 0) FROM series").fetchone()[0]
    finally:
        conn.close()
    return size, rows


def text_size(folder: Path) -> tuple[int, int, int]:
    """(JSON outputs, log files, bytes of both) under `folder`."""
    outputs = logs = size = 0
    for path in folder.rglob("*"):
        if path.suffix == ".json":
            outputs += 1
            size += path.stat().st_size
        elif ".log" in path.name:
            logs += 1
            size += path.stat().st_size
    return outputs, logs, size


def import_collection(folder: Path, work: Path) -> dict:
    iolab = [sys.executable, "-m", "iolab", "import"]
    outputs, logs, size = text_size(folder)
    figures: dict = {"outputs": outputs, "log_files": logs, "text_bytes": size}
    for name, extra in (("with_logs", []), ("no_logs", ["--no-logs"])):
        home = work / f"home-{name}"
        load = os.getloadavg()[0]
        wall, cpu, _ = timed([*iolab, *extra, str(folder)], {**os.environ, "IOLAB_HOME": str(home)})
        db_bytes, rows = database(home)
        figures[name] = {
            "seconds": wall,
            "cpu_seconds": cpu,
            "db_bytes": db_bytes,
            "log_rows": rows,
            "rows_per_s": rows / wall,
            "rows_per_cpu_s": rows / cpu if cpu else None,
            "bytes_per_row": db_bytes / rows if rows else None,
            "load_before": load,
        }
        shutil.rmtree(home)
    return figures


def fio_plot_python(work: Path) -> str:
    """A Python that can import fio-plot's loader: this one when it can, else a venv made for it."""
    probe = subprocess.run(
        [sys.executable, "-c", "import fio_plot.fiolib.jsonimport"], capture_output=True, check=False
    )
    if probe.returncode == 0:
        return sys.executable
    venv = work / "fio-plot-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "fio-plot"], check=True)
    return str(venv / "bin" / "python")


def json_against_fio_plot(work: Path, rounds: int, outputs: Path | None = None, plotter: str | None = None) -> dict:
    if outputs is None:
        outputs = make_outputs(work, work / "data.img")
        (work / "data.img").unlink(missing_ok=True)
    compile_iolab()
    ours, theirs = _alternated(work, rounds, outputs, plotter or fio_plot_python(work))
    files = {r["files"] for r in ours + theirs}
    assert len(files) == 1, (ours, theirs)

    def median(rows: list[dict], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    keys = ("process_s", "cpu_s", "library_s", "read_s")
    found = {
        "files": files.pop(),
        "rounds": rounds,
        "iolab": {key: median(ours, key) for key in keys},
        "fio_plot": {key: median(theirs, key) for key in keys},
        "spread": {
            side: {key: [min(r[key] for r in rows), max(r[key] for r in rows)] for key in keys}
            for side, rows in (("iolab", ours), ("fio_plot", theirs))
        },
        "every_round": {"iolab": ours, "fio_plot": theirs},
    }
    found["ratio"] = found["fio_plot"]["process_s"] / found["iolab"]["process_s"]
    found["ratio_cpu"] = found["fio_plot"]["cpu_s"] / found["iolab"]["cpu_s"]
    return found


def _alternated(work: Path, rounds: int, outputs: Path, plotter: str) -> tuple[list[dict], list[dict]]:
    """(iolab's rounds, fio-plot's), iolab first in even rounds, fio-plot first in odd ones, each with the load
    average as it started."""
    ours: list[dict] = []
    theirs: list[dict] = []
    for number in range(rounds):
        for side in ("iolab", "fio_plot") if number % 2 == 0 else ("fio_plot", "iolab"):
            load = os.getloadavg()[0]
            if side == "iolab":
                ours.append({**_iolab_round(outputs, work / f"home-json-{number}"), "load": load})
            else:
                wall, cpu, out = timed([plotter, "-c", FIO_PLOT_LOADER, str(outputs)], dict(os.environ))
                theirs.append({"process_s": wall, "cpu_s": cpu, **json.loads(out), "load": load})
    return ours, theirs


def compile_iolab() -> None:
    """iolab's modules compiled to bytecode first, as `pip install` compiles fio-plot's: where
    PYTHONDONTWRITEBYTECODE is set (some CI and sandboxes set it), an editable iolab was compiled from
    source by every process, ~0.15 s of CPU fio-plot's installed modules never pay."""
    import iolab

    package = str(Path(iolab.__file__).parent)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True, env=env)


def _iolab_round(outputs: Path, home: Path) -> dict:
    """`iolab import` of the outputs as a whole process, then the reading and storing alone, each into an
    empty IOLAB_HOME."""
    wall, cpu, _ = timed(
        [sys.executable, "-m", "iolab", "import", str(outputs)], {**os.environ, "IOLAB_HOME": str(home)}
    )
    shutil.rmtree(home)
    _, _, out = timed([sys.executable, "-c", IOLAB_IMPORTER, str(outputs)], {**os.environ, "IOLAB_HOME": str(home)})
    shutil.rmtree(home)
    return {"process_s": wall, "cpu_s": cpu, **json.loads(out)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=os.environ.get("IOLAB_FIOPLOT_DATA"), help="fio-plot's data")
    parser.add_argument("--rounds", type=int, default=3, help="alternate rounds of the 1,000-output comparison")
    parser.add_argument("--skip-json", action="store_true", help="only the collection (no fio runs, no fio-plot)")
    parser.add_argument("--skip-collection", action="store_true", help="only the 1,000 outputs against fio-plot")
    parser.add_argument("--outputs", type=Path, help="the 1,000 json+ outputs made before (else made by fio here)")
    parser.add_argument("--fio-plot-python", help="a Python with fio-plot installed (else a venv is made for it)")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.skip_json = True  # fio-plot's side is installed from PyPI: not in a smoke run
    folder = None if args.skip_collection else collection(Path(args.data) if args.data else None)
    work = Path(tempfile.mkdtemp(prefix="iolab-fioplot-bench-"))
    figures: dict = {"load_average_before": os.getloadavg()}
    try:
        if folder is None:
            print("skipped the collection" + ("" if args.skip_collection else f": {HOW_TO_GET}"))
        else:
            figures["collection"] = import_collection(folder, work)
        if not args.skip_json:
            figures["json_1000"] = json_against_fio_plot(work, args.rounds, args.outputs, args.fio_plot_python)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    figures["load_average_after"] = os.getloadavg()
    report(figures)
    write_result(
        RESULT,
        "fioplot_collection",
        {
            "host": host(),
            **figures,
        },
        smoke=args.smoke,
    )


def report(figures: dict) -> None:
    found = figures.get("collection")
    if found:
        print(
            f"fio-plot's collection: {found['outputs']:,} outputs, {found['log_files']:,} logs,"
            f" {found['text_bytes'] / 1e6:,.0f} MB of text"
        )
        for name in ("with_logs", "no_logs"):
            f = found[name]
            rows = (
                f"{f['log_rows']:,} log rows, {f['rows_per_s'] / 1e6:.2f}M rows/s" if f["log_rows"] else "no log rows"
            )
            print(
                f"  import {name.replace('_', ' ')}: {f['seconds']:.1f} s ({f['cpu_seconds']:.1f} s CPU), {rows},"
                f" database {f['db_bytes'] / 1e6:.0f} MB (load average before {f['load_before']:.1f})"
            )
    json_1000 = figures.get("json_1000")
    if json_1000:
        ours, theirs = json_1000["iolab"], json_1000["fio_plot"]
        for side in ("iolab", "fio_plot"):
            rounds = ", ".join(f"{r['process_s']:.2f} (load {r['load']:.1f})" for r in json_1000["every_round"][side])
            low, high = json_1000["spread"][side]["process_s"]
            print(f"  {side:8} whole process each round (s): {rounds}; lowest {low:.2f}, highest {high:.2f}")
        print(
            f"  fio-plot / iolab, medians of the whole processes: {json_1000['ratio']:.2f} (CPU"
            f" {json_1000['ratio_cpu']:.2f}; above 1: iolab is faster)"
        )
        print(
            f"1,000 json+ outputs, medians of {json_1000['rounds']}: iolab import {ours['process_s']:.2f} s"
            f" ({ours['cpu_s']:.2f} s CPU; reading and storing alone {ours['read_s']:.2f} s);"
            f" fio-plot's loader {theirs['process_s']:.2f} s ({theirs['cpu_s']:.2f} s CPU;"
            f" reading alone {theirs['read_s']:.2f} s, its library's import {theirs['library_s']:.2f} s)"
        )
    print(f"load average before {figures['load_average_before']}, after {figures['load_average_after']}")


if __name__ == "__main__":
    main()
