"""An exclude rule compares a number as a number (issue 41 item 8: `bench/mutation.py --whole` found no fast
test holding it): `iodepth == 32` drops the depth given as 32, `bs == 4096` the block size given as 4k."""

from __future__ import annotations

from iolab.plan.planfile import load_plan


def test_exclude_compares_numbers_as_numbers_and_text_as_text(tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text(
        'name = "sweep"\ntargets = ["/scratch"]\n'
        'exclude = ["iodepth == 32 and bs == 4096", "rw == \'randwrite\'"]\n'
        '[axes]\nrw = ["randread", "randwrite"]\nbs = ["4k", "64k"]\niodepth = [1, 32]\n'
    )
    kept = {(w.options["rw"], w.options["bs"], w.options["iodepth"]) for w in load_plan(path).workloads}
    assert kept == {("randread", "4k", "1"), ("randread", "64k", "1"), ("randread", "64k", "32")}
