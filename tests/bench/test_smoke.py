"""Every script under bench/ runs at its smoke size (`--smoke`) and writes its result, so none can break
silently between the times someone measures with it.

A smoke run's figures mean nothing (seconds of fio on a busy machine); what is held is that the script
runs to the end, exits 0 and writes its JSON, marked as a smoke run, to the directory the test gives it
(never bench/results). A new script under bench/ without an entry in SMOKE fails `make check`
(tests/bench/test_smoke_registry.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.chromium import chromium_skip_reason
from tests.loopdev import loop_skip_reason, throttle_skip_reason

BENCH = Path(__file__).resolve().parents[2] / "bench"
HELPERS = {
    "run_all.py",
    "readme_figures.py",
}  # `make bench` at full size; README.md and docs/ from the results


# script -> (the result file it writes, why it cannot run here or None)
SMOKE: dict[str, tuple[str, object]] = {
    "audit_short_dips.py": ("audit_short_dips.json", None),
    "blank_read.py": ("blank_read.json", loop_skip_reason),
    "calibration.py": ("calibration.json", throttle_skip_reason),
    "dips_edges.py": ("dips_edges.json", None),
    "dips_envelope.py": ("dips_envelope.json", "smoke run by tests/test_bench_smoke.py::test_dips_envelope_smoke"),
    "dryrun_accuracy.py": ("dryrun_accuracy.json", None),
    "fioplot_collection.py": ("fioplot_collection.json", None),
    "fioplot_traces.py": ("fioplot_traces.json", None),
    "headline_sweep.py": ("headline_sweep.json", loop_skip_reason),
    "history_cli_speed.py": ("history_cli_speed.json", None),
    "history_false_anatomy.py": ("history_false_anatomy.json", None),
    "history_false_classes.py": ("history_false_classes.json", None),
    "history_false_profiles.py": ("history_false_profiles.json", None),
    "history_misplaced_oracle.py": ("history_misplaced_oracle.json", None),
    "history_near_steps.py": ("history_near_steps.json", None),
    "history_phi_selection.py": ("history_phi_selection.json", None),
    "history_placement_floor.py": ("history_placement_floor.json", None),
    "history_scale.py": ("history_scale.json", None),
    "history_speed.py": ("history_speed.json", None),
    "history_unplaced.py": ("history_unplaced_tuning.json", None),
    "invariants_collection.py": ("invariants_collection.json", None),
    "html_report_size.py": ("html_report_size.json", chromium_skip_reason),
    "import_speed.py": ("import_speed.json", None),
    "independent_audit.py": ("independent_audit.json", None),
    "loop_memory_control.py": ("loop_memory_control.json", loop_skip_reason),
    "loop_vs_fio.py": ("loop_vs_fio.json", loop_skip_reason),
    "make_run_time.py": ("make_run_time.json", None),
    "many_hosts.py": ("many_hosts.json", None),
    "mutation.py": ("mutation.json", None),
    "outlier_beyond.py": ("outlier_beyond.json", None),
    "outlier_clean.py": ("outlier_clean.json", None),
    "outlier_gap.py": ("outlier_gap.json", None),
    "outlier_split_backstop.py": ("outlier_split_backstop.json", None),
    "outlier_mixture_cuts.py": ("outlier_mixture_cuts.json", None),
    "outlier_told_generator.py": ("outlier_told_generator.json", None),
    "outlier_envelope.py": (
        "outlier_envelope.json",
        "smoke run by tests/test_bench_smoke.py::test_outlier_envelope_smoke",
    ),
    "onset_reach.py": ("onset_reach.json", None),
    "overhead.py": ("overhead.json", loop_skip_reason),
    "page_consistency.py": ("page_consistency.json", None),
    "perf_overhead.py": ("perf_overhead.json", None),
    "perf_window.py": ("perf_window.json", None),
    # run at smoke size, with assertions on what they wrote, by tests/test_bench_smoke.py (not twice here)
    "safety_generative.py": (
        "safety_generative.json",
        "smoke run by tests/test_bench_smoke.py::test_safety_benches_smoke",
    ),
    "safety_mutation.py": ("safety_mutation.json", "smoke run by tests/test_bench_smoke.py::test_safety_benches_smoke"),
    "sag_into_step.py": ("sag_into_step.json", None),
    "scaling_envelope.py": ("scaling_envelope.json", None),
    "simulated_arrays.py": (
        "simulated_arrays.json",
        "smoke run by tests/test_bench_smoke.py::test_simulated_arrays_smoke",
    ),
    "simulated_histories.py": (
        "simulated_histories.json",
        "smoke run by tests/test_bench_smoke.py::test_simulated_histories_smoke",
    ),
    "short_phi.py": ("short_phi.json", None),
    "short_sigma.py": ("short_sigma_tuning.json", None),
    "startup.py": ("startup.json", None),
    "stopping_coverage.py": ("stopping_coverage.json", None),
    "stopping_envelope.py": (
        "stopping_envelope.json",
        "smoke run by tests/test_bench_smoke.py::test_stopping_envelope_*",
    ),
    "stopping_fall.py": ("stopping_fall.json", throttle_skip_reason),
    "stopping_flat.py": ("stopping_flat.json", None),
    "stopping_quick.py": ("stopping_quick_ram.json", loop_skip_reason),
    "stopping_replay.py": ("stopping_replay.json", None),
    "stopping_second_split.py": ("stopping_second_split.json", None),
    "stopping_sweeps.py": ("stopping_sweeps.json", loop_skip_reason),
    "telemetry_overhead.py": ("telemetry_overhead.json", None),
    "time_to_answer.py": ("time_to_answer.json", loop_skip_reason),
    "trace_wander_cost.py": ("trace_wander_cost.json", None),
}


def bench_scripts() -> set[str]:
    """The scripts under bench/: every module a person runs (it has a `__main__` guard), helpers aside."""
    return {
        path.name
        for path in BENCH.glob("*.py")
        if 'if __name__ == "__main__":' in path.read_text(encoding="utf-8") and path.name not in HELPERS
    }


# The smokes take minutes in all; `make test` gives each test module to one worker (`--dist loadfile`), so
# they are dealt over SHARDS modules (this one and tests/bench/test_smoke_shard_N.py) to run side by side.
SHARDS = 4


def shard(number: int) -> list[str]:
    """The scripts whose smoke runs in shard `number`: every SHARDS-th in name order."""
    return sorted(SMOKE)[number::SHARDS]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
@pytest.mark.parametrize("script", shard(0))
def test_bench_runs_at_its_smoke_size(script, tmp_path):
    run_smoke(script, tmp_path)


def run_smoke(script: str, tmp_path: Path) -> None:
    """The script at its smoke size, exiting 0 with its result file written and marked as a smoke run."""
    result, skip = SMOKE[script]
    reason = skip() if callable(skip) else skip
    if reason:
        pytest.skip(str(reason))
    env = {**os.environ, "IOLAB_BENCH_RESULTS": str(tmp_path / "results")}
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--smoke"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{script} --smoke exited {done.returncode}: {done.stderr[-1500:]}"
    written = tmp_path / "results" / result
    assert written.is_file(), f"{script} --smoke wrote no {result}: {done.stdout[-500:]}"
    record = json.loads(written.read_text())
    assert record["smoke"] is True and record["benchmark"]
