#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# usage: lsan-tracer-crashed.sh CTEST_TEMPORARY_DIR
# Exit 0 when every test of the last ctest run that failed (LastTestsFailed.log) failed with
# LeakSanitizer's tracer crash in its output (LastTest.log), and with no report of a leak or
# of an error: a crash of the sanitizer's own stop-the-world tracer at the process's exit,
# not a finding. Exit 1 otherwise, naming the tests that failed some other way.
set -eu
dir=$1
failed=$dir/LastTestsFailed.log log=$dir/LastTest.log
if [ ! -s "$failed" ] || [ ! -s "$log" ]; then
    echo "lsan-tracer-crashed: no failed tests logged in $dir"
    exit 1
fi
other=$(cut -d: -f2- "$failed" | while read -r name; do
    awk -v name="$name" '
        $0 ~ "^[0-9]+/[0-9]+ Testing: " name "$" { inside = 1 }
        inside && /Tracer caught signal/ { tracer = 1 }
        inside && /LeakSanitizer has encountered a fatal error/ { fatal = 1 }
        inside && /detected memory leaks|ERROR: AddressSanitizer|runtime error:|\[  FAILED  \]/ { finding = 1 }
        inside && /^"[^"]*" end time:/ { exit }
        END { exit !(tracer && fatal && !finding) }' "$log" || echo "$name"
done)
if [ -n "$other" ]; then
    echo "lsan-tracer-crashed: failed otherwise than by LeakSanitizer's tracer crash:" "$other"
    exit 1
fi
echo "lsan-tracer-crashed: only LeakSanitizer's tracer crashed in:" "$(cut -d: -f2- "$failed")"
