"""fio option checks that `bench/mutation.py --whole` found no fast test holding (issue 41 item 8)."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.fio.options import checked_options


def test_an_option_of_the_path_class_is_refused_with_what_it_would_do():
    """verify_state_load reads a file fio names: refused by its class in the allowlist (PATH), saying why."""
    with pytest.raises(UserError, match="iolab does not pass verify_state_load= to fio: it "):
        checked_options({"verify_state_load": "1"}, "plan")
    assert checked_options({"direct": "1", "bs": "4k"}, "plan") == {"direct": "1", "bs": "4k"}
