#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Result fingerprints on a GPU machine (issue 34, part 5): gv-check's gemm.* and stress.gemm
# rows twice on every GPU, then gv-gemm on each GPU alone for what one fingerprint costs. The
# summary says, per GPU and check, the hash and key of each run, whether the runs agree and
# whether the GPUs agree (a healthy node: one hash per key across runs and GPUs), and the
# fingerprint's seconds per data type.
# Usage: bench/run_fingerprint.sh BUILD_DIR [OUTDIR] [STRESS_SECONDS]
#   BUILD_DIR: a build folder (gv-check in examples/ or beside gpuverify-worker and
#   libgpuverify.so.1); OUTDIR default /tmp/gv-fingerprint-<UTC time>; the stress 10 s.
# Prints the summary and writes it to OUTDIR/summary.txt (and summary.json). FP_CHECK_ARGS adds
# to gv-check's arguments and FP_GEMM_SIZE sets gv-gemm's size (1024): over the fakes, which
# compute on the host, FP_CHECK_ARGS="--gemm-size 32" FP_GEMM_SIZE=32.
set -u
bin=$(cd "$1" && pwd) || exit 2
out=${2:-/tmp/gv-fingerprint-$(date -u +%Y%m%dT%H%M%SZ)}
stress=${3:-10}
tool() { # NAME: the tool in the build folder, examples/ first
    if [ -x "$bin/examples/$1" ]; then echo "$bin/examples/$1"; else echo "$bin/$1"; fi
}
gv_check=$(tool gv-check)
gv_gemm=$(tool gv-gemm)
mkdir -p "$out"
# The build's library and worker, as bench_setup.sh sets them; the NVIDIA libraries as gv-check
# finds them anywhere.
export LD_LIBRARY_PATH="$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    GPUVERIFY_WORKER="$bin/gpuverify-worker"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,memory.total,power.limit \
    --format=csv; uname -r; "$gv_check" --version; } >"$out/env.txt" 2>&1
timed() { # NAME command...: stdout to NAME.json, stderr to NAME.err, exit and wall to wall.txt
    name=$1; shift
    t0=$(date +%s.%N)
    "$@" >"$out/$name.json" 2>"$out/$name.err"
    rc=$?
    wall=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }")
    echo "$name exit $rc wall $wall s" >>"$out/wall.txt"
}
: >"$out/wall.txt"
for run in 1 2; do
    # shellcheck disable=SC2086 # FP_CHECK_ARGS: words on purpose
    timed "run$run" "$gv_check" --json --checks gemm,stress.gemm --duration "$stress" \
        ${FP_CHECK_ARGS:-}
done
for gpu in $(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null); do
    # A short benchmark: its fingerprint is the same 2048^3 product whatever the size.
    timed "gemm_gpu$gpu" "$gv_gemm" --gpu "$gpu" --size "${FP_GEMM_SIZE:-1024}" --warmup 0 \
        --batch 0.01 --batches 1 --json
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, json, os, statistics, sys
out = sys.argv[1]

def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError) as e:
        print("%s: %s" % (os.path.basename(path), e))
        return None

runs = [r for r in (load(os.path.join(out, "run%d.json" % i)) for i in (1, 2)) if r]
rows = {}  # (check, subject) -> [row per run]
for i, r in enumerate(runs):
    for c in r["checks"]:
        if c["id"].startswith("gemm.") or c["id"] == "stress.gemm":
            rows.setdefault((c["id"], c["subject"]), [None] * len(runs))[i] = c
summary = {"runs": len(runs), "rows": [], "keys": {}, "fingerprint_s": {}}
print("%-12s %-26s %-8s %-16s %-16s %-5s %-5s" % ("check", "GPU", "verdict", "run 1", "run 2",
                                                  "runs", "GPUs"))
by_key = {}  # key -> {hash: [(check, subject, run)]}
for (check, subject), per_run in sorted(rows.items()):
    for i, c in enumerate(per_run):
        fp = (c or {}).get("fingerprint") or {}
        if fp.get("hash"):
            by_key.setdefault(fp["key"], {}).setdefault(fp["hash"], []).append((check, subject,
                                                                               i + 1))
# The hash most rows gave under each key (None: a tie), over every GPU and run.
majority = {}
for key, hashes in by_key.items():
    ranked = sorted(((len(v), h) for h, v in hashes.items()), reverse=True)
    majority[key] = None if len(ranked) > 1 and ranked[0][0] == ranked[1][0] else ranked[0][1]
for (check, subject), per_run in sorted(rows.items()):
    fps = [((c or {}).get("fingerprint") or {}) for c in per_run]
    hashes = [f.get("hash") or "-" for f in fps]
    keys = {f.get("key") for f in fps if f.get("key")}
    same_runs = len(set(hashes)) == 1 and hashes[0] != "-"
    # "GPUs": this GPU's hash in every run is the one most GPUs gave under its key.
    key = next(iter(keys)) if len(keys) == 1 else None
    same_gpus = key is not None and all(h == majority[key] for h in hashes)
    gpus = "same" if same_gpus else "tie" if key and majority[key] is None else "DIFF"
    verdicts = ",".join(sorted({(c or {}).get("verdict", "-") for c in per_run}))
    print("%-12s %-26s %-8s %-16s %-16s %-5s %-5s" % (check, subject, verdicts, hashes[0],
                                                      hashes[1] if len(hashes) > 1 else "-",
                                                      "same" if same_runs else "DIFF", gpus))
    summary["rows"].append({"check": check, "subject": subject, "verdicts": verdicts,
                            "hashes": hashes, "keys": sorted(keys), "runs_agree": same_runs,
                            "gpus_agree": same_gpus})
    for c in per_run:
        if c and not (c.get("fingerprint") or {}).get("hash"):
            print("    no fingerprint in a run: %s" % c["message"])
print("\nkeys (one hash each on a healthy node):")
for key, hashes in sorted(by_key.items()):
    print("  %s\n    %s" % (key, "; ".join("%s x%d" % (h, len(v)) for h, v in hashes.items())))
    summary["keys"][key] = {h: len(v) for h, v in hashes.items()}
# What one fingerprint costs, from gv-gemm on each GPU, and whether it matches gv-check's.
seconds = {}
for path in sorted(glob.glob(os.path.join(out, "gemm_gpu*.json"))):
    for r in load(path) or []:
        fp = r.get("fingerprint")
        if not fp:
            print("%s %s: no fingerprint: %s" % (os.path.basename(path), r["dtype"], r["message"]))
            continue
        seconds.setdefault(r["dtype"], []).append(fp["seconds"])
        if fp["hash"] not in by_key.get(fp["key"], {}):
            print("%s %s: gv-gemm's %s is none of gv-check's under its key" % (
                os.path.basename(path), r["dtype"], fp["hash"]))
print("\nfingerprint seconds per data type (gv-gemm, every GPU): min / median / max")
for dtype, v in seconds.items():
    print("  %-5s %.4f / %.4f / %.4f over %d GPUs" % (dtype, min(v), statistics.median(v),
                                                     max(v), len(v)))
    summary["fingerprint_s"][dtype] = {"min": min(v), "median": statistics.median(v),
                                       "max": max(v), "gpus": len(v)}
agree = bool(summary["rows"]) and all(len(h) == 1 for h in by_key.values()) and all(
    r["runs_agree"] for r in summary["rows"])
print("\nall runs and GPUs agree (one hash per key, every row with one): %s"
      % ("yes" if agree else "NO"))
summary["all_agree"] = bool(agree)
print(open(os.path.join(out, "wall.txt")).read().rstrip())
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=2)
PY
echo "results in $out"
