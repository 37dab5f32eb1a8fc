#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The verdict on a node whose GPU this process was not given, emulated on the real GPU machine
# in a mount namespace (nothing on the host changes): B, a /dev without /dev/nvidia0 (CDI, a
# device plugin); A, also a /proc/driver/nvidia without gpus/ (libnvidia-container's tmpfs);
# C, /dev/nvidia0 mode 0600 while this process runs as nobody. NVML may not recreate the node
# (ModifyDeviceFiles: 0 in params, as libnvidia-container writes it). Beside each: what NVML
# and CUDA themselves enumerate (peer_nvml_count.py), and gv-check's table, --npd, a selection
# and the JSON inventory. Needs root, unshare and setpriv.
# Usage: bench/run_reach.sh BINDIR OUTDIR
set -u
src=$(cd "$1" && pwd); out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export B=/tmp/gv-reach-bin # readable by nobody
rm -rf "$B"; cp -r "$src" "$B"; cp "$here/peer_nvml_count.py" "$B/"; chmod -R a+rX "$B"
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; uname -r; id; } >"$out/env.txt" 2>&1
run() { # label, then a command prefix to run each under
    local label=$1; shift
    echo "== $label"
    "$@" awk '$5 == "/dev" { last = $0 } END { print "/dev: " last }' /proc/self/mountinfo
    "$@" python3 "$B/peer_nvml_count.py"
    local t0=$(date +%s%N)
    "$@" env LD_LIBRARY_PATH="$B" GPUVERIFY_WORKER="$B/gpuverify-worker" "$B/gv-check" --sysroot / --level quick
    echo "exit $?  $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    "$@" env LD_LIBRARY_PATH="$B" GPUVERIFY_WORKER="$B/gpuverify-worker" "$B/gv-check" --sysroot / --level quick --npd
    echo "npd exit $?"
    "$@" env LD_LIBRARY_PATH="$B" GPUVERIFY_WORKER="$B/gpuverify-worker" "$B/gv-check" --sysroot / --checks gemm.bf16 | sed -n '/^Verdict/,$p'
    "$@" env LD_LIBRARY_PATH="$B" GPUVERIFY_WORKER="$B/gpuverify-worker" "$B/gv-check" --sysroot / --level quick --json 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print("schema", d["schema_version"], "gpus", [(g["index"], g["pci_bus_id"], g["inaccessible"]) for g in d["gpus"]])'
}
export -f run
P=$(mktemp -d); sed "s/ModifyDeviceFiles: 1/ModifyDeviceFiles: 0/" /proc/driver/nvidia/params >"$P/params"
devs="/dev/null /dev/zero /dev/urandom /dev/kmsg /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia-uvm-tools"
{
run "0: the GPU given (root on the host)"
unshare -m --propagation private bash -c "
  d=\$(mktemp -d); mount -t tmpfs tmpfs \$d; cp -a $devs \$d/; mkdir -p \$d/shm; mount --bind \$d /dev
  mount --bind $P/params /proc/driver/nvidia/params
  run 'B: no /dev/nvidia0 (root)' env"
unshare -m --propagation private bash -c "
  d=\$(mktemp -d); mount -t tmpfs tmpfs \$d; cp -a $devs \$d/; mkdir -p \$d/shm; mount --bind \$d /dev
  q=\$(mktemp -d); cp /proc/driver/nvidia/version /proc/driver/nvidia/registry $P/params \$q/
  mount -t tmpfs tmpfs /proc/driver/nvidia && cp \$q/* /proc/driver/nvidia/
  run 'A: no /dev/nvidia0, /proc/driver/nvidia without gpus/ (root)' env"
unshare -m --propagation private bash -c "
  d=\$(mktemp -d); mount -t tmpfs tmpfs \$d; mknod -m 0600 \$d/nvidia0 c 195 0; mount --bind \$d/nvidia0 /dev/nvidia0
  mount --bind $P/params /proc/driver/nvidia/params
  run 'C: /dev/nvidia0 mode 0600, as nobody' setpriv --reuid=65534 --regid=65534 --clear-groups"
echo "== after: the node as it was"; python3 "$B/peer_nvml_count.py"; ls -l /dev/nvidia0
} >"$out/reach.txt" 2>&1
rm -rf "$B" "$P"
