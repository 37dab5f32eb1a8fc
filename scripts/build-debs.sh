#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds gpuverify's Debian packages (cmake/GvPackage.cmake) into OUTDIR (default build/debs):
# libgpuverify1, libgpuverify-dev, gpuverify (the tools) and gpuverify-integrations, for /usr.
#   scripts/build-debs.sh [OUTDIR]
#   apt-get install ./build/debs/libgpuverify1_*.deb ./build/debs/gpuverify_*.deb
# Needs what `scripts/setup-debian.sh build` installs (build-essential brings dpkg-shlibdeps) and
# `file` (CPack's DEB generator runs it); help2man for the tools' manual pages; libopenmpi-dev
# for gv-nccl's mpirun mode (without it gv-nccl is one process only, and the package does not
# depend on Open MPI). BUILD_DIR
# (default build/deb) is the build tree, configured for /usr with no RUNPATH: the library is in
# the system's search path there.
set -eu
cd "$(dirname "$0")/.."
out=${1:-build/debs}
build=${BUILD_DIR:-build/deb}
command -v help2man >/dev/null 2>&1 ||
    echo "build-debs.sh: no help2man (Debian: help2man): the tools' manual pages are left out" >&2
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF \
    -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_SKIP_INSTALL_RPATH=ON >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
(cd "$build" && cpack -G DEB >cpack.log 2>&1) || { cat "$build/cpack.log" >&2; exit 1; }
mkdir -p "$out"
for deb in "$build"/*.deb; do
    mv "$deb" "$out/"
    echo "$out/$(basename "$deb")"
done
