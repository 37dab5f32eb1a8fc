# SPDX-License-Identifier: Apache-2.0
# Sourced by the bench/run_*.sh scripts that run gv-check from a build: bench_setup BINDIR OUTDIR
# sets bin (BINDIR, absolute), out and here (bench/), runs the library and gpuverify-worker from
# BINDIR, and writes OUTDIR/env.txt: when, which GPUs and driver, which kernel. timed NAME ARGS
# runs gv-check --json ARGS into OUTDIR/NAME.json (.err) and adds "NAME exit seconds" to
# OUTDIR/walls.txt, which bench_setup empties.
bench_setup() {
    bin=$(cd "$1" && pwd) || exit 2
    out=$2
    here=$(cd "$(dirname "$0")" && pwd)
    mkdir -p "$out"
    export LD_LIBRARY_PATH=$bin GPUVERIFY_WORKER=$bin/gpuverify-worker
    { date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,power.limit \
        --format=csv; uname -r; } >"$out/env.txt" 2>&1
    : >"$out/walls.txt"
}

timed() { # NAME gv-check arguments...
    name=$1
    shift
    start=$(date +%s.%N)
    "$bin/gv-check" --json "$@" >"$out/$name.json" 2>"$out/$name.err"
    rc=$?
    end=$(date +%s.%N)
    awk -v n="$name" -v rc="$rc" -v a="$start" -v b="$end" 'BEGIN { printf "%s %d %.3f\n", n, rc, b - a }' >>"$out/walls.txt"
}
