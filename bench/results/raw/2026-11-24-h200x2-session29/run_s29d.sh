#!/bin/bash
# Session 29, call D on nvidia-h200-x2: the fixed gv-nccl beside nccl-tests at the sizes where
# a process's launch level decides the time (8 B - 1 MiB), 9 alternating rounds, all three
# collectives, one process and mpirun; the deadline bench; two NCCL settings probed as the
# levels' cause.
set -u
cd "$(dirname "$0")/.."
O=/tmp/s29d; rm -rf $O; mkdir -p $O/probe
NT=$PWD/.gpu/nccl-tests
export LD_LIBRARY_PATH=$PWD/.gpu/binfix GPUVERIFY_WORKER=$PWD/.gpu/binfix/gpuverify-worker
main() {
s=$(date +%s)
ROUNDS=9 IN_PROCESS=0 TORCH=0 INPLACE=1 MPI_INCLUDE=$PWD/.gpu/mpi-include \
  bash bench/run_nccl_tests.sh $PWD/.gpu/binfix $NT $O/nccl 1048576 > $O/run.log 2>&1
echo "run_nccl_tests exit $? $(( $(date +%s)-s )) s" >> $O/times.txt
for r in 1 2 3 4 5 6; do
  NCCL_LAUNCH_MODE=GROUP $NT/build/all_reduce_perf -b 8 -e 64K -f 2 -n 50 -w 5 -g 2 > $O/probe/group_$r.txt 2>&1
  NCCL_RUNTIME_CONNECT=0 $NT/build/all_reduce_perf -b 8 -e 64K -f 2 -n 50 -w 5 -g 2 > $O/probe/connect0_$r.txt 2>&1
  $NT/build/all_reduce_perf -b 8 -e 64K -f 2 -n 50 -w 5 -g 2 > $O/probe/plain_$r.txt 2>&1
done
echo "probe $(( $(date +%s)-s )) s" >> $O/times.txt
}
export -f main; export O NT
timeout 530 bash -c main
python3 bench/compare_nccl_tests.py $O/nccl > $O/summary.md 2>&1
tar czf $OUT/s29d.tgz -C /tmp s29d
cat $O/times.txt; cat $O/nccl/deadline.json | tail -3
