"""`iolab.models` loads each model when first asked for: every name it exports is in its table of where each
lives, and asking for it gives the same object as importing its module; the three lists (the type checker's
imports, the table, `__all__`) name the same models, so one added to one list and not the others fails here."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import iolab.models as models


def test_the_table_and_all_name_the_same_models():
    assert set(models._WHERE) == set(models.__all__)


def test_the_type_checkers_imports_name_the_same_models():
    tree = ast.parse(Path(models.__file__).read_text())
    checked = {
        (node.module, alias.name)
        for block in tree.body
        if isinstance(block, ast.If)
        for node in ast.walk(block)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert checked == {(module, name) for name, module in models._WHERE.items()}


@pytest.mark.parametrize("name", sorted(models.__all__))
def test_each_model_is_its_modules_own(name):
    assert getattr(models, name) is getattr(importlib.import_module(models._WHERE[name]), name)


def test_a_name_it_does_not_hold_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        models.Nothing  # noqa: B018
