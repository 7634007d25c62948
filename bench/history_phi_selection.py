"""How low phi reads between the steps of the first look (issue 40, twenty-first look): the shipped reading of phi
(`history._first_look`: a look at phi 0, then phi read between the steps it found) on AR(1) runs without a step and
with one step halfway, by length and phi, over all draws and over those the first look split; beside it, the reading
with each split's selection bias, (1 + 4 phi) / n a split, put back (the term `history_noise` puts back for the
guard's own splits), and how often `NoiseModel.phi_upper` lies under the true phi.

Why: a short history's false change points read phi low (docs/history.md, twentieth look), and the first look splits
the runs where they wander, so the reading between its splits is a reading after a selection. This measures how much
of the shortfall that selection is, and how much of it the bias term would put back, without changing the method.

    python bench/history_phi_selection.py [--draws 300] [--seed 71000000] [--out PATH]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from results_file import add_smoke_flag, write_result

from iolab.analysis.history import ChangePointParams, _first_look
from iolab.analysis.history_noise import NoiseModel

LENGTHS = (40, 80, 150)
PHIS = (0.0, 0.35, 0.6)
COV = 0.04
STEP = -0.10  # 2.5 of the noise's sds
BURN = 50  # runs drawn before the first kept one, so that the AR(1) noise starts in its stationary state


def _ar1(rng: np.random.Generator, draws: int, n: int, phi: float):  # -> (draws, n) runs of sd COV around 1
    shocks = rng.standard_normal((draws, n + BURN)) * np.sqrt(1.0 - phi * phi)
    x = np.zeros_like(shocks)
    for t in range(1, n + BURN):
        x[:, t] = phi * x[:, t - 1] + shocks[:, t]
    return 1.0 + COV * x[:, BURN:]


def _cell(runs, phi: float) -> dict:
    """The readings of one (length, phi, step) cell: medians of phi as read and with the selection term, over all
    draws and over those the first look split, and the share whose phi_upper lies under the true phi."""
    params = ChangePointParams()
    n = runs.shape[1]
    read, term, splits, under = [], [], [], []
    for u in runs:
        sigma, phi_read, first = _first_look(u, params)
        read.append(phi_read)
        term.append(min(0.9, phi_read + len(first) * (1.0 + 4.0 * phi_read) / n))
        splits.append(len(first))
        under.append(NoiseModel(sigma, phi_read, None, None, n).phi_upper < phi)  # type: ignore[arg-type]
    read_a, term_a, split = np.array(read), np.array(term), np.array(splits) > 0

    def median(values) -> float | None:
        return round(float(np.median(values)), 3) if len(values) else None

    return {
        "draws": len(read),
        "split_share": round(float(split.mean()), 3),
        "read": median(read_a),
        "read_where_split": median(read_a[split]),
        "with_term_where_split": median(term_a[split]),
        "phi_upper_under_true": round(float(np.mean(under)), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=300, help="draws per cell")
    parser.add_argument("--seed", type=int, default=71_000_000)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "history_phi_selection.json")
    add_smoke_flag(parser)
    args = parser.parse_args()
    draws = 3 if args.smoke else args.draws
    cells = []
    for i, (n, phi, step) in enumerate((n, p, s) for n in LENGTHS for p in PHIS for s in (0.0, STEP)):
        runs = _ar1(np.random.default_rng([args.seed, i]), draws, n, phi)
        runs[:, n // 2 :] *= 1.0 + step
        cells.append({"runs": n, "phi": phi, "step": step, **_cell(runs, phi)})
        print(cells[-1], flush=True)
    write_result(args.out, "history_phi_selection", {"seed": args.seed, "cov": COV, "cells": cells}, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main())
