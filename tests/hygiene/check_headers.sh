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
# The INIT macros must initialise cleanly in both languages.
cat >"$tmp/init.c" <<'SRC'
#include <gpuverify/gpuverify.h>
int main(void)
{
    gv_ctx_opts o = GV_CTX_OPTS_INIT;
    gv_run_opts r = GV_RUN_OPTS_INIT;
    gv_library_info l = GV_LIBRARY_INFO_INIT;
    gv_driver_info d = GV_DRIVER_INFO_INIT;
    gv_gpu g = GV_GPU_INIT;
    gv_check_result c = GV_CHECK_RESULT_INIT;
    return (int)(o.struct_size + r.struct_size + l.struct_size + d.struct_size + g.struct_size + c.struct_size) == 0;
}
SRC
cp "$tmp/init.c" "$tmp/init.cpp"
"$cc" -std=c99 -Wall -Wextra -Werror -I"$inc" -c "$tmp/init.c" -o "$tmp/t.o" || { echo "C: INIT macros"; status=1; }
"$cxx" -std=c++11 -Wall -Werror -I"$inc" -c "$tmp/init.cpp" -o "$tmp/t.o" || { echo "C++: INIT macros"; status=1; }
[ $status -eq 0 ] && echo "all public headers compile alone as C99 and C++11"
exit $status
