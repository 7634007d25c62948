"""The host settings a plan may set (`models.host_settings`), at the edges of what each takes (issue 41 item
8): a number is taken from its least to its greatest value and refused one past either end; a choice is a
name as the kernel lists it; the value in force is read as the kernel writes it; each setting lives in its
file under the device's queue/ or every cpufreq policy; and the doctor's judgement of a value turns where
its rule says (read-ahead at 128 KiB, a request pool below the offered depth, throttling above 0)."""

from __future__ import annotations

import pytest

from iolab.models.host_settings import (
    HOST_SETTINGS,
    SETTINGS,
    active_choice,
    describe,
    host_setting,
    order,
    setting_value,
    whole,
)

NUMBERED = [s for s in HOST_SETTINGS if s.numbers is not None]


@pytest.mark.parametrize("setting", NUMBERED, ids=lambda s: s.name)
def test_a_number_is_taken_from_its_least_to_its_greatest_and_refused_past_either(setting):
    low, high = setting.numbers
    assert setting.value(low) == str(low) and setting.value(str(high)) == str(high)
    for wrong in (low - 1, high + 1, True, "1.5", "-1", " 3", "٣"):
        with pytest.raises(ValueError, match=f"expected a whole number from {low} to {high}"):
            setting.value(wrong)


def test_the_kernel_s_own_ranges_of_the_small_settings():
    """Documentation/ABI/stable/sysfs-block: rq_affinity and nomerges take 0, 1 or 2; nr_requests at least 1."""
    assert host_setting("rq_affinity").numbers == (0, 2) and host_setting("nomerges").numbers == (0, 2)
    assert host_setting("nr_requests").numbers[0] == 1 and host_setting("wbt_lat_usec").numbers[0] == 0  # type: ignore[index]


def test_a_choice_is_a_name_as_the_kernel_lists_it():
    assert setting_value("scheduler", "mq-deadline") == "mq-deadline"
    for wrong in ("mq deadline", 3, "", "none; reboot"):
        with pytest.raises(ValueError, match="expected a scheduler name as the kernel lists it"):
            setting_value("scheduler", wrong)
    with pytest.raises(ValueError, match="unknown host setting; iolab sets scheduler, nr_requests"):
        host_setting("swappiness")


def test_the_value_in_force_and_the_choices_are_read_as_the_kernel_writes_them():
    scheduler, governor, ahead = host_setting("scheduler"), host_setting("governor"), host_setting("read_ahead_kb")
    assert scheduler.current("none [mq-deadline] bfq") == "mq-deadline" and ahead.current("128") == "128"
    assert active_choice("performance") == "performance" and active_choice("") is None and active_choice(None) is None
    assert scheduler.offered("none [mq-deadline] bfq") == ["none", "mq-deadline", "bfq"]
    assert (whole("75000"), whole("x"), whole(None)) == (75000, None, None)
    assert scheduler.path("loop3") == "/sys/block/loop3/queue/scheduler"
    assert governor.path("policy0").endswith("/cpufreq/policy0/scaling_governor")
    assert scheduler.offered_path("loop3") == "/sys/block/loop3/queue/scheduler"
    assert governor.offered_path("policy0").endswith("/cpufreq/policy0/scaling_available_governors")  # type: ignore[union-attr]
    assert ahead.offered_path("loop3") is None


def test_the_doctor_s_judgement_turns_where_each_rule_says():
    judged = {s.name: s.judged for s in HOST_SETTINGS}
    assert [judged["read_ahead_kb"](v) for v in ("128", "129", "0")] == ["medium", None, "medium"]
    assert [judged["wbt_lat_usec"](v) for v in ("0", "1", "75000")] == [None, "medium", "medium"]
    assert [judged["nr_requests"]("64", d) for d in (None, 64, 65)] == [None, None, "low"]
    assert [judged["scheduler"](v) for v in ("bfq", "kyber", "mq-deadline", "none")] == ["high", "low", "info", None]
    assert [judged["governor"](v) for v in ("performance", "powersave")] == [None, "medium"]
    assert judged["rq_affinity"]("2") is None and judged["read_ahead_kb"](None) is None


def test_settings_are_written_scheduler_first_and_described_in_that_order():
    assert SETTINGS[0] == "scheduler" and order("scheduler") == 0 < order("nr_requests")
    assert host_setting("scheduler").moves == ("nr_requests", "wbt_lat_usec")  # reset by a scheduler switch
    assert describe({"nr_requests": "64", "scheduler": "none"}) == "scheduler=none nr_requests=64"
