#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# NHC's code as it is, unquoted expansions and all:
# shellcheck disable=SC2086,SC2128,SC2145,SC2317,SC2034,SC1090

# LBNL NHC's driver (github.com/mej/nhc, the `nhc` script) reduced to what a check sees: its
# helpers die, log, vlog, dbg, syslog, syslog_flush, kill_watchdog as `nhc` defines them, the
# variables it sets (TIMEOUT, HOSTNAME, NHC_RM, NAME, NHC_START_TS, ...), its PATH and `set -f`,
# the scripts sourced, the watchdog that sends SIGALRM after TIMEOUT seconds (then SIGKILL, where
# NHC sends SIGTERM and SIGKILL to its process group), one check line eval'd as
# nhcmain_run_checks does, and the node marked offline (die) or online (success) through
# $OFFLINE_NODE / $ONLINE_NODE with eval and single quotes, as NHC calls its helpers.
#
# Usage: test_nhc_driver.sh SCRIPT.nhc 'check line'
# Environment: TIMEOUT (default 30), NHC_ELAPSED (seconds NHC has already spent on earlier
# checks: bash's SECONDS starts there, and the watchdog has that much less to go), HOSTNAME,
# OFFLINE_NODE, ONLINE_NODE, SYSLOG_FILE (what logger would get).

function die() {
    IFS=$' \t\n'
    local RET="$1"
    shift

    CHECK_DIED=1
    [[ -z "$CHECK" ]] && CHECK="$FUNCNAME $*"
    log "ERROR:  $NAME:  Health check failed:  $*"
    syslog "Health check failed:  $*"
    syslog_flush
    if [[ -n "$NHC_RM" && "$MARK_OFFLINE" -eq 1 && "$FAIL_CNT" -eq 0 ]]; then
        eval $OFFLINE_NODE "'$HOSTNAME'" "'$*'"
    fi
    if [[ "$NHC_CHECK_ALL" == "1" ]]; then
        ((FAIL_CNT++))
        return 0
    fi
    if [[ $RET -ne 142 && $RET -ne 143 ]]; then
        kill_watchdog
    fi
    exit $RET
}

function dbg() {
    local PREFIX=""

    if [[ "$DEBUG" == "1" ]]; then
        [[ $TS -ne 0 ]] && PREFIX="[$SECONDS] - "
        echo "${PREFIX}DEBUG:  $*"
    fi
}

function log() {
    local PREFIX=""

    if [[ "$SILENT" == "0" ]]; then
        [[ $TS -ne 0 ]] && PREFIX="[$SECONDS] - "
        echo "$PREFIX$@"
    fi
}

function vlog() {
    local PREFIX=""

    if [[ "$VERBOSE" == "1" ]]; then
        [[ $TS -ne 0 ]] && PREFIX="[$SECONDS] - "
        echo "$PREFIX$@"
    fi
}

function syslog() {
    if [[ -z "$LOGGER_TEXT" ]]; then
        LOGGER_TEXT="$*"
    else
        LOGGER_TEXT="$LOGGER_TEXT"$'\n'"$*"
    fi
}

# logger -p daemon.err -t "$NAME[$BASHPID]", into a file.
function syslog_flush() {
    if [[ -n "$LOGGER_TEXT" ]]; then
        echo "$LOGGER_TEXT" >> "${SYSLOG_FILE:-/dev/null}"
    fi
    LOGGER_TEXT=""
}

function kill_watchdog() {
    if [[ $WATCHDOG_PID -ne 0 ]]; then
        kill -s KILL -- -$WATCHDOG_PID $WATCHDOG_PID 2>/dev/null
        WATCHDOG_PID=0
    fi
    return 0
}

SCRIPT="$1"
CHECK="$2"

# nhcmain_init_env, nhcmain_finalize_env
PATH="/sbin:/usr/sbin:/bin:/usr/bin"
HOSTNAME="${HOSTNAME:-localhost}"
HOSTNAME_S=${HOSTNAME/%.*}
NAME=nhc
RET=0
LOGGER_TEXT=""
NHC_PID=$$
NHC_START_TS=0
WATCHDOG_PID=0
FAIL_CNT=0
DEBUG=${DEBUG:-0}
TS=0
SILENT=0
VERBOSE=0
MARK_OFFLINE=1
TIMEOUT=${TIMEOUT:-30}
NHC_CHECK_ALL=0
NHC_CHECK_FORKED=0
NHC_RM=${NHC_RM:-slurm}
ONLINE_NODE=${ONLINE_NODE:-:}
OFFLINE_NODE=${OFFLINE_NODE:-:}
export PATH HOSTNAME HOSTNAME_S RET LOGGER_TEXT NHC_PID NHC_START_TS WATCHDOG_PID FAIL_CNT
export NAME ONLINE_NODE OFFLINE_NODE DEBUG TS SILENT TIMEOUT NHC_RM
set -f
SECONDS=${NHC_ELAPSED:-0}

trap 'die 142 "Script timed out${CHECK:+ while executing \"$CHECK\"}." ; exit 142' 14

# nhcmain_load_scripts
. "$SCRIPT"

# nhcmain_set_watchdog: ALRM at TIMEOUT (from NHC's start), KILL 4 s later; in its own
# process group (set -m), as NHC starts it.
if [[ $TIMEOUT -gt 0 ]]; then
    set -m
    ( trap - 14; sleep $((TIMEOUT - SECONDS)); kill -s ALRM $NHC_PID; sleep 4
      kill -s KILL $NHC_PID ) >/dev/null 2>&1 &
    WATCHDOG_PID=$!
    set +m
fi

# nhcmain_run_checks (one line), nhcmain_mark_online, nhcmain_finish
CHECK_DIED=0
vlog "Running check:  \"$CHECK\""
eval $CHECK
RET=$?
if [[ "$RET" != "0" && "$CHECK_DIED" == "0" ]]; then
    log "Node Health Check failed.  Check $CHECK returned $RET"
    die $RET "Check $CHECK returned $RET"
fi
CHECK=""
eval $ONLINE_NODE "'$HOSTNAME'"
syslog_flush
kill_watchdog
exit 0
