"""fio's `include FILE` is refused in every spelling iolab can meet inside a job section: fio would read jobs
from a file iolab never checked (the include-refusal guard). `include other.fio` has no '=' (its key is the
whole line), `include=other.fio` and a bare `include` have the key `include`; an `include` before any section
was the only case the fast tier held, refused there for coming before a section (fresh seed 72811 found the
guard's `or` turned `and` survived)."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.fio.jobfile import parse_jobfile


@pytest.mark.parametrize("line", ["include other.fio", "include  /etc/fio/x.fio", "include=other.fio", "include"])
def test_an_include_in_a_job_section_is_refused_in_each_spelling(line):
    with pytest.raises(UserError, match=r"j\.fio:3: iolab reads one job file"):
        parse_jobfile(f"[j]\nrw=read\n{line}\n", "j.fio")


def test_an_option_whose_name_only_starts_with_include_is_no_include():
    assert parse_jobfile("[j]\nincludes_nothing=1\n", "j.fio")[0].options == {"includes_nothing": "1"}
