"""`run --dry-run` prints every path as it is, whatever it holds (issue 41: `bench/mutation.py` found the
`markup=False` of the dry run's lines held by no fast test: only the end-to-end tier ran `run --dry-run`, on
plain paths, so a target whose name holds `[b]` losing it to rich's markup passed). In process, no fio."""

from __future__ import annotations

from tests.in_process import iolab


def test_a_target_named_like_markup_is_printed_verbatim_on_every_line_of_the_dry_run(tmp_path):
    target = tmp_path / "data[b]x[i]"
    target.mkdir()
    done = iolab("run", "--dry-run", str(target))
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    points = [line for line in lines if line.startswith("  ")]
    assert len(points) == 5 and all(f" on {target}: " in line for line in points)
    for said in ("writes: scratch file ", "fio touches: ", "checks: "):
        assert any(line.startswith(said + str(target)) for line in lines), said
    assert lines[-1] == "5 points, estimated 56 s" and not done.stdout
