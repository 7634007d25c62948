"""tests/tiers.py's kept answers: used again only for the very same tests/ source, and the same as worked out."""

from __future__ import annotations

import json
from pathlib import Path

from tests import tiers

HERE = Path(__file__).resolve()


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / "tests" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "tests" / name).write_text(text)


def test_any_edit_added_or_moved_file_under_tests_names_another_file_of_answers(tmp_path):
    _tree(tmp_path, {"a.py": "x = 1\n", "sub/b.py": "y = 2\n"})
    names = [tiers.Verdicts(tmp_path / "cache", root=tmp_path).path.name]
    _tree(tmp_path, {"a.py": "x = 2\n"})
    names.append(tiers.Verdicts(tmp_path / "cache", root=tmp_path).path.name)
    _tree(tmp_path, {"sub/c.py": ""})
    names.append(tiers.Verdicts(tmp_path / "cache", root=tmp_path).path.name)
    (tmp_path / "tests" / "sub" / "c.py").rename(tmp_path / "tests" / "c.py")
    names.append(tiers.Verdicts(tmp_path / "cache", root=tmp_path).path.name)
    _tree(tmp_path, {"data.txt": "not code"})  # only the .py files are read by the answers
    names.append(tiers.Verdicts(tmp_path / "cache", root=tmp_path).path.name)
    assert len(set(names[:4])) == 4 and names[4] == names[3], names


def test_kept_answers_are_the_worked_out_ones_and_the_next_collection_reads_them(tmp_path):
    module = HERE.parent / "plan" / "test_plan_check_cli.py"
    asked = [
        (module, "test_real_command_exits_2_without_traceback", 0, None, []),
        (module, "test_empty_axis_is_named", 0, None, []),
        (HERE, "test_any_edit_added_or_moved_file_under_tests_names_another_file_of_answers", 0, None, []),
    ]
    first = tiers.Verdicts(tmp_path)
    answers = [first.is_end_to_end(*question) for question in asked]
    assert answers == [tiers.is_end_to_end(*question) for question in asked] == [True, False, False]
    first.save()
    (kept,) = tmp_path.glob("tiers-*.json")
    assert kept == first.path and len(json.loads(kept.read_text())) == 3

    second = tiers.Verdicts(tmp_path)
    assert [second.is_end_to_end(*question) for question in asked] == answers and not second.added
    # read from the file, not worked out again: a flipped answer there is what the next collection gets
    kept.write_text(json.dumps({key: not value for key, value in json.loads(kept.read_text()).items()}))
    assert [tiers.Verdicts(tmp_path).is_end_to_end(*question) for question in asked] == [False, True, True]


def test_saving_replaces_the_answers_of_older_sources(tmp_path):
    (tmp_path / "tiers-0000.json").write_text("{}")
    verdicts = tiers.Verdicts(tmp_path)
    verdicts.is_end_to_end(HERE, "test_saving_replaces_the_answers_of_older_sources", 0, None, [])
    verdicts.save()
    assert [p.name for p in tmp_path.iterdir()] == [verdicts.path.name]
