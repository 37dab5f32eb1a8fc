#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (tests/fuzz, clang, ASan+UBSan) and runs each from its seed
# corpus in tests/fuzz/corpus: `--runs N` executions each (CI: 10 000), or `--seconds S` each
# (a long run; new inputs are kept under build/fuzz/corpus). TARGET:N gives one target its own
# number of executions; `--jobs J` runs J targets at once. A crash stops with its input saved
# under build/fuzz/artifacts/TARGET.
# usage: scripts/fuzz.sh [--runs N | --seconds S] [--jobs J] [TARGET[:N]...]
set -eu
cd "$(dirname "$0")/.."
limit="-runs=10000" jobs=1
while [ $# -gt 0 ]; do
    case $1 in
    --runs) limit="-runs=$2"; shift 2 ;;
    --seconds) limit="-max_total_time=$2"; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) break ;;
    esac
done
targets=${*:-"fuzz_policy fuzz_nccl_values fuzz_report_json fuzz_worker_stream fuzz_sysroot fuzz_topology_xml"}
CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGPUVERIFY_FUZZ=ON -DBUILD_TESTING=OFF -DGPUVERIFY_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build/fuzz -j"$(nproc)" --target gv_fuzz
# The topology target's hwloc crashes land in a worker built without the fuzzer's ASan
# (which would turn a crash into an exit status): build/ci's when present, else this one.
worker=$PWD/build/ci/gpuverify-worker
[ -x "$worker" ] || { cmake --build build/fuzz --target gpuverify-worker; worker=$PWD/build/fuzz/gpuverify-worker; }
rm -rf build/fuzz/logs
mkdir -p build/fuzz/artifacts build/fuzz/logs

# One target: its summary lines in build/fuzz/logs/TARGET.log.
fuzz_one() {
    t=${1%%:*} runs=$limit
    [ "$1" != "$t" ] && runs="-runs=${1#*:}"
    mkdir -p "build/fuzz/corpus/$t" "build/fuzz/artifacts/$t"
    leaks=1
    # hwloc 2.9 and its libxml2 plugin keep allocations of a failed import; ours are freed
    # (test_topology under LeakSanitizer covers gv_topology's own).
    [ "$t" = fuzz_topology_xml ] && leaks=0
    {
        echo "== $t ($runs)"
        ASAN_OPTIONS=detect_leaks=$leaks GPUVERIFY_WORKER=$worker "build/fuzz/tests/fuzz/$t" "$runs" \
            -detect_leaks=$leaks -seed=1 -artifact_prefix="build/fuzz/artifacts/$t/" \
            "build/fuzz/corpus/$t" "tests/fuzz/corpus/$t" 2>&1 |
            grep -E "^(#[0-9]+ +DONE|Done|==[0-9]+==ERROR|SUMMARY)|runtime error" || true
    } >"build/fuzz/logs/$t.log"
}

names=""
for t in $targets; do
    while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    fuzz_one "$t" &
    names="$names ${t%%:*}"
done
wait
status=0
for t in $names; do
    cat "build/fuzz/logs/$t.log"
    # grep ate the status: a crash leaves an artifact
    if ls "build/fuzz/artifacts/$t/"* >/dev/null 2>&1; then
        echo "$t: crash, leak or timeout; input in build/fuzz/artifacts/$t"; status=1
    fi
done
[ $status -eq 0 ] && echo "fuzz targets clean"
exit $status
