"""`JobOptions.names`: fio's own names of the options a job gave, an alias read as the option it names, as
`canonical` reads each one (the invariants ask it of every point to see whether its block size varies)."""

from __future__ import annotations

import random

from iolab.analysis.invariants import fixed_block_size
from iolab.models.job_options import JobOptions
from iolab.models.option_spec import ALIASES, SPECS, canonical


def test_the_names_are_each_option_read_by_canonical():
    rng = random.Random(7)
    pool = sorted(SPECS) + sorted(ALIASES) + ["not-an-option", "ior:blocksize"]
    for _ in range(300):
        options = {name: "1" for name in rng.sample(pool, rng.randrange(0, 30))}
        assert set(JobOptions(options).names) == {canonical(name) for name in options}


def test_an_alias_of_a_varying_block_size_leaves_the_block_size_unknown():
    aliases = [alias for alias, name in ALIASES.items() if name in ("bsrange", "bssplit")]
    assert aliases  # fio names blocksize_range and blocksize_split so
    for alias in aliases:
        assert fixed_block_size(JobOptions({"rw": "randread", "bs": "4k", alias: "4k-16k"}), "read") is None
    assert fixed_block_size(JobOptions({"rw": "randread", "bs": "4k"}), "read") == 4096
