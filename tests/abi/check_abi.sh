#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The built library against the committed ABI baseline (libabigail). An incompatible change
# fails; a compatible one (an added symbol, a struct grown at the end) is printed and passes,
# and needs a CHANGELOG line. Regenerate the baseline only at a release (docs/ABI.md):
#   abidw --no-corpus-path --headers-dir include/gpuverify build/libgpuverify.so > tests/abi/libgpuverify.abi
# usage: check_abi.sh LIBRARY BASELINE HEADERS_DIR
set -u
lib=$1 baseline=$2 headers=$3
command -v abidiff >/dev/null 2>&1 || { echo "abidiff not installed: skipped"; exit 77; }
abidiff --headers-dir2 "$headers" "$baseline" "$lib"
rc=$?
if [ $((rc & 3)) -ne 0 ]; then
    echo "abidiff could not compare (exit $rc)"; exit 1
fi
if [ $((rc & 8)) -ne 0 ]; then
    echo "INCOMPATIBLE ABI change against $baseline (see docs/ABI.md)"; exit 1
fi
if [ $((rc & 4)) -ne 0 ]; then
    echo "compatible ABI change: add a CHANGELOG line; new symbols go in a new map node"
fi
echo "ABI compatible with the baseline"
exit 0
