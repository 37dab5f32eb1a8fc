#!/bin/bash
# Session 29, call A on nvidia-h200-x2: machine facts, gv-nccl --op pairs, then issue 16's
# comparison (bench/run_nccl_tests.sh) rounds 1-4 of all_reduce, all_gather, reduce_scatter,
# written straight under $OUT so that a cut-off run still returns what it measured.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.gpu/bin GPUVERIFY_WORKER=$PWD/.gpu/bin/gpuverify-worker
O=$OUT/s29a; mkdir -p $O
{ date; nvidia-smi; nvidia-smi topo -m; nproc; mpirun --version | head -1; env | grep -E '^(NCCL|CUDA)_'; } > $O/machine.txt 2>&1
s=$(date +%s)
.gpu/bin/gv-nccl --op pairs --json > $O/pairs.json 2> $O/pairs.err; echo "pairs exit $? $(( $(date +%s)-s )) s" >> $O/times.txt
.gpu/bin/gv-nccl --op pairs > $O/pairs.txt 2>&1
s=$(date +%s)
ROUNDS=${ROUNDS:-4} IN_PROCESS=0 TORCH=0 INPLACE=1 MPI_INCLUDE=$PWD/.gpu/mpi-include \
  bash bench/run_nccl_tests.sh $PWD/.gpu/bin $PWD/.gpu/nccl-tests $O/nccl > $O/run.log 2>&1
echo "run_nccl_tests exit $? $(( $(date +%s)-s )) s" >> $O/times.txt
python3 bench/compare_nccl_tests.py $O/nccl > $O/summary.md 2>&1
cat $O/times.txt; tail -5 $O/run.log; grep -A12 "Worst" $O/summary.md | head -80
