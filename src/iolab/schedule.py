"""Scheduled runs: a systemd timer, or a cron line where there is no systemd.

Each schedule runs `iolab_argv + [plan, *targets]` under `flock -n` on one lock file
shared by every schedule. One lock for all, not one per schedule: two
benchmarks running at once on the same host measure each other, so a run
that finds another still going is skipped (flock exits 75, EX_TEMPFAIL,
so the journal or cron mail shows a skip, not an ordinary failure) rather
than queued behind it.

systemd: `iolab-<name>.service` (oneshot) and `iolab-<name>.timer`. An
interval that divides an hour or a day becomes `OnCalendar=` with
`Persistent=true`, so a run missed while the machine was off happens at boot.
Other intervals (90m, 5h, 2d) cannot be said as a calendar event; they use
`OnBootSec=` + `OnUnitActiveSec=`, for which systemd has no catch-up
(`Persistent=` applies to calendar timers only). The schedule's own
settings are kept in `X-Iolab-*` keys, which systemd ignores by design, so
`list_installed` reads them back from the units themselves.

cron (no `/run/systemd/system`): one line per schedule in a cron.d-style
file, after a `# iolab-schedule` marker line that names it. Only intervals
that divide an hour or a day can be written as cron fields.

A scheduled run must land where `iolab ls` and `iolab history` look, and
find what the plan names as it was found when it was installed: neither
systemd nor cron passes on the installer's environment or directory, so
every schedule carries its `IOLAB_HOME` and working directory
(`Environment=` and `WorkingDirectory=`; `cd DIR && IOLAB_HOME=...` in
cron), both absolute. `Entry.shell_line` is the same command for a person
to run by hand.

Nothing here runs systemctl: `activation_commands` and
`deactivation_commands` return the argv lists for the caller to run.

A module of its own, not the runner's: a schedule calls the `iolab` command
and knows nothing of the pipeline it starts.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from iolab.errors import UserError
from iolab.private import write_private

SYSTEMD_UNIT_DIR = Path("/etc/systemd/system")
SYSTEMD_RUNTIME_DIR = Path("/run/systemd/system")  # exists only when systemd is the running init
CRON_FILE = Path("/etc/cron.d/iolab")
# The lock every schedule of one IOLAB_HOME shares, in that home (its chain checked, no one else's to write):
# /run/lock/iolab.lock, in a directory anyone may add to, let any user create it first and hold it (every root
# run then skipped as busy), or put a link there that flock(1) would open O_CREAT as root.
LOCK_NAME = "schedule.lock"
FLOCK = "/usr/bin/flock"
BUSY_EXIT_CODE = 75  # EX_TEMPFAIL: another scheduled run holds the lock

_EVERY = re.compile(r"^\s*(\d+)\s*(m|min|h|d)\s*$")
_UNIT_SECONDS = {"m": 60, "min": 60, "h": 3600, "d": 86400}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_MARKER = "# iolab-schedule "


@dataclass(frozen=True)
class Schedule:
    """One installed schedule, as read back from its files."""

    name: str
    every: str
    plan_path: Path
    kind: str  # "systemd" or "cron"
    files: tuple[Path, ...]


def parse_every(every: str) -> int:
    """Seconds between runs for "30m", "1h", "1d" (also "15min"); a UserError says what is accepted."""
    match = _EVERY.match(every or "")
    if not match or int(match.group(1)) == 0:
        raise UserError(
            f"cannot schedule every {every!r}: give a positive whole number of minutes, hours or days, "
            "e.g. 30m, 1h, 6h, 1d"
        )
    return int(match.group(1)) * _UNIT_SECONDS[match.group(2)]


def _calendar_step(seconds: int) -> tuple[str, int] | None:
    """("minute"|"hour"|"day", step) when the interval divides an hour or a day evenly, else None."""
    if seconds == 86400:
        return "day", 1
    if seconds % 3600 == 0 and 86400 % seconds == 0:
        return "hour", seconds // 3600
    if seconds % 60 == 0 and 3600 % seconds == 0:
        return "minute", seconds // 60
    return None


def on_calendar(seconds: int) -> str | None:
    """systemd OnCalendar= expression for the interval, or None when it has none."""
    step = _calendar_step(seconds)
    if step is None:
        return None
    unit, n = step
    if unit == "day":
        return "*-*-* 00:00:00"
    if unit == "hour":
        return f"*-*-* 00/{n}:00:00"
    return f"*-*-* *:00/{n}:00"


def cron_fields(seconds: int) -> str | None:
    """The five cron time fields for the interval, or None when cron cannot express it."""
    step = _calendar_step(seconds)
    if step is None:
        return None
    unit, n = step
    if unit == "day":
        return "0 0 * * *"
    if unit == "hour":
        return f"0 {'*' if n == 1 else f'*/{n}'} * * *"
    return f"{'*' if n == 1 else f'*/{n}'} * * * *"


def systemd_available(runtime_dir: Path = SYSTEMD_RUNTIME_DIR) -> bool:
    """True when systemd is the running init (the test sd_booted() makes)."""
    return Path(runtime_dir).is_dir()


def _systemd_quote(arg: str) -> str:
    """One ExecStart= argument: specifiers (%) and variables ($) doubled, quoted when it has spaces or quotes."""
    arg = arg.replace("%", "%%").replace("$", "$$")
    if arg and not re.search(r'[\s"\'\\;]', arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _cron_quote(arg: str) -> str:
    """One shell word for a cron line: single-quoted, and % escaped (cron turns a bare % into a newline)."""
    if re.fullmatch(r"[A-Za-z0-9_./=:,+@-]+", arg):
        return arg
    return "'" + arg.replace("'", "'\\''").replace("%", "\\%") + "'"


@dataclass(frozen=True)
class Entry:
    """What installing a schedule writes, before anything is written: `--dry-run` prints it, `write` writes it."""

    name: str
    kind: str  # "systemd" or "cron"
    files: dict[Path, str]  # each file with its whole new text
    command: list[str]  # what runs: flock, iolab, the plan, the targets
    home: Path  # IOLAB_HOME of every run
    workdir: Path

    def shell_line(self) -> str:
        """The scheduled command as one shell line: what a person runs to see what the schedule will do."""
        return f"cd {shlex.quote(str(self.workdir))} && IOLAB_HOME={shlex.quote(str(self.home))} {shlex.join(self.command)}"


def _check(
    plan_path: Path, every: str, name: str, iolab_argv: list[str], places: list[Path], targets: list[str]
) -> tuple[Path, int]:
    if not _NAME.match(name or ""):
        raise UserError(
            f"schedule name {name!r} is not usable: letters, digits, '.', '_' and '-', starting with a letter "
            "or digit, at most 64"
        )
    seconds = parse_every(every)
    if not iolab_argv or not Path(iolab_argv[0]).is_absolute():
        raise UserError(
            "the scheduled command must start with an absolute path to iolab (cron and systemd do not search your PATH)"
        )
    plan = Path(plan_path).expanduser().absolute()
    if not plan.is_file():
        raise UserError(f"plan {plan} does not exist; give the path of a plan file to run on schedule")
    for path in [*places, *map(Path, targets)]:
        if not path.is_absolute():
            raise UserError(f"{path} is not an absolute path: a scheduled run starts in a directory of its own")
    if any("\n" in str(part) for part in [*iolab_argv, plan, *places, *targets]):
        raise UserError("the scheduled command, its paths and targets must not contain newlines")
    return plan, seconds


def prepare(
    plan_path: Path,
    every: str,
    name: str,
    iolab_argv: list[str],
    *,
    home: Path,
    workdir: Path,
    targets: list[str] | None = None,
    unit_dir: Path = SYSTEMD_UNIT_DIR,
    use_systemd: bool | None = None,
    cron_file: Path = CRON_FILE,
    cron_user: str | None = "root",
    lock_path: Path | None = None,
    flock: str = FLOCK,
) -> Entry:
    """The files that run `iolab_argv + [plan, *targets]` every `every` in `workdir` with IOLAB_HOME=`home`.

    Nothing is written. `use_systemd=None` decides by `systemd_available()`. Installing a name again
    replaces that schedule. `cron_user=None` writes a user-crontab line (no user field) instead of the
    cron.d format. Targets, `home` and `workdir` must be absolute: the run starts elsewhere.
    """
    targets = list(targets or [])
    home, workdir = Path(home), Path(workdir)
    plan, seconds = _check(plan_path, every, name, iolab_argv, [home, workdir], targets)
    lock = lock_path or home / LOCK_NAME
    command = [flock, "-n", "-E", str(BUSY_EXIT_CODE), str(lock), *iolab_argv, str(plan), *targets]
    if use_systemd is None:
        use_systemd = systemd_available()
    if use_systemd:
        files = _systemd_units(plan, every, seconds, name, command, home, workdir, Path(unit_dir))
        return Entry(name, "systemd", files, command, home, workdir)
    text = _cron_text(plan, every, seconds, name, command, home, workdir, Path(cron_file), cron_user)
    return Entry(name, "cron", {Path(cron_file): text}, command, home, workdir)


def write(entry: Entry) -> list[Path]:
    """Write an entry's files (private: they hold the command); the systemd units still have to be loaded,
    with `activation_commands(name)`."""
    for path, text in entry.files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_private(path, text)
    return list(entry.files)


def _unit_value(value: str) -> str:
    """A path or value for a unit setting that takes it whole: only systemd's specifiers (%) are escaped."""
    return value.replace("%", "%%")


def _systemd_units(
    plan: Path, every: str, seconds: int, name: str, command: list[str], home: Path, workdir: Path, unit_dir: Path
) -> dict[Path, str]:
    settings = f"X-Iolab-Every={every.strip()}\nX-Iolab-Plan={plan}\n"
    environment = _unit_value(f"IOLAB_HOME={home}").replace("\\", "\\\\").replace('"', '\\"')
    service = (
        "[Unit]\n"
        f"Description=iolab scheduled run {name}\n"
        f"{settings}"
        "Wants=network-online.target\n"  # NFS and Lustre targets need the network up
        "After=local-fs.target network-online.target\n"
        "\n[Service]\n"
        "Type=oneshot\n"
        f'Environment="{environment}"\n'
        f"WorkingDirectory={_unit_value(str(workdir))}\n"
        f"ExecStart={' '.join(_systemd_quote(arg) for arg in command)}\n"
    )
    calendar = on_calendar(seconds)
    if calendar is not None:
        when = f"OnCalendar={calendar}\nPersistent=true\n"
    else:
        when = f"OnBootSec={seconds}s\nOnUnitActiveSec={seconds}s\n"
    timer = (
        "[Unit]\n"
        f"Description=iolab schedule {name}, every {every.strip()}\n"
        f"{settings}"
        "\n[Timer]\n"
        f"{when}"
        f"Unit=iolab-{name}.service\n"
        "\n[Install]\n"
        "WantedBy=timers.target\n"
    )
    return {unit_dir / f"iolab-{name}.service": service, unit_dir / f"iolab-{name}.timer": timer}


def _cron_markers(cron_file: Path) -> list[str]:
    """The marker lines of iolab schedules that have an entry line after them; other lines are not touched."""
    if not cron_file.exists():
        return []
    lines = cron_file.read_text().splitlines()
    return [lines[i] for i in range(len(lines) - 1) if lines[i].startswith(_MARKER)]


def _without(cron_file: Path, name: str) -> tuple[list[str], bool]:
    """The file's lines without the schedule `name` (its marker and entry), and whether it was there."""
    lines = cron_file.read_text().splitlines() if cron_file.exists() else []
    kept, found, skip = [], False, False
    for line in lines:
        if skip:
            skip = False
            continue
        if line.startswith(_MARKER) and _marker_fields(line).get("name") == name:
            found, skip = True, True
            continue
        kept.append(line)
    return kept, found


def _marker_fields(marker: str) -> dict[str, str]:
    """name=, every= and plan= (the plan last: it may contain spaces)."""
    body = marker[len(_MARKER) :]
    head, _, plan = body.partition(" plan=")
    fields = dict(part.split("=", 1) for part in head.split() if "=" in part)
    fields["plan"] = plan
    return fields


def _cron_text(
    plan: Path,
    every: str,
    seconds: int,
    name: str,
    command: list[str],
    home: Path,
    workdir: Path,
    cron_file: Path,
    cron_user: str | None,
) -> str:
    """The cron file with this schedule's marker and line in place of any earlier one of the same name."""
    fields = cron_fields(seconds)
    if fields is None:
        raise UserError(
            f"cron cannot run every {every.strip()}: choose an interval that divides an hour or a day "
            "(e.g. 10m, 30m, 2h, 6h, 1d), or use systemd"
        )
    kept, _ = _without(cron_file, name)
    user = f"{cron_user} " if cron_user else ""
    where = f"cd {_cron_quote(str(workdir))} && IOLAB_HOME={_cron_quote(str(home))}"
    kept += [
        f"{_MARKER}name={name} every={every.strip()} plan={plan}",
        f"{fields} {user}{where} {' '.join(_cron_quote(arg) for arg in command)}",
    ]
    return "\n".join(kept) + "\n"  # cron ignores a last line without a newline


def activation_commands(name: str) -> list[list[str]]:
    """What loads and starts an installed timer: the caller runs these (as root)."""
    return [["systemctl", "daemon-reload"], ["systemctl", "enable", "--now", f"iolab-{name}.timer"]]


def deactivation_commands(name: str) -> list[list[str]]:
    """What stops a timer before `remove()` deletes its files; daemon-reload afterwards forgets them."""
    return [["systemctl", "disable", "--now", f"iolab-{name}.timer"]]


def _unit_settings(path: Path) -> dict[str, str]:
    settings = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep and key.startswith("X-Iolab-"):
            settings[key[len("X-Iolab-") :].lower()] = value
    return settings


def list_installed(unit_dir: Path = SYSTEMD_UNIT_DIR, cron_file: Path | None = CRON_FILE) -> list[Schedule]:
    """Schedules found in `unit_dir` (iolab-*.timer) and in `cron_file`, sorted by name."""
    found = []
    unit_dir = Path(unit_dir)
    if unit_dir.is_dir():
        for timer in sorted(unit_dir.glob("iolab-*.timer")):
            settings = _unit_settings(timer)
            if "every" not in settings or "plan" not in settings:
                continue  # not written by install()
            name = timer.name[len("iolab-") : -len(".timer")]
            service = timer.with_suffix(".service")
            files = (service, timer) if service.exists() else (timer,)
            found.append(Schedule(name, settings["every"], Path(settings["plan"]), "systemd", files))
    if cron_file is not None:
        for marker in _cron_markers(Path(cron_file)):
            fields = _marker_fields(marker)
            found.append(Schedule(fields["name"], fields["every"], Path(fields["plan"]), "cron", (Path(cron_file),)))
    return sorted(found, key=lambda s: (s.name, s.kind))


def remove(name: str, unit_dir: Path = SYSTEMD_UNIT_DIR, cron_file: Path | None = CRON_FILE) -> list[Path]:
    """Delete the schedule's units and/or cron entry; returns the files deleted or rewritten.

    For systemd, run `deactivation_commands(name)` first and `systemctl
    daemon-reload` after. A name that is not installed is a UserError.
    """
    changed = []
    for suffix in (".timer", ".service"):
        path = Path(unit_dir) / f"iolab-{name}{suffix}"
        if path.exists():
            path.unlink()
            changed.append(path)
    if cron_file is not None and Path(cron_file).exists():
        kept, found = _without(Path(cron_file), name)
        if found:
            write_private(Path(cron_file), "\n".join(kept) + "\n" if kept else "")
            changed.append(Path(cron_file))
    if not changed:
        raise UserError(f"no schedule named {name!r} is installed (see the list of schedules)")
    return changed
