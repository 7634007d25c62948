"""`python -m iolab`, and the `iolab` command's entry point (`run`).

The command line is imported inside `run`, so a Ctrl-C while Python is still loading iolab's modules
(the first tenth of a second of every command) ends with one line and exit 130, as a Ctrl-C later
does, not with a traceback.
"""

from __future__ import annotations

import sys


def run() -> None:
    try:
        from iolab.cli import main
    except KeyboardInterrupt:
        print("iolab: interrupted", file=sys.stderr)
        sys.exit(130)  # iolab.cli.INTERRUPTED, not imported: that import is what Ctrl-C stopped
    main()


if __name__ == "__main__":
    run()
