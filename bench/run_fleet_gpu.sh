#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gv-fleet on one GPU machine as four one-GPU nodes: network namespaces gvf1..gvf4 (10.77.1.11
# to .14) on a veth bridge, each node its own GPU, host name and NCCL host id, NCCL kept to
# sockets over the veths (P2P, SHM and IB off). mpirun runs from a fifth namespace (gvf0,
# 10.77.1.10) and reaches the nodes through fleet_ns_agent.sh where it would use ssh. Runs:
#   1. healthy: gv-fleet run over the four nodes;
#   2. node 3's link shaped with tc tbf (RATE, both directions): the search must name 10.77.1.13;
#   3. torchrun across two nodes (gvf1, gvf2; c10d rendezvous), gv-nccl under it.
# Needs root and iproute2 (IP_ROOT: a folder with Debian's iproute2 unpacked, when carried).
# Usage: bench/run_fleet_gpu.sh BINDIR OUTDIR [RATE]   (RATE default 2gbit; FLEET_LEVEL=none
# skips the node checks; FLEET_STEPS="fleet torchrun" picks the parts)
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
rate=${3:-2gbit}
fleet=$(cd "$here/../examples/fleet" && pwd)/gv-fleet
if [ -n "${IP_ROOT:-}" ]; then
    export PATH=$IP_ROOT/sbin:$IP_ROOT/bin:$PATH
    ip_libs=$IP_ROOT/lib/x86_64-linux-gnu:$IP_ROOT/usr/lib/x86_64-linux-gnu
    ip() { LD_LIBRARY_PATH=$ip_libs command ip "$@"; }
    tc() { LD_LIBRARY_PATH=$ip_libs command tc "$@"; }
fi
cleanup() {
    for k in 0 1 2 3 4; do ip netns del gvf$k 2>/dev/null; done
    ip link del gvfbr 2>/dev/null
}
cleanup
ip link add gvfbr type bridge && ip link set gvfbr up || { echo "no bridge"; exit 1; }
for k in 0 1 2 3 4; do
    ip netns add gvf$k && ip link add gvfh$k type veth peer name eth0 netns gvf$k &&
        ip link set gvfh$k master gvfbr && ip link set gvfh$k up &&
        ip -n gvf$k addr add 10.77.1.1$k/24 dev eth0 && ip -n gvf$k link set eth0 up &&
        ip -n gvf$k link set lo up || { echo "could not make gvf$k"; cleanup; exit 1; }
done
export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=eth0 \
    NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
hosts=10.77.1.11,10.77.1.12,10.77.1.13,10.77.1.14
fleet_run() { # NAME: gv-fleet from gvf0 over the four nodes
    nsenter --net=/run/netns/gvf0 timeout 900 python3 "$fleet" run --launcher mpirun \
        --hosts $hosts --level "${FLEET_LEVEL:-quick}" --bytes 256M --iters 5 --deadline 90 --json \
        --gv-check "$bin/gv-check" --gv-nccl "$bin/gv-nccl" \
        --launcher-arg=--mca --launcher-arg=plm --launcher-arg=rsh \
        --launcher-arg=--mca --launcher-arg=plm_rsh_agent --launcher-arg="$here/fleet_ns_agent.sh" \
        --launcher-arg=--mca --launcher-arg=oob_tcp_if_include --launcher-arg=10.77.1.0/24 \
        --launcher-arg=-x --launcher-arg=LD_LIBRARY_PATH --launcher-arg=-x \
        --launcher-arg=GPUVERIFY_WORKER --launcher-arg=-x --launcher-arg=NCCL_P2P_DISABLE \
        --launcher-arg=-x --launcher-arg=NCCL_SHM_DISABLE --launcher-arg=-x \
        --launcher-arg=NCCL_IB_DISABLE --launcher-arg=-x --launcher-arg=NCCL_SOCKET_IFNAME \
        --launcher-arg=-x --launcher-arg=NCCL_NVLS_ENABLE \
        >"$out/fleet_$1.json" 2>"$out/fleet_$1.err"
    echo "exit $?" >>"$out/fleet_$1.err"
}
steps=" ${FLEET_STEPS:-fleet torchrun} "
if [ "${steps#* fleet }" != "$steps" ]; then
start=$(date +%s.%N)
fleet_run healthy
echo "healthy $(date +%s.%N) $start" >"$out/times.txt"
tc qdisc add dev gvfh3 root tbf rate "$rate" burst 1mbit latency 50ms 2>>"$out/tc.err"
tc -n gvf3 qdisc add dev eth0 root tbf rate "$rate" burst 1mbit latency 50ms 2>>"$out/tc.err"
tc qdisc show dev gvfh3 >>"$out/tc.err" 2>&1
start=$(date +%s.%N)
fleet_run shaped
echo "shaped $(date +%s.%N) $start" >>"$out/times.txt"
tc qdisc del dev gvfh3 root 2>/dev/null
tc -n gvf3 qdisc del dev eth0 root 2>/dev/null
fi
# torchrun, the seed's multi-server shape: two agents meet through c10d at node 1, each starts
# one gv-nccl rank that takes RANK and WORLD_SIZE from it.
if [ "${steps#* torchrun }" != "$steps" ]; then
for k in 1 2; do
    # Node 1 hosts the c10d store (is_host: its host name does not say so inside the namespace).
    [ "$k" = 1 ] && host=true || { host=false; sleep 2; }
    nsenter --net=/run/netns/gvf$k unshare --uts env CUDA_VISIBLE_DEVICES=$((k - 1)) \
        NCCL_HOSTID=node$k sh -c "hostname 10.77.1.1$k && exec timeout 300 python3 -m \
        torch.distributed.run --nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d \
        --rdzv-endpoint=10.77.1.11:29500 --rdzv-id=gvfleet --rdzv-conf=is_host=$host \
        --no-python $bin/gv-nccl --rendezvous 10.77.1.11:29401 -b 8 -e 256M --json \
        --deadline 120" >"$out/torchrun_$k.json" 2>"$out/torchrun_$k.err" &
done
fi
wait
cleanup
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
for name in ("healthy", "shaped"):
    if not os.path.exists(os.path.join(out, "fleet_%s.err" % name)):
        continue
    try:
        d = json.load(open(os.path.join(out, "fleet_%s.json" % name)))
    except (OSError, ValueError) as e:
        print(name, "no JSON:", e, open(os.path.join(out, "fleet_%s.err" % name)).read()[-1500:])
        continue
    print("%s: verdict %s in %.1f s; culprits %s; best busbw %s" % (
        name, d["verdict"], d["seconds"], [(c["node"], c["found_by"], c["why"]) for c in d["culprits"]],
        d["reference_busbw_gbps"]))
    for node, rec in sorted(d["node_checks"].items()):
        print("   node %s exit %s %.1f s: %s" % (node, rec["exit"], rec.get("seconds", 0), rec["summary"][:120]))
    for t in d["tests"]:
        print("   round %-9s %-5s %8.3f GB/s %5.1f s %s %s" % (t["round"], t["verdict"], t["busbw_gbps"],
              t["seconds"], ",".join(t["nodes"]), "" if t["verdict"] == "PASS" else t["why"][:150]))
for k in (1, 2):
    p = os.path.join(out, "torchrun_%d.json" % k)
    if not os.path.exists(p):
        continue
    text = open(p).read() if os.path.exists(p) else ""
    at = text.find('{"collective"')
    if at >= 0:
        d = json.JSONDecoder().raw_decode(text, at)[0]
        print("torchrun rank-0 output (node %d): %s hosts %s peak %.2f GB/s at %d B: %s" % (
            k, d["verdict"], d["hosts"], d["peak_busbw_gbps"], d["peak_bytes"], d["message"]))
    else:
        print("torchrun node %d: no JSON; stderr: %s" % (k, open(p[:-5] + ".err").read()[-600:]))
PY
