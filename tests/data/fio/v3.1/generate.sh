#!/usr/bin/env bash
# Regenerates the fio 3.1 JSON outputs here: real fio, never typed. fio 3.0 and 3.1 write latencies in ns
# (clat_ns, lat_ns) but bandwidth only in KiB/s (`bw`; `bw_bytes` came with 3.2), and no latency count N.
# No committed multi-job output of these versions was found in a public repository, so fio 3.1 is built
# from its tag (axboe/fio, fio-3.1) and run here: FIO=/path/to/fio-3.1 ./generate.sh (SOURCES.md says how).
set -euo pipefail
cd "$(dirname "$0")"
fio=${FIO:-fio}
"$fio" --version | grep -qx 'fio-3.1' || { echo "FIO must be fio 3.1"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(--filename="$work/data" --size=32m --ioengine=psync --time_based --runtime=1)

# Two jobs of one name (numjobs=2, no group_reporting), reading and writing: KiB/s summed, latency pooled by
# I/O count, and no percentiles (two jobs, no histogram to merge).
"$fio" --output-format=json --output=randrw-2jobs.json --name=mix "${common[@]}" \
    --rw=randrw --bs=4k --numjobs=2 --rate_iops=800

# json+: two jobs' completion-latency histograms, merged for the percentiles.
"$fio" --output-format=json+ --output=randread-2jobs-jsonplus.json --name=rr "${common[@]}" \
    --rw=randread --bs=4k --numjobs=2 --rate_iops=1500

# One job, plain json: its own percentile table is the point's.
"$fio" --output-format=json --output=write-1job.json --name=seq "${common[@]}" \
    --rw=write --bs=64k --rate=20m
