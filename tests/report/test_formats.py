"""Views are typed: each renderer takes the type its view carries (`report.formats.View`), in every format.

`emit(view, shown, ...)` is checked by mypy to hand a `View[T]` a `T`; this holds the other side, each
`RENDERS` entry's first parameter, to the same `T`, so a renderer written for another view's type, or
registered under another view's name, fails here.
"""

from __future__ import annotations

import inspect

import pytest

from iolab.errors import UserError
from iolab.report.formats import ALIASES, FORMATS, VIEWS, canonical, renderer, renders

BY_NAME = {view.name: view for view in VIEWS}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_renderer_takes_its_view_s_type(fmt):
    for name, render in renders(fmt).items():
        assert name in BY_NAME, f"{fmt} renders {name!r}, which is no View in report.formats"
        first, *rest = inspect.signature(render).parameters.values()
        assert first.annotation == BY_NAME[name].carries, (fmt, name, first.annotation)
        assert [p.name for p in rest] == ["terminal", "verbose"], (fmt, name)


def test_a_format_that_cannot_write_a_view_is_refused_naming_those_that_can():
    for view in VIEWS:
        able = [fmt for fmt in FORMATS if view.name in renders(fmt)]
        assert able, view.name
        for fmt in set(FORMATS) - set(able):
            with pytest.raises(UserError, match=f"cannot write {view.what}: choose one of {', '.join(able)}$"):
                renderer(fmt, view)


def test_old_names_are_the_new_formats_and_an_unknown_one_names_them_all():
    assert {canonical(old) for old in ALIASES} == {"text", "markdown"}
    with pytest.raises(UserError, match="choose one of text, markdown, json, csv, html, prometheus"):
        canonical("yaml")
