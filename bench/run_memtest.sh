#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# mem.test's bar on a GPU machine (issue 15): coverage of free memory and speed against the
# D2D copy rate measured in the same run, ours (bench_copy) and PyTorch's (d2.copy_(d1)),
# three alternating rounds; then gv-check's mem.test row.
# Usage: bench/run_memtest.sh BINDIR OUTDIR   (BINDIR holds bench_memtest, bench_copy, gv-check)
set -u
bin=$1; out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,ecc.mode.current --format=csv;
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; } >"$out/env.txt" 2>&1
for round in 1 2 3; do
    "$bin/bench_copy" >"$out/gv_copy_$round.json" 2>"$out/gv_copy_$round.err"
    python3 "$here/peer_torch.py" copies >"$out/torch_copy_$round.json" 2>"$out/torch_copy_$round.err"
    "$bin/bench_memtest" 0 1 >"$out/memtest_$round.json" 2>"$out/memtest_$round.err"
done
"$bin/bench_memtest" 0 5 >"$out/memtest_5rounds.json" 2>"$out/memtest_5rounds.err"
"$bin/gv-check" --checks mem.test --json >"$out/gv_check_memtest.json" 2>"$out/gv_check_memtest.err"
python3 - "$out" >"$out/summary.txt" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except Exception as e:
        return {"error": str(e)}
rows = []
for r in (1, 2, 3):
    gv, th, mt = load("gv_copy_%d.json" % r), load("torch_copy_%d.json" % r), load("memtest_%d.json" % r)
    d2d_gv, d2d_th = gv.get("d2d_gbps", 0), th.get("copy", {}).get("d2d_gbps", 0)
    rows.append((r, d2d_gv, d2d_th, mt.get("gbps", 0), mt.get("coverage_of_free", 0),
                 mt.get("gpu_seconds", 0), mt.get("verdict")))
    print("round %d: D2D ours %.0f GB/s, PyTorch %.0f GB/s; memtest %.0f GB/s = %.3f x ours, "
          "%.3f x PyTorch; coverage %.1f%% of free; %.3f s on the GPU; %s" % (
          r, d2d_gv, d2d_th, mt.get("gbps", 0), mt.get("gbps", 0) / d2d_gv if d2d_gv else 0,
          mt.get("gbps", 0) / d2d_th if d2d_th else 0, 100 * mt.get("coverage_of_free", 0),
          mt.get("gpu_seconds", 0), mt.get("verdict")))
best = max(max(r[1], r[2]) for r in rows)
med = statistics.median(r[3] for r in rows)
print("median memtest %.0f GB/s vs the best D2D of the run %.0f GB/s: %.3f (bar >= 0.80)" % (med, best, med / best if best else 0))
print("min coverage %.1f%% of free (bar >= 90%%)" % (100 * min(r[4] for r in rows)))
PY
cat "$out/summary.txt"
