#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Liveness on a GPU node, the way an outside fault meets a run: the worker stopped (SIGSTOP, as a
# driver call that never returns) 8 s into a 30 s stress.gemm with --deadline 5; the worker
# killed (SIGKILL, as the OOM killer) 6 s into stress.gemm,stress.power of 15 s; a 30 s stress
# under --budget 5; the per-GPU verdict in JSON, Prometheus and the one line; and the standard
# level's wall time, median of 5, beside an older build's (alternating, same GPU).
# Prints a summary; the JSON reports go to $OUT (or /tmp/gv-liveness).
#
# usage: bench/run_liveness.sh NEW_PREFIX OLD_PREFIX   (prefixes from `cmake --install`)
set -u
new=$(cd "$1" && pwd)
old=$(cd "$2" && pwd)
out=${OUT:-/tmp/gv-liveness}
mkdir -p "$out"
unset LD_LIBRARY_PATH
summary=$out/summary.txt
: >"$summary"
say() { printf '%-30s %s\n' "$1" "$2" | tee -a "$summary"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
rows() { # id subject verdict message, one row a line
    python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["checks"]:
    print("  %-13s %-6s %-5s %s" % (c["id"], c["subject"], c["verdict"], c["message"][:170]))' "$1" |
        tee -a "$summary"
}
worker_of() { pgrep -P "$1" -f gpuverify-worker | head -n 1; }

say "GPU" "$(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader | head -n 1)"

# 1. A hung driver call 8 s into a 30 s stress: found at the next missing heartbeat.
t0=$(now_ms)
"$new/bin/gv-check" --json --level extended --checks stress.gemm --duration 30 --deadline 5 \
    >"$out/sigstop.json" 2>"$out/sigstop.err" &
gv=$!
sleep 8
w=$(worker_of $gv)
t_stop=$(now_ms)
kill -STOP "$w"
wait $gv
rc=$?
t_end=$(now_ms)
say "SIGSTOP 8 s in (deadline 5)" "exit $rc, returned $((t_end - t_stop)) ms after the stop, $((t_end - t0)) ms in all"
rows "$out/sigstop.json"

# 2. The worker killed 6 s into stress.gemm: its row an ERROR, stress.power in a fresh worker.
t0=$(now_ms)
"$new/bin/gv-check" --json --level extended --checks stress.gemm,stress.power --duration 15 \
    >"$out/sigkill.json" 2>"$out/sigkill.err" &
gv=$!
sleep 6
kill -KILL "$(worker_of $gv)"
wait $gv
rc=$?
say "SIGKILL 6 s in (15 s stress)" "exit $rc in $(($(now_ms) - t0)) ms"
rows "$out/sigkill.json"

# 3. The run's budget as a hard bound: a 30 s stress under --budget 5.
t0=$(now_ms)
"$new/bin/gv-check" --json --level extended --checks stress.gemm --duration 30 --budget 5 \
    >"$out/budget.json" 2>"$out/budget.err"
rc=$?
say "--budget 5 on a 30 s stress" "exit $rc in $(($(now_ms) - t0)) ms"
rows "$out/budget.json"

# 4. What a scheduler reads per GPU: the JSON's verdict, the Prometheus series, the one line.
"$new/bin/gv-check" --json >"$out/standard-gpus.json" 2>/dev/null
python3 -c 'import json, sys
for g in json.load(open(sys.argv[1]))["gpus"]:
    print("  gpu %s %s verdict %s failed_checks %s" % (g.get("index"), g.get("uuid", "")[:12],
          g.get("verdict"), g.get("failed_checks")))' "$out/standard-gpus.json" | tee -a "$summary"
"$new/bin/gv-check" --prometheus 2>/dev/null | grep '^gpuverify_gpu_usable' | tee -a "$summary"
say "--quiet" "$("$new/bin/gv-check" --quiet 2>&1; echo " (exit $?)")"

# 5. The standard level on this GPU, new and old alternating, five each.
for i in 1 2 3 4 5; do
    for build in new old; do
        prefix=$new
        [ $build = old ] && prefix=$old
        t0=$(now_ms)
        "$prefix/bin/gv-check" --json >"$out/standard-$build-$i.json" 2>/dev/null
        rc=$?
        echo "$build $rc $(($(now_ms) - t0))" >>"$out/standard.txt"
    done
done
python3 - "$out/standard.txt" <<'PY' | tee -a "$summary"
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    build, rc, ms = line.split()
    runs.setdefault(build, []).append((int(rc), int(ms) / 1000))
for build in ("new", "old"):
    walls = [w for _, w in runs[build]]
    print("standard level %-3s exits %s, wall %s, median %.2f s" % (
        build, sorted({rc for rc, _ in runs[build]}), " ".join("%.2f" % w for w in walls),
        statistics.median(walls)))
new, old = (statistics.median(w for _, w in runs[b]) for b in ("new", "old"))
print("new / old median: %.3f" % (new / old))
PY
