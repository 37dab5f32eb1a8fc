#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Writes a C program that holds gv_struct_size to every public struct of the headers: each
# "typedef struct gv_X {" must be answered with its sizeof (bindings mirror each, nested ones
# included). Built with the project's flags (the sanitizers' too) and run as a test.
# usage: gen_struct_sizes_check.sh INCLUDE_DIR OUT.c
set -eu
inc=$1 out=$2
{
    printf '#include <stdio.h>\n\n#include "gpuverify/gpuverify.h"\n\nint main(void)\n{\n'
    printf '    int bad = 0, n = 0;\n'
    sed -n 's/^typedef struct \(gv_[a-z0-9_]*\) {.*/\1/p' "$inc"/gpuverify/*.h | sort -u |
        while read -r t; do
            printf '    n++;\n    if (gv_struct_size("%s") != sizeof(%s)) {\n' "$t" "$t"
            printf '        printf("gv_struct_size(\\"%s\\") = %%u, sizeof %%zu\\n", ' "$t"
            printf 'gv_struct_size("%s"), sizeof(%s));\n' "$t" "$t"
            printf '        bad = 1;\n    }\n'
        done
    printf '    printf("%%d public structs: %%s\\n", n, bad ? "not every size known" : '
    printf '"gv_struct_size knows each");\n    return bad;\n}\n'
} >"$out.tmp"
mv "$out.tmp" "$out"
