"""The README's calibration figures, written from the benches' results files (never typed by hand).

Reads bench/results/{simulated_arrays,simulated_histories,fioplot_traces,calibration}.json and replaces the block
between the README's calibration markers; `tests/test_calibration_readme.py` checks the README holds
exactly what this script writes from the committed results.

    python bench/calibration_readme.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
README = ROOT / "README.md"
START = "<!-- calibration figures: written by bench/calibration_readme.py from bench/results -->"
END = "<!-- end of calibration figures -->"


def _pct(rate: dict) -> str:
    return f"{rate['rate']:.1%} ({rate['hits']:,} of {rate['of']:,})"


def block() -> str:
    """The Markdown between the markers."""
    arrays = json.loads((RESULTS / "simulated_arrays.json").read_text())
    histories = json.loads((RESULTS / "simulated_histories.json").read_text())
    traces = json.loads((RESULTS / "fioplot_traces.json").read_text())
    held = arrays["held_out"]
    lines = [
        START,
        "",
        f"Simulated arrays (`bench/simulated_arrays.py`, seeds {arrays['seeds']}; the outlier z cut chosen on the "
        f"even seeds, {arrays['chosen_z_cut']:g}, figures on the {held['cases']:,} odd ones, each a clean array and "
        "its twins with one planted fault):",
        "",
        "| rule | false alarms on clean arrays | recall on its fault |",
        "|---|---|---|",
        f"| ARR-OUTLIER | {_pct(held['false_alarms']['ARR-OUTLIER'])} | one or two drives at 20-70%: "
        f"{_pct(held['recall']['slow'])}; a drive at or below 60%: **{_pct(held['recall_slow_at_most_60pct'])}** |",
        f"| ARR-SHARED-PATH | {_pct(held['false_alarms']['ARR-SHARED-PATH'])} | - |",
        f"| ARR-SCALING-DROP | {_pct(held['false_alarms']['ARR-SCALING-DROP'])} | a saturating shared path: "
        f"{_pct(held['recall']['saturating'])} |",
        f"| TEL-DIP | {_pct(held['false_alarms']['TEL-DIP'])} | a 2-10 s dip to 10-40% (TEL-DIP or TEL-STEP): "
        f"{_pct(held['recall']['dip'])} |",
        f"| TEL-STEP | {_pct(held['false_alarms']['TEL-STEP'])} | a step down to 30-60%: {_pct(held['recall']['step'])} |",
        "",
        "A drive at or below 60% of its peers, by peer spread: "
        + "; ".join(f"{k}: {_pct(v)}" for k, v in held["recall_slow_at_most_60pct_by_spread"].items())
        + ".",
        "",
    ]
    h = histories["held_out"]
    lines += [
        f"Simulated histories (`bench/simulated_histories.py`, {h['histories']:,} held-out histories, "
        f"{h['runs']:,} runs): 10% steps found **{h['recall_10pct_steps']:.1%}** of {h['steps']:,}; "
        f"**{h['false_per_1000_runs']:g}** false change points per 1,000 runs; lone outlier runs found "
        f"{h['outlier_runs_recall']:.1%} of {h['outlier_runs_planted']:,}, {h['outlier_runs_false']} false "
        f"(cut chosen on the other half: {histories['chosen_outlier_sigmas']:g} sigma). Issue 33's series: change "
        f"point at index {histories['issue_example']['change_points']}, outlier run "
        f"{histories['issue_example']['outlier_runs']}.",
        "",
        f"fio-plot's real traces (`bench/fioplot_traces.py`, {traces['points_judged']:,} points judged, "
        f"{traces['points_too_short_to_judge']} too short): **{traces['share_without']:.1%}** without a dip or "
        f"step finding; the {traces['points_with_a_finding']} others are listed with their reasons in "
        f"`bench/fioplot_events.toml` ({len(traces['not_listed'])} unlisted): {traces['listed_events']} true events "
        f"(RAID warm-ups and stalls, controller-cache steps, periodic drops on full SSDs) and "
        f"{traces['listed_false_alarms']} false alarms (a floppy counted in whole I/Os); a 5 s dip to 10% planted in each "
        f"point's twin was named in {traces['planted_twins_named']:,} of {traces['points_judged']:,}.",
        "",
    ]
    loops = json.loads((RESULTS / "calibration.json").read_text())
    if "slow_40pct_of_6" in loops:  # the format since issue 33 (10 s points, the 40% drive run as often as clean)
        clean, slow = loops["clean"], loops["slow_40pct_of_6"]
        quiet = sum(1 for c in clean if not c["false_alarms"])
        both = sum(1 for r in slow if r["views_named"] == ["alone", "together"] and not r["called_fine"])
        severities = sorted({s for r in slow for s in r["severities"]})
        dip = loops["dip_4s"]
        lines += [
            f"Loop devices (`bench/calibration.py`, {loops['drives']} drives, `--runtime {loops['runtime_s']}`, a CPU "
            f"hog and an O_DIRECT reader running): no dip, outlier or scaling warning in **{quiet} of {len(clean)}** "
            f"clean runs; one of 6 drives at 40% named in both views and never called fine in **{both} of "
            f"{len(slow)}** runs (as {', '.join(severities) or '-'}); a 4 s window at 10% on one drive: "
            + ("; ".join(dip["found"]) or "not found")
            + ".",
            "",
        ]
    lines.append(END)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the README differs, write nothing")
    args = parser.parse_args()
    text = README.read_text()
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    new = head + block() + tail
    if args.check:
        return 0 if new == text else 1
    README.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
