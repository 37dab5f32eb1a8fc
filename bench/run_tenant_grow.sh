#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# gv-check beside a job whose memory grows and shrinks (peer_grow.py): ROUNDS standard runs
# under the default policy (busy = skip: the GPU the job uses is spared mem.test, stress.* and
# cuda.alloc's large test) and under busy = ignore (they run there, as before the rule), each
# beside a fresh tenant; the tenant's refused allocations (what kills a job) and gv-check's
# rows for the tests that take memory are printed.
# Usage: bench/run_tenant_grow.sh BINDIR OUTDIR [ROUNDS]
set -u
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
rounds=${3:-3}
printf 'busy = ignore\n' >"$out/ignore.policy"
for policy in default ignore; do
    args=()
    [ $policy = ignore ] && args=(--policy "$out/ignore.policy")
    python3 "$here/peer_grow.py" $((rounds * 12)) >"$out/grow_$policy.txt" 2>&1 &
    tenant=$!
    for _ in $(seq 90); do grep -q ready "$out/grow_$policy.txt" 2>/dev/null && break; sleep 1; done
    for r in $(seq "$rounds"); do
        "$bin/gv-check" --sysroot / --level standard --json "${args[@]}" \
            >"$out/grow_${policy}_$r.json" 2>"$out/grow_${policy}_$r.err"
        echo "== $policy, round $r: exit $?"
        python3 - "$out/grow_${policy}_$r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["verdict"], "%.1f s" % d["duration_s"])
for c in d["checks"]:
    if c["id"] in ("mem.test", "cuda.alloc", "gemm.bf16", "cuda.init"):
        print("  %s %s %s %s" % (c["verdict"], c["id"], c["subject"], c["message"][:200]))
PY
        sleep 2
    done
    wait $tenant
    echo "== tenant beside the $policy runs: $(tail -1 "$out/grow_$policy.txt")"
done
