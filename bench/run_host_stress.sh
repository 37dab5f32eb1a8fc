#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A healthy GPU on a host under strain: its verdicts must stay PASS (or say why they could not
# judge), never FAIL. gv-check at the quick and standard levels with: every CPU busy (2 busy
# loops per CPU), most of the host's memory taken (a process holding all but 6 GiB), /tmp full
# (a 64 KiB tmpfs, in a mount namespace), 64 open files at most; and as it is, before and after.
# soak_summary.py tallies every verdict other than PASS. Needs root and unshare for /tmp.
# Usage: bench/run_host_stress.sh BINDIR OUTDIR [N]
set -u
case $(realpath -m "$2") in /tmp | /tmp/*) echo "OUTDIR must not be under /tmp: the /tmp-full case mounts over it" >&2; exit 2 ;; esac
. "$(dirname "$0")/bench_setup.sh"
bench_setup "$1" "$2"
n=${3:-2}
{ nproc; free -g; } >>"$out/env.txt" 2>&1
runs() { # mode, then a prefix to run gv-check under
    local mode=$1; shift
    local i=0; while [ $i -lt "$n" ]; do
        for level in quick standard; do
            "$@" "$bin/gv-check" --sysroot / --json --level $level >"$out/$mode-$level"_$i.json 2>>"$out/stderr.txt"
            echo "$mode $level $i exit $?" >>"$out/exits.txt"
        done
        i=$((i + 1))
    done
}
export bin out n
export -f runs
runs as-it-is env
busy=(); for _ in $(seq $((2 * $(nproc)))); do (while :; do :; done) & busy+=($!); done
runs cpus-busy env
kill "${busy[@]}"; wait "${busy[@]}" 2>/dev/null
# All but 6 GiB of the host's available memory held (touched, so really resident).
avail_kib=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
hold_mib=$(( avail_kib / 1024 - 6144 ))
python3 -c "
import mmap, sys, time
m = mmap.mmap(-1, $hold_mib << 20); chunk = b'\\1' * (64 << 20)
for _ in range(len(m) // len(chunk)): m.write(chunk)
open('$out/memory-held.txt', 'w').write('held %d MiB\n' % ($hold_mib))
time.sleep(3600)" &
holder=$!
sleep 2; while [ ! -s "$out/memory-held.txt" ] && kill -0 $holder 2>/dev/null; do sleep 1; done
free -m >>"$out/memory-held.txt"
runs memory-taken env
kill $holder; wait $holder 2>/dev/null
unshare -m --propagation private bash -c "mount -t tmpfs -o size=64k tmpfs /tmp && dd if=/dev/zero of=/tmp/fill bs=4k 2>/dev/null; df -h /tmp >>$out/tmp-full.txt; runs tmp-full env"
runs few-files bash -c 'ulimit -n 64 && exec "$@"' -
runs as-it-is-after env
python3 "$here/soak_summary.py" "$out" >"$out/summary.md" 2>&1
cat "$out/summary.md"
