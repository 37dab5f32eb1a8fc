#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# stress.gemm's and stress.power's bars on a GPU machine (issue 15): the single-GPU gemm.bf16
# figure beside gv_stress_gemm on every GPU at once for 120 s (bench_stress, with the 100 ms
# time series as CSV), then gv-check's extended level through the worker.
# Usage: bench/run_stress.sh BINDIR OUTDIR [SECONDS]   (BINDIR holds bench_stress, gv-check)
set -u
bin=$1; out=$2; seconds=${3:-120}
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,power.limit,clocks.max.sm,temperature.gpu --format=csv; } >"$out/env.txt" 2>&1
"$bin/bench_stress" "$seconds" "$out/series.csv" >"$out/stress.json" 2>"$out/stress.err"
"$bin/gv-check" --level extended --duration "$seconds" --json >"$out/extended.json" 2>"$out/extended.err"
echo "gv-check exit $?" >>"$out/extended.err"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
s = json.load(open(os.path.join(out, "stress.json")))
for g in s["gpus"]:
    print("gpu%d: stress %.1f TFLOPS median vs gemm.bf16 alone %.1f = %.3f (bar >= 0.95); "
          "%d results, %d mismatches; power %.0f of %.0f W = %.0f%% (bar >= 95%%)" % (
          g["gpu"], g["stress_median"], g["gemm_bf16_alone"], g["ratio"], g["iterations"],
          g["mismatches"], g["power_mean"], g["power_limit"],
          100 * g["power_mean"] / g["power_limit"] if g["power_limit"] else 0))
e = json.load(open(os.path.join(out, "extended.json")))
print("extended level: %s in %.1f s" % (e["verdict"], e["duration_s"]))
PY
