#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The check catalog against the frozen list of released IDs (tests/abi/check_ids.txt): a
# released ID never leaves the catalog, and an ID not released yet is announced in the
# changelog's [Unreleased] section (adding a check touches no list; a release appends its new
# IDs to the frozen one).
# Usage: check_ids.sh GV_CHECK IDS_FILE CHANGELOG
set -u
listed=$(mktemp) && catalog=$(mktemp) && unreleased=$(mktemp) || exit 1
trap 'rm -f "$listed" "$catalog" "$unreleased"' EXIT
grep -v '^#' "$2" | sort >"$listed"
"$1" --list | sort >"$catalog" || { echo "gv-check --list failed"; exit 1; }
# The changelog from "## [Unreleased]" to the next release's heading.
sed -n '/^## \[Unreleased\]/,/^## \[[0-9]/p' "$3" >"$unreleased"
status=0
for id in $(comm -23 "$listed" "$catalog"); do
    echo "released check ID '$id' is gone from the catalog: IDs are never removed or renamed"
    status=1
done
new=0
for id in $(comm -13 "$listed" "$catalog"); do
    pattern="(^|[^a-z0-9_.])$(printf '%s' "$id" | sed 's/\./\\./g')([^a-z0-9_]|$)"
    if grep -Eq "$pattern" "$unreleased"; then
        new=$((new + 1))
    else
        echo "check ID '$id' is neither released ($2) nor named in $3's [Unreleased] section:" \
            "add its line there (and its rows to docs/checks.md)"
        status=1
    fi
done
[ "$status" -eq 0 ] &&
    echo "$(wc -l <"$catalog") check IDs, all released ones present, $new new in the changelog"
exit "$status"
