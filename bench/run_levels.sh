#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# How long each way of running gv-check takes on this node, for docs/howto.md and the time to a
# verdict in the GPU count: the standard level on 1, 2 and 4 GPUs (or as many as there are),
# alternating, three rounds; then on every GPU the selections the integrations run: quick (the
# Slurm Prolog), the passive checks (NPD, NHC, the DaemonSet's every minute), the Slurm health
# check's default, and the extended level with a short --duration. Every run's JSON is kept;
# bench/levels_summary.py prints medians, ratios and each check's time.
# Usage: bench/run_levels.sh BINDIR OUTDIR [DURATION_S]   (BINDIR holds gv-check)
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
duration=${3:-60}
n=$(nvidia-smi -L | grep -c '^GPU ')
sets="0"
[ "$n" -ge 2 ] && sets="$sets 0,1"
[ "$n" -ge 4 ] && sets="$sets 0,1,2,3"
[ "$n" -ge 8 ] && sets="$sets 0,1,2,3,4,5,6,7"
for round in 1 2 3; do
    for set in $sets; do
        gpus=$(echo "$set" | tr ',' '\n' | wc -l)
        timed "standard-${gpus}gpu-r$round" --level standard --gpus "$set"
    done
    timed "quick-r$round" --level quick
    timed "passive-r$round" --checks '^cuda,^mem,^gemm,^cudnn,^nccl'
    timed "slurm-health-r$round" --checks '^gemm,^nccl,^cuda.copy,^cuda.copy_all,^mem'
done
timed "extended-${duration}s" --level extended --duration "$duration"
python3 "$here/levels_summary.py" "$out" | tee "$out/summary.txt"
