#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Two builds of gv-check, alternating on the same GPUs: the standard level on one GPU and on all
# of them (up to 4), ROUNDS rounds each (default 3; a VM whose runs spread 0.5 s wants more),
# the builds' order swapped every round (a run's time depends a little on the run before it:
# the second of two 1-GPU runs took 0.2-0.4 s longer). Prints per build and GPU count the
# median wall time and
# whether the verdicts (check, subject, verdict) are the same, and each build's rows of the
# checks named in CHECKS (default cuda.copy_all,cuda.copy) from its last run.
# Usage: [ROUNDS=N] [CHECKS=...] bench/run_ab.sh OLD_BINDIR NEW_BINDIR OUTDIR
set -u
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd) out=$3
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; } >"$out/env.txt" 2>&1
n=$(nvidia-smi -L | grep -c '^GPU ')
all=0
i=1
while [ "$i" -lt "$n" ] && [ "$i" -lt 4 ]; do all="$all,$i"; i=$((i + 1)); done
: >"$out/walls.txt"
for round in $(seq 1 "${ROUNDS:-3}"); do
    for gpus in 0 "$all"; do
        order="old new"
        [ $((round % 2)) -eq 0 ] && order="new old"
        for build in $order; do
            eval bin=\$$build
            name=$build-$(echo "$gpus" | tr ',' '\n' | wc -l)gpu-r$round
            start=$(date +%s.%N)
            LD_LIBRARY_PATH=$bin GPUVERIFY_WORKER=$bin/gpuverify-worker "$bin/gv-check" --json \
                --gpus "$gpus" >"$out/$name.json" 2>"$out/$name.err"
            end=$(date +%s.%N)
            awk -v n="$name" -v a="$start" -v b="$end" 'BEGIN { printf "%s %.3f\n", n, b - a }' >>"$out/walls.txt"
        done
    done
done
python3 - "$out" "${CHECKS:-cuda.copy_all,cuda.copy}" <<'PY' | tee "$out/summary.txt"
import json, os, statistics, sys
out, shown = sys.argv[1], sys.argv[2].split(",")
walls = {}
for line in open(os.path.join(out, "walls.txt")):
    name, wall = line.split()
    build, gpus, _ = name.split("-")
    walls.setdefault((gpus, build), []).append((float(wall), name))
def verdicts(name):
    d = json.load(open(os.path.join(out, name + ".json")))
    return {(c["id"], c["subject"], c["verdict"]) for c in d["checks"]}, d
for gpus in sorted({g for g, _ in walls}):
    line = []
    sets = {}
    for build in ("old", "new"):
        w = walls[(gpus, build)]
        line.append("%s %.2f s (%s)" % (build, statistics.median(x for x, _ in w),
                                        ", ".join("%.2f" % x for x, _ in w)))
        sets[build] = [verdicts(n)[0] for _, n in w]
    o, n = statistics.median(x for x, _ in walls[(gpus, "old")]), statistics.median(x for x, _ in walls[(gpus, "new")])
    same = all(s == sets["old"][0] for s in sets["old"] + sets["new"])
    print("%s: %s; new/old %.3f; verdicts the same in every run: %s" % (gpus, "; ".join(line), n / o, same))
    if not same:
        for build in ("old", "new"):
            print("  %s only: %s" % (build, sorted(sets[build][-1] - sets["new" if build == "old" else "old"][-1])))
    for build in ("old", "new"):
        _, d = verdicts(walls[(gpus, build)][-1][1])
        for c in d["checks"]:
            if c["id"] in shown:
                print("  %s %s %s %s %.2f s: %s" % (build, c["id"], c["subject"], c["verdict"],
                                                   c.get("duration_s") or 0, c["message"][:300]))
PY
