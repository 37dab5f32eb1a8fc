#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 5's figures on a GPU machine: gv-topo beside `nvidia-smi topo -m` (compared cell for
# cell by compare_topo.py), gv_topology's time on the largest hwloc fixture and live, and the
# topo.*/link rows of gv-check. Usage: bench/run_topo.sh BINDIR OUTDIR
set -u
bin=$1; out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
{ nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv; uname -r; nproc;
  lscpu | grep -i 'numa\|socket'; } >"$out/env.txt" 2>&1
nvidia-smi topo -m >"$out/nvidia_smi_topo.txt" 2>&1
"$bin/gv-topo" >"$out/gv_topo.txt" 2>&1
"$bin/gv-topo" --json >"$out/gv_topo.json" 2>&1
python3 "$here/compare_topo.py" "$out/nvidia_smi_topo.txt" "$out/gv_topo.txt" >"$out/compare.txt" 2>&1
echo "compare exit $?" >>"$out/compare.txt"
"$bin/bench_topology" "$here/../tests/fixtures/hwloc/xml/96em64t-4n4d3ca2co-pci.xml" 51 \
    >"$out/bench_topology.json" 2>&1
"$bin/gv-check" --checks topo,gpu.pcie_link,gpu.nvlink,gpu.pci >"$out/gv_check_topo.txt" 2>&1
echo "gv-check exit $?" >>"$out/gv_check_topo.txt"
