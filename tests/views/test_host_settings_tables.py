"""A host setting swept in a run is a parameter like a fio option: a table column, a JSON field, a workload apart.

The results are real fio output (tests/data/fio/randread-4jobs.json); which setting they ran under is what
the records say, as the store gives them back.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from iolab.doctor.derived import qd_curves, repeat_sets
from iolab.fio.parse import aggregate, parse_output
from iolab.models import Point, PointRecord, Target
from iolab.report.json_output import record_dict
from iolab.report.markdown import table_markdown
from iolab.report.terminal import notebook_table
from iolab.views.tables import notebook_tables

LOOP = Target(path="/dev/loop7", kind="block", filename="/dev/loop7", size_bytes=64 << 20)
OUTPUT = parse_output((Path(__file__).parents[1] / "data" / "fio" / "randread-4jobs.json").read_text())
RESULT = aggregate(OUTPUT.groups[0].entries, OUTPUT.version)


def ab_records(options: dict[str, str] | None = None, first_id: int = 1) -> list[PointRecord]:
    """An A/B of the scheduler with 3 interleaved repeats, as a run stores it."""
    records = []
    for repeat in range(3):
        for scheduler in ("none", "mq-deadline"):
            point = Point(
                f"randread-sched_{scheduler}",
                LOOP,
                {"rw": "randread", "bs": "4k", **(options or {})},
                repeat,
                {"scheduler": scheduler},
            )
            seq = first_id + len(records)
            records.append(PointRecord(seq, 1, seq, point, "ok", result=RESULT))
    return records


def test_an_ab_of_the_scheduler_is_one_table_with_a_scheduler_column():
    (table,) = notebook_tables(ab_records(), {})
    assert table.axis == "scheduler" and table.title == "scheduler sweep: randread 4k"
    assert table.columns[0].header == "scheduler" and not table.columns[0].numeric
    assert [row.cells[0] for row in table.rows] == ["none", "mq-deadline"]
    assert [row.cells[[c.key for c in table.columns].index("repeats")] for row in table.rows] == ["3", "3"]
    assert "scheduler" not in dict(table.fixed)
    assert table_markdown(table).splitlines()[0].startswith("| scheduler | MB/s |")


def test_with_a_queue_depth_sweep_each_scheduler_gets_its_own_qd_table_as_in_a_notebook():
    records = ab_records({"iodepth": "1"}) + ab_records({"iodepth": "32"}, first_id=7)
    tables = notebook_tables(records, {})
    assert [(t.axis, dict(t.fixed)["scheduler"]) for t in tables] == [("iodepth", "none"), ("iodepth", "mq-deadline")]
    assert "scheduler=none" in tables[0].fixed_text
    # and the doctor keeps their curves and repeats apart
    assert len(qd_curves(records, min_configs=2)) == 2
    assert len(repeat_sets(records)) == 4


def test_the_terminal_table_and_json_say_which_setting_each_point_ran_under():
    records = ab_records()
    console = Console(width=200, record=True, color_system=None)
    (table,) = notebook_tables(records, {})
    console.print(notebook_table(table))
    lines = console.export_text().splitlines()
    assert lines[1].split()[:2] == ["scheduler", "MB/s"]
    assert [line.split()[0] for line in lines[3:] if line[1:2].strip()] == ["none", "mq-deadline"]
    assert record_dict(records[1])["host_settings"] == {"scheduler": "mq-deadline"}
    assert "host_settings" in record_dict(records[1]) and "scheduler" not in record_dict(records[1])["options"]
