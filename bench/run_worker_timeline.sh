#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The standard level through bench/worker_events.py: every line each gpuverify-worker of the
# run sent, with the time it came, for each GPU selection named (then bench/worker_timeline.py
# prints a run's workers on one clock: NVML, cuInit, contexts, each check's stages, exits).
# One warm-up run first. Writes OUTDIR/events-<n>gpu-r<round>.log and the Python binding's
# timeline beside it (bench/levels_timeline.py). LEVEL picks another level (quick: the Prolog's).
# Usage: [LEVEL=quick] bench/run_worker_timeline.sh BINDIR OUTDIR ROUNDS GPUS...
#        (GPUS: "0" "0,1,2,3")
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
rounds=$3
shift 3
wrapper=$out/worker-events.sh
"$bin/gv-check" --gpus "$(echo "$@" | tr ' ' '\n' | sort | tail -n 1)" --quiet >/dev/null 2>&1
for round in $(seq 1 "$rounds"); do
    for gpus in "$@"; do
        name=${LEVEL:-standard}-$(echo "$gpus" | tr ',' '\n' | wc -l)gpu-r$round
        log=$out/events-$name.log
        # The worker stays the child of the run's caller, its output through the filter.
        printf '#!/bin/bash\nexec %s "$@" > >(exec python3 %s %s)\n' "$bin/gpuverify-worker" \
            "$here/worker_events.py" "$log" >"$wrapper"
        chmod +x "$wrapper"
        python3 -c 'import time; print("%.4f 0 start" % time.time())' >"$log"
        GPUVERIFY_WORKER=$wrapper PYTHONPATH=$here/../bindings/python \
            GPUVERIFY_LIBRARY=$bin/libgpuverify.so python3 "$here/levels_timeline.py" "${LEVEL:-standard}" \
            "$gpus" >"$out/timeline-$name.txt" 2>&1
        python3 -c 'import time; print("%.4f 0 end" % time.time())' >>"$log"
        tail -n 1 "$out/timeline-$name.txt"
    done
done
rm -f "$wrapper"
