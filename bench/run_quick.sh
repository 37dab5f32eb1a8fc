#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 7 on a GPU machine: gv-check --level quick and the Python binding's run("quick") give
# the same verdicts, and the quick level stays within its budget (the run's own duration_s and
# /usr/bin/time's wall clock, three runs each).
# Usage: bench/run_quick.sh BINDIR OUTDIR   (BINDIR: gv-check and libgpuverify.so.1)
set -u
bin=$(cd "$1" && pwd); out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export GPUVERIFY_LIBRARY=$bin/libgpuverify.so.1 PYTHONPATH=$here/../bindings/python LD_LIBRARY_PATH=$bin
{ nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; uname -r; python3 --version; } >"$out/env.txt" 2>&1
"$bin/gv-check" --level quick >"$out/gv_check_quick.txt" 2>&1
echo "exit $?" >>"$out/gv_check_quick.txt"
for i in 1 2 3; do
    /usr/bin/time -f "gv-check wall %e s, max RSS %M KiB" "$bin/gv-check" --level quick --json \
        >"$out/gv_check_$i.json" 2>>"$out/times.txt"
    /usr/bin/time -f "python -m gpuverify wall %e s, max RSS %M KiB" python3 -m gpuverify \
        --level quick --json >"$out/python_$i.json" 2>>"$out/times.txt"
done
python3 -m gpuverify --level quick --npd >"$out/npd.txt" 2>&1; echo "exit $?" >>"$out/npd.txt"
for i in 1 2 3; do
    python3 "$here/compare_quick.py" "$out/gv_check_$i.json" "$out/python_$i.json" >"$out/compare_$i.json"
done
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")"
echo done
