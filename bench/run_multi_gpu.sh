#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A machine of several GPUs end to end: gv-check standard and extended on every GPU with their
# wall times, the cuda.p2p matrix beside PyTorch's copies (run_p2p.sh), gv-nccl's pairs matrix,
# and gv-topo beside `nvidia-smi topo -m` (run_topo.sh). NVLink multicast stays off.
# Usage: bench/run_multi_gpu.sh BINDIR OUTDIR [DURATION_S]   (extended's --duration, 60)
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
dur=${3:-60}
export NCCL_NVLS_ENABLE=0
nvidia-smi topo -m >"$out/nvidia_smi_topo.txt" 2>&1
nvidia-smi -q >"$out/nvidia_smi_q.txt" 2>&1
timed() { # NAME command...: the command's stdout to NAME.json, its exit and wall time to wall.txt
    name=$1; shift
    t0=$(date +%s.%N)
    "$@" >"$out/$name.json" 2>"$out/$name.err"
    rc=$?
    echo "$name exit $rc wall $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s" >>"$out/wall.txt"
}
timed standard "$bin/gv-check" --json --level standard
timed extended "$bin/gv-check" --json --level extended --duration "$dur"
timed pairs "$bin/gv-nccl" --op pairs -b 8 -e 256M --json
timed pairs_table "$bin/gv-nccl" --op pairs -b 8 -e 256M
"$here/run_topo.sh" "$bin" "$out/topo" >/dev/null 2>&1
"$here/run_p2p.sh" "$bin" "$out/p2p" >"$out/p2p_summary.txt" 2>&1
cat "$out/wall.txt"
