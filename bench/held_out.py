"""What the simulated corpora share: their command line, and the split of their seeds into a half that
chooses a method's parameters and a half that reports figures nothing was tuned on.

A figure measured on the cases its parameters were chosen on says how well the parameters fit those
cases, not how the method does on the next array or history; so every corpus draws its cases from
consecutive seeds, chooses on the even positions and reports on the odd ones.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from results_file import RESULTS, add_smoke_flag

SMOKE_CASES = 8  # a smoke run only shows the corpus still runs: a few cases of each half

T = TypeVar("T")


@dataclass(frozen=True)
class Split:
    args: argparse.Namespace
    seeds: list[int]
    train: list[int]  # the even positions: parameters are chosen on these
    held_out: list[int]  # the odd positions: every reported figure (a second check, where `fresh` is drawn)
    fresh: list[int] = field(default_factory=list)  # seeds nothing was tuned or looked at on: the report


def corpus_args(
    description: str,
    cases: int,
    result: str,
    fresh_seed: int | None = None,
    extra: Callable[[argparse.ArgumentParser], None] | None = None,
) -> Split:
    """Parse --cases, --seed, --out and --smoke (a smoke run: SMOKE_CASES cases) and split the seeds; with
    `fresh_seed`, also --held-out-seed and --held-out-cases: a range of seeds apart from both halves; `extra`
    adds a corpus's own options."""
    parser = argparse.ArgumentParser(description=description)
    if extra is not None:
        extra(parser)
    parser.add_argument("--cases", type=int, default=cases, help="seeds, half to choose parameters, half to report")
    parser.add_argument("--seed", type=int, default=33, help="first seed")
    parser.add_argument("--out", type=Path, default=RESULTS / result)
    if fresh_seed is not None:
        parser.add_argument(
            "--held-out-seed", type=int, default=fresh_seed, help="first seed of the fresh held-out set"
        )
        parser.add_argument("--held-out-cases", type=int, help="cases of the fresh held-out set (default: --cases / 2)")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.cases = SMOKE_CASES
    if fresh_seed is not None and (args.smoke or args.held_out_cases is None):
        args.held_out_cases = args.cases // 2
    seeds = list(range(args.seed, args.seed + args.cases))
    fresh = [] if fresh_seed is None else list(range(args.held_out_seed, args.held_out_seed + args.held_out_cases))
    if set(fresh) & set(seeds):
        parser.error("the fresh held-out seeds overlap --seed .. --seed + --cases")
    return Split(args, seeds, seeds[0::2], seeds[1::2], fresh)


def choose(candidates: Sequence[T], passes: Callable[[T], bool]) -> T:
    """The first candidate (they are listed from the most sensitive) that passes on the training half; the
    last, the most conservative, when none does."""
    return next((c for c in candidates if passes(c)), candidates[-1])
