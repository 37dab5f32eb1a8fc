#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Open MPI's launch agent for run_two_nodes.sh: where mpirun would ssh to 10.77.0.2, start the
# command in the network namespace gvb instead, under its own host name and GPU, as a second
# node would. Usage (by mpirun): netns_rsh.sh [ssh options] HOST COMMAND...
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
host=$1; shift
case $host in
10.77.0.1) ns=gva name=node-a gpu=0 ;;
*) ns=gvb name=node-b gpu=1 ;;
esac
exec env LD_LIBRARY_PATH="$GV_NETNS_IP_LIBS" "$GV_NETNS_IP" netns exec "$ns" \
    env LD_LIBRARY_PATH="$GV_NETNS_BIN" CUDA_VISIBLE_DEVICES=$gpu NCCL_HOSTID=$name \
    unshare --uts sh -c "echo $name >/proc/sys/kernel/hostname; $*"
