"""Host settings a plan can sweep: block-queue files of a target's device and the CPU frequency governor.

Storage engineers compare I/O schedulers, queue sizes, writeback throttling, read-ahead, completion
affinity, merging and the CPU governor; each is one sysfs file. A plan names them in its `[host]` table;
the runner writes them before each point and puts the originals back afterwards
(`iolab.runner.host_settings`). This module is the vocabulary only: the names, the order they are written
in, and what a value must look like before the kernel is asked.
"""

from __future__ import annotations

import re

# Files under /sys/block/DEV/queue/, in the order they are written. The scheduler comes first: switching it
# resets nr_requests to the new scheduler's default (and bfq turns writeback throttling off), so a value
# for those written before it would be lost.
BLOCK_QUEUE = ("scheduler", "nr_requests", "wbt_lat_usec", "read_ahead_kb", "rq_affinity", "nomerges")
GOVERNOR = "governor"  # scaling_governor of every cpufreq policy
SETTINGS = (*BLOCK_QUEUE, GOVERNOR)
# What a scheduler switch moves by itself: recorded and put back whenever a plan changes the scheduler.
MOVED_BY_SCHEDULER = ("nr_requests", "wbt_lat_usec")

_CHOICES = {"scheduler", GOVERNOR}
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
# Least value the kernel could take, and a bound past which a number is a typo rather than a setting.
_NUMBERS = {
    "nr_requests": (1, 1 << 20),
    "wbt_lat_usec": (0, 1 << 40),  # 0 turns throttling off; the kernel's -1 (back to its default) is not a value to A/B
    "read_ahead_kb": (0, 1 << 30),
    "rq_affinity": (0, 2),
    "nomerges": (0, 2),
}


def setting_value(name: str, value: object) -> str:
    """The value as written to sysfs; ValueError saying what `name` takes.

    Choices (scheduler, governor) are names as the kernel lists them; the rest are whole numbers in the
    kernel's range, given as TOML integers or digit strings. Whether this kernel and device accept a
    value is for the runner to find out, before anything runs.
    """
    if name not in SETTINGS:
        raise ValueError(f"unknown host setting; iolab sets {', '.join(SETTINGS)}")
    if name in _CHOICES:
        if not isinstance(value, str) or not _NAME.fullmatch(value):
            raise ValueError(f"expected a {name} name as the kernel lists it (e.g. 'mq-deadline'), got {value!r}")
        return value
    low, high = _NUMBERS[name]
    number = value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(value, str) and value.isascii() and value.isdigit():
        number = int(value)
    if number is None or not low <= number <= high:
        raise ValueError(f"expected a whole number from {low} to {high}, got {value!r}")
    return str(number)


def describe(settings: dict[str, str]) -> str:
    """`scheduler=none nr_requests=64`, in the order the settings are written."""
    return " ".join(f"{name}={settings[name]}" for name in SETTINGS if name in settings)
