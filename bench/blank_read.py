"""How fast is the full blank check? (issue 39: blank means what it says)

Before iolab first writes a block device it reads every byte of it (`iolab.runner.blank.read_all`: 16 MiB
O_DIRECT reads, each tested for a non-zero byte). That read should run at the device's streaming rate, so
it is measured against `dd bs=16M iflag=direct` reading the same device, alternating the two for
`--repeats` rounds: a loop device with direct I/O over a fully written tmpfs file (RAM behind the loop
driver: the fastest device this host has, where the zero test costs the most by comparison).

Writes bench/results/blank_read.json: each side's MB/s per round and the median ratio read_all / dd.

    .venv/bin/python bench/blank_read.py [--size-mib 1024] [--repeats 5]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
from pathlib import Path

from loopdev import ram_loop_device
from results_file import RESULTS, add_smoke_flag, host, write_result

from iolab.runner.blank import CHUNK, read_all


def dd_mb_s(device: str, size: int) -> float:
    """dd's own figure for reading the whole device with 16 MiB direct reads, in MB/s (10^6)."""
    done = subprocess.run(
        ["dd", f"if={device}", "of=/dev/null", f"bs={CHUNK}", f"count={size // CHUNK}", "iflag=direct"],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = float(re.search(r"copied, ([\d.]+) s", done.stderr).group(1))  # type: ignore[union-attr]
    return size // CHUNK * CHUNK / seconds / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=5)
    add_smoke_flag(parser)
    args = parser.parse_args()
    size_mib, repeats = (64, 1) if args.smoke else (args.size_mib, args.repeats)
    size = size_mib << 20
    ours, dd = [], []
    with ram_loop_device("iolab-bench-blank-", size_mib) as (_, device):
        for _ in range(repeats):
            found = read_all(device, size, lambda _: None)
            if found.first is not None:
                raise SystemExit(f"{device} is not blank at {found.first}: the bench's device must be zeros")
            ours.append(found.rate_mb_s)
            dd.append(dd_mb_s(device, size))
    ratios = [a / b for a, b in zip(ours, dd, strict=True)]
    print(f"read_all {statistics.median(ours):,.0f} MB/s, dd {statistics.median(dd):,.0f} MB/s over {size_mib} MiB")
    write_result(
        Path(RESULTS) / "blank_read.json",
        "blank_read",
        {
            "device": f"loop device with direct I/O over a {size_mib} MiB tmpfs file of zeros",
            "read_all_mb_s": [round(x) for x in ours],
            "dd_mb_s": [round(x) for x in dd],
            "median_ratio": round(statistics.median(ratios), 3),
            "host": host(),
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
