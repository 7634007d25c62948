"""A schedule's timer and cron line fire when they say, generated over every interval `--every` accepts up to
three days: each expression is read back by a small reader of systemd's OnCalendar and cron's fields (as
their manuals define them, not by iolab's code), and must fire from midnight every `seconds` exactly, the
whole day round; an interval with no such expression (90m, 7h, 2d) gets none from either."""

from __future__ import annotations

from iolab.schedule import cron_fields, on_calendar, parse_every

DAY_MINUTES = 24 * 60


def _values(field: str, top: int) -> list[int]:
    """The values of one time field: `*`, `*/n`, `a/n` (from a, every n) or a number."""
    if field == "*":
        return list(range(top))
    start, _, step = field.partition("/")
    first = 0 if start == "*" else int(start)
    return list(range(first, top, int(step))) if step else [first]


def _cron_minutes(fields: str) -> list[int]:
    minute, hour, day, month, weekday = fields.split()
    assert (day, month, weekday) == ("*", "*", "*")
    return sorted(h * 60 + m for h in _values(hour, 24) for m in _values(minute, 60))


def _calendar_minutes(expression: str) -> list[int]:
    date, time = expression.split()
    assert date == "*-*-*"
    hour, minute, second = time.split(":")
    assert second == "00"
    return sorted(h * 60 + m for h in _values(hour, 24) for m in _values(minute, 60))


def _intervals() -> list[str]:
    return [f"{n}m" for n in range(1, 24 * 60 + 1)] + [f"{n}h" for n in range(1, 73)] + ["1d", "2d", "3d"]


def _even(minutes: list[int], seconds: int) -> bool:
    step = seconds // 60
    return minutes == list(range(0, DAY_MINUTES, step))


def _expressible(seconds: int) -> bool:
    """Firing from midnight every `seconds`, the same each day, as a step of minutes within the hour or of
    hours within the day: the interval divides an hour, or is whole hours dividing a day."""
    return seconds % 60 == 0 and (3600 % seconds == 0 or (seconds % 3600 == 0 and 86400 % seconds == 0))


def test_a_timer_and_a_cron_line_fire_every_interval_from_midnight_or_neither_exists():
    made = 0
    for every in _intervals():
        seconds = parse_every(every)
        calendar, cron = on_calendar(seconds), cron_fields(seconds)
        if not _expressible(seconds):
            assert (calendar, cron) == (None, None), every
            continue
        assert calendar is not None and cron is not None, every
        assert _even(_calendar_minutes(calendar), seconds), (every, calendar)
        assert _even(_cron_minutes(cron), seconds), (every, cron)
        made += 1
    assert made == 28  # as minutes: the 12 divisors of 60 and 120m..1440m; as hours: 1, 2, 3, 4, 6, 8, 12, 24; 1d


def test_the_units_are_minutes_hours_and_days():
    assert [parse_every(e) for e in ("1m", "1min", " 15 min ", "1h", "1d")] == [60, 60, 900, 3600, 86400]


def test_a_cron_marker_without_its_entry_line_is_not_a_schedule(tmp_path):
    from iolab.schedule import list_installed

    cron = tmp_path / "iolab"
    marker = "# iolab-schedule name={} every=1h plan=/srv/p.toml"
    cron.write_text(f"MAILTO=ops\n{marker.format('kept')}\n0 * * * * root iolab run\n{marker.format('cut')}\n")
    assert [s.name for s in list_installed(tmp_path / "no-units", cron)] == ["kept"]
