#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# On two or more real GPUs: what history.standing keeps of an all-reduce's FAIL over real NCCL
# rows, and gv-nccl's rendezvous with real NCCL (two ranks as torchrun starts them, then the
# launcher's rank 0 two seconds late, as Open MPI places it on the node mpirun runs on).
#
# usage: bench/run_standing_rendezvous.sh BUILD OUTDIR
#   BUILD   libgpuverify.so.1, gpuverify-worker, examples/gv-check and examples/gv-nccl
# Prints what the summary in bench/results quotes; OUTDIR keeps the reports.
set -u
[ $# -eq 2 ] || { sed -n '7,8p' "$0" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
export LD_LIBRARY_PATH=$build GPUVERIFY_WORKER=$build/gpuverify-worker NCCL_NVLS_ENABLE=0
check=$build/examples/gv-check nccl=$build/examples/gv-nccl
state=$out/history.db floor=$out/floor.conf
rm -f "$state"*
echo "nccl_min_busbw_gbps = 100000" >"$floor"
rows() { # the rows of these checks from a --json report on stdin
    /usr/bin/python3 -c 'import json, sys
for c in json.load(sys.stdin)["checks"]:
    if c["id"] in sys.argv[1].split(","):
        print(" ", c["verdict"], c["id"], c["subject"], c.get("counters") or "", c["message"][:140])
' "$1"
}
results() { # gv-nccl's results in these files: verdict, ranks, busbw
    for f in "$@"; do
        /usr/bin/python3 -c 'import json, sys
t = open(sys.argv[1]).read().strip()
if t:
    d = json.JSONDecoder().raw_decode(t)[0]
    print("  %s: %s over %d ranks, %.1f GB/s" % (sys.argv[1].rsplit("/", 1)[1], d["verdict"],
                                                 d["nranks"], d["peak_busbw_gbps"]))
else:
    print("  %s: nothing printed" % sys.argv[1].rsplit("/", 1)[1])' "$f"
    done
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== the standard level on every GPU, with --state"
start=$(date +%s%N)
"$check" --state "$state" --json >"$out/standard.json"
echo "  exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms"
rows nccl.allreduce,nccl.transport,cuda.copy_all,history.standing <"$out/standard.json"
echo "== nccl.allreduce under an impossible floor: a FAIL over every GPU"
"$check" --state "$state" --checks nccl.allreduce,history.standing --policy "$floor" --json |
    rows nccl.allreduce,history.standing
echo "== GPU 0 alone (no all-reduce on one GPU), then a passive pass: the FAIL stands"
"$check" --state "$state" --checks nccl.allreduce,history.standing --gpus 0 --json |
    rows nccl.allreduce,history.standing
"$check" --state "$state" --checks system,history.standing --json | rows history.standing
echo "== every GPU without the floor: it ends"
"$check" --state "$state" --checks nccl.allreduce,history.standing --json |
    rows nccl.allreduce,history.standing
echo "== gv-nccl --rendezvous, two ranks with torchrun's variables"
for r in 0 1; do
    RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r timeout 120 "$nccl" --rendezvous 127.0.0.1:29461 \
        -b 8M -e 256M -f 2 -n 5 --json >"$out/together$r.json" 2>"$out/together$r.err" &
done
wait
results "$out/together0.json" "$out/together1.json"
echo "== the launcher's rank 0 two seconds late: rank 1 listens and prints"
(sleep 2; RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 timeout 120 "$nccl" --rendezvous 127.0.0.1:29462 \
    -b 8M -e 256M -f 2 -n 5 --json >"$out/late0.json" 2>"$out/late0.err") &
RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 timeout 120 "$nccl" --rendezvous 127.0.0.1:29462 \
    -b 8M -e 256M -f 2 -n 5 --json >"$out/late1.json" 2>"$out/late1.err"
wait
results "$out/late0.json" "$out/late1.json"
cat "$out"/*.err
