#!/usr/bin/env bash
# Regenerates the fio terse outputs (--minimal) the terse parser tests read: real fio, never typed.
# No published terse file was found in a public repository with its path; these come from the fio
# installed here (fio --version is in each v3+ line). Run from this directory; needs fio.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"; kill $(jobs -p) 2>/dev/null || true' EXIT
common=(--filename="$work/data" --size=16m --ioengine=psync --time_based --runtime=1 --rate_iops=400)

# Versions 2 (no fio version, with trim), 3 (the default: read and write only) and 5 (bandwidth samples
# and IOPS statistics): two jobs of one name (numjobs=2, no group_reporting) reading and writing.
for v in 2 3 5; do
    fio --minimal --terse-version=$v --name=mixed "${common[@]}" --rw=randrw --bs=4k --numjobs=2 > terse-v$v.txt
done

# Client/server: two fio servers on loopback addresses; the controller prints a terse line per host's
# job and one for "All clients".
for ip in 127.0.0.21 127.0.0.22; do fio --server="$ip" >/dev/null 2>&1 & done
sleep 1
cat > "$work/cs.fio" <<JOB
[cs]
filename=$work/cs-\${HOSTNAME}
size=8m
rw=randread
bs=4k
time_based=1
runtime=1
rate_iops=500
unique_filename=1
JOB
fio --minimal --client=127.0.0.21 "$work/cs.fio" --client=127.0.0.22 "$work/cs.fio" > terse-v3-client-server.txt
