"""Every guard iolab registers, found by importing every module of the package.

A guard registers itself when its module is imported (`iolab.guards`), and the command line imports its
heavy modules only inside the commands that need them, so importing `iolab.cli` is not enough: this walks
`src/iolab` and imports each module. Used by the guard table's test and the mutation bench.
"""

from __future__ import annotations

import importlib
import pkgutil

import iolab
from iolab import guards


def load_all() -> dict[str, guards.Guard]:
    """The registry once every module of iolab has been imported (`__main__` runs the CLI: left out)."""
    for module in pkgutil.walk_packages(iolab.__path__, "iolab."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    return dict(guards.GUARDS)
