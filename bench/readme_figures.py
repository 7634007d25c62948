"""The benchmark figures of README.md and docs/*.md, written from bench/results/*.json, never by hand.

A figure sits between two markers, `<!--fig:KEY-->` and `<!--/fig-->` (invisible when rendered, also
inside a table cell), on whichever page it belongs to (README.md or any page under docs/); KEY names a
function in FIGURES that reads the results and returns the text. Each figure is on exactly one page, so
a figure moved from one page to another is still checked, and none is shown twice. Run this after a
bench has written its results, and the pages say what the results hold:

    .venv/bin/python bench/readme_figures.py          # rewrite the marked figures on every page
    .venv/bin/python bench/readme_figures.py --check  # exit 1, naming page and figure, when any differs

tests/bench/test_readme_figures.py runs the check in `make check`. Prose around a figure (what an
earlier run gave, what a figure means) stays hand-written; a number the results hold does not.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
MARKED = re.compile(r"<!--fig:(?P<key>[\w.]+)-->(?P<text>.*?)<!--/fig-->", re.DOTALL)

Results = Callable[[str], dict]


def overhead_target(results: Results, target: str) -> str:
    r = results("overhead")["targets"][target]
    low, high = r["ci95"]
    cov = r["cov"]
    return (
        f"**{r['median_ratio']:.3f}** (95% CI {low:.3f}–{high:.3f}, {len(r['ratios'])} pairs of {r['runtime_s']} s, "
        f"run-to-run COV bare {cov['bare']:.1%}, iolab {cov['iolab']:.1%}; {r['when'][:10]}, load average "
        f"{r['loadavg'][0]:.1f} at the end)"
    )


def overhead_cpu(results: Results) -> str:
    record = results("overhead")
    parts = []
    for target, r in record["targets"].items():
        split = r.get("cpu_share_parts")
        detail = f": {', '.join(f'{k} {v:.2%}' for k, v in split.items())}" if split else ""
        parts.append(f"{r['iolab_cpu_share']:.2%} ({target}{detail})")
    return " and ".join(parts) + " of one CPU"


def time_to_answer(results: Results) -> str:
    r = results("time_to_answer")
    grid, ours, peak = r["grid"], r["adaptive"], r["adaptive"]["peak"]
    return (
        f"{len(ours['points'])} points in **{r['time_ratio']:.1%}** of the grid's time ({ours['seconds']:.0f} s "
        f"against {grid['seconds']:.0f} s); adaptive peak QD{peak['iodepth']} × {peak['numjobs']} jobs, grid peak "
        f"QD{grid['peak']['iodepth']} × {grid['peak']['numjobs']} jobs, re-measured alternately: "
        f"**{r['peak_ratio_confirmed']:.3f}**"
    )


def import_speed(results: Results) -> str:
    r = results("import_speed")
    out, logs, chart = r["outputs"], r["log_sets"], r["chart"]
    return (
        f"{out['files']:,} outputs in **{out['seconds']:.1f} s**; {logs['rows'] / 1e6:.1f}M rows ({logs['sets']} log "
        f"sets) in **{logs['seconds']:.1f} s, {logs['rows_per_s'] / 1e6:.1f}M rows/s**; import + PNG charts "
        f"{chart['iolab_import_and_png_s']:.2f} s against fio-plot's one chart {chart['fio_plot_s']:.2f} s "
        f"(fio-plot/iolab {chart['fio_plot_over_iolab']:.2f})"
    )


def fioplot_collection(results: Results) -> str:
    c = results("fioplot_collection")["collection"]
    logs, bare = c["with_logs"], c["no_logs"]
    return (
        f"{logs['log_rows'] / 1e6:.1f}M log rows in **{logs['seconds']:.1f} s** ({logs['cpu_seconds']:.1f} s CPU), "
        f"**{logs['rows_per_s'] / 1e6:.2f}M rows/s**, database **{logs['db_bytes'] / 1e6:.0f} MB**; `--no-logs` "
        f"{bare['seconds']:.1f} s, {bare['db_bytes'] / 1e6:.0f} MB"
    )


def fioplot_json(results: Results) -> str:
    j = results("fioplot_collection")["json_1000"]
    ours, theirs = j["iolab"], j["fio_plot"]
    return (
        f"median of {j['rounds']}: iolab **{ours['process_s']:.2f} s** ({ours['cpu_s']:.2f} s CPU) against "
        f"fio-plot's loader **{theirs['process_s']:.2f} s** ({theirs['cpu_s']:.2f} s CPU, "
        f"{theirs['library_s']:.2f} s of it importing its library)"
    )


def fioplot_pairs(results: Results) -> str:
    """Pair by pair, unrounded: "never slower" is said only when no pair was slower."""
    rounds = results("fioplot_collection")["json_1000"]["every_round"]
    ours = [r["process_s"] for r in rounds["iolab"]]
    theirs = [r["process_s"] for r in rounds["fio_plot"]]
    faster = sum(a < b for a, b in zip(ours, theirs, strict=True))
    slower = sum(a > b for a, b in zip(ours, theirs, strict=True))
    return (
        f"iolab faster in {faster} of {len(ours)} pairs, slower in {slower} ({min(ours):.3f}–{max(ours):.3f} s "
        f"against {min(theirs):.3f}–{max(theirs):.3f} s)"
    )


def stopping_sweeps_speedup(results: Results) -> str:
    sweeps = results("stopping_sweeps")["sweeps"]
    return " and ".join(f"**{s['speedup']:.2f}** ({name})" for name, s in sweeps.items())


def stopping_sweeps_answers(results: Results) -> str:
    """How many knees and peak configurations agree, and the peak IOPS ratio's whole range, unrounded."""
    sweeps = results("stopping_sweeps")["sweeps"]
    same = [s for sweep in sweeps.values() for s in sweep["same"].values()]
    ratios = [s["peak_iops_ratio"] for s in same]
    return (
        f"the knees the same in {sum(s['knee'] for s in same)} of {len(same)} curves, the peak configurations in "
        f"{sum(s['peak'] for s in same)} of {len(same)}; peak IOPS stopped/fixed {min(ratios):.3f}–{max(ratios):.3f}"
    )


def stopping_coverage(results: Results) -> str:
    parts = []
    for row in results("stopping_coverage")["rows"]:
        holds, missed = row["interval_holds"], row["missed_by_more_than_target"]
        stop = "never known" if row["median_stop_s"] is None else f"stops at {row['median_stop_s']:g} s (median)"
        detail = "" if holds is None else f", interval holds {holds:.1%}, {missed:.1%} more than ±2% off"
        parts.append(f"{row['series']}: {stop}, known in {row['target_met_share']:.0%}{detail}")
    return "; ".join(parts)


def stopping_envelope(results: Results) -> str:
    """The held-out half of fio-plot's traces by group: coverage of the whole run's mean, stops, median stop,
    time saved beside the rule before issue 40's (`bench/stopping_envelope.py`), as a table."""
    figures = results("stopping_envelope")
    real, least = figures["real"], figures["rule"]["min_stops"]
    lines = [
        f"Measured {figures['when'][:10]}.",
        "",
        "| group | points | stops | whole run's mean inside | median stop | fio time saved | before: saved "
        "| ≥ half of before | before: inside |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    groups = sorted(real["held-out"].items(), key=lambda kv: (kv[0].split()[0], float(kv[0].split()[1])))
    for name, g in [*groups, ("all groups", real["overall"]["held-out"])]:
        holds = "–" if g["holds_whole_mean"] is None else f"**{g['holds_whole_mean']:.1%}**"
        few = f" (fewer than {least})" if g["stops"] < least else ""
        stop = "–" if g["median_stop_s"] is None else f"{g['median_stop_s']:g} s"
        half = 0.5 * g["today"]["time_saved"]
        enough = "yes" if g["time_saved"] >= half else f"**no ({half:.1%} needed)**"
        lines.append(
            f"| {name} | {g['points']} | {g['stops']}{few} | {holds} | {stop} | {g['time_saved']:.1%} "
            f"| {g['today']['time_saved']:.1%} | {enough} | {g['today']['holds_whole_mean']:.1%} |"
        )
    return "\n" + "\n".join(lines) + "\n"


def telemetry_overhead(results: Results) -> str:
    r = results("telemetry_overhead")
    share = r["sampler_cpu_share_of_one_core"]
    return (
        f"sampler uses {share['1s']:.2%} of one core at 1 Hz ({share['0.1s']:.2%} at 10 Hz); A/B median ratio "
        f"{r['median_ratio']:.3f} (min {r['min_ratio']:.3f}), off-run COV {r['off_iops_cov']:.1%}"
    )


def perf_window(results: Results) -> str:
    """By bin: the seconds perf's old window counted before and after fio's measured ones, and cycles per I/O as it read
    them over the measured seconds' (the host's busy CPU time standing in for cycles), median and range."""
    r = results("perf_window")
    rows = []
    for b in r["bins"]:
        ratio = b["old_over_new_cycles_per_io"]
        rows.append(
            f"{b['workload']}, ramp {b['ramp_s']} s, {b['runtime_s']} s: {b['old_before_s']['median']:.2f} s before, "
            f"{b['old_after_s']['median']:.2f} s after, **{ratio['median']:.3f}** "
            f"({ratio['min']:.3f}–{ratio['max']:.3f}, n {b['n']})"
        )
    load = r["load_average_at_end"][0]
    return "; ".join(rows) + f" ({r['when'][:10]}, load average {load:.1f} at the end)"


def history_speed(results: Results) -> str:
    r = results("history_speed")
    return (
        f"{r['median_total_s']:.2f} s median of {r['repeats']} (max {r['max_total_s']:.2f} s), change points "
        f"{r['median_change_points_s']:.3f} s, rolling health {r['median_rolling_health_s']:.3f} s"
    )


def history_cli_speed(results: Results) -> str:
    r = results("history_cli_speed")
    return f"{r['median_s']:.2f} s median of {r['repeats']} (max {r['max_s']:.2f} s) over {r['runs']:,} runs"


def history_scale(results: Results) -> str:
    r = results("history_scale")
    f = r["figures"]
    return (
        f"`history` **{f['history']['median_s']:.3f} s** (max of {r['repeats']}: {f['history']['max_s']:.2f} s; "
        f"{f['history']['median_cpu_s']:.2f} s CPU), `history --json` {f['history_json']['median_s']:.2f} s, `ls` "
        f"**{f['ls']['median_s']:.3f} s** (max {f['ls']['max_s']:.2f} s), `ls --json` {f['ls_json']['median_s']:.2f} s, "
        f"one series' runs {f['history_one_series_all']['median_s']:.2f} s; load average "
        f"{r['load_average_before'][0]:.1f} before, {r['load_average_after'][0]:.1f} after"
    )


def startup(results: Results) -> str:
    r = results("startup")
    wall = f"{r['help_s']:.2f} s; {r['ls_s']:.2f} s (`ls --limit {r['runs']} --json` {r['ls_all_json_s']:.2f} s)"
    costs = r.get("commands", {})  # CPU-s and modules a process, on a store of 20 runs (older results: none)
    shown = [f"`{name}` {costs[name]['cpu_s']:.2f} CPU-s, {costs[name]['modules']} modules" for name in STARTUP_SHOWN]
    return f"{wall}; {'; '.join(shown)}" if all(name in costs for name in STARTUP_SHOWN) else wall


STARTUP_SHOWN = ("--help", "run --dry-run", "ls", "show")


def dryrun_accuracy(results: Results) -> str:
    r = results("dryrun_accuracy")
    return (
        f"{r['points']} points of {r['runtime_s']} s: estimated {r['estimate_s']:.0f} s, took {r['wall_s']:.1f} s "
        f"({r['relative_error']:+.1%}; goal within {r['goal']:.0%})"
    )


def html_report_size(results: Results) -> str:
    r = results("html_report_size")
    return (
        f"{r['size_bytes'] / 1e6:.2f} MB, {r['charts']} charts; Chromium lays it out in "
        f"{r['chromium_render_seconds']:.2f} s over about:blank; made in {r['make_seconds']:.1f} s"
    )


def loop_vs_fio(results: Results) -> str:
    r = results("loop_vs_fio")
    ratios = ", ".join(f"{name} {p['median_bw_ratio']:.3f}" for name, p in r["points"].items())
    covs = [p[k] for p in r["points"].values() for k in ("bare_bw_cov", "iolab_bw_cov")]
    return f"{ratios} (COV of either side {min(covs):.1%}–{max(covs):.1%})"


def calibration(results: Results) -> str:
    r = results("calibration")
    clean = r["clean"]
    quiet = sum(1 for c in clean if not c["false_alarms"])
    named = sum(1 for c in clean if c["interference_named"])
    alarms = len(clean) - quiet
    return (
        f"false alarms (dip, step, outlier, scaling warnings or criticals): **{alarms} in {len(clean)}** clean runs; "
        f"TEL-INTERFERENCE named the load in {named} of {len(clean)}"
    )


def _pct(rate: dict) -> str:
    return f"{rate['rate']:.1%} ({rate['hits']:,} of {rate['of']:,})"


def calibration_arrays(results: Results) -> str:
    arrays = results("simulated_arrays")
    held, val = arrays["held_out"], arrays["validation"]
    chosen = ", ".join(f"{k} {v:g}" for k, v in arrays["chosen"].items())

    def by_spread(figures: dict, key: str) -> str:
        return "; ".join(f"{k}: {_pct(v)}" for k, v in figures[key].items())

    lines = [
        f"Simulated arrays (`bench/simulated_arrays.py`, {arrays['when'][:10]}; parameters chosen on the even "
        f"positions of seeds "
        f"{arrays['seeds']}: {chosen}; the outlier test's from `bench/outlier_envelope.py`; figures on "
        f"{held['cases']:,} fresh seeds, {arrays['held_out_seeds']}, "
        "drawn once the method was fixed, each a clean array and its twins with one planted fault):",
        "",
        "| rule | false alarms on clean arrays | recall on its fault |",
        "|---|---|---|",
        f"| ARR-OUTLIER | {_pct(held['false_alarms']['ARR-OUTLIER'])}; arrays whose peers spread normally: "
        f"{held['normal_spread_false_alarms']:.2%} | one or two drives at 20-70% of their own level, every one "
        f"named: {_pct(held['recall']['slow'])}; a drive at or below 60% of its peers' median: "
        f"**{_pct(held['recall_drive_at_most_60pct_of_peers'])}** |",
        f"| ARR-SHARED-PATH | {_pct(held['false_alarms']['ARR-SHARED-PATH'])} | - |",
        f"| ARR-SCALING-DROP | {_pct(held['false_alarms']['ARR-SCALING-DROP'])} | a saturating shared path: "
        f"{_pct(held['recall']['saturating'])} |",
        f"| TEL-DIP | {_pct(held['false_alarms']['TEL-DIP'])} | a 2-10 s dip to 10-40% (TEL-DIP or TEL-STEP): "
        f"{_pct(held['recall']['dip'])} |",
        f"| TEL-STEP | {_pct(held['false_alarms']['TEL-STEP'])} | a step down to 30-60%: {_pct(held['recall']['step'])} |",
        "",
        "A drive at or below 60% of its peers' median, by peer spread: "
        + by_spread(held, "recall_drive_at_most_60pct_of_peers_by_spread")
        + "; the only slow drive of its array: "
        + by_spread(held, "recall_lone_drive_at_most_60pct_of_peers_by_spread")
        + "; in arrays of 8 drives or more: "
        + by_spread(held, "recall_drive_at_most_60pct_of_peers_8_drives_or_more_by_spread")
        + ". The figure before issue 33's re-measure, per case with every drive at or below 60% of its own level: "
        + by_spread(held, "recall_slow_case_at_most_60pct_of_own_level_by_spread")
        + f". On the {val['cases']:,} odd positions of the seeds above (a second check: they were looked at while "
        f"the method was worked on), a drive at or below 60% of its peers' median: "
        + by_spread(val, "recall_drive_at_most_60pct_of_peers_by_spread")
        + f"; false alarms {_pct(val['false_alarms']['ARR-OUTLIER'])}.",
    ]
    return "\n" + "\n".join(lines) + "\n"


def calibration_envelope(results: Results) -> str:
    envelope = results("outlier_envelope")
    held = envelope["held_out"]

    def recall(size: str) -> str:
        rows = [(k.split(",")[0], v) for k, v in held["recall_at_most_60pct"].items() if k.endswith(f" {size} drives")]
        return "; ".join(
            f"{sigma} **{v['method']:.1%}** (oracle bound {v['bound']:.1%}, known sigma {v['ceiling']:.1%})"
            for sigma, v in rows
        )

    alarms = {k: v for k, v in held["false_alarms"].items() if "8-32" not in k}
    worst = max(alarms, key=lambda k: alarms[k]["method"])
    return (
        f"Outlier drives over the space an array can present (`bench/outlier_envelope.py`: 3-32 drives, "
        f"lognormal peers sigma 1-30%, AR(1) seconds with t3 noise; {held['arrays']:,} held-out arrays and their "
        f"twins; [arrays.md](arrays.md)), a drive at or below 60% of its peers named, 8-32 drives: "
        f"{recall('8-32')}; 3-7 drives: {recall('3-7')}. Clean arrays with a drive named: at most "
        f"{alarms[worst]['method']:.1%} in any bin ({worst}).{_envelope_families(envelope['beyond']['families'])}"
    )


def _by_sigma(rows: dict, part: str = "") -> str:
    """Recall rows pooled by their sigma bin (over the family's own bins, or those whose key holds `part`):
    method (oracle bound)."""
    pooled: dict[str, list[float]] = {}
    for key, row in rows.items():
        if part in key:
            cell = pooled.setdefault(key.split(",")[0], [0.0, 0.0, 0])
            cell[0] += row["method"] * row["of"]
            cell[1] += row["bound"] * row["of"]
            cell[2] += row["of"]
    return "; ".join(f"{k} **{m / n:.1%}** ({b / n:.1%})" for k, (m, b, n) in pooled.items() if n)


def _envelope_families(families: dict) -> str:
    """The families beyond the space, as the outlier figure's second half (empty before they were run)."""
    if "HBA groups, fresh seeds" not in families:
        return ""
    hba, models, huge = families["HBA groups, fresh seeds"], families["two drive models"], families["above 128 drives"]
    clean = max(row["method"] for row in hba["false_alarms"].values())
    grouped = models["without_models"]["clean_arrays_with_the_slower_model_named_as_a_group"]
    return (
        f" A slow group of drives behind one HBA (8-128 drives, 2 drives up to half of them, fresh seeds "
        f"{hba['seeds']}), drives at or below 60% named (oracle bound): {_by_sigma(hba['recall_at_most_60pct'])}; "
        f"clean arrays with a correlated group at most {clean:.1%} in any bin. Arrays of 129-512 drives: "
        f"{_by_sigma(huge['recall_at_most_60pct'])}. Drives of two models (the slower at 60-80%), each model judged "
        f"against its own: clean arrays {models['clean_alarm_share']:.1%} with a drive named, slow drives "
        f"{_by_sigma(models['recall_at_most_60pct'])}; without the models, the slower model is named as a slow "
        "group (the finding says a slower model would look the same) in "
        + ", ".join(f"{v:.0%} ({k})" for k, v in grouped.items())
        + " of clean arrays."
    )


def _found(cell: dict) -> str:
    """A step-recall bin: found (oracle bound) of how many."""
    if not cell["steps"]:
        return "no steps"
    return f"{cell['recall']:.0%} ({cell['oracle']:.0%} of {cell['steps']})"


def calibration_histories(results: Results) -> str:
    histories = results("simulated_histories")
    h = histories["held_out"]
    f, r, o = h["false_change_points"], h["step_recall"], h["outlier_runs"]

    def rates(name: str) -> str:
        return ", ".join(f"{k} {v['per_1000_runs']:.2g}" for k, v in f[name].items())

    recall = "; ".join(
        f"{size}: " + ", ".join(f"COV {cov} {_found(cell)}" for cov, cell in cells.items())
        for size, cells in r["size_by_cov"].items()
    )
    by_phi = "; ".join(
        f"{size}: " + ", ".join(f"phi {phi} {_found(cell)}" for phi, cell in cells.items())
        for size, cells in r["size_by_phi"].items()
    )
    chosen = histories["chosen"]
    return (
        f"Simulated monitoring histories (`bench/simulated_histories.py`, {h['histories']:,} held-out histories, "
        f"{h['runs']:,} runs; [history.md](history.md)): **{f['all']['per_1000_runs']:.2g}** false change "
        f"points per 1,000 runs in {f['all']['runs']:,} runs of histories spanning three of each cycle they hold (by COV: {rates('cov')}; noise: {rates('noise')}; phi: {rates('phi')}; daily cycle: "
        f"{rates('daily_cycle')}; runs: {rates('runs')}; of them {f['all']['of_them_4_to_10_runs_from_a_true_step']} lie 4-10 runs from a true "
        f"step and {f['all']['of_them_at_a_burst_of_outlier_runs']} at a burst of outlier runs). Steps with 20 runs or more a side found within 3 runs, "
        f"beside the oracle bound: {recall}. By correlation: {by_phi}. {_outlier_corpus(histories['outlier_corpus'])} "
        f"In the draw above ({h['runs']:,} runs, too few to tell 1.0 from 1.2 per 10,000): t4 "
        f"{o['t4']['false_per_10000_runs']:.2g}, Gaussian {o['gaussian']['false_per_10000_runs']:.2g}; planted "
        f"ones found {o['gaussian']['recall']:.0%} (Gaussian) and {o['t4']['recall']:.0%} (t4). Chosen on the other "
        f"half: outlier cut {chosen['outlier_sigmas']:g} sds, p {chosen['max_pvalue']:g}. Issue 33's series: "
        f"change point at index {histories['issue_example']['change_points']}, outlier run "
        f"{histories['issue_example']['outlier_runs']}. {_must_show(histories)}"
    )


def _rate_text(cell: dict) -> str:
    """A false rate per 1,000 runs with its 95% interval and count."""
    low, high = cell["per_1000_runs_95"]
    return f"{cell['per_1000_runs']:.2g} ({low:.2g}-{high:.2g}; {cell['count']})"


def history_placement_floor(results: Results) -> str:
    """The false change points per 1,000 runs that no method reporting every step the oracle finds avoids
    (steps no one places within 3 runs), beside iolab's own rate on the same held-out histories, by length."""
    r = results("history_placement_floor")
    bins = []
    for label in ("30-199", "200-1,999", "2,000-17,520"):
        floor, iolab = r[label]["floor"], r[label]["iolab"]
        bins.append(
            f"{label} runs ({floor['runs']:,} runs): floor **{_rate_text(floor['steps_the_oracle_finds'])}**, "
            f"{floor['every_step']['per_1000_runs']:.2g} if every step is reported; iolab {_rate_text(iolab)}"
        )
    return "; ".join(bins)


def _must_show(histories: dict) -> str:
    """The issue's step targets on their own fresh held-out histories, and the short histories' false change
    points (counted once a history spans three of each cycle it holds)."""
    cells = "; ".join(
        f"{name} {cell['recall']:.1%} (oracle {cell['oracle']:.1%}) of {cell['steps']}, target {cell['target']:.0%}"
        for name, cell in histories["must_show_steps_fresh"].items()
    )
    short = histories["short_held_out"]["false_change_points"]["runs_phi_at_most_0.7"]
    rates = ", ".join(f"{k} runs {v['per_1000_runs']:.2g}" for k, v in short.items() if v["per_1000_runs"] is not None)
    return (
        f"The issue's step targets on fresh held-out histories (phi up to 0.7, found within 3 runs): {cells}. "
        f"Short histories' own held-out set, false change points per 1,000 runs (phi up to 0.7): {rates}."
    )


def _outlier_corpus(corpus: dict) -> str:
    """Unplanted outlier runs under t4 noise in the held-out outlier corpus, by history length with its 95%
    interval: the corpus is drawn large enough to tell 1.0 from 1.2 per 10,000, the main draw is not."""
    held = corpus["held_out"]
    bins = ", ".join(
        f"{size} runs {cell['t4_false_per_10000']:.2f} ({cell['t4_false_per_10000_95'][0]:.2f}-"
        f"{cell['t4_false_per_10000_95'][1]:.2f})"
        for size, cell in held["runs"].items()
    )
    by_phi = ", ".join(
        f"phi {phi} {cell['t4_false_per_10000']:.2f} ({cell['t4_false_per_10000_95'][0]:.2f}-"
        f"{cell['t4_false_per_10000_95'][1]:.2f})"
        for phi, cell in held["phi"].items()
        if cell["t4_runs"]
    )
    every = held["all"]
    return (
        f"Unplanted outlier runs under t4 noise per 10,000 runs (held-out outlier corpus, {every['t4_runs']:,} t4 "
        f"runs in {every['histories']:,} histories; 95% interval): **{every['t4_false_per_10000']:.2f}** "
        f"({every['t4_false_per_10000_95'][0]:.2f}-{every['t4_false_per_10000_95'][1]:.2f}); by length: {bins}; "
        f"by phi: {by_phi}; planted runs under Gaussian noise found {every['gaussian_recall']:.0%}."
    )


def calibration_traces(results: Results) -> str:
    traces = results("fioplot_traces")
    fa, reported = traces["false_alarms"], traces["planted"]["reported"]
    bins = "; ".join(f"{label} s: {_share(b)}" for label, b in reported["eligible_by_length_s"].items() if b["twins"])
    return (
        f"fio-plot's real traces (`bench/fioplot_traces.py`, {traces['points_judged']:,} points judged, "
        f"{traces['points_too_short_to_judge']} too short): **{traces['share_without']:.1%}** without a dip or "
        f"step finding; the {traces['points_with_a_finding']} others ({traces['findings']} findings) are listed with "
        f"their reasons in `bench/fioplot_events.toml` ({len(traces['not_listed'])} unlisted): "
        f"{traces['listed_events']} true events (warm-ups, RAID stalls, controller-cache steps, periodic drops on "
        f"full SSDs) and {traces['listed_false_alarms']} judged false (floppies counted in whole I/Os, a noisy USB SSD); findings on points "
        f"not judged real: "
        f"**{fa['reported']['per_point']:g} per point** on the reported half ({fa['reported']['findings_on_them']} on "
        f"{fa['reported']['points_not_judged_real']:,}), {fa['tuning']['per_point']:g} on the tuning half. A dip of 2 s "
        f"to half the point planted in each point's twin (reported half, {reported['twins']} twins): found "
        f"{reported['recall']:.1%}; at depth >= 30% and >= 3x the point's robust per-second sd "
        f"({reported['eligible_twins']} twins), **{reported['eligible_recall']:.1%}**, onset within 1 s of the "
        f"planted shape's start in **{_share_of(reported['eligible']['shape_onset_within_1s'])}** of those found "
        f"({_share_of(reported['eligible']['onset_within_1s'])} of its first second 12.5% down); by length: {bins}."
    )


def calibration_dips_edges(results: Results) -> str:
    """Dips at a run's edges and shallow steps that last (bench/dips_edges.py, held out), by edge bin with the
    weakest COV bin of each beside it."""
    d = results("dips_edges")
    h = d["held_out"]
    a = h["after"]
    cells = []
    for label, b in a["recall_by"]["edge"].items():
        onset = a["onset_within_1s_of_found_by_edge"].get(label, {}).get("rate")
        by_cov = {k: v for k, v in a["recall_by"]["edge x COV"].items() if k.startswith(label + ",") and v["n"]}
        weak_key, weak = min(by_cov.items(), key=lambda kv: kv[1]["rate"]) if by_cov else ("", None)
        weakest = f"; weakest {weak_key.rsplit(', ', 1)[1]} {weak['rate']:.1%} of {weak['n']}" if weak else ""
        cells.append(f"{label}: {b['rate']:.1%} of {b['n']:,} (onset +-1 s {_share_of(onset)}{weakest})")
    misread, clean = a["step_misread_as_dip"], a["false_per_clean_run"]
    return (
        f"Dips at a run's edges (`bench/dips_edges.py`, held-out seeds {h['seeds'][0]:,}.., {d['cases_per_kind']['held_out']:,} "
        f"runs a kind of 20-600 s, windows of 0.5-2 s, COV 1-15%, phi 0-0.7, Gaussian or t3; `recovered_z` "
        f"{h['recovered_z']:g}), found by TEL-DIP: " + "; ".join(cells) + f". Steps of 20-60% that last to the end "
        f"read as a dip that recovered: **{misread['rate']:.1%}** of {misread['n']:,} (told by TEL-STEP "
        f"{a['step_found_as_step']['rate']:.1%}); false findings per clean run {clean:.4f}."
    )


def _share(b: dict) -> str:
    """A length bin's recall of how many, and its onset within 1 s of the shape's start (of 12.5% down)."""
    onset = (
        ""
        if b.get("shape_onset_within_1s") is None
        else f", onset +-1 s {b['shape_onset_within_1s']:.0%} ({b['onset_within_1s']:.0%})"
    )
    return f"{b['recall']:.1%} of {b.get('twins', b.get('cases'))}{onset}"


def calibration_dips(results: Results) -> str:
    d = results("dips_envelope")
    h = d["held_out"]
    lines = [
        f"Dips and steps over the declared space (`bench/dips_envelope.py`: runs of 30-600 s, dips of 2 s to half "
        f"the run shaped as rectangles, ramps, V's and noisy bottoms, 10-100% deep, per-second COV 1-15%, AR(1) phi "
        f"0-0.7, Gaussian or t3 shocks; penalty {d['params']['penalty']:g} chosen on seeds "
        f"{d['tuning']['seeds'][0]}..{d['tuning']['seeds'][1] - 1}; {h['all']['cases']:,} held-out seeds "
        f"{h['seeds'][0]}..{h['seeds'][1] - 1}). Oracle: a matched filter knowing the shape, length and noise, at "
        f"the rules' own false-alarm rate ({h['false_alarm_rate_used_by_oracle']:.1%} of clean runs). A dip's onset is "
        f"judged against the shape's first second (the rules date a gradual descent from where it starts), and beside "
        f"it against the first second {d['params']['shoulder']:.1%} below the level (where a V's edge gets that deep).",
        "",
        "| dip length | found (depth >= 30%, >= 3x sd) | oracle | onset +-1 s of the shape's start | (of 12.5% down) "
        "| found (all depths) | oracle |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, b in h["eligible_by_length_s"].items():
        a = h["all_by_length_s"][label]
        lines.append(
            f"| {label} s | {_share_of(b['recall'])} of {b['cases']} | {_share_of(b['oracle'])} | {_share_of(b.get('shape_onset_within_1s'))} "
            f"| {_share_of(b['onset_within_1s'])} | {_share_of(a['recall'])} of {a['cases']} | {_share_of(a['oracle'])} |"
        )
    shapes = ", ".join(
        f"{name} {_share_of(b['recall'])} (onset +-1 s {_share_of(b.get('shape_onset_within_1s'))})"
        for name, b in h["eligible_by_shape"].items()
        if b["cases"]
    )
    depths = ", ".join(
        f"{label} {_share_of(b['recall'])} (oracle {_share_of(b['oracle'])})" for label, b in h["all_by_depth"].items()
    )
    clean = h["clean"]
    lines += [
        "",
        f"Depth >= 30% and >= 3x sd, holding {d['params']['min_duration_s']:g} s, all lengths: "
        f"**{_share_of(h['eligible']['recall'])}** found of "
        f"{h['eligible']['cases']:,} (oracle {_share_of(h['eligible']['oracle'])}), onset within 1 s in "
        f"**{_share_of(h['eligible'].get('shape_onset_within_1s'))}** of the shape's start "
        f"({_share_of(h['eligible']['onset_within_1s'])} of its first second 12.5% down). "
        f"By shape (eligible): {shapes}. By depth (all): {depths}. False findings per clean run: "
        f"**{clean['false_per_run']:g}**; Gaussian shocks {clean['by_tails']['gaussian']['false_per_run']:g}, t3 "
        f"{clean['by_tails']['t3']['false_per_run']:g}; COV "
        + ", ".join(f"{k} {v['false_per_run']:g}" for k, v in clean["by_cov"].items())
        + ".",
    ]
    if "short" in d["scenarios"]:
        lines += _short_lines(d["scenarios"]["short"])
    if "onsets" in h and "gradual" in d["scenarios"]:
        lines += _onset_lines(h["onsets"], d["scenarios"]["gradual"])
    return "\n" + "\n".join(lines) + "\n"


def _short_lines(short: dict) -> list[str]:
    """The weak bin the main space does not draw: runs of 8-30 s with a dip starting and ending inside a second."""
    e = short["eligible"]
    bins = ", ".join(
        f"{label} s {_share_of(b['recall'])} of {b['cases']}"
        for label, b in short["eligible_by_length_s"].items()
        if b["cases"]
    )
    return [
        "",
        f'Scenario "short" (runs of 8-30 s, one dip starting and ending at any tenth of a second, sampled once a '
        f"second; seeds {short['seeds'][0]:,}..{short['seeds'][1] - 1:,}), a weak bin: depth >= 30% and >= 3x sd, "
        f"**{_share_of(e['recall'])}** found of {e['cases']} (the oracle {_share_of(e['oracle'])}, knowing the noise "
        f"model {_share_of(e['oracle_own_noise'])}); by length {bins}; false findings per clean run "
        f"{short['clean']['false_per_run']:g}.",
    ]


def _onset_lines(main: dict, gradual: dict) -> list[str]:
    """Onset within 1 s of the shape's start beside the onset oracle (the maximum-likelihood hinge start knowing
    the level, phi and the shape family), on the eligible dips found: the "gradual" scenario by shape and length,
    and by how steeply the dip falls against the noise (where no method dates it to a second)."""
    g = gradual["onsets"]

    def cell(table: dict, key: str) -> str:
        c = table.get(key) or {"found": 0}
        return f"{_share_of(c['iolab'])} / {_share_of(c['oracle'])} of {c['found']}" if c["found"] else "-"

    lengths = [label.split(" ", 1)[1] for label in g["by_shape_and_length_s"] if label.startswith("V ")]
    slopes = [label.split(" ", 1)[1] for label in g["by_shape_and_slope"] if label.startswith("V ")]
    lines = [
        "",
        f"Onset within 1 s of the shape's start, iolab / the onset oracle (the maximum-likelihood start of a hinge "
        f"knowing the level, phi and that the shape falls straight from it), eligible dips found: main space "
        f'{cell(main, "all")}; V\'s {_shape_total(main, "V")}. Scenario "gradual" (runs of 30-3,600 s; '
        f"trapezoids falling over a third of their length, V's, rectangles; seeds {gradual['seeds'][0]:,}.."
        f"{gradual['seeds'][1] - 1:,}): {cell(g, 'all')}.",
        "",
        "| dip length | V | trapezoid | rectangle |",
        "|---|---|---|---|",
    ]
    table = g["by_shape_and_length_s"]
    lines += [
        f"| {label} s | {cell(table, 'V ' + label)} | {cell(table, 'trapezoid ' + label)} "
        f"| {cell(table, 'rectangle ' + label)} |"
        for label in lengths
    ]
    by_slope = g["by_shape_and_slope"]
    lines += [
        "",
        "| the fall, in the run's sd per second | V | trapezoid |",
        "|---|---|---|",
    ]
    lines += [
        f"| {label.replace('-1e+09', ' and over')} | {cell(by_slope, 'V ' + label)} "
        f"| {cell(by_slope, 'trapezoid ' + label)} |"
        for label in slopes
    ]
    return lines


def _shape_total(table: dict, shape: str) -> str:
    """iolab / the oracle over one shape's length cells of an onset table (the cells cover every length)."""
    cells = [
        c
        for k, c in table["by_shape_and_length_s"].items()
        if k.startswith(shape + " ") and c["found"] and c["iolab"] is not None and c["oracle"] is not None
    ]
    found = sum(c["found"] for c in cells)
    if not found:
        return "-"
    iolab = sum(round(c["iolab"] * c["found"]) for c in cells)
    oracle = sum(round(c["oracle"] * c["found"]) for c in cells)
    return f"{iolab / found:.1%} / {oracle / found:.1%} of {found}"


def _share_of(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def calibration_loops(results: Results) -> str:
    loops = results("calibration")
    clean, slow = loops["clean"], loops["slow_40pct_of_6"]
    quiet = sum(1 for c in clean if not c["false_alarms"])
    both = sum(1 for r in slow if r["views_named"] == ["alone", "together"] and not r["called_fine"])
    severities = sorted({s for r in slow for s in r["severities"]})
    return (
        f"Loop devices (`bench/calibration.py`, {loops['drives']} drives, `--runtime {loops['runtime_s']}`, a CPU "
        f"hog and an O_DIRECT reader running; {loops['when'][:10]}): no dip, outlier or scaling warning in "
        f"**{quiet} of {len(clean)}** clean runs; one of 6 drives at 40% named in both views and never called fine in "
        f"**{both} of {len(slow)}** runs (as {', '.join(severities) or '-'}); a 4 s window at 10% on one drive: "
        + ("; ".join(loops["dip_4s"]["found"]) or "not found")
        + "."
    )


def headline_sweep(results: Results) -> str:
    r = results("headline_sweep")
    findings = r["findings"]
    return (
        f"{findings.get('critical', 0)} critical, {findings.get('warning', 0)} warnings and {findings.get('info', 0)} "
        f"info in **{r['headline_groups']} headlines** (one per rule and cause), **{r['headlines_shown']} shown** "
        f"(at most {r['headline_limit']}), the rest counted: "
        f'"{r["more_headlines_line"] or "none"}" ({r["when"][:10]}, {r["seconds"]:.0f} s)'
    )


def mutation_score(results: Results) -> str:
    r = results("mutation")
    return (
        f"**{r['killed']} of {r['mutants']}** mutants killed, **{r['score']:.1%}** (goal {r['goal']:.0%}; "
        f"{r['per_module']} drawn from each of {len(r['modules'])} modules, seed {r['seed']})"
    )


def mutation_survivors(results: Results) -> str:
    survivors = results("mutation")["survivors"]
    if not survivors:
        return "none"
    return "; ".join(f"`{s['module']}:{s['line']}` {s['change']}" for s in survivors)


def safety(results: Results) -> str:
    r = results("safety_generative")
    return (
        f"{r['cases']:,} cases (seed {r['seed']}, {len(r['kinds'])} kinds): {r['refused']:,} refused, "
        f"{r['reached_fio']:,} reached fio ({r['paths_fio_touched']:,} paths it touched checked), "
        f"**{r['failed']} failed** (victims changed, paths outside the manifest, attacks that succeeded, runs "
        f"that ended ok after fio wrote elsewhere, tracebacks); {r['seconds']:.0f} s at a load average of "
        f"{r['host']['loadavg'][0]:.1f} on {r['host']['cpus']} CPUs"
    )


def safety_mutation(results: Results) -> str:
    r = results("safety_mutation")
    signals: dict[str, int] = {}
    for row in r["guards"]:
        for signal in {by.split("/", 1)[0] for by in row["by"]}:
            signals[signal] = signals.get(signal, 0) + 1
    by = ", ".join(f"{signal} {n}" for signal, n in sorted(signals.items(), key=lambda kv: (-kv[1], kv[0])))
    slowest = max((row["after_cases"] for row in r["guards"] if row["caught"]), default=0)
    return (
        f"**{r['caught']} of {r['registered']}** registered guards caught switched off, each within "
        f"{slowest} of {r['cases']} cases (guards caught by signal: {by})"
    )


def _replay_table(by_class: dict[str, dict]) -> str:
    """One row a device class and workload, held-out points only."""
    lines = [
        "| device class | workload | points | stopped known | interval holds the run to its end | within ±2% "
        "| median stop | fio time saved | not steady |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for key, s in by_class.items():
        device, workload = key.split(" | ")
        lines.append(
            f"| {device} | {workload} | {s['points']} | {s['stopped_known']} "
            f"| {_pct_or_dash(s['interval_holds_run_to_max_mean'])} | {_pct_or_dash(s['within_target_of_run_to_max_mean'])} "
            f"| {_secs(s['median_stop_s'])} | {_pct_or_dash(s['fio_time_saved'])} | {s['not_steady']} |"
        )
    return "\n".join(lines)


def _pct_or_dash(x: float | None) -> str:
    return "–" if x is None else f"{x:.1%}"


def _secs(x: float | None) -> str:
    return "–" if x is None else f"{x:g} s"


def stopping_replay(results: Results) -> str:
    """The replay's held-out figures and its table by device class and workload (`bench/stopping_replay.py`)."""
    figures = results("stopping_replay")
    held, chosen = figures["held_out"], figures["choose"]
    rule = figures["rule"]
    by_io = figures["held_out_by_io"]
    return "\n".join(
        [
            "",
            f"Replayed on {figures['replayed']:,} points of fio-plot's collection with per-job logs "
            f"(`bench/stopping_replay.py`, the runner's rule for a job as long as each trace: ±{rule['target_ci']:.0%}, "
            f"at least {rule['min_s']:g} s ({rule['write_min_s']:g} s for a point that writes), at most "
            f"{rule['max_s']}, which is also the run its interval must hold; "
            f"{figures['counts']['without_logs']:,} outputs have no logs; split by a hash of the path, not by drive: "
            f"the held-out figures by group are in `bench/stopping_envelope.py`'s table above). "
            f"Held-out half: {held['stopped_known']} of {held['points']} points stopped as known; their 95% "
            f"interval holds the mean of the point run to its end (warm-up set aside alike) in "
            f"**{_pct_or_dash(held['interval_holds_run_to_max_mean'])}** (reads {_pct_or_dash(by_io['reads']['interval_holds_run_to_max_mean'])}, "
            f"writes {_pct_or_dash(by_io['writes']['interval_holds_run_to_max_mean'])}), the whole run's mean with its "
            f"warm-up in {_pct_or_dash(held['interval_holds_whole_mean'])}, the second half's in "
            f"{_pct_or_dash(held['interval_holds_second_half_mean'])}; "
            f"{_pct_or_dash(held['within_target_of_run_to_max_mean'])} within ±2%, median stop "
            f"{_secs(held['median_stop_s'])} (reads {_secs(by_io['reads']['median_stop_s'])}, writes "
            f"{_secs(by_io['writes']['median_stop_s'])}), {_pct_or_dash(held['fio_time_saved'])} of fio time saved "
            f"(reads {_pct_or_dash(by_io['reads']['fio_time_saved'])}, writes {_pct_or_dash(by_io['writes']['fio_time_saved'])}), "
            f"{held['not_steady']} points not steady. (The other half, by the same hash: "
            f"{_pct_or_dash(chosen['interval_holds_run_to_max_mean'])} of {chosen['stopped_known']}.)",
            "",
            _replay_table(figures["held_out_by_class"]),
            "",
        ]
    )


FIGURES: dict[str, Callable[[Results], str]] = {
    "overhead.null": lambda results: overhead_target(results, "null"),
    "overhead.loop": lambda results: overhead_target(results, "loop"),
    "overhead.cpu": overhead_cpu,
    "time_to_answer": time_to_answer,
    "import_speed": import_speed,
    "fioplot.collection": fioplot_collection,
    "fioplot.json": fioplot_json,
    "fioplot.pairs": fioplot_pairs,
    "stopping_sweeps.speedup": stopping_sweeps_speedup,
    "stopping_sweeps.answers": stopping_sweeps_answers,
    "stopping_coverage": stopping_coverage,
    "stopping_envelope": stopping_envelope,
    "stopping_replay": stopping_replay,
    "telemetry_overhead": telemetry_overhead,
    "perf_window": perf_window,
    "history_speed": history_speed,
    "history_cli_speed": history_cli_speed,
    "history_scale": history_scale,
    "startup": startup,
    "dryrun_accuracy": dryrun_accuracy,
    "html_report_size": html_report_size,
    "loop_vs_fio": loop_vs_fio,
    "calibration": calibration,
    "calibration.arrays": calibration_arrays,
    "calibration.envelope": calibration_envelope,
    "calibration.histories": calibration_histories,
    "history.placement_floor": history_placement_floor,
    "calibration.traces": calibration_traces,
    "calibration.dips_edges": calibration_dips_edges,
    "calibration.dips": calibration_dips,
    "calibration.loops": calibration_loops,
    "headline_sweep": headline_sweep,
    "mutation.score": mutation_score,
    "safety": safety,
    "safety.mutation": safety_mutation,
    "mutation.survivors": mutation_survivors,
}


def reader(results_dir: Path) -> Results:
    """NAME -> the parsed bench/results/NAME.json, each read once."""
    cache: dict[str, dict] = {}

    def results(name: str) -> dict:
        if name not in cache:
            cache[name] = json.loads((results_dir / f"{name}.json").read_text())
        return cache[name]

    return results


def filled(readme: str, results_dir: Path = RESULTS) -> tuple[str, list[str]]:
    """A page's text with every marked figure written from the results, and the keys whose text changed.
    A marker naming no figure is a KeyError: a typo must not leave a figure unchecked."""
    results = reader(results_dir)
    changed: list[str] = []

    def fill(match: re.Match[str]) -> str:
        key = match["key"]
        text = FIGURES[key](results)
        if text != match["text"]:
            changed.append(key)
        return f"<!--fig:{key}-->{text}<!--/fig-->"

    return MARKED.sub(fill, readme), changed


def pages(root: Path = ROOT) -> list[Path]:
    """Every page a figure may sit on: README.md and the pages under docs/."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def placed(texts: dict[str, str]) -> dict[str, list[str]]:
    """KEY -> the pages (by name) whose text marks it."""
    where: dict[str, list[str]] = {}
    for name, text in texts.items():
        for match in MARKED.finditer(text):
            where.setdefault(match["key"], []).append(name)
    return where


def problems(texts: dict[str, str]) -> list[str]:
    """A figure no page marks, or one marked twice (on one page or two): either is a page out of step."""
    where = placed(texts)
    unused = sorted(set(FIGURES) - set(where))
    twice = sorted(f"{key} ({', '.join(names)})" for key, names in where.items() if len(names) > 1)
    return ([f"figures with no marker on any page: {', '.join(unused)}"] if unused else []) + (
        [f"figures marked more than once: {'; '.join(twice)}"] if twice else []
    )


def refill(texts: dict[str, str], write: bool) -> list[str]:
    """ "PAGE: KEY" for every figure whose text differs from the results; with `write`, those pages rewritten."""
    changed: list[str] = []
    for name, text in texts.items():
        new, keys = filled(text)
        changed += [f"{name}: {key}" for key in keys]
        if keys and write:
            (ROOT / name).write_text(new, encoding="utf-8")
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which figures differ (exit 1 if any)")
    args = parser.parse_args()
    texts = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in pages()}
    trouble = problems(texts)
    changed = refill(texts, write=not args.check)
    for line in trouble:
        print(line)
    if args.check and changed:
        print(f"pages disagree with bench/results in: {', '.join(changed)} (run bench/readme_figures.py)")
    elif not args.check:
        print(f"{len(changed)} figures rewritten" + (f" ({', '.join(changed)})" if changed else ""))
    return 1 if trouble or (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
