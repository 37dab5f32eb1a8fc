#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Regenerates lib/kernels/gv_kernels.ptx from gv_kernels.cu (or, with --check, compares a fresh
# build against the committed file). The PTX targets sm_75 and declares ISA 7.0 so that drivers
# from r450 on (and so every driver from r525, CUDA 12.0) JIT-compile it; ptxas proves the text
# valid at that ISA for sm_75 and sm_90.
# Exit: 0 done or equal, 1 differs or fails, 77 no nvcc (or another nvcc release) to compare with.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
src=$here/lib/kernels/gv_kernels.cu
ptx=$here/lib/kernels/gv_kernels.ptx
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ISA=7.0
[ -x "$nvcc" ] || { echo "gen-ptx: no nvcc"; exit 77; }
release=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$nvcc" -ptx -arch=compute_75 -o "$tmp/raw.ptx" "$src"
{
    echo "// Generated from gv_kernels.cu by scripts/gen-ptx.sh (nvcc $release); do not edit."
    grep -v '^//' "$tmp/raw.ptx" | sed "s/^\.version .*/.version $ISA/"
} >"$tmp/gv_kernels.ptx"
for arch in sm_75 sm_90; do
    "$(dirname "$nvcc")/ptxas" -arch=$arch -o "$tmp/$arch.cubin" "$tmp/gv_kernels.ptx"
done
if [ "${1:-}" = "--check" ]; then
    committed=$(sed -n 's/.*(nvcc \([0-9.]*\)).*/\1/p' "$ptx" | head -1)
    if [ "$committed" != "$release" ]; then
        echo "gen-ptx: committed PTX is from nvcc $committed, this is $release: not compared"
        exit 77
    fi
    diff -u "$ptx" "$tmp/gv_kernels.ptx" && echo "gen-ptx: committed PTX matches the sources"
else
    cp "$tmp/gv_kernels.ptx" "$ptx"
    echo "gen-ptx: wrote $ptx"
fi
