#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every public header compiles on its own, as C99 and as C++11, warnings as errors.
# usage: check_headers.sh CC CXX INCLUDE_ROOT
set -eu
cc=$1 cxx=$2 inc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for h in "$inc"/gpuverify/*.h; do
    name=$(basename "$h")
    printf '#include <gpuverify/%s>\n#include <gpuverify/%s>\nint main(void) { return 0; }\n' "$name" "$name" >"$tmp/t.c"
    cp "$tmp/t.c" "$tmp/t.cpp"
    "$cc" -std=c99 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$tmp/t.c" -o "$tmp/t.o" || { echo "C: $name"; status=1; }
    "$cxx" -std=c++11 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$tmp/t.cpp" -o "$tmp/t.o" || { echo "C++: $name"; status=1; }
done
# Every GV_*_INIT macro must initialise its struct (GV_X_INIT: gv_x) cleanly in both languages.
macros=$(grep -ho '^#define GV_[A-Z0-9_]*_INIT\b' "$inc"/gpuverify/*.h | sed 's/^#define //' | grep -vx GV_STRUCT_INIT | sort -u)
{
    echo '#include <gpuverify/gpuverify.h>'
    echo 'int main(void)'
    echo '{'
    echo '    unsigned long sizes = 0;'
    for m in $macros; do
        type=$(echo "$m" | sed 's/^GV_//; s/_INIT$//' | tr '[:upper:]' '[:lower:]')
        printf '    { gv_%s v = %s; sizes += v.struct_size; }\n' "$type" "$m"
    done
    echo '    return sizes == 0;'
    echo '}'
} >"$tmp/init.c"
cp "$tmp/init.c" "$tmp/init.cpp"
"$cc" -std=c99 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$tmp/init.c" -o "$tmp/t.o" || { echo "C: INIT macros"; status=1; }
"$cxx" -std=c++11 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c "$tmp/init.cpp" -o "$tmp/t.o" || { echo "C++: INIT macros"; status=1; }
count=$(echo "$macros" | wc -w)
[ "$count" -ge 30 ] || { echo "only $count INIT macros found"; status=1; }
[ $status -eq 0 ] && echo "all public headers compile alone as C99 and C++11, and their $count INIT macros"
exit $status
