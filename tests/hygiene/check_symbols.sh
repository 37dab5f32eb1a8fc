#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Exported symbols == the version script == GV_API declarations in the public headers, all gv_.
# usage: check_symbols.sh LIBRARY MAPFILE INCLUDE_DIR
set -eu
lib=$1 map=$2 inc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {sub(/@.*/, "", $3); print $3}' | sort -u >"$tmp/exported"
sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);[[:space:]]*$/\1/p' "$map" | sort -u >"$tmp/map"
# A declaration: GV_API <type> [*]name( ...
grep -hv "^[[:space:]]*#" "$inc"/*.h | tr '\n' ' ' | grep -o 'GV_API[^;(]*(' |
    sed 's/($//; s/.*[ *]\([A-Za-z_][A-Za-z0-9_]*\)$/\1/' | sort -u >"$tmp/declared"
status=0
if ! diff -u "$tmp/map" "$tmp/exported" >"$tmp/d1"; then
    echo "exported symbols differ from $map:"; cat "$tmp/d1"; status=1
fi
if ! diff -u "$tmp/map" "$tmp/declared" >"$tmp/d2"; then
    echo "header declarations differ from $map:"; cat "$tmp/d2"; status=1
fi
if grep -v '^gv_' "$tmp/exported"; then
    echo "exported symbols without the gv_ prefix (above)"; status=1
fi
[ -s "$tmp/exported" ] || { echo "no exported symbols found in $lib"; status=1; }
[ $status -eq 0 ] && echo "$(wc -l <"$tmp/exported") symbols: exported == map == headers"
exit $status
