#!/usr/bin/env bash
# Regenerates the real fio outputs the parser tests read. Run as root from
# this directory; needs fio. Every file here came from running fio, never
# from typing it. Re-run only when a new fio version's output is wanted.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"; kill $(jobs -p) 2>/dev/null || true' EXIT
file="$work/data"
fio --name=fill --filename="$file" --size=64m --rw=write --bs=1M --output=/dev/null

common=(--filename="$file" --size=64m --ioengine=libaio --direct=0 --time_based --runtime=1)

# json+ with four separate job entries (no group_reporting), total-latency histograms.
fio --output-format=json+ --output=randread-4jobs.json --name=rr "${common[@]}" \
    --rw=randread --bs=4k --iodepth=4 --numjobs=4 --lat_percentiles=1 --rate_iops=3000

# Plain json, one job, a read/write mix (both directions populated).
fio --output-format=json --output=randrw-json.json --name=mix "${common[@]}" \
    --rw=randrw --rwmixread=70 --bs=4k --iodepth=8 --rate_iops=4000

# A note fio prints before the JSON when stderr and stdout share a file.
fio --output-format=json+ --name=note "${common[@]}" --ioengine=psync --iodepth=8 \
    --rw=read --bs=64k --rate=20m > text-before.json 2>&1

# --status-interval writes several JSON documents one after another; the last is final.
fio --output-format=json --status-interval=1 --name=status "${common[@]}" --runtime=3 \
    --rw=read --bs=128k --rate=30m > status-interval.json

# A job that fails with an I/O error code (unaligned O_DIRECT read).
fio --output-format=json --output=job-error.json --name=bad --filename="$file" --size=64m \
    --direct=1 --rw=read --bs=1000 --offset=1 --runtime=1 || true

# A file system out of inodes: fio writes each job's error ("fio: pid=..., err=28/..., error=No space left
# on device") into --output ahead of its JSON, not to stderr.
mkdir "$work/tiny" && mount -t tmpfs -o size=4m,nr_inodes=100 tmpfs "$work/tiny"
fio --output-format=json --output=enospc-filecreate.json --name=md --directory="$work/tiny" --ioengine=filecreate \
    --thread=1 --numjobs=2 --nrfiles=200 --filesize=4k --openfiles=1 --create_on_open=1 \
    --file_service_type=sequential --filename_format='iolab-md.$jobnum.$filenum' --runtime=2 || true
# One job alone out of inodes: fio 3.33 prints no message at all, only "error" : 28 in the job's JSON.
rm -rf "${work:?}/tiny/"*
fio --output-format=json+ --output=enospc-filecreate-1job.json --name=md --directory="$work/tiny" \
    --ioengine=filecreate --nrfiles=500 --filesize=4k --create_on_open=1 --runtime=2 || true
umount "$work/tiny"

# Steady state (ss=): fio stops a job once the criterion holds over ss_dur seconds, and says so per job
# in a `steadystate` object. Two throttled jobs that reach it within seconds of a 20 s runtime; one
# unthrottled job whose slope criterion is never met, so it runs its whole 4 s.
fio --output-format=json+ --output=steadystate-attained.json --name=ss "${common[@]}" --runtime=20 \
    --rw=randread --bs=4k --iodepth=4 --numjobs=2 --rate_iops=2000 --lat_percentiles=1 --ss=iops:20% --ss_dur=3
fio --output-format=json+ --output=steadystate-not-attained.json --name=ss "${common[@]}" --runtime=4 \
    --rw=randread --bs=4k --iodepth=4 --lat_percentiles=1 --ss=iops_slope:0.001% --ss_dur=2

# Client/server: three fio servers on loopback addresses, one controller.
for ip in 127.0.0.11 127.0.0.12 127.0.0.13; do fio --server="$ip" >/dev/null 2>&1 & done
sleep 1
cat > "$work/cs.fio" <<JOB
[cs]
filename=$work/cs-\${HOSTNAME}
size=16m
rw=randread
bs=4k
ioengine=libaio
iodepth=4
time_based=1
runtime=1
rate_iops=2000
lat_percentiles=1
unique_filename=1
JOB
fio --output-format=json+ --output=client-server-3hosts.json \
    --client=127.0.0.11 "$work/cs.fio" --client=127.0.0.12 "$work/cs.fio" --client=127.0.0.13 "$work/cs.fio"
# The work directory path must not end up in the committed files.
sed -i "s#$work#/scratch#g" ./*.json

# Per-second logs (log_avg_msec=1000) of two jobs; fio repeats the final window.
mkdir -p logs
fio --output-format=json --output=logs/logged.json --name=logged "${common[@]}" --runtime=3 --ramp_time=1 \
    --rw=randread --bs=4k --iodepth=4 --numjobs=2 --rate_iops=2000 --log_avg_msec=1000 \
    --write_bw_log=logs/point --write_iops_log=logs/point --write_lat_log=logs/point
sed -i "s#$work#/scratch#g" logs/*.json

# ramp_time at QD32 on a device throttled to 50 MiB/s (a loop device in a cgroup-v1 blkio group): the
# I/Os in flight when the ramp ends complete inside the measured window, so io_bytes counts them and
# total_ios does not (fio's iops then disagrees with its bandwidth).
truncate -s 256m "$work/throttled.img"
loop=$(losetup --find --show "$work/throttled.img")
group=/sys/fs/cgroup/blkio/iolab-generate
mkdir -p "$group"
echo "$(cat /sys/class/block/"$(basename "$loop")"/dev) 52428800" > "$group/blkio.throttle.read_bps_device"
(echo $BASHPID > "$group/cgroup.procs"; exec fio --output-format=json+ --output=ramp-qd32-throttled.json \
    --name=ramped --filename="$loop" --rw=read --bs=1M --ioengine=libaio --direct=1 --iodepth=32 \
    --time_based --ramp_time=2 --runtime=3)
losetup -d "$loop"
rmdir "$group"
sed -i "s#$loop#/dev/loop0#g" ramp-qd32-throttled.json
