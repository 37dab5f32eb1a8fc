#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A healthy node's verdicts, run after run: gv-check N times at the quick and standard levels;
# the standard level while another tenant (peer_load.py: a PyTorch matmul loop holding 8 GiB)
# uses the GPU; two gv-check at once. soak_summary.py counts every verdict other than PASS.
# Usage: bench/run_soak.sh BINDIR OUTDIR [N]
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
n=${3:-10}
check() { "$bin/gv-check" --sysroot / --json "$@"; }
i=0; while [ $i -lt "$n" ]; do
    check --level quick >"$out/quick_$i.json" 2>>"$out/stderr.txt"
    check --level standard >"$out/standard_$i.json" 2>>"$out/stderr.txt"
    i=$((i + 1))
done
python3 "$here/peer_load.py" 40 8 >"$out/peer_load.txt" 2>&1 &
sleep 8
i=0; while [ $i -lt 3 ]; do
    check --level standard >"$out/standard-beside-a-tenant_$i.json" 2>>"$out/stderr.txt"
    i=$((i + 1))
done
wait
i=0; while [ $i -lt 3 ]; do
    check --level standard >"$out/standard-two-at-once-a_$i.json" 2>>"$out/stderr.txt" &
    check --level standard >"$out/standard-two-at-once-b_$i.json" 2>>"$out/stderr.txt"
    wait
    i=$((i + 1))
done
python3 "$here/soak_summary.py" "$out" >"$out/summary.md" 2>&1
cat "$out/summary.md"
