#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Open MPI's launch agent for run_fleet_gpu.sh: where mpirun would ssh to 10.77.1.1K, start the
# command in network namespace gvfK instead, under the host name 10.77.1.1K and with GPU K-1
# alone, as node K of a cluster would be. Usage (by mpirun): fleet_ns_agent.sh [ssh options]
# HOST COMMAND...
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
host=$1
shift
k=${host##*.1}
exec nsenter --net=/run/netns/gvf"$k" unshare --uts env CUDA_VISIBLE_DEVICES=$((k - 1)) \
    NCCL_HOSTID=node"$k" GPUVERIFY_LOCK_DIR=/tmp/gvf-locks-"$k" \
    sh -c "mkdir -p /tmp/gvf-locks-$k; echo $host >/proc/sys/kernel/hostname; $*"
