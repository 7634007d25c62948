"""When adaptive repeats may stop: the CoV of a point's runs so far against the plan's target.

Pure so the runner's loop stays a loop, and so the gate can be tested end to
end (pbench's stddev gate silently never fired, pbench #2386). It judges
measured values with analysis' own statistics, so it belongs to the runner
that measures them, not to the plan that only sets the policy.
"""

from __future__ import annotations

from collections.abc import Sequence

from iolab.analysis.stability import summarize
from iolab.models.plan import RepeatPolicy


def needs_more_runs(values: Sequence[float], policy: RepeatPolicy) -> bool:
    """Whether a point needs another run, given its primary metric per run so far.

    Fixed policy: until `count` runs. Adaptive: at least `count`, then more
    while the CoV exceeds `cov_target` (or cannot be computed), never beyond
    `max_count`; the runner records that the cap was hit.
    """
    n = len(values)
    if n < policy.count:
        return True
    if not policy.adaptive or n >= policy.max_count:
        return False
    cov = summarize(values).cov
    return cov is None or cov > policy.cov_target
