#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (tests/fuzz, clang, ASan+UBSan) and runs each from its seed
# corpus in tests/fuzz/corpus: `--runs N` executions each (CI: 10 000), or `--seconds S` each
# (a long run; new inputs are kept under build/fuzz/corpus). A crash stops with its input
# saved under build/fuzz/artifacts.
# usage: scripts/fuzz.sh [--runs N | --seconds S] [TARGET...]
set -eu
cd "$(dirname "$0")/.."
limit="-runs=10000"
case "${1:-}" in
--runs) limit="-runs=$2"; shift 2 ;;
--seconds) limit="-max_total_time=$2"; shift 2 ;;
esac
targets=${*:-"fuzz_policy fuzz_nccl_values fuzz_report_json fuzz_worker_stream fuzz_sysroot fuzz_topology_xml"}
CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGPUVERIFY_FUZZ=ON -DBUILD_TESTING=OFF -DGPUVERIFY_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build/fuzz -j"$(nproc)" --target gv_fuzz
# The topology target's hwloc crashes land in a worker built without the fuzzer's ASan
# (which would turn a crash into an exit status): build/ci's when present, else this one.
worker=$PWD/build/ci/gpuverify-worker
[ -x "$worker" ] || { cmake --build build/fuzz --target gpuverify-worker; worker=$PWD/build/fuzz/gpuverify-worker; }
mkdir -p build/fuzz/artifacts
for t in $targets; do
    mkdir -p "build/fuzz/corpus/$t"
    leaks=1
    # hwloc 2.9 and its libxml2 plugin keep allocations of a failed import; ours are freed
    # (test_topology under LeakSanitizer covers gv_topology's own).
    [ "$t" = fuzz_topology_xml ] && leaks=0
    echo "== $t ($limit)"
    ASAN_OPTIONS=detect_leaks=$leaks GPUVERIFY_WORKER=$worker build/fuzz/tests/fuzz/$t $limit \
        -detect_leaks=$leaks -seed=1 \
        -artifact_prefix=build/fuzz/artifacts/ "build/fuzz/corpus/$t" "tests/fuzz/corpus/$t" \
        2>&1 | grep -E "^(#[0-9]+ +DONE|Done|==[0-9]+==ERROR|SUMMARY)|runtime error" || true
    # grep ate the status: a crash leaves an artifact
    if ls build/fuzz/artifacts/*-* >/dev/null 2>&1; then
        echo "$t: crash, leak or timeout; input in build/fuzz/artifacts"; exit 1
    fi
done
echo "fuzz targets clean"
