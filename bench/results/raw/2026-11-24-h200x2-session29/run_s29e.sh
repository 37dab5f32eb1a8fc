#!/bin/bash
# Session 29, call E on nvidia-h200-x2: more processes at the launch-bound sizes (8 B - 1 MiB),
# one process with both GPUs, nccl-tests and the fixed gv-nccl alternating, 16 rounds of each
# collective, so that each launch level holds enough runs of each program.
set -u
cd "$(dirname "$0")/.."
O=/tmp/s29e; rm -rf $O; mkdir -p $O/nccl
NT=$PWD/.gpu/nccl-tests
export LD_LIBRARY_PATH=$PWD/.gpu/binfix GPUVERIFY_WORKER=$PWD/.gpu/binfix/gpuverify-worker
main() {
s=$(date +%s)
( cd $NT && make -j16 src.build NCCL_HOME=/usr NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 > $O/build.log 2>&1 )
for r in $(seq 1 16); do
  for op in all_reduce all_gather reduce_scatter; do
    if [ $((r % 2)) = 1 ]; then
      $NT/build/${op}_perf -b 8 -e 1M -f 2 -n 20 -w 5 -g 2 > $O/nccl/nt_${op}_$r.txt 2>&1
      .gpu/binfix/gv-nccl --op $op -b 8 -e 1M -f 2 -n 20 -w 5 --in-place --json > $O/nccl/gv_${op}_$r.json 2> $O/nccl/gv_${op}_$r.err
    else
      .gpu/binfix/gv-nccl --op $op -b 8 -e 1M -f 2 -n 20 -w 5 --in-place --json > $O/nccl/gv_${op}_$r.json 2> $O/nccl/gv_${op}_$r.err
      $NT/build/${op}_perf -b 8 -e 1M -f 2 -n 20 -w 5 -g 2 > $O/nccl/nt_${op}_$r.txt 2>&1
    fi
  done
  echo "round $r $(( $(date +%s)-s )) s" >> $O/times.txt
done
}
export -f main; export O NT
timeout 330 bash -c main
python3 bench/compare_nccl_tests.py $O/nccl > $O/summary.md 2>&1
tar czf $OUT/s29e.tgz -C /tmp s29e
tail -2 $O/times.txt; grep "^- gv" $O/summary.md | sed 's/.*rounds. best[^;]*;//'
