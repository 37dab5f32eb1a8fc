#!/bin/bash
# Session 29, call B on nvidia-h200-x2: A/B of HEAD's gv-nccl (bin) and the fix (binfix: each
# GPU's context current before its call; an untimed operation last before the clock) beside
# nccl-tests at small sizes, then issue 16's comparison with the fix, 4 rounds, full range.
set -u
cd "$(dirname "$0")/.."
O=/tmp/s29b; rm -rf $O; mkdir -p $O/ab
export OMPI_MCA_btl=self,vader OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NT=$PWD/.gpu/nccl-tests
main() {
s=$(date +%s)
# nccl-tests first (the comparison script builds it too; make is then a no-op)
( cd $NT && make -j16 src.build NCCL_HOME=/usr NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 > $O/build1.log 2>&1 )
echo "build $(( $(date +%s)-s )) s" >> $O/times.txt
if [ -x $NT/build/all_reduce_perf ]; then
 for r in 1 2 3 4; do
  for op in all_reduce all_gather; do
   for k in 0 1 2; do
    case $(( (k + r) % 3 )) in
    0) $NT/build/${op}_perf -b 8 -e 1M -f 2 -n 20 -w 5 -g 2 > $O/ab/nt_${op}_$r.txt 2>&1 ;;
    1) LD_LIBRARY_PATH=$PWD/.gpu/bin GPUVERIFY_WORKER=$PWD/.gpu/bin/gpuverify-worker .gpu/bin/gv-nccl --op $op -b 8 -e 1M -f 2 -n 20 -w 5 --json > $O/ab/old_${op}_$r.json 2>&1 ;;
    2) LD_LIBRARY_PATH=$PWD/.gpu/binfix GPUVERIFY_WORKER=$PWD/.gpu/binfix/gpuverify-worker .gpu/binfix/gv-nccl --op $op -b 8 -e 1M -f 2 -n 20 -w 5 --json > $O/ab/fix_${op}_$r.json 2>&1 ;;
    esac
   done
  done
 done
fi
echo "ab $(( $(date +%s)-s )) s" >> $O/times.txt
export LD_LIBRARY_PATH=$PWD/.gpu/binfix GPUVERIFY_WORKER=$PWD/.gpu/binfix/gpuverify-worker
ROUNDS=4 IN_PROCESS=0 TORCH=0 INPLACE=1 MPI_INCLUDE=$PWD/.gpu/mpi-include \
  bash bench/run_nccl_tests.sh $PWD/.gpu/binfix $NT $O/nccl > $O/run.log 2>&1
echo "run_nccl_tests exit $? $(( $(date +%s)-s )) s" >> $O/times.txt
}
export -f main; export O NT
timeout 540 bash -c main
python3 bench/compare_nccl_tests.py $O/nccl > $O/summary.md 2>&1
tar czf $OUT/s29b.tgz -C /tmp s29b
cat $O/times.txt; grep -A6 "Worst" $O/summary.md | grep "^- gv"
