#!/bin/bash
# Session 29, call C on nvidia-h200-x2: where the two levels of small-message time come from.
# nccl-tests and the fixed gv-nccl, all_reduce 8 B - 64 KiB, pinned to each CPU in turn.
set -u
cd "$(dirname "$0")/.."
O=/tmp/s29c; rm -rf $O; mkdir -p $O
NT=$PWD/.gpu/nccl-tests
export LD_LIBRARY_PATH=$PWD/.gpu/binfix GPUVERIFY_WORKER=$PWD/.gpu/binfix/gpuverify-worker
{ lscpu; nvidia-smi topo -m; for c in /sys/devices/system/cpu/cpu[0-9]*; do echo "$(basename $c) pkg $(cat $c/topology/physical_package_id) core $(cat $c/topology/core_id) sib $(cat $c/topology/thread_siblings_list)"; done; cat /proc/cmdline; } > $O/cpus.txt 2>&1
main() {
( cd $NT && make -j16 src.build NCCL_HOME=/usr NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 > $O/build.log 2>&1 )
for c in $(seq 0 31); do
  taskset -c $c $NT/build/all_reduce_perf -b 8 -e 64K -f 2 -n 50 -w 5 -g 2 > $O/nt_$c.txt 2>&1
  taskset -c $c .gpu/binfix/gv-nccl -b 8 -e 64K -f 2 -n 50 -w 5 --json > $O/gv_$c.json 2>&1
done
# unpinned, 6 times each, to see the spread beside
for r in 1 2 3 4 5 6; do
  $NT/build/all_reduce_perf -b 8 -e 64K -f 2 -n 50 -w 5 -g 2 > $O/nt_u$r.txt 2>&1
  .gpu/binfix/gv-nccl -b 8 -e 64K -f 2 -n 50 -w 5 --json > $O/gv_u$r.json 2>&1
done
}
export -f main; export O NT
timeout 400 bash -c main
tar czf $OUT/s29c.tgz -C /tmp s29c
python3 - <<'PY2'
import json,statistics,glob
O='/tmp/s29c'
def nt(p):
    r=[]
    for l in open(p):
        f=l.split()
        if len(f)>=13 and f[0].isdigit() and int(f[0])>0:
            try: r.append(float(f[5]))
            except: pass
    return statistics.median(r) if r else -1
def gv(p):
    try:
        d=json.loads(open(p).read().strip().splitlines()[-1]); return statistics.median([s['time_us'] for s in d['sizes']])
    except Exception as e: return -1
for c in list(range(32))+['u1','u2','u3','u4','u5','u6']:
    print(c, '%.1f %.1f'%(nt(f'{O}/nt_{c}.txt'), gv(f'{O}/gv_{c}.json')))
PY2
