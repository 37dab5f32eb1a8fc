#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a gpuverify tool the way help2man reads it, so that each manual page comes from the
# tool's own --help: the synopsis as help2man parses one ("Usage:", its wrapped lines joined,
# another form of the command as "or:"), "Exit status: ..." as an EXIT STATUS section and
# "Environment: ..." as ENVIRONMENT. Other options' output (--version) as it is. Nothing on
# stdout when the tool fails, so that help2man gives up on that page.
# usage: help-for-help2man.sh TOOL OPTION...
tool=$1
shift
out=$("$tool" "$@" 2>/dev/null) || exit 1
[ -n "$out" ] || exit 1
if [ "$1" != --help ]; then
    printf '%s\n' "$out"
    exit 0
fi
printf '%s\n' "$out" | awk '
    function flush() { if (joining) print line; joining = 0 }
    NR == 1 && sub(/^[Uu]sage:/, "Usage:") { line = $0; name = $2; joining = 1; next }
    joining && /^[ \t]+\[/ { sub(/^[ \t]+/, " "); line = line $0; next }
    joining && name != "" && index($0, " " name " ") && $1 == name {
        flush(); sub(/^[ \t]+/, ""); line = "   or: " $0; joining = 1; next
    }
    { flush() }
    /^Exit status: / { sub(/^Exit status: */, ""); print ""; print "*Exit status*"; print; next }
    /^Environment: / { sub(/^Environment: */, ""); print ""; print "Environment:"; print; next }
    { print }
    END { flush() }'
