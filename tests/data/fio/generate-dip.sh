#!/usr/bin/env bash
# Regenerates logs-dip/: per-second bandwidth logs of three jobs, each held to 20 MiB/s, reading one loop
# device whose read bandwidth a cgroup-v1 blkio throttle cuts to 12 MiB/s for 5 s in the middle of the run,
# so the jobs' summed series holds a real dip. The third job stops 10 s before the others: its last
# seconds are seconds only some jobs logged (`iolab.analysis.series.job_sum`).
# Run as root from this directory; needs fio and losetup.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
group=/sys/fs/cgroup/blkio/iolab-generate-dip
loop=""
cleanup() {
    [ -n "$loop" ] && losetup -d "$loop" || true
    rmdir "$group" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
truncate -s 512m "$work/dip.img"
loop=$(losetup --find --show "$work/dip.img")
dev=$(cat /sys/class/block/"$(basename "$loop")"/dev)
mkdir -p "$group"
echo "$dev $((200 << 20))" > "$group/blkio.throttle.read_bps_device"
mkdir -p logs-dip
(echo $BASHPID > "$group/cgroup.procs"; exec fio --output-format=json --output=logs-dip/dip.json \
    --filename="$loop" --rw=randread --bs=64k --ioengine=libaio --direct=1 --iodepth=4 --rate=20m --time_based \
    --log_avg_msec=1000 --write_bw_log=logs-dip/point --name=dip --numjobs=2 --runtime=40 \
    --name=short --runtime=30) &
fio_pid=$!
sleep 10
echo "$dev $((12 << 20))" > "$group/blkio.throttle.read_bps_device"
sleep 5
echo "$dev $((200 << 20))" > "$group/blkio.throttle.read_bps_device"
wait "$fio_pid"
sed -i "s#$loop#/dev/loop0#g" logs-dip/dip.json
