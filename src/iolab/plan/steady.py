"""SNIA PTS steady state across rounds: is the tracking metric flat yet?

PTS (SSS PTS v2.0.2, definition 2.1.24): over a measurement window of the
last 5 rounds, the range max-min must be within 20% of the window mean and
the least-squares line's excursion over the window, |slope| x (W-1), within
10% of the mean. Give up after 25 rounds and report that steady state was
not reached. The fractions are parameters because shared or cloud storage
may never meet 10% (cloudharmony/block-storage notes this).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

SteadyStatus = Literal["steady", "continue", "not_reached"]


@dataclass(frozen=True)
class SteadyVerdict:
    """The decision after the latest round, with the figures it rests on.

    `window` is (first, last) round index, 0-based, of the rounds judged;
    `range_frac` and `excursion_frac` are relative to the window mean.
    """

    status: SteadyStatus
    window: tuple[int, int] | None
    mean: float | None = None
    range_frac: float | None = None
    excursion_frac: float | None = None

    @property
    def reason(self) -> str:
        """One line for a report: the window and figures, or why not (yet)."""
        if self.window is None:
            return "not enough rounds for a measurement window yet"
        first, last = self.window
        figures = f"range {self.range_frac:.1%}, slope excursion {self.excursion_frac:.1%} of mean {self.mean:.6g}"
        if self.status == "steady":
            return f"steady in rounds {first + 1}-{last + 1} ({figures})"
        if self.status == "not_reached":
            return f"steady state not reached by round {last + 1} (last window: {figures})"
        return f"not steady yet in rounds {first + 1}-{last + 1} ({figures})"


def steady_state(
    rounds: Sequence[float],
    window: int = 5,
    range_frac: float = 0.20,
    slope_frac: float = 0.10,
    max_rounds: int = 25,
) -> SteadyVerdict:
    """Judge the last `window` rounds of `rounds` (one tracking value per round, oldest first)."""
    if len(rounds) < window:
        status: SteadyStatus = "not_reached" if len(rounds) >= max_rounds else "continue"
        return SteadyVerdict(status=status, window=None)
    values = [float(v) for v in rounds[-window:]]
    mean = sum(values) / window
    spread = max(values) - min(values)
    excursion = abs(_slope(values)) * (window - 1)
    if mean <= 0:
        steady = spread == 0 and excursion == 0
        range_rel = excursion_rel = 0.0 if steady else float("inf")
    else:
        range_rel, excursion_rel = spread / mean, excursion / mean
        steady = range_rel <= range_frac and excursion_rel <= slope_frac
    first = len(rounds) - window
    status = "steady" if steady else ("not_reached" if len(rounds) >= max_rounds else "continue")
    return SteadyVerdict(status, (first, len(rounds) - 1), mean, range_rel, excursion_rel)


def _slope(values: Sequence[float]) -> float:
    """Least-squares slope of values against 0, 1, 2, ... (equally spaced rounds)."""
    n = len(values)
    x_mean = (n - 1) / 2
    y_mean = sum(values) / n
    numerator = sum((x - x_mean) * (y - y_mean) for x, y in enumerate(values))
    denominator = sum((x - x_mean) ** 2 for x in range(n))
    return numerator / denominator
