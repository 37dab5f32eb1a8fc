#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every source file of the project names its licence in its first lines (SPDX), so that a file
# copied out of the tree still says under what terms. Generated data (the fuzz corpus, the
# committed PTX) and documents are left out.
# usage: check_spdx.sh SOURCE_DIR
set -eu
cd "$1"
missing=$(find lib include examples bindings tests scripts bench cmake container .ci \
    -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.def' -o -name '*.py' \
    -o -name '*.sh' -o -name '*.cmake' -o -name 'CMakeLists.txt' -o -name '*.yml' \
    -o -name '*.yaml' -o -name 'Containerfile' -o -name 'run' -o -name 'gv-check' \) \
    -not -path 'tests/fuzz/corpus/*' -not -path '*/__pycache__/*' -print | sort |
    while read -r f; do
        head -n 3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' || echo "$f"
    done)
[ -z "$missing" ] || { echo "no SPDX-License-Identifier line in:"; echo "$missing"; exit 1; }
echo "every source file names its licence"
