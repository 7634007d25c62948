"""Host settings a plan can sweep, one object each, in one ordered list: block-queue files of a target's
device and the CPU frequency governor.

Storage engineers compare I/O schedulers, queue sizes, writeback throttling, read-ahead, completion
affinity, merging and the CPU governor; each is one sysfs file. A `HostSetting` says all iolab knows of
one: where its file is, how to read the value in force, what the kernel offers, what a value must look
like, what writing it moves, and how the doctor judges the value in force with the advice it gives
(as pyperf's `_system.py` keeps one object per setting, its advice included). `HOST_SETTINGS` lists
them in the order they are written, and every user goes through it: the probe reads each one's file
once (`BlockDevice.host_settings`, `Snapshot.governors`), a plan's `[host]` table is checked by it
(`plan.planfile`), the runner resolves, checks, writes and puts back each file by it
(`runner.host_settings`), and the doctor's rule for a setting (`rule`) judges the value by the entry's
`judge` and gives its `advice`. A setting added to the list is read, checked, swept and put back with no
other change (`tests/runner/test_host_settings.py`); one read, one judge, one advice each is held by
`tests/probe/test_host_settings_once.py`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

CPUFREQ = "/sys/devices/system/cpu/cpufreq"
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")


def active_choice(text: str | None) -> str | None:
    """The bracketed entry of a sysfs choice list (`none [mq-deadline] bfq`)."""
    match = re.search(r"\[([^\]]+)\]", text or "")
    return match.group(1) if match else (text.strip() or None if text else None)


def whole(text: str | None) -> int | None:
    """A sysfs number (`75000`), None when absent or not a whole number."""
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _whole_given(given: object) -> int | None:
    """A TOML integer (not a boolean) or a string of ASCII digits as a number; None for anything else."""
    if isinstance(given, int) and not isinstance(given, bool):
        return given
    return int(given) if isinstance(given, str) and given.isascii() and given.isdigit() else None


# How the doctor judges a value in force: (the value, what the jobs ask of it where that matters, e.g. the
# queue depth they offer) -> the level of a finding ("high" ... "info"), None when the value costs nothing.
Judge = Callable[[str, int | None], str | None]


@dataclass(frozen=True)
class HostSetting:
    """One sysfs setting: a file under a block device's `queue/` (`subject`: the device, "loop3"), or, with
    `per_cpu_policy`, under every cpufreq policy (`subject`: "policy0")."""

    name: str
    file: str
    per_cpu_policy: bool = False
    # Choices: `listed` when the file lists them with the one in force bracketed (the scheduler), else the file
    # beside it that lists them (`choices_file`); `numbers` (least, greatest) for a whole number instead.
    listed: bool = False
    choices_file: str | None = None
    numbers: tuple[int, int] | None = None
    moves: tuple[str, ...] = ()  # settings the kernel resets when this one is written (recorded and put back too)
    # The doctor's rule on the value in force (its id), how it judges it, and the advice it gives (the rule's fix).
    rule: str | None = None
    judge: Judge | None = None
    advice: str = ""

    def judged(self, value: str | None, demand: int | None = None) -> str | None:
        """The level of a finding the value in force earns (None: fine, unread, or a setting no rule judges)."""
        return None if value is None or self.judge is None else self.judge(value, demand)

    def path(self, subject: str) -> str:
        """The file of this setting for one device or cpufreq policy."""
        return f"{CPUFREQ}/{subject}/{self.file}" if self.per_cpu_policy else f"/sys/block/{subject}/queue/{self.file}"

    def current(self, text: str | None) -> str | None:
        """The value in force, from the file's text (a listed file brackets it)."""
        return active_choice(text) if self.listed else text

    def offered_path(self, subject: str) -> str | None:
        """The file that lists what the kernel offers, or None for a number."""
        if self.numbers is not None:
            return None
        return self.path(subject) if self.listed else self.path(subject).rsplit("/", 1)[0] + f"/{self.choices_file}"

    @staticmethod
    def offered(text: str | None) -> list[str]:
        """The choices a listing file names (brackets dropped)."""
        return (text or "").replace("[", "").replace("]", "").split()

    def value(self, given: object) -> str:
        """The value as written to sysfs; ValueError saying what the setting takes.

        Choices are names as the kernel lists them; the rest are whole numbers in the kernel's range, given
        as TOML integers or digit strings. Whether this kernel and device accept a value is for the runner
        to find out, before anything runs."""
        if self.numbers is None:
            if not isinstance(given, str) or not _NAME.fullmatch(given):
                raise ValueError(
                    f"expected a {self.name} name as the kernel lists it (e.g. 'mq-deadline'), got {given!r}"
                )
            return given
        low, high = self.numbers
        number = _whole_given(given)
        if number is None or not low <= number <= high:
            raise ValueError(f"expected a whole number from {low} to {high}, got {given!r}")
        return str(number)


def _scheduler(value: str, demand: int | None) -> str | None:
    """On a fast device: bfq is built for desktop interactivity, kyber rarely helps, mq-deadline gets in the way
    at high IOPS (the rule says where each applies)."""
    return {"bfq": "high", "kyber": "low", "mq-deadline": "info"}.get(value)


def _positive(value: str, demand: int | None) -> str | None:
    """Writeback throttling on (any target above 0)."""
    number = whole(value)
    return "medium" if number is not None and number > 0 else None


def _small_read_ahead(value: str, demand: int | None) -> str | None:
    """128 KiB or less: too little for a single buffered sequential reader."""
    number = whole(value)
    return "medium" if number is not None and number <= 128 else None


def _below_demand(value: str, demand: int | None) -> str | None:
    """A request pool smaller than the I/Os the jobs offer."""
    number = whole(value)
    return "low" if number and demand and demand > number else None


def _not_performance(value: str, demand: int | None) -> str | None:
    return None if value == "performance" else "medium"


# In the order they are written. The scheduler comes first: switching it resets nr_requests to the new
# scheduler's default (and bfq turns writeback throttling off), so a value for those written before it
# would be lost. The number bounds: the least value the kernel could take, and a bound past which a number
# is a typo rather than a setting.
HOST_SETTINGS: list[HostSetting] = [
    HostSetting(
        "scheduler",
        "scheduler",
        listed=True,
        moves=("nr_requests", "wbt_lat_usec"),
        rule="BLK-SCHED",
        judge=_scheduler,
        advice="echo none > /sys/block/<dev>/queue/scheduler (persist with a udev rule).",
    ),
    HostSetting(
        "nr_requests",
        "nr_requests",
        numbers=(1, 1 << 20),
        rule="BLK-NR-REQUESTS",
        judge=_below_demand,
        advice="Raise queue/nr_requests or lower the offered depth; with 'none' the hardware queue depth applies "
        "instead.",
    ),
    # 0 turns throttling off; the kernel's -1 (back to its default) is not a value to A/B
    HostSetting(
        "wbt_lat_usec",
        "wbt_lat_usec",
        numbers=(0, 1 << 40),
        rule="BLK-WBT",
        judge=_positive,
        advice="echo 0 > /sys/block/<dev>/queue/wbt_lat_usec on the device (and md/dm members), re-run; persist "
        "with udev.",
    ),
    HostSetting(
        "read_ahead_kb",
        "read_ahead_kb",
        numbers=(0, 1 << 30),
        rule="BLK-READAHEAD",
        judge=_small_read_ahead,
        advice="Raise read_ahead_kb to 1024-4096 (blockdev --setra), or better test with direct=1 and a real queue "
        "depth.",
    ),
    HostSetting("rq_affinity", "rq_affinity", numbers=(0, 2)),
    HostSetting("nomerges", "nomerges", numbers=(0, 2)),
    HostSetting(
        "governor",
        "scaling_governor",
        per_cpu_policy=True,
        choices_file="scaling_available_governors",
        rule="CPU-GOVERNOR",
        judge=_not_performance,
        advice="cpupower frequency-set -g performance, or tuned-adm profile throughput-performance / "
        "latency-performance.",
    ),
]


def names() -> tuple[str, ...]:
    """The settings' names, in the order they are written."""
    return tuple(s.name for s in HOST_SETTINGS)


def host_setting(name: str) -> HostSetting:
    """The setting of that name; ValueError naming the ones iolab sets."""
    for setting in HOST_SETTINGS:
        if setting.name == name:
            return setting
    raise ValueError(f"unknown host setting; iolab sets {', '.join(names())}")


def order(name: str) -> int:
    """Where a setting is written among the others (its place in `HOST_SETTINGS`)."""
    return names().index(name)


def setting_value(name: str, value: object) -> str:
    """The value of setting `name` as written to sysfs; ValueError saying what it takes (`HostSetting.value`)."""
    return host_setting(name).value(value)


# The names at import, for the orders of table columns (views, report); every other user reads the list.
SETTINGS = names()


def describe(settings: dict[str, str]) -> str:
    """`scheduler=none nr_requests=64`, in the order the settings are written."""
    return " ".join(f"{name}={settings[name]}" for name in names() if name in settings)
