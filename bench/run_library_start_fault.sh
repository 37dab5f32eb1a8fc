#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A driver whose start crashes or hangs, on a real GPU node: bench/stall_shim.c (the build's
# bench/stall/libcuda.so.1, copied to BINDIR/stall/) makes cuInit segfault, or never return, in
# every process, in front of the real driver and NVML. For each, the standard level: driver.cuda's
# row, the GPUs of the inventory (against nvidia-smi), the rows by verdict, what the checks
# that need no CUDA said, and the wall time; first the same level on the real driver alone.
# Then the hang at the quick level with its default budget and deadline (the Prolog's run),
# against the quick level on the real driver.
# Prints a summary (OUTDIR/summary.txt); the reports stay in OUTDIR.
#
# usage: bench/run_library_start_fault.sh BINDIR OUTDIR
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
real=$(ldconfig -p | awk '/libcuda.so.1 .*x86-64/ {print $NF; exit}')
smi=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | tr 'A-F' 'a-f' | sed 's/^0000//' | sort | tr '\n' ' ')
timed healthy --level standard
GPUVERIFY_CUDA_LIBRARY=$bin/stall/libcuda.so.1 GV_STALL_REAL=$real GV_CUINIT_FAULT=crash \
    timed cuinit-crash --level standard
GPUVERIFY_CUDA_LIBRARY=$bin/stall/libcuda.so.1 GV_STALL_REAL=$real GV_CUINIT_FAULT=hang \
    timed cuinit-hang --level standard --deadline ${DEADLINE:-5}
timed healthy-quick --level quick
GPUVERIFY_CUDA_LIBRARY=$bin/stall/libcuda.so.1 GV_STALL_REAL=$real GV_CUINIT_FAULT=hang \
    timed cuinit-hang-quick --level quick
python3 - "$out" "$smi" <<'PY' | tee "$out/summary.txt"
import collections, json, sys
out, smi = sys.argv[1], sorted(sys.argv[2].split())
walls = {l.split()[0]: l.split()[1:] for l in open(out + "/walls.txt")}
print("nvidia-smi's GPUs:", " ".join(smi))
bases = {}
for name, against in (("healthy", None), ("cuinit-crash", "healthy"), ("cuinit-hang", "healthy"),
                      ("healthy-quick", None), ("cuinit-hang-quick", "healthy-quick")):
    r = json.load(open("%s/%s.json" % (out, name)))
    rows = r["checks"]
    by = collections.Counter(c["verdict"] for c in rows)
    cuda = [c for c in rows if c["id"] == "driver.cuda"]
    gpus = sorted(g["pci_bus_id"].lower() for g in r["gpus"])
    judged = {(c["id"], c["subject"]): c["verdict"] for c in rows}
    print("== %s: exit %s, %s s, verdict %s [%s]" % (name, walls[name][0], walls[name][1],
                                                   r["verdict"], r["action"]))
    print("   rows: %s" % ", ".join("%s %d" % kv for kv in sorted(by.items())))
    print("   inventory: %d GPU(s), %s nvidia-smi's" % (
        len(gpus), "equal to" if gpus == smi else "NOT equal to"))
    for c in cuda:
        print("   driver.cuda %s: %s (action %s)" % (c["verdict"], c["message"], c["action"]))
    if against is None:
        bases[name] = judged
        continue
    base = bases[against]
    # The checks that need no CUDA: the healthy run's rows outside CUDA's tests.
    cuda_tests = ("cuda.", "mem.", "gemm.", "cudnn.", "nccl.allreduce", "nccl.transport",
                  "driver.cuda", "driver.compat")
    kept = [k for k in base if not k[0].startswith(cuda_tests)]
    same = [k for k in kept if judged.get(k) == base[k]]
    print("   rows needing no CUDA with the healthy run's verdict: %d of %d%s" % (
        len(same), len(kept), "" if len(same) == len(kept) else ": differ " + ", ".join(
            "%s/%s %s->%s" % (k[0], k[1], base[k], judged.get(k)) for k in kept if k not in same)))
    skipped = [c for c in rows if c["id"].startswith(cuda_tests[:5]) and c["verdict"] == "SKIP"]
    if skipped:
        print("   %d CUDA tests SKIP, e.g. %s: %s" % (len(skipped), skipped[0]["id"],
                                                   skipped[0]["message"]))
PY
