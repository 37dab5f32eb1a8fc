#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpuverify installed like a system tool, on a GPU node: the installed tools with no
# LD_LIBRARY_PATH, the one-line verdict and its exit status, a run beside another gpuverify
# (HELD, exit 4, the holder's seconds), --host-root / against a plain run, --textfile, the Slurm
# health check with a recording scontrol (its wall time), the NHC check under a minimal
# stand-in of NHC's helpers, the Python package installed offline into a venv and the torchrun
# example. Prints a table last; the logs go to $OUT (or /tmp/gv-installed).
#
# usage: bench/run_installed_on_gpu.sh PREFIX     (PREFIX from `cmake --install build --prefix`)
set -u
prefix=$(cd "$1" && pwd)
final=${OUT:-/tmp/gv-installed}
out=$(mktemp -d)
mkdir -p "$final"
trap 'cp "$out/summary.txt" "$out/held.json" "$out/torchrun_check.log" "$out/slurm_healthcheck.log" "$final/" 2>/dev/null' EXIT
bin=$prefix/bin
unset LD_LIBRARY_PATH
results=$out/summary.txt
: >"$results"
say() { printf '%-44s %s\n' "$1" "$2" | tee -a "$results"; }
timed() { # name, command...: exit status and seconds, stdout+stderr to $out/<name>.log
    name=$1; shift
    t0=$(date +%s%N)
    "$@" >"$out/$name.log" 2>&1
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    say "$name" "exit $rc in $((ms / 1000)).$(printf %03d $((ms % 1000))) s: $(tail -n 1 "$out/$name.log" | cut -c1-150)"
}
passive='^cuda,^mem,^gemm,^cudnn,^nccl'

nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader >"$out/gpus.txt"
say "GPU" "$(head -n 1 "$out/gpus.txt")"
say "RUNPATH gv-check" "$(readelf -d "$bin/gv-check" | sed -n 's/.*RUNPATH.*\[\(.*\)\]/\1/p')"
timed version "$bin/gv-check" --version
timed standard_quiet "$bin/gv-check" --quiet
timed quick_failures "$bin/gv-check" --level quick --failures
timed host_root_passive "$bin/gv-check" --host-root / --quiet --checks "$passive"
timed plain_passive "$bin/gv-check" --quiet --checks "$passive"
rm -f "$out/gpuverify.prom"
timed textfile "$bin/gv-check" --quiet --checks "$passive" --textfile "$out/gpuverify.prom"
say "textfile healthy metric" "$(grep '^gpuverify_node_healthy' "$out/gpuverify.prom")"

# Beside a 25 s burn-in of another gpuverify: not judged, exit 4, the holder's seconds.
"$bin/gv-check" --level extended --checks stress.gemm --duration 25 --quiet >"$out/burnin.log" 2>&1 &
burn=$!
sleep 8
timed held_quiet "$bin/gv-check" --quiet --budget 8 --checks cuda.init,gemm.fp16
"$bin/gv-check" --json --budget 6 --checks cuda.init >"$out/held.json" 2>&1
say "held json held_by" "$(grep -A2 '"held_by"' "$out/held.json" | tr -d ' \n' | cut -c1-80)"
wait $burn
say "burn-in itself" "exit $? $(tail -n 1 "$out/burnin.log" | cut -c1-120)"

# Slurm: the shipped health check, scontrol recorded, on this healthy node.
fake=$(mktemp -d)
mkdir -p "$fake"
printf '#!/bin/sh\necho "$@" >>%s/scontrol.args\n[ "$1" = show ] && echo "NodeName=x State=IDLE Reason=(null)"\nexit 0\n' \
    "$out" >"$fake/scontrol"
chmod +x "$fake/scontrol"
rm -f "$out/scontrol.args"
timed slurm_healthcheck env PATH="$fake:$bin:$PATH" GPUVERIFY_GV_CHECK="$bin/gv-check" \
    sh "$prefix/share/gpuverify/slurm/gpuverify-healthcheck.sh"
say "slurm scontrol calls" "$(grep -c . "$out/scontrol.args" 2>/dev/null || echo 0): $(grep -v '^show' "$out/scontrol.args" 2>/dev/null | head -n 1)"
# The same script as a Prolog: the quick level, which holds the job's start.
timed slurm_prolog env PATH="$fake:$bin:$PATH" GPUVERIFY_GV_CHECK="$bin/gv-check" \
    SLURM_SCRIPT_CONTEXT=prolog_slurmd SLURM_JOB_ID=1 \
    sh "$prefix/share/gpuverify/slurm/gpuverify-healthcheck.sh"

# NHC: the check under stand-ins for NHC's die/log (NHC is bash).
timed nhc_check bash -c '
    die() { echo "die: $*"; exit 1; }; log() { echo "log: $*"; }; dbg() { :; }; syslog() { :; }
    TIMEOUT=30 SECONDS=0 NHC_START_TS=0 HOSTNAME=$(hostname) GPUVERIFY_GV_CHECK='"$bin"'/gv-check
    . '"$prefix"'/share/gpuverify/nhc/gpuverify.nhc
    check_gpuverify && echo "check_gpuverify passed"'

# Python: offline into a plain venv of the system's python3 (pip's defaults: the build backend
# in the tree, nothing fetched, no system packages).
plain=$(mktemp -d)/plain
python3 -m venv "$plain" >"$out/plain_venv.log" 2>&1
timed pip_plain_venv "$plain/bin/pip" install --no-index "$(dirname "$0")/../bindings/python"
timed python_plain_venv env GPUVERIFY_LIBRARY="$prefix/lib/libgpuverify.so.1" "$plain/bin/python" \
    -c "import gpuverify; r = gpuverify.Context().run('quick'); print(r.verdict, [(g.cuda_index, g.verdict.name) for g in r.gpus])"
# Python: offline install into a fresh venv, the installed library found by its prefix.
# The venv on the interpreter that has torch, when there is one, so the torchrun example runs
# beside PyTorch as a training job would.
py=python3
torchrun=$(command -v torchrun || true)
[ -n "$torchrun" ] && py=$(head -n 1 "$torchrun" | sed 's/^#! *//')
venv=$(mktemp -d)/venv
"$py" -m venv --system-site-packages "$venv" >"$out/venv.log" 2>&1
timed pip_install env GPUVERIFY_INSTALL_LIBDIR="$prefix/lib" "$venv/bin/pip" install \
    --no-index "$(dirname "$0")/../bindings/python"
timed python_version "$venv/bin/python" -c "import gpuverify; print(gpuverify.version(), gpuverify.library_path())"
timed python_quick "$venv/bin/python" -m gpuverify --level quick --quiet
if [ -n "$torchrun" ]; then
    # torch's own environment, with the package just installed on its path.
    site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    timed torchrun_check env PYTHONPATH="$site" "$torchrun" --nproc-per-node 1 \
        "$(dirname "$0")/../examples/python/torchrun_check.py"
    say "torchrun rank lines" "$(grep -c '^\[rank' "$out/torchrun_check.log"): $(grep '^\[rank' "$out/torchrun_check.log" | head -n 2 | tr '\n' ' ' | cut -c1-150)"
fi
echo "---"
cat "$results"
