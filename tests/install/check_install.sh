#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpuverify installed like a system tool: `cmake --install` into a scratch prefix, moved (the
# tree must be relocatable), then, with no LD_LIBRARY_PATH and no GPUVERIFY_* variable:
#  - every installed tool and gpuverify-worker carries RUNPATH $ORIGIN/<its way to the library>
#    and ldd finds libgpuverify.so.1 in the prefix; gv-check --list runs;
#  - gv-check --isolation process over the fakes runs its checks in the installed worker (the
#    report names it);
#  - every manual page is installed and renders without a warning, and gpuverify(3)'s example
#    compiles against the installed headers;
#  - every file of examples/integrations is installed, the same, programs executable;
#  - the consumer (tests/consumer) builds with find_package against the prefix and runs.
# usage: check_install.sh BUILD WORK FIXTURES FAKELIB CONSUMER_SRC INTEGRATIONS_SRC
#        BINDIR LIBDIR LIBEXECDIR MANDIR DATADIR BIN_RUNPATH WORKER_RUNPATH TOOLS MAN_PAGES
#        SANITIZED   (directories relative to the prefix; TOOLS and MAN_PAGES ;-separated)
# With INSTALLED_PREFIX set (e.g. /usr, where the Debian packages went: tests/install/
# check_debs.sh), BUILD is not installed: the checks run on what is in that prefix.
set -eu
build=$1 work=$2 fix=$3 fakelib=$4 consumer=$5 integrations=$6 bindir=$7 libdir=$8 libexecdir=$9
shift 9
mandir=$1 datadir=$2 bin_runpath=$3 worker_runpath=$4 tools=$5 pages=$6 sanitized=$7
tools=$(printf '%s' "$tools" | tr ';' ' ')
pages=$(printf '%s' "$pages" | tr ';' ' ')

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
ok() { echo "ok: $*"; }

rm -rf "$work"
mkdir -p "$work"
if [ -n "${INSTALLED_PREFIX:-}" ]; then
    p=$INSTALLED_PREFIX
else
    if ! cmake --install "$build" --prefix "$work/staged" >"$work/install.log" 2>&1; then
        cat "$work/install.log" >&2
        echo "FAIL: cmake --install $build" >&2
        exit 1
    fi
    mv "$work/staged" "$work/prefix"
    p=$work/prefix
fi
lib=$(cd "$p/$libdir" && pwd -P)/libgpuverify.so.1
[ -f "$lib" ] || { echo "FAIL: $lib not installed" >&2; exit 1; }

# A system tool's environment: nothing points at the build tree or at the library.
unset LD_LIBRARY_PATH LD_PRELOAD
for v in $(env | sed -n 's/^\(GPUVERIFY_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done

# RUNPATH, and what the loader makes of it.
worker=$p/$libexecdir/gpuverify/gpuverify-worker
check_binary() { # FILE RUNPATH
    [ -x "$1" ] || { fail "$1 not installed"; return; }
    rp=$(readelf -d "$1" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]$/\1/p')
    [ "$rp" = "$2" ] || fail "$1: RUNPATH '$rp', expected '$2'"
    if ldd "$1" | grep -q 'not found'; then
        fail "$1: ldd: $(ldd "$1" | grep 'not found' | tr -s ' \t' ' ')"
    fi
    if ldd "$1" | grep -q 'libgpuverify\.so'; then
        found=$(ldd "$1" | sed -n 's/.*libgpuverify\.so\.[0-9]* => \([^ ]*\) .*/\1/p')
        [ -n "$found" ] && [ "$(realpath "$found")" = "$(realpath "$lib")" ] ||
            fail "$1: ldd finds libgpuverify at '$found', not $lib"
    fi
}
for t in $tools; do
    check_binary "$p/$bindir/$t" "$bin_runpath"
    # Whatever the tool answers to --help, the loader must have started it.
    if ! "$p/$bindir/$t" --help >"$work/$t.help" 2>&1; then
        if grep -q 'error while loading shared libraries' "$work/$t.help"; then
            fail "$t --help: $(cat "$work/$t.help")"
        fi
    fi
done
check_binary "$worker" "$worker_runpath"
ok "RUNPATH $bin_runpath (tools), $worker_runpath (worker); ldd finds $lib"

gv_check=$p/$bindir/gv-check
case " $tools " in
*" gv-check "*)
    if "$gv_check" --list >"$work/list.out" 2>&1 && grep -qx 'driver.gpu_count' "$work/list.out"; then
        ok "installed gv-check --list"
    else
        fail "installed gv-check --list: $(head -c 600 "$work/list.out")"
    fi
    # The checks in the installed worker, found by the installed library.
    passive="^cuda,^mem,^gemm,^cudnn,^driver.compat,^topo,^rdma,^gpudirect,^nccl"
    if GV_FAKE_SCENARIO=$fix/scenarios/h100x8.conf "$gv_check" --json --isolation process \
        --sysroot "$fix/sysroots/h100-open" --library-dir "$fakelib" --checks "$passive" \
        >"$work/report.json" 2>"$work/report.err"; then
        want=$(realpath "$worker")
        # One line (gv-check writes its JSON compact to a file): the keys as written there.
        grep -q '"isolation":"process"' "$work/report.json" ||
            fail "report's isolation is not process: $(head -c 600 "$work/report.json")"
        grep -q "\"isolation_detail\":\"$want\"" "$work/report.json" ||
            fail "report's isolation_detail is not $want: $(head -c 600 "$work/report.json")"
        ok "installed gv-check --isolation process ran the checks in $want"
    else
        fail "installed gv-check --isolation process: exit $?: $(head -c 600 "$work/report.err")"
    fi
    ;;
*) echo "gv-check not built: its runs are left out" ;;
esac

# Manual pages: installed, and rendered without a warning by groff and man.
for page in $pages; do
    f=$p/$mandir/man${page##*.}/$page
    if [ ! -f "$f" ]; then
        fail "manual page $page not installed ($f)"
        continue
    fi
    warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$f" 2>&1)
    [ -z "$warnings" ] || fail "groff -man -ww $page: $warnings"
    if command -v man >/dev/null; then
        warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
        [ -z "$warnings" ] || fail "man --warnings -l $page: $warnings"
        LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$f" 2>/dev/null | grep -q . || fail "man -l $page: empty"
    fi
done
ok "manual pages render: $pages"
# gpuverify(3)'s example is the installed library's API.
sed -n '/^\.EX$/,/^\.EE$/p' "$p/$mandir/man3/gpuverify.3" | sed '1d;$d;s/\\e/\\/g' >"$work/example.c"
if cc -std=c11 -Wall -Wextra -Werror -I"$p/include" -c "$work/example.c" -o "$work/example.o" \
    2>"$work/example.err"; then
    ok "gpuverify(3)'s example compiles against the installed headers"
else
    fail "gpuverify(3)'s example: $(cat "$work/example.err")"
fi

# The integrations: every file, the same, programs executable.
n=0
for f in $(cd "$integrations" && find . -type f ! -path '*/__pycache__/*' ! -name '*.py[co]' ! -name '.*' | sort); do
    f=${f#./}
    dest=$p/$datadir/gpuverify/$f
    n=$((n + 1))
    if [ ! -f "$dest" ]; then
        fail "integration $f not installed ($dest)"
    elif ! cmp -s "$integrations/$f" "$dest"; then
        fail "integration $f installed different from the source"
    elif [ "$(head -c 2 "$dest")" = '#!' ] && [ ! -x "$dest" ]; then
        fail "integration $f installed without its execute bit"
    fi
done
ok "$n integration files under $datadir/gpuverify"

# The consumer against the moved prefix, through find_package (its RUNPATH comes from CMake).
if [ "$sanitized" = 1 ]; then
    echo "sanitizer build: the consumer (not instrumented) is left out"
elif ! cmake -S "$consumer" -B "$work/consumer-build" -DCMAKE_PREFIX_PATH="$p" \
    >"$work/consumer.log" 2>&1 || ! cmake --build "$work/consumer-build" >>"$work/consumer.log" 2>&1; then
    fail "consumer build against $p: $(tail -n 20 "$work/consumer.log")"
elif ! "$work/consumer-build/consumer" "$fix/sysroots/h100-open" >"$work/consumer.out" 2>&1; then
    fail "consumer run: $(cat "$work/consumer.out")"
else
    ok "consumer: $(cat "$work/consumer.out")"
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s); the installed tree is in $p" >&2
    exit 1
fi
echo "installed tree in $p works as a system tool"
