#!/usr/bin/env bash
# Records what the installed fio declares of every option iolab's option table (iolab.models.option_spec)
# has a row for: `fio --cmdhelp=NAME` (type, default, range, aliases), one block per option, into
# cmdhelp-fio-VERSION.txt. Every line came from fio. Re-run for a new fio version.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../../.. && pwd)
out="cmdhelp-$(fio --version).txt"
"$root/.venv/bin/python" -c 'from iolab.models.option_spec import ROWS; print("\n".join(r.name for r in ROWS))' |
    while read -r name; do
        fio --cmdhelp="$name" 2>/dev/null || true
        echo
    done > "$out"
