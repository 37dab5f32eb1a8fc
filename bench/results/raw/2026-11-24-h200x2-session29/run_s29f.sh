#!/bin/bash
# Session 29, call F on one GPU: HEAD (the NCCL timing change, the datasheet table) on hardware:
# gv-check standard, gv-nccl one GPU, the NCCL deadline bench.
set -u
cd "$(dirname "$0")/.."
O=/tmp/s29f; rm -rf $O; mkdir -p $O
export LD_LIBRARY_PATH=$PWD/.gpu/bin GPUVERIFY_WORKER=$PWD/.gpu/bin/gpuverify-worker
nvidia-smi -L > $O/node.txt 2>&1
s=$(date +%s%N)
.gpu/bin/gv-check --sysroot / > $O/gvcheck.txt 2>&1; echo "gv-check exit $? $(( ($(date +%s%N)-s)/1000000 )) ms" >> $O/times.txt
.gpu/bin/gv-nccl -b 8 -e 64M -f 4 > $O/gvnccl.txt 2>&1; echo "gv-nccl exit $?" >> $O/times.txt
.gpu/bin/bench_nccl_deadline 5 > $O/deadline.json 2>&1; echo "deadline exit $?" >> $O/times.txt
tar czf $OUT/s29f.tgz -C /tmp s29f
cat $O/times.txt; tail -3 $O/gvcheck.txt; grep -E "PASS|FAIL|#" $O/gvnccl.txt | tail -4; tail -2 $O/deadline.json
