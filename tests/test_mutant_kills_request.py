"""A run's plan is a file or a preset by its name (issue 41 item 8: `bench/mutation.py --whole` found no fast
test holding it): `nightly.toml` is a file even before it exists (a missing file is then said as such, not
looked up as a preset), and a file without a plan suffix is a file when it is there."""

from __future__ import annotations

from iolab.runner.request import RunRequest


def test_a_plan_is_a_file_by_its_suffix_or_by_being_there(tmp_path):
    assert RunRequest(plan=str(tmp_path / "nightly.toml")).is_file()
    job = tmp_path / "mixed"
    assert not RunRequest(plan=str(job)).is_file()
    job.write_text("[global]\nrw=read\n")
    assert RunRequest(plan=str(job)).is_file()
    assert not RunRequest(plan="quick").is_file()
