"""A plan or workload name of 200 characters (the most a name may have: it heads tables and reports) is taken,
and one of 201 refused naming its length; no fast test gave a name at the bound (fresh seed 71735 found
`len(value) > MAX_NAME` turned `>=` survived)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.plan.planfile import parse_plan


def _text(plan: str, workload: str) -> str:
    return f'name = "{plan}"\n[[workloads]]\nname = "{workload}"\noptions = {{ rw = "read", bs = "4k" }}\n'


def test_names_of_200_characters_are_taken_and_of_201_refused(tmp_path: Path):
    plan = parse_plan(_text("p" * 200, "w" * 200), "p.toml", tmp_path)
    assert plan.name == "p" * 200 and [w.name for w in plan.workloads] == ["w" * 200]
    with pytest.raises(UserError, match=r"p\.toml: name: 201 characters; a name may have at most 200"):
        parse_plan(_text("p" * 201, "w"), "p.toml", tmp_path)
    with pytest.raises(UserError, match=r"workloads\[0\]\.name: 201 characters"):
        parse_plan(_text("p", "w" * 201), "p.toml", tmp_path)
