#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 14 on a GPU machine: the verdicts a scheduler acts on, through gpuverify-worker.
#  1. gv-check with no options: exit status and every row;
#  2. two `gv-check --checks cuda,gemm` started together: both exit statuses and rows;
#  3. bench_agent: 100 quick-level gv_run calls in one process through the worker, its RSS, and
#     nvidia-smi's compute processes sampled meanwhile (the agent's PID must never be there);
#  4. the quick level's wall time with the worker beside --isolation none, five of each,
#     alternating.
# Usage: bench/run_isolation.sh BINDIR OUTDIR  (BINDIR: gv-check, bench_agent,
#        gpuverify-worker and libgpuverify.so.1 side by side)
set -u
bin=$(cd "$1" && pwd); out=$2
mkdir -p "$out"
export LD_LIBRARY_PATH=$bin GPUVERIFY_WORKER=$bin/gpuverify-worker
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; uname -r; } >"$out/env.txt" 2>&1

"$bin/gv-check" >"$out/gv_check_default.txt" 2>&1
echo "exit $?" >>"$out/gv_check_default.txt"

"$bin/gv-check" --checks cuda,gemm >"$out/concurrent_a.txt" 2>&1 &
a=$!
"$bin/gv-check" --checks cuda,gemm >"$out/concurrent_b.txt" 2>&1 &
b=$!
wait $a; echo "exit $?" >>"$out/concurrent_a.txt"
wait $b; echo "exit $?" >>"$out/concurrent_b.txt"

"$bin/bench_agent" 100 quick >"$out/agent.txt" 2>&1 &
agent=$!
: >"$out/compute_apps.txt"
while kill -0 $agent 2>/dev/null; do
    nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader \
        >>"$out/compute_apps.txt" 2>&1
    sleep 0.2
done
wait $agent; echo "exit $?" >>"$out/agent.txt"
echo "agent pid $agent" >>"$out/agent.txt"
if grep -q "^$agent," "$out/compute_apps.txt"; then
    echo "AGENT SEEN in nvidia-smi compute apps" >>"$out/agent.txt"
else
    echo "agent never in nvidia-smi compute apps ($(grep -c . "$out/compute_apps.txt") rows sampled, $(cut -d, -f1 "$out/compute_apps.txt" | sort -u | wc -l) distinct PIDs)" >>"$out/agent.txt"
fi

: >"$out/overhead.txt"
for i in 1 2 3 4 5; do
    for iso in none process; do
        t0=$(date +%s.%N)
        "$bin/gv-check" --level quick --isolation $iso >/dev/null 2>&1
        rc=$?
        t1=$(date +%s.%N)
        echo "$iso $i $(awk "BEGIN{print $t1 - $t0}") exit $rc" >>"$out/overhead.txt"
    done
done
for iso in none process; do
    printf '%s median ' $iso
    grep "^$iso " "$out/overhead.txt" | awk '{print $3}' | sort -n | sed -n 3p
done >>"$out/overhead.txt"
cat "$out/overhead.txt"
tail -2 "$out/agent.txt"
tail -1 "$out/gv_check_default.txt" "$out/concurrent_a.txt" "$out/concurrent_b.txt"
