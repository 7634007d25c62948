#!/usr/bin/env bash
# Regenerates quick/: the quick preset's five workloads (`iolab.plan.presets.quick`, 8 s after a 2 s ramp,
# as `iolab run` runs them) on a 256 MiB file with direct I/O, each with its json+ output and its
# per-second bandwidth logs (log_avg_msec=1000), the way iolab runs a point. Run from this directory;
# needs fio. Every file here came from running fio.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d /var/tmp/iolab-quick.XXXXXX)
trap 'rm -rf "$work"' EXIT
file="$work/data"
fio --name=fill --filename="$file" --size=256m --rw=write --bs=1M --direct=1 --output=/dev/null
common=(--filename="$file" --size=256m --ioengine=libaio --direct=1 --time_based --runtime=8 --ramp_time=2
        --log_avg_msec=1000)
run() {  # name, then its options
    local name=$1
    shift
    fio --output-format=json+ --output="$name.json" --name="$name" "${common[@]}" --write_bw_log="$name" "$@"
    sed -i "s#$work#/scratch#g" "$name.json"
}
run seqread-1m-qd32 --rw=read --bs=1m --iodepth=32 --numjobs=1
run seqwrite-1m-qd32 --rw=write --bs=1m --iodepth=32 --numjobs=1
run randread-4k-qd32-j4 --rw=randread --bs=4k --iodepth=32 --numjobs=4
run randwrite-4k-qd32-j4 --rw=randwrite --bs=4k --iodepth=32 --numjobs=4
run randread-4k-qd1 --rw=randread --bs=4k --iodepth=1 --numjobs=1
