"""What a plan file may not say, each refused in one line naming where (plan.planfile, parsed in-process):
two workloads of one name on one target, an option fio does not know in a job file's section, a target group
that is not defined, a host setting written among fio's options, a name holding a control character; and a
preset given a setting it does not take says what it takes (plan.presets.preset)."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.fio.jobfile import parse_jobfile
from iolab.fio.options import unknown_options_allowed
from iolab.plan.planfile import jobfile_workloads, parse_plan
from iolab.plan.presets import preset


def _refusal(text: str, tmp_path) -> str:
    with pytest.raises(UserError) as refused:
        parse_plan(text, "p.toml", tmp_path)
    return str(refused.value)


def test_two_workloads_of_one_name_on_one_target_are_refused_and_on_two_targets_are_not(tmp_path):
    twice = 'name = "p"\n[[workloads]]\nname = "w"\noptions = { rw = "read" }\n[[workloads]]\nname = "w"\noptions = { rw = "write" }\n'
    assert _refusal(twice, tmp_path) == (
        "p.toml: workloads: the name 'w' is used twice; give the [[workloads]] different names"
    )
    apart = twice.replace('options = { rw = "write" }', 'options = { rw = "write" }\ntarget = "/srv/b"')
    assert [w.name for w in parse_plan(apart, "p.toml", tmp_path).workloads] == ["w", "w"]


def test_a_target_group_that_is_not_defined_is_named(tmp_path):
    text = 'name = "p"\ntargets = ["/srv/a", "@fast"]\n[target_groups]\nslow = ["/srv/s"]\n[options]\nrw = "read"\n'
    assert _refusal(text, tmp_path) == "p.toml: targets[1]: no target group 'fast' in [target_groups]"
    plan = parse_plan(text.replace("@fast", "@slow"), "p.toml", tmp_path)
    assert plan.targets == ["/srv/a", "/srv/s"]


@pytest.mark.parametrize("allowed", [False, True])
def test_a_host_setting_among_fios_options_is_sent_to_host_even_with_unknown_options_allowed(tmp_path, allowed):
    """With --allow-unknown-options an option iolab never classified passes the option table, and the plan's
    own check still refuses a host setting and a name fio does not know at all."""
    with unknown_options_allowed(allowed):
        assert _refusal('name = "p"\n[options]\nrw = "read"\nscheduler = "none"\n', tmp_path).endswith(
            "'scheduler' is a host setting, not a fio option: give it in [host]"
        )
        assert _refusal('name = "p"\n[options]\nrw = "read"\nbogus_opt = "1"\n', tmp_path).endswith(
            "'bogus_opt' is not a fio option (fio --cmdhelp lists them)"
        )
    with unknown_options_allowed(True):
        assert _refusal('name = "p"\n[options]\nrw = "read"\n[axes]\nbogus_opt = ["1", "2"]\n', tmp_path) == (
            "p.toml: options/axes: 'bogus_opt' is not a fio option (fio --cmdhelp lists them)"
        )


def test_a_name_with_a_control_character_is_refused_quoted(tmp_path):
    message = _refusal('name = "a\\u0007b"\n[options]\nrw = "read"\n', tmp_path)
    assert message == "p.toml: name: 'a\\x07b' holds a control character; names are printable text"


def test_a_job_files_section_with_an_option_fio_does_not_know_is_named_with_unknown_options_allowed():
    sections = parse_jobfile("[first]\nrw=read\n[second]\nstonewall\nrw=read\nbogus_opt=1\n", "jobs.fio")
    with unknown_options_allowed(True), pytest.raises(UserError) as refused:
        jobfile_workloads(sections, "jobs.fio")
    assert str(refused.value) == "jobs.fio: [second]: 'bogus_opt' is not a fio option (fio --cmdhelp lists them)"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("quick", "it takes --runtime and --ramp"),
        ("metadata", "it takes --runtime"),
        ("ssd-steady", "drop it"),
    ],
)
def test_a_preset_given_a_setting_it_does_not_take_says_what_it_takes(name, said):
    with pytest.raises(UserError) as refused:
        preset(name, depth=4)
    assert str(refused.value) == f"the {name} preset has no --depth setting; {said}"
