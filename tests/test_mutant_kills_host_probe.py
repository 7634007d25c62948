"""Host probe edges that `bench/mutation.py --whole` found no fast test holding (issue 41 item 8)."""

from __future__ import annotations

import shutil

import pytest

from iolab.probe import Root
from iolab.probe.host import count_cpulist


@pytest.mark.parametrize(("text", "count"), [("0-31,64-95", 64), ("2-5,8", 5), ("7", 1), ("", None), (" \n", None)])
def test_a_cpu_list_counts_every_cpu_of_each_range(text, count):
    assert count_cpulist(text) == count


@pytest.mark.skipif(shutil.which("true") is None or shutil.which("false") is None, reason="no true/false")
def test_a_live_command_s_output_is_read_and_a_failing_one_says_so():
    root = Root("/")
    assert root.command("true", ["true"]) == ("", "")
    output, problem = root.command("false", ["false"])
    assert output is None and problem == "`false` failed: exit 1"
