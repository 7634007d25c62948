"""A plan's `metrics = { name = "command" }`: read as argv commands, named as columns, allowed only with
--allow-commands like every other program a plan runs."""

from __future__ import annotations

import textwrap

import pytest

from iolab.errors import UserError
from iolab.plan.effects import check_commands, plan_commands
from iolab.plan.planfile import load_plan


def plan_file(tmp_path, metrics: str):
    path = tmp_path / "p.toml"
    path.write_text(textwrap.dedent(metrics) + '\n[options]\nrw = "randread"\n')
    return path


def test_metrics_are_named_argv_commands_in_the_plan_s_order(tmp_path):
    plan = load_plan(
        plan_file(
            tmp_path,
            """
            [metrics]
            target_cpu = "ssh target 'cat /proc/loadavg'"
            queue-depth = ["sh", "-c", "cat /sys/block/nvme0n1/inflight | awk '{print $1}'"]
            """,
        )
    )
    assert plan.phases.metrics == (
        ("target_cpu", ("ssh", "target", "cat /proc/loadavg")),
        ("queue-depth", ("sh", "-c", "cat /sys/block/nvme0n1/inflight | awk '{print $1}'")),
    )
    assert plan_commands(plan) == [
        "metric target_cpu, every second during each point: ssh target 'cat /proc/loadavg'",
        "metric queue-depth, every second during each point: sh -c 'cat /sys/block/nvme0n1/inflight | awk '\"'\"'{print $1}'\"'\"''",
    ]
    with pytest.raises(
        UserError, match=r"runs programs or changes the system: metric target_cpu, every second during each point"
    ):
        check_commands(plan, allowed=False)
    check_commands(plan, allowed=True)


@pytest.mark.parametrize(
    ("metrics", "error"),
    [
        ('metrics = { "two words" = "true" }', r"p.toml: metrics.two words: a metric's name is a word"),
        ('metrics = { "9lives" = "true" }', r"metrics.9lives: a metric's name is a word .* starting with a letter"),
        ("metrics = { cpu = 5 }", r"p.toml: metrics.cpu: expected a command string or a list of strings, got 5"),
        ('metrics = { cpu = "" }', r"p.toml: metrics.cpu: empty command"),
        ('metrics = { cpu = "echo \'a" }', r"p.toml: metrics.cpu: cannot split"),
        ('metrics = ["echo 1"]', r"p.toml: metrics: Input should be a valid dictionary"),
    ],
)
def test_a_bad_metric_is_one_line_naming_it(tmp_path, metrics, error):
    with pytest.raises(UserError, match=error) as caught:
        load_plan(plan_file(tmp_path, metrics + "\n"))
    assert len(str(caught.value).splitlines()) <= 2
