#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 6's figures on a multi-GPU machine, in one session on the same GPUs: gv-nccl in one
# process and under mpirun (one rank per GPU) beside torch.distributed.all_reduce under
# torchrun, same sizes, warm-up and timing, three rounds alternating; then the deadline with a
# withheld rank (mpirun, and bench_nccl_deadline in one process) and gv-check's nccl rows.
# gv-nccl runs twice per round: with the node's libnccl, and with the libnccl PyTorch loads
# (GPUVERIFY_NCCL_LIBRARY), so that one comparison has the same NCCL on both sides.
# Usage: bench/run_nccl.sh BINDIR OUTDIR [MAX_BYTES]   (BINDIR: gv-nccl, gv-check, bench_nccl_deadline)
set -u
bin=$1; out=$2; max=${3:-4294967296}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
n=$(nvidia-smi -L | wc -l)
export OMPI_MCA_btl=self,vader OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun="mpirun -np $n -x LD_LIBRARY_PATH"
{ nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvidia-smi topo -m; uname -r
  mpirun --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
} >"$out/env.txt" 2>&1
torch_nccl=$(python3 -c 'import glob, os, torch
libs = glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "nccl", "lib", "libnccl.so*"))
print(os.path.realpath(libs[0]) if libs else "")' 2>/dev/null)
echo "torch's libnccl: ${torch_nccl:-none found}" >>"$out/env.txt"
for round in 1 2 3; do
    "$bin/gv-nccl" -b 8 -e "$max" -f 2 -n 20 --json >"$out/gv_local_$round.json" 2>"$out/gv_local_$round.err"
    $mpirun "$bin/gv-nccl" -b 8 -e "$max" -f 2 -n 20 --json >"$out/gv_mpi_$round.json" 2>"$out/gv_mpi_$round.err"
    if [ -n "$torch_nccl" ]; then
        GPUVERIFY_NCCL_LIBRARY=$torch_nccl "$bin/gv-nccl" -b 8 -e "$max" -f 2 -n 20 --json \
            >"$out/gv_local_torchnccl_$round.json" 2>"$out/gv_local_torchnccl_$round.err"
    fi
    python3 -m torch.distributed.run --standalone --nproc_per_node="$n" "$here/peer_torch_nccl.py" \
        8 "$max" 2 20 >"$out/torch_$round.json" 2>"$out/torch_$round.err"
done
"$bin/gv-nccl" -b 8 -e "$max" -f 2 -n 20 >"$out/gv_local_table.txt" 2>&1
start=$(date +%s.%N)
$mpirun "$bin/gv-nccl" -b 1M -e 64M --withhold 1 --deadline 5 >"$out/gv_mpi_withheld.txt" 2>&1
rc=$?
echo "exit $rc after $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s (mpirun included)" >>"$out/gv_mpi_withheld.txt"
"$bin/bench_nccl_deadline" 5 >"$out/deadline.json" 2>&1
echo "exit $?" >>"$out/deadline.json"
"$bin/gv-check" --checks nccl,driver.compat >"$out/gv_check_nccl.txt" 2>&1
echo done
