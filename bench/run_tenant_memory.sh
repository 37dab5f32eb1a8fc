#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gv-check while another process (peer_hog.py: PyTorch allocating until refused, as TensorFlow
# takes a GPU's memory by default) holds all but LEAVE MiB of the GPU's memory, for each LEAVE
# given (2048 256 0 by default): the quick and the standard level under each; every row other
# than PASS (and the SKIPs of a one-GPU machine without RDMA) is printed.
# Usage: bench/run_tenant_memory.sh BINDIR OUTDIR [LEAVE...]
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
shift 2
leaves=${*:-2048 256 0}
for leave in $leaves; do
    python3 "$here/peer_hog.py" 120 $leave >"$out/hog_$leave.txt" 2>&1 &
    hog=$!
    for _ in $(seq 90); do grep -q holding "$out/hog_$leave.txt" 2>/dev/null && break; sleep 1; done
    cat "$out/hog_$leave.txt"
    for level in quick standard; do
        "$bin/gv-check" --sysroot / --level $level --json >"$out/hog_${leave}_$level.json" 2>"$out/hog_${leave}_$level.err"
        echo "== holding all but $leave MiB, $level: exit $?"
        python3 - "$out/hog_${leave}_$level.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["verdict"], "%.1f s" % d["duration_s"])
quiet = ("rdma.", "gpudirect.", "topo.gpu_nic", "gpu.nvlink", "gpu.fabric", "gpu.retired_pages",
         "cuda.copy_all", "cuda.p2p", "nccl.")
for c in d["checks"]:
    if c["verdict"] != "PASS" and not (c["verdict"] == "SKIP" and c["id"].startswith(quiet)
                                       and "used by PID" not in c["message"]):
        print("  %s %s %s %s" % (c["verdict"], c["id"], c["subject"], c["message"][:230]))
PY
    done
    kill $hog; wait $hog 2>/dev/null
done
