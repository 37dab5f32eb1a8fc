#!/bin/bash
# Session 29, call G on one GPU: gpu.memory_unowned on hardware: alone, beside a job holding
# memory (listed), and the standard level.
set -u
cd "$(dirname "$0")/.."
O=/tmp/s29g; rm -rf $O; mkdir -p $O
export LD_LIBRARY_PATH=$PWD/.gpu/bin GPUVERIFY_WORKER=$PWD/.gpu/bin/gpuverify-worker
{ readlink /proc/self/ns/pid; nvidia-smi --query-gpu=memory.used,memory.reserved,memory.total --format=csv; nvidia-smi --query-compute-apps=pid,used_memory --format=csv; } > $O/node.txt 2>&1
.gpu/bin/gv-check --sysroot / --checks gpu.memory_unowned --json > $O/alone.json 2>&1; echo "alone exit $?" >> $O/times.txt
python3 -c 'import torch,time; x=torch.empty(10<<30, dtype=torch.uint8, device="cuda"); x.fill_(1); torch.cuda.synchronize(); time.sleep(25)' > $O/job.txt 2>&1 & j=$!
sleep 8
nvidia-smi --query-compute-apps=pid,used_memory --format=csv >> $O/node.txt 2>&1
nvidia-smi --query-gpu=memory.used --format=csv >> $O/node.txt 2>&1
.gpu/bin/gv-check --sysroot / --checks gpu.memory_unowned --json > $O/beside.json 2>&1; echo "beside exit $?" >> $O/times.txt
wait $j
.gpu/bin/gv-check --sysroot / --checks gpu.memory_unowned --json > $O/after.json 2>&1; echo "after exit $?" >> $O/times.txt
s=$(date +%s%N); .gpu/bin/gv-check --sysroot / > $O/std.txt 2>&1; echo "std exit $? $(( ($(date +%s%N)-s)/1000000 )) ms" >> $O/times.txt
tar czf $OUT/s29g.tgz -C /tmp s29g
cat $O/node.txt $O/times.txt; for f in alone beside after; do python3 -c "import json,sys; d=json.load(open('$O/$f.json')); [print('$f', c['verdict'], c['message']) for c in d['checks'] if c['id']=='gpu.memory_unowned']"; done; grep -E "memory_unowned|PASS:" $O/std.txt
