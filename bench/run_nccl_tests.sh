#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue 16: gv-nccl's time per operation at every size beside nccl-tests' (built here from its
# source against the node's libnccl) and torch.distributed's, three rounds alternating, for
# all_reduce, all_gather and reduce_scatter: gv-nccl in gpuverify-worker (blocking
# communicators, the default), gv-nccl --in-process (non-blocking, polled), nccl-tests -g N
# (one process, all GPUs) and, on several GPUs, both under mpirun with one GPU per rank. Then
# the deadline with a withheld rank. Tables: python3 bench/compare_nccl_tests.py OUTDIR
# Usage: bench/run_nccl_tests.sh BINDIR NCCL_TESTS_SRC OUTDIR [MAX_BYTES]
#   BINDIR: gv-nccl, bench_nccl_deadline; NCCL_TESTS_SRC: a checkout of NVIDIA/nccl-tests
#   Environment: JOBS (16: make -j), ITERS (20), WARMUP (5), ROUNDS (3), OPS ("all_reduce all_gather
#   reduce_scatter"), MIN_BYTES (8), INPLACE (set: gv-nccl --in-place too), IN_PROCESS (0: no
#   gv-nccl --in-process runs), TORCH (0: no torch.distributed runs), SMALL_ROUNDS (0: no extra
#   rounds to 1 MiB, below), MPI_HOME or MPI_INCLUDE
#   (where mpicc cannot name Open MPI's headers). Each round starts with a different one of the
#   single-process runs, so that none always runs first after a pause.
set -u
bin=$1; src=$2; out=$3; max=${4:-4294967296}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
bin=$(cd "$bin" && pwd)
export LD_LIBRARY_PATH="$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" GPUVERIFY_WORKER=$bin/gpuverify-worker
n=$(nvidia-smi -L | wc -l)
export OMPI_MCA_btl=self,vader OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# nccl-tests' Makefile wants MPI_HOME/include/mpi.h and MPI_HOME/lib/libmpi.so. Distributions put
# Open MPI's under lib/<triplet>/openmpi, which mpicc names; a machine with the runtime and no
# headers (the lent GPU machines) gets a home in $out/mpi_home from MPI_INCLUDE and the runtime's
# libmpi.so.40. MPI_INCLUDE: mpi.h, mpi-ext.h and mpi_portable_platform.h of an Open MPI 4.1
# (Debian 12's /usr/lib/x86_64-linux-gnu/openmpi/include; 4.1 keeps one ABI), with
# OMPI_BUILD_CXX_BINDINGS set to 0 in mpi.h: nvcc compiles nccl-tests as C++, and the C++
# bindings' headers are not in that copy.
mpi_home=${MPI_HOME:-}
if [ -z "$mpi_home" ]; then
    inc=$(mpicc --showme:incdirs 2>/dev/null | cut -d' ' -f1)
    if [ -n "$inc" ] && [ -f "$inc/mpi.h" ]; then
        mpi_home=$(dirname "$inc")
    elif [ -n "${MPI_INCLUDE:-}" ]; then
        mpi_home=$(cd "$out" && pwd)/mpi_home
        mkdir -p "$mpi_home/lib"
        ln -sfn "$(cd "$MPI_INCLUDE" && pwd)" "$mpi_home/include"
        ln -sf "$(ldconfig -p | awk '/libmpi\.so\.40 .*x86-64/ {print $NF; exit}')" "$mpi_home/lib/libmpi.so"
    fi
fi
# sm_90 only: the lent GPUs are Hopper, and one architecture builds in a minute, not ten.
gencode=${NVCC_GENCODE:--gencode=arch=compute_90,code=sm_90}
( cd "$src" && make -j"${JOBS:-16}" src.build NCCL_HOME=/usr NVCC_GENCODE="$gencode" >"$out/build_nccl_tests.log" 2>&1 &&
  if [ "$n" -gt 1 ]; then
      make -j"${JOBS:-16}" src.build NCCL_HOME=/usr MPI=1 MPI_HOME="$mpi_home" NAME_SUFFIX=_mpi \
          NVCC_GENCODE="$gencode" >>"$out/build_nccl_tests.log" 2>&1
  fi ) || { echo "nccl-tests did not build: $out/build_nccl_tests.log"; tail -20 "$out/build_nccl_tests.log"; }
{ nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; uname -r
  ls -l /usr/lib/x86_64-linux-gnu/libnccl.so* 2>/dev/null
  grep -m1 NCCL_TESTS_VERSION "$src/src/common.h" "$src/src/common.cu" 2>/dev/null
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  env | grep '^NCCL_' ; true
} >"$out/env.txt" 2>&1
common="-b ${MIN_BYTES:-8} -e $max -f 2 -n ${ITERS:-20} -w ${WARMUP:-5}"
gvflags=${INPLACE:+--in-place} # nccl-tests always times both; gv-nccl when asked
one() { # which round op: one of the three single-process runs
    case $1 in
    0) "$src/build/${3}_perf" $common -g "$n" >"$out/nt_${3}_$2.txt" 2>&1 ;;
    1) "$bin/gv-nccl" --op "$3" $common $gvflags --json >"$out/gv_${3}_$2.json" 2>"$out/gv_${3}_$2.err" ;;
    2) "$bin/gv-nccl" --op "$3" $common $gvflags --in-process --json >"$out/gvin_${3}_$2.json" 2>"$out/gvin_${3}_$2.err" ;;
    esac
}
for op in ${OPS:-all_reduce all_gather reduce_scatter}; do
    for round in $(seq 1 "${ROUNDS:-3}"); do
        kinds=$(( ${IN_PROCESS:-1} == 0 ? 2 : 3 ))
        for k in $(seq 0 $((kinds - 1))); do one $(( (k + round - 1) % kinds )) "$round" "$op"; done
        if [ "$n" -gt 1 ]; then
            mpirun -np "$n" -x LD_LIBRARY_PATH "$src/build/${op}_perf_mpi" $common -g 1 >"$out/ntmpi_${op}_$round.txt" 2>&1
            mpirun -np "$n" -x LD_LIBRARY_PATH -x GPUVERIFY_WORKER "$bin/gv-nccl" --op "$op" $common $gvflags --json \
                >"$out/gvmpi_${op}_$round.json" 2>"$out/gvmpi_${op}_$round.err"
        fi
        if [ "$op" = all_reduce ] && [ "${TORCH:-1}" != 0 ]; then
            python3 -m torch.distributed.run --standalone --nproc_per_node="$n" \
                "$here/peer_torch_nccl.py" "${MIN_BYTES:-8}" "$max" 2 "${ITERS:-20}" >"$out/torch_${op}_$round.json" 2>"$out/torch_${op}_$round.err"
        fi
    done
done
# Below 2 MiB each process can draw one of two launch levels (two H200s: 12-14 or 17-20 us, for
# nccl-tests and gv-nccl alike), so a comparison there takes many processes: SMALL_ROUNDS more
# rounds from MIN_BYTES to 1 MiB, one process with every GPU, the two programs taking turns to go
# first, into OUTDIR/small (python3 bench/compare_nccl_tests.py OUTDIR/small).
if [ "${SMALL_ROUNDS:-0}" -gt 0 ]; then
    mkdir -p "$out/small"
    small="-b ${MIN_BYTES:-8} -e 1M -f 2 -n ${ITERS:-20} -w ${WARMUP:-5}"
    for op in ${OPS:-all_reduce all_gather reduce_scatter}; do
        for round in $(seq 1 "$SMALL_ROUNDS"); do
            for k in $((round % 2)) $(((round + 1) % 2)); do
                if [ "$k" = 0 ]; then
                    "$src/build/${op}_perf" $small -g "$n" >"$out/small/nt_${op}_$round.txt" 2>&1
                else
                    "$bin/gv-nccl" --op "$op" $small $gvflags --json >"$out/small/gv_${op}_$round.json" \
                        2>"$out/small/gv_${op}_$round.err"
                fi
            done
        done
    done
fi
"$bin/gv-nccl" $common -e 64M >"$out/gv_table.txt" 2>&1
"$bin/bench_nccl_deadline" 5 >"$out/deadline.json" 2>&1
echo "exit $?" >>"$out/deadline.json"
echo done
