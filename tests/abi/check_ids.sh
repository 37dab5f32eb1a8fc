#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The check catalog against the frozen list of released IDs (tests/abi/check_ids.txt).
# Usage: check_ids.sh GV_CHECK IDS_FILE
set -u
listed=$(mktemp) && catalog=$(mktemp) || exit 1
trap 'rm -f "$listed" "$catalog"' EXIT
grep -v '^#' "$2" | sort >"$listed"
"$1" --list | sort >"$catalog" || { echo "gv-check --list failed"; exit 1; }
status=0
for id in $(comm -23 "$listed" "$catalog"); do
    echo "released check ID '$id' is gone from the catalog: IDs are never removed or renamed"
    status=1
done
for id in $(comm -13 "$listed" "$catalog"); do
    echo "check ID '$id' is not in $2: add it there and to docs/checks.md"
    status=1
done
[ "$status" -eq 0 ] && echo "$(wc -l <"$catalog") check IDs, all released ones present"
exit "$status"
