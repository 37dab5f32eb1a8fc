#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Two simulated nodes on one host, the closest to multi-node that one machine gives: network
# namespaces gva and gvb joined by a veth pair (10.77.0.1 and .2), one rank in each on a GPU of
# its own. NCCL is told the ranks are on two hosts (NCCL_HOSTID) and kept off every path
# between GPUs of one host (NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1, NCCL_IB_DISABLE=1), so its
# only way is sockets over the veth (NCCL_SOCKET_IFNAME=gv). The bootstrap id travels through a
# file, as a cluster without MPI hands it over (bench_nccl_file_rank). Then rank 1 withheld:
# rank 0 must return GV_ERR_TIMEOUT within its deadline + 1 s. Last, mpirun across the two
# namespaces (netns_rsh.sh as Open MPI's launch agent), the way a cluster launches gv-nccl.
# Needs root and iproute2 (IP: an ip binary, IP_LIBS: its libraries when carried).
# Usage: bench/run_two_nodes.sh BINDIR OUTDIR [MAX_BYTES]   (256 MiB)
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
max=${3:-268435456}
ipc() { LD_LIBRARY_PATH=${IP_LIBS:-} "${IP:-ip}" "$@"; }
cleanup() { ipc netns del gva 2>/dev/null; ipc netns del gvb 2>/dev/null; }
cleanup
ipc netns add gva && ipc netns add gvb &&
    ipc link add gv0 type veth peer name gv1 &&
    ipc link set gv0 netns gva && ipc link set gv1 netns gvb &&
    ipc -n gva addr add 10.77.0.1/24 dev gv0 && ipc -n gvb addr add 10.77.0.2/24 dev gv1 &&
    ipc -n gva link set lo up && ipc -n gvb link set lo up &&
    ipc -n gva link set gv0 up && ipc -n gvb link set gv1 up ||
    { echo "could not make the namespaces"; cleanup; exit 1; }
ipc -n gva addr >"$out/netns.txt" 2>&1
ipc -n gvb addr >>"$out/netns.txt" 2>&1
export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=gv \
    NCCL_NVLS_ENABLE=0
in_ns() { # NAMESPACE HOSTID command...: the command in the namespace, as that host
    ns=$1 host=$2; shift 2
    ipc netns exec "$ns" env LD_LIBRARY_PATH="$bin" NCCL_HOSTID="$host" "$@"
}
id=$out/nccl.id
for op in all_reduce all_gather alltoall; do
    rm -f "$id"
    in_ns gva node-a "$bin/bench_nccl_file_rank" 0 2 0 "$id" 60 "$max" "$op" \
        >"$out/rank0_$op.json" 2>"$out/rank0_$op.err" &
    in_ns gvb node-b "$bin/bench_nccl_file_rank" 1 2 1 "$id" 60 "$max" "$op" \
        >"$out/rank1_$op.json" 2>"$out/rank1_$op.err"
    wait
done
rm -f "$id"
in_ns gva node-a "$bin/bench_nccl_file_rank" 0 2 0 "$id" 5 "$max" >"$out/withheld.json" \
    2>"$out/withheld.err"
echo "exit $?" >>"$out/withheld.err"
# The same two GPUs from one namespace with NCCL's defaults, for the rate the veth costs.
rm -f "$id"
( unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE NCCL_IB_DISABLE NCCL_SOCKET_IFNAME
  "$bin/bench_nccl_file_rank" 0 2 0 "$id" 60 "$max" >"$out/direct_rank0.json" 2>&1 &
  "$bin/bench_nccl_file_rank" 1 2 1 "$id" 60 "$max" >"$out/direct_rank1.json" 2>&1
  wait )
# mpirun across the namespaces: mpirun in gva, its daemon for 10.77.0.2 started in gvb by the
# agent, each namespace its own host name and GPU. `--mca plm rsh`: an environment that says
# OMPI_MCA_plm=isolated (the lent GPU machines' does) would otherwise launch nothing remote and
# answer "not enough slots".
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GV_NETNS_IP="${IP:-ip}" \
    GV_NETNS_IP_LIBS="${IP_LIBS:-}" GV_NETNS_BIN="$bin"
mpirun --version >"$out/mpirun.err" 2>&1
printf '10.77.0.1 slots=1\n10.77.0.2 slots=1\n' >"$out/hostfile"
GV_NETNS_HOSTFILE=$out/hostfile timeout 90 env LD_LIBRARY_PATH="${IP_LIBS:-}" "${IP:-ip}" \
    netns exec gva unshare --uts sh -c '
    echo node-a >/proc/sys/kernel/hostname
    export LD_LIBRARY_PATH=$GV_NETNS_BIN CUDA_VISIBLE_DEVICES=0 NCCL_HOSTID=node-a
    exec mpirun -np 2 --hostfile "$GV_NETNS_HOSTFILE" --display-allocation \
        --mca plm rsh --mca plm_rsh_agent "$0" \
        --mca oob_tcp_if_include 10.77.0.0/24 --mca btl self,tcp \
        --mca btl_tcp_if_include 10.77.0.0/24 -x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE \
        -x NCCL_IB_DISABLE -x NCCL_SOCKET_IFNAME -x NCCL_NVLS_ENABLE -x GPUVERIFY_WORKER \
        "$GV_NETNS_BIN/gv-nccl" -b 8 -e 64M --json' "$here/netns_rsh.sh" \
    >"$out/mpirun.json" 2>>"$out/mpirun.err"
echo "exit $?" >>"$out/mpirun.err"
cleanup
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except (OSError, ValueError) as e:
        return {"error": str(e)}
for name in sorted(os.listdir(out)):
    if name.endswith(".json") and name != "mpirun.json":
        d = load(name)
        print("%-22s %s %s %.3f s network=%s socket=%s net=%s p2p=%s shm=%s peak %.2f GB/s at %s B: %s" % (
            name, d.get("status"), d.get("verdict"), d.get("returned_after_s", 0), d.get("network"),
            d.get("via_socket"), d.get("via_net"), d.get("via_p2p"), d.get("via_shm"),
            d.get("peak_busbw_gbps", 0), d.get("peak_bytes"), d.get("message", d.get("error"))))
PY
