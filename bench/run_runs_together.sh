#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs of gv-check started together on one node (a Slurm Prolog, the health check and a
# DaemonSet's pass at once), two builds in turn: N runs at once at the quick and the standard
# level, each run's exit status, wall time and the rows another run held ("held_by"); then one
# run of the standard level alone, for the time a run takes by itself. Writes OUTDIR/walls.txt
# ("build level k exit seconds held") and each run's JSON.
# Usage: [N=3] bench/run_runs_together.sh OLD_BINDIR NEW_BINDIR OUTDIR
set -u
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd) out=$3
n=${N:-3}
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; } >"$out/env.txt" 2>&1
: >"$out/walls.txt"
one() { # BUILD LEVEL K: one gv-check run, its line in walls.txt
    case $1 in old) bin=$old ;; *) bin=$new ;; esac
    start=$(date +%s.%N)
    LD_LIBRARY_PATH=$bin GPUVERIFY_WORKER=$bin/gpuverify-worker "$bin/gv-check" --json \
        --level "$2" >"$out/$1-$2-$3.json" 2>"$out/$1-$2-$3.err"
    rc=$?
    end=$(date +%s.%N)
    held=$(grep -o '"held_by":{' "$out/$1-$2-$3.json" | wc -l)
    awk -v b="$1" -v l="$2" -v k="$3" -v rc="$rc" -v s="$start" -v e="$end" -v h="$held" \
        'BEGIN { printf "%s %s %s %d %.2f %d\n", b, l, k, rc, e - s, h }' >>"$out/walls.txt"
}
for build in old new; do
    one "$build" standard alone
    for level in quick standard; do
        k=1
        while [ "$k" -le "$n" ]; do
            one "$build" "$level" "$k" &
            k=$((k + 1))
        done
        wait
    done
done
cat "$out/walls.txt"
