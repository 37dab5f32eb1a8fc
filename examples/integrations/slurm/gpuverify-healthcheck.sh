#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Slurm HealthCheckProgram or Prolog: runs `gv-check --quiet` and keeps the node's state in step
# with its verdict, so `sinfo -R` says what is wrong:
#
#   slurm.conf  HealthCheckProgram=/usr/local/share/gpuverify/slurm/gpuverify-healthcheck.sh
#               HealthCheckInterval=300
#               HealthCheckNodeState=IDLE
#               Prolog=/usr/local/share/gpuverify/slurm/gpuverify-healthcheck.sh
#
# (installed there by `cmake --install` with the /usr/local prefix; in /usr/share/gpuverify/slurm/
# by the gpuverify-integrations package). As a Prolog it knows it is one from slurmd's
# SLURM_SCRIPT_CONTEXT; elsewhere `--prolog` says so.
#
# What it does with the node (reasons start with "gpuverify: ", NHC's convention: it resumes only
# nodes it drained itself and never touches another reason):
#   healthy (exit 0)  resumes the node if it is drained with a "gpuverify:" reason; else nothing
#   FAIL (1)          drains it: "gpuverify: FAIL <check> <subject>: <message> (<counts>)
#                     [<action>]", the action what the node needs (docs/checks.md, "Actions":
#                     rerun, wait, fix_config, reset_gpu, reboot_node, hw_inspect)
#   ERROR (3)         drains it: "gpuverify: could not judge: ERROR <check> <subject>: ...
#                     [<action>]"
#   HELD (4)          GPUs another gpuverify is testing (a Prolog beside the health check): that
#                     run judges them when it has held them for up to GPUVERIFY_TIMEOUT, nothing
#                     changes; held longer, that run is stuck (or at a burn-in): drains it
#   no verdict        gv-check killed at its time limit: "gpuverify: no verdict within N s
#                     (...) [reboot_node]": the library returns within its budget, so a gv-check
#                     still there at the limit is stuck in the driver, which only a reboot frees
#   gv-check broken   (usage error, not found): "gpuverify: could not run gv-check: ...
#                     [fix_config]"
# A node already drained or down for another reason (an admin's "maintenance") keeps that reason:
# the verdict is only logged. Reasons longer than 200 characters are cut at a word, keeping the
# line's counts and action.
#
# Time: slurmd kills a HealthCheckProgram after 60 s, so everything here ends well before that.
# gv-check gets --budget (checks not started by then are ERROR rows) and --deadline (each check's,
# times the catalog's factor: driver.nvml 2x, driver.cuda 4x), chosen so that a hang is a FAIL
# naming the check and the run ends well inside the limit; `timeout` is the last guard.
#
# slurmd gives a HealthCheckProgram a bare environment: the variables below are read from
# GPUVERIFY_HEALTHCHECK_CONF (default /etc/default/gpuverify-healthcheck), lines VAR=value in
# sh syntax, when it exists; what it sets wins over the environment and is exported to gv-check
# (GPUVERIFY_LOCK_DIR, CUDA_VISIBLE_DEVICES, ...).
#
#   GPUVERIFY_TIMEOUT   seconds gv-check may take in all (default 45, at least 12): it is sent
#                       SIGTERM halfway from its budget to this (38 s) and SIGKILL at this;
#                       also the longest another gpuverify may hold the GPUs before it counts
#                       as stuck
#   GPUVERIFY_BUDGET    gv-check --budget (default TIMEOUT * 2/3: 30 s); gv-check waits up to
#                       half of it for GPUs another gpuverify holds
#   GPUVERIFY_DEADLINE  gv-check --deadline (default 5 s: a quarter of what the budget leaves
#                       after the 5 s gv-check keeps at its end and 2 s for its start, so that
#                       a cuInit hang, at 4x, is a FAIL inside the budget, not an ERROR)
#   GPUVERIFY_CHECKS    checks to run. Default as a health check: everything but the long GPU
#                       benchmarks (about 10 s on 4 GPUs); as a Prolog: the quick level (a
#                       second or two: it holds a job's start). Both make a CUDA context on
#                       each GPU and allocate half of an idle GPU's free memory for a moment
#                       (cuda.alloc): on nodes where jobs run while the health check does, give
#                       GPUVERIFY_CHECKS=^cuda,^mem,^gemm,^cudnn,^nccl (docs/howto.md)
#   GPUVERIFY_STATE     gv-check --state: keep each GPU's record and judge it against it
#                       (docs/history.md); "default" is /var/lib/gpuverify/history.db (the
#                       script runs as root). Unset or empty: no history. A history WARN
#                       (a GPU slower than its own median, a lemon) is no reason to drain; an
#                       unusable database is an ERROR row, which drains "[fix_config]"
#   GPUVERIFY_GV_CHECK  the gv-check command with any fixed options (default: gv-check on PATH);
#                       in a Prolog the GPUs should be idle: "gv-check --policy FILE" with
#                       `busy = fail` drains a node where an earlier job's process still holds
#                       a GPU, which the default `busy = skip` passes as "not judged"
#   --prolog            (or SLURM_SCRIPT_CONTEXT=prolog_slurmd, as slurmd sets for a Prolog)
#                       Prolog mode: the quick level unless GPUVERIFY_CHECKS says otherwise; a
#                       failure exits 1, so Slurm requeues the job (held) and keeps the node
#                       drained
#
# Exit status: 0 healthy, or its GPUs under test by another gpuverify; 1 not fit for jobs (the
# node drained, or left drained for its other reason); 2 usage error of this script.
set -u
LC_ALL=C
export LC_ALL
PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
export PATH
conf=${GPUVERIFY_HEALTHCHECK_CONF:-/etc/default/gpuverify-healthcheck}
if [ -r "$conf" ]; then
    set -a
    # shellcheck disable=SC1090 # the site's file
    . "$conf"
    set +a
fi

prolog=no
[ "${SLURM_SCRIPT_CONTEXT:-}" = prolog_slurmd ] && prolog=yes
for arg in "$@"; do
    case $arg in
    --prolog) prolog=yes ;;
    *) echo "usage: $0 [--prolog]" >&2; exit 2 ;;
    esac
done

whole_number() {
    case $2 in
    '' | *[!0-9]*) echo "gpuverify-healthcheck: $1=$2 is not a whole number of seconds" >&2; exit 2 ;;
    esac
}
limit=${GPUVERIFY_TIMEOUT:-45}
whole_number GPUVERIFY_TIMEOUT "$limit"
if [ "$limit" -lt 12 ]; then
    echo "gpuverify-healthcheck: GPUVERIFY_TIMEOUT=$limit: at least 12 s" >&2
    exit 2
fi
budget=${GPUVERIFY_BUDGET:-$((limit * 2 / 3))}
whole_number GPUVERIFY_BUDGET "$budget"
# gv-check stops a library's start min(5 s, budget / 4) before the budget's end (an ERROR,
# "could not judge"); cuInit has four deadlines and begins after NVML's facts (about 2 s).
reserve=$((budget / 4 < 5 ? budget / 4 : 5))
deadline=${GPUVERIFY_DEADLINE:-$(((budget - reserve - 2) / 4))}
whole_number GPUVERIFY_DEADLINE "$deadline"
[ "$deadline" -ge 1 ] || deadline=1
# SIGTERM halfway between the budget and the limit (38 s of 45), SIGKILL at the limit.
term_at=$(((budget + limit + 1) / 2))
[ "$term_at" -lt "$limit" ] || term_at=$((limit - 1))
if [ -n "${GPUVERIFY_CHECKS:-}" ]; then
    selection="--checks $GPUVERIFY_CHECKS"
elif [ "$prolog" = yes ]; then
    selection="--level quick"
else
    selection="--checks ^gemm,^nccl,^cuda.copy,^cuda.copy_all,^mem"
fi
node=${SLURMD_NODENAME:-$(hostname -s)}
mode=health-check
[ "$prolog" = yes ] && mode="prolog${SLURM_JOB_ID:+ of job $SLURM_JOB_ID}"

log() {
    echo "gpuverify ($mode): $*"
    logger -t gpuverify "($mode) $*" 2>/dev/null || true
}

# At most 200 characters, the message cut at a word and the line's counts and action at its end,
# "(2 FAIL, 0 WARN, 0 ERROR of 190) [hw_inspect]", kept: Slurm shows the reason in one column of
# `sinfo -R`, and the full report is one `gv-check` away on the node.
shorten() {
    printf '%s\n' "$1" | awk -v max=200 '{
        if (length($0) <= max) { print; next }
        head = $0; tail = ""
        if (match($0, /( \([^()]*\))?( \[[a-z_]+\])?$/) && RLENGTH > 0 && max - RLENGTH - 4 >= 40) {
            head = substr($0, 1, RSTART - 1); tail = substr($0, RSTART)
        }
        room = max - length(tail) - 4
        s = substr(head, 1, room)
        if (substr(head, room + 1, 1) != " ")
            sub(/ +[^ ]*$/, "", s)
        print s " ..." tail
    }'
}

# The node's state (IDLE+DRAIN, DOWN, ...) and reason as `scontrol show node` tells them.
state=
current_reason=
read_node() {
    shown=$(scontrol show node "$node" 2>/dev/null) || return 1
    state=$(printf '%s\n' "$shown" | sed -n 's/^ *State=\([^ ]*\).*/\1/p' | head -n 1)
    current_reason=$(printf '%s\n' "$shown" | sed -n 's/^ *Reason=\(.*\) \[[^]]*\]$/\1/p' | head -n 1)
    return 0
}
# Held out of work (drained, draining, down, failed) with a reason that is not ours?
held_by_another_reason() {
    case +$state+ in
    *+DRAIN+* | *+DOWN+* | *+FAIL+* | +DOWN* | +FAIL*) ;;
    *) return 1 ;;
    esac
    case $current_reason in
    gpuverify:*) return 1 ;;
    esac
    return 0
}

drain() {
    reason=$(shorten "gpuverify: $1")
    if ! read_node; then
        log "cannot read node $node from slurmctld; not drained: $reason"
        exit 1
    fi
    if held_by_another_reason; then
        log "$node is $state for \"$current_reason\", kept; this run found: $reason"
        exit 1
    fi
    case +$state+ in
    *+DRAIN+*)
        if [ "$current_reason" = "$reason" ]; then
            log "$node stays drained: $reason"
            exit 1
        fi ;;
    esac
    if scontrol update nodename="$node" state=drain reason="$reason"; then
        log "drained $node: $reason"
    else
        log "scontrol could not drain $node: $reason"
    fi
    exit 1
}

err=$(mktemp "${TMPDIR:-/tmp}/gpuverify-healthcheck.XXXXXX") || exit 1
trap 'rm -f "$err"' EXIT
# --quiet prints exactly one line, its first word the class: OK, WARN, FAIL, ERROR, HELD.
# shellcheck disable=SC2086 # the command and its fixed options, the selection: words
line=$(timeout -k $((limit - term_at)) "$term_at" ${GPUVERIFY_GV_CHECK:-gv-check} --quiet --budget "$budget" \
       --deadline "$deadline" $selection ${GPUVERIFY_STATE:+--state "$GPUVERIFY_STATE"} 2>"$err")
rc=$?
line=$(printf '%s\n' "$line" | head -n 1)

case $rc in
0)
    if read_node; then
        case +$state+:$current_reason in
        *+DRAIN+*:gpuverify:* | *+DOWN+*:gpuverify:* | +DOWN*:gpuverify:*)
            if scontrol update nodename="$node" state=resume; then
                log "resumed $node (was \"$current_reason\"): $line"
            else
                log "scontrol could not resume $node: $line"
            fi ;;
        esac
    fi
    exit 0 ;;
1) drain "$line" ;;
3) drain "could not judge: $line" ;;
4)
    # "HELD for <seconds> s by PID <pid>: <check> <subject>: <message>", <seconds> "?" unknown.
    held=$(printf '%s\n' "$line" | sed -n 's/^HELD for \([0-9][0-9]*\) s by PID .*/\1/p')
    if [ -n "$held" ] && [ "$held" -le "$limit" ]; then
        log "another gpuverify is testing $node's GPUs (for $held s); it judges them: $line"
        exit 0
    fi
    if [ -n "$held" ]; then
        drain "another gpuverify stuck on the GPUs: $line"
    fi
    drain "could not judge: $line" ;;
124 | 137) drain "no verdict within $term_at s (a GPU or driver call hangs) [reboot_node]" ;;
*)
    # Its message, not the usage text after it.
    why=$(sed -e '/^usage:/d' -e '/^[[:space:]]/d' -e '/^$/d' "$err" | head -n 1)
    [ -n "$why" ] || why=$(head -n 1 "$err")
    drain "could not run gv-check (exit $rc): ${why:-$line} [fix_config]" ;;
esac
