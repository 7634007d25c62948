"""A command whose view has no text form, run with no format option, says so and names the formats to ask for,
not "--format text", an option the user never typed (`iolab export` did); an explicit --format text keeps the
usual refusal; and every view the format table knows is checked the same way."""

from __future__ import annotations

import pytest

from iolab.cli.output import check, outputs
from iolab.errors import UserError
from iolab.report import formats
from tests.in_process import iolab


def test_export_with_no_format_names_the_formats_it_has():
    done = iolab("export")
    assert done.returncode == 2
    assert done.stderr.strip() == "iolab: an export has no text form: give --format json or csv or prometheus"


def test_export_with_format_text_keeps_the_usual_refusal():
    done = iolab("export", "--format", "text")
    assert done.returncode == 2 and "--format text cannot write an export" in done.stderr


VIEWS = [value for value in vars(formats).values() if isinstance(value, formats.View)]


@pytest.mark.parametrize("view", VIEWS, ids=lambda view: view.name)
def test_every_view_by_default_renders_text_or_says_it_has_none(view):
    (default,) = outputs(None, None, False, {})
    assert default.default and default.fmt == "text"
    if "text" in formats.able(view):
        check(view, [default])
    else:
        with pytest.raises(UserError, match=f"^{view.what} has no text form: give --format "):
            check(view, [default])
    (asked,) = outputs("text", None, False, {})
    assert not asked.default
