#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Makes the locales test_locale runs the library in (localedef, Debian's locales package) in
# DIR, then runs the test with them: de_DE writes a decimal comma, tr_TR has a dotted capital I.
# usage: with_locales.sh DIR TEST
set -eu
dir=$1 test=$2
mkdir -p "$dir"
for name in de_DE tr_TR; do
    # localedef exits 1 for warnings about the source; the locale is made all the same.
    [ -d "$dir/$name.UTF-8" ] || localedef -i "$name" -f UTF-8 "$dir/$name.UTF-8" || [ -d "$dir/$name.UTF-8" ]
done
LOCPATH=$dir GV_TEST_LOCALES="de_DE.UTF-8 tr_TR.UTF-8" exec "$test"
