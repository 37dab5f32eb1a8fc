#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What the history database (gv-check --state) adds to a quick run once 1,000 runs of history
# are kept; the bar is 5 ms per run. bench_history takes a real quick report as the template,
# fills a fresh database with 1,000 copies of its run (30 min apart: all in the judges' 30-day
# window), then times gv_run_history itself per run (open, the history.* judges, append,
# close) and each of its steps, and prints the summary block for bench/results/.
#
# usage: bench/run_history_cost.sh BUILD OUTDIR [REPORT.json]
#   BUILD        the build tree: bench/bench_history, examples/gv-check, gpuverify-worker and
#                libgpuverify.so.1 (cmake --build BUILD; the device machine needs no cmocka)
#   REPORT.json  `gv-check --level quick --json` of some node; without it, gv-check makes one
#                on this machine's GPUs first (nvidia-smi must list one)
# Environment: GV_BENCH_HISTORY (runs kept before timing, 1000), GV_BENCH_REPS (timed runs,
# 200), GV_BENCH_SECONDS (the timed runs stop after this, 240, so that a slow history ends
# within a lent machine's 10-minute command; the breakdown takes about a quarter of it more),
# GV_BENCH_KEEP_DB=1 keeps OUTDIR/history.db (tens of MiB).
# Writes OUTDIR/env.txt, OUTDIR/report.json (when made here), OUTDIR/summary.txt.
set -u
[ $# -ge 2 ] || { sed -n '9,13p' "$0" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
report=${3:-}
bench=$build/bench/bench_history
export LD_LIBRARY_PATH=$build GPUVERIFY_WORKER=$build/gpuverify-worker
[ -x "$bench" ] || { echo "no $bench: build the bench target first" >&2; exit 2; }
# The bench links the library's objects, so it needs their libraries on this machine too.
missing=$(ldd "$bench" | awk '/not found/ {print $1}')
[ -z "$missing" ] || { echo "bench_history needs: $missing (Debian/Ubuntu: libsqlite3-0 libjansson4 libhwloc15)" >&2; exit 2; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv 2>&1
  uname -r; echo "cores $(nproc)"; df -T "$out" | tail -n 1; } >"$out/env.txt" 2>&1
if [ -z "$report" ]; then
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "no REPORT.json and no GPU here: give a gv-check --level quick --json report" >&2
        exit 2
    fi
    report=$out/report.json
    "$build/examples/gv-check" --level quick --json >"$report" 2>"$out/report.err"
    rc=$?
    echo "gv-check --level quick --json: exit $rc" >>"$out/env.txt"
    # 0 healthy, 1 a FAIL, 3 an ERROR: a report all the same; 2 and 4 made none worth timing.
    case $rc in 0|1|3) ;; *) echo "gv-check exited $rc: $(tail -n 3 "$out/report.err")" >&2; exit 2 ;; esac
fi
"$bench" "$report" "$out/history.db" "${GV_BENCH_HISTORY:-1000}" "${GV_BENCH_REPS:-200}" 1800 \
    "${GV_BENCH_SECONDS:-240}" >"$out/summary.txt"
rc=$?
cat "$out/summary.txt"
[ "${GV_BENCH_KEEP_DB:-0}" = 1 ] || rm -f "$out/history.db" "$out/history.db-wal" "$out/history.db-shm"
exit $rc
