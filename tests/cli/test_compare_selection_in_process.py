"""`iolab compare A B` with a run in both groups, in process: refused in one line naming the run and how to
part it, unless both groups name one setting or option with different values (`3:bs=4k 3:bs=8k`), which
parts the run's points; then the comparison goes on (here to "no workload in common", the run having only
4k points)."""

from __future__ import annotations

import pytest

from tests.cli.test_format_matrix import FIO_JSON
from tests.in_process import iolab

IN_BOTH = "run(s) 1 are in both groups"
NOTHING_IN_COMMON = "have no workload in common"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    place = tmp_path_factory.mktemp("compare")
    assert iolab("import", str(FIO_JSON), env={"IOLAB_HOME": str(place / "home")}).returncode == 0
    return place / "home"


@pytest.mark.parametrize(
    ("a", "b", "said"),
    [
        ("1", "1", IN_BOTH),
        ("1", "1:bs=4k", IN_BOTH),  # one side not parted
        ("1:bs=4k", "1", IN_BOTH),
        ("1:bs=4k", "1:iodepth=4", IN_BOTH),  # two settings: nothing parts the points
        ("1:bs=4k", "1:bs=4k", IN_BOTH),  # the same value: the same points on both sides
        ("1:bs=4k", "1:bs=8k", NOTHING_IN_COMMON),  # parted by one option
    ],
)
def test_a_run_in_both_groups_is_refused_unless_one_option_parts_it(home, a, b, said):
    done = iolab("compare", a, b, env={"IOLAB_HOME": str(home)})
    assert done.returncode == 2 and not done.stdout
    (line,) = done.stderr.strip().splitlines()
    assert said in line, line
    if said == IN_BOTH:
        assert line.endswith(
            f"({a} and {b}): a run can be in one group only, or part it by one setting or option"
            " in both groups (3:scheduler=none 3:scheduler=mq-deadline)"
        ), line
