#!/bin/sh
# Session 22: gv_topology and gv_rdma_status in the worker beside the caller (bench_calls),
# the compute calls again, gv-topo against nvidia-smi topo -m, their timings, gv-check standard.
set -u
cd "$(dirname "$0")/.."
bin=$PWD/.gpu/bin
export LD_LIBRARY_PATH=$bin GPUVERIFY_WORKER=$bin/gpuverify-worker
o=$OUT/s22; mkdir -p "$o"
sh bench/run_calls.sh "$bin" "$o/calls" 10 >"$o/run_calls.log" 2>&1
sh bench/run_topo.sh "$bin" "$o/topo" >"$o/run_topo.log" 2>&1
"$bin/bench_topology" "" 21 >"$o/topo/bench_topology_live_worker.json" 2>&1
GPUVERIFY_WORKER=/nonexistent "$bin/bench_topology" "$PWD/tests/fixtures/hwloc/xml/96em64t-4n4d3ca2co-pci.xml" 51 >"$o/topo/bench_topology_in_process.json" 2>&1
"$bin/bench_rdma" --runs 21 >"$o/rdma_worker.txt" 2>&1
GPUVERIFY_WORKER=/nonexistent "$bin/bench_rdma" --runs 21 >"$o/rdma_in_process.txt" 2>&1
"$bin/gv-rdma" >"$o/gv_rdma.txt" 2>&1; echo "exit $?" >>"$o/gv_rdma.txt"
grep -h '"gv_topology live"\|"gv_rdma_status"' "$o/calls/calls.jsonl" | cut -c1-260
grep -h '"identical"' "$o/calls/calls.jsonl" | cut -c1-200
tail -3 "$o/topo/compare.txt"; cat "$o/topo/bench_topology.json" "$o/topo/bench_topology_in_process.json" "$o/topo/bench_topology_live_worker.json"
cat "$o/rdma_worker.txt" "$o/rdma_in_process.txt"; tail -3 "$o/gv_rdma.txt"
tail -3 "$o/calls/gv_check_standard.txt"; grep -v "^PASS\|^SKIP" "$o/calls/gv_check_standard.txt" | head
cut -c1-150 "$o/calls/calls.jsonl" | grep -v "topology\|rdma" | head -40
cd "$OUT" && tar czf s22.tgz s22 && rm -rf s22
