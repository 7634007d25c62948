"""How big a plan may be: beyond these, the input is a typo or an attack, not a benchmark.

A queue-depth x block-size x jobs sweep of 2000 points at 30 s each is
seventeen hours; ten thousand points is weeks. Checked before anything is
expanded, so a hostile plan costs milliseconds, not memory.
"""

MAX_POINTS = 10_000
MAX_REPEATS = 1_000
