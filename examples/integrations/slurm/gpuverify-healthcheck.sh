#!/bin/sh
# Slurm HealthCheckProgram (slurm.conf: HealthCheckProgram=/usr/local/sbin/gpuverify-healthcheck.sh,
# HealthCheckInterval=300, HealthCheckNodeState=IDLE) or Prolog: runs gv-check and, when a check
# fails, drains this node with the failing check's one-line message as the reason, so `sinfo -R`
# says what is wrong. Its default checks make a CUDA context on each GPU and allocate half of an
# idle GPU's free memory (cuda.alloc; a GPU a job uses is spared all but 64 MiB): on nodes where
# jobs run, give GPUVERIFY_CHECKS=^cuda,^mem,^gemm,^cudnn,^nccl. In a Prolog the GPUs should be
# idle: a policy with `busy = fail` (GPUVERIFY_GV_CHECK="gv-check --policy FILE") drains a node
# where a process of an earlier job still holds a GPU, which the default `busy = skip` reports
# as "not judged" and passes.
#
#   GPUVERIFY_CHECKS   checks to run (default: everything but the long GPU benchmarks)
#   GPUVERIFY_TIMEOUT  seconds before gv-check is killed and the node drained (default 120)
#   GPUVERIFY_GV_CHECK the gv-check command with any fixed options (default: gv-check on PATH)
#
# Exit status: 0 healthy, or its GPUs under test by another gpuverify (for less than
# GPUVERIFY_TIMEOUT); 1 drained (a Prolog failure also requeues the job).
set -u
checks=${GPUVERIFY_CHECKS:-^gemm,^nccl,^cuda.copy,^cuda.copy_all,^mem}
limit=${GPUVERIFY_TIMEOUT:-120}
node=$(hostname -s)
# --npd prints exactly one line: "FAIL <check> <subject>: <message> (and N more)".
# shellcheck disable=SC2086 # the command and its fixed options are words
line=$(timeout "$limit" ${GPUVERIFY_GV_CHECK:-gv-check} --npd --checks "$checks" 2>&1)
rc=$?
# Another gpuverify holding the GPUs through this run's wait (a Prolog beside the health check)
# judges them itself; one that has held them longer than this script allows any run is stuck
# (or at a burn-in) and the node is not to be given jobs.
held=$(printf '%s\n' "$line" | sed -n 's/.*being tested by another gpuverify.*which has held it for \([0-9][0-9]*\) s.*/\1/p')
if [ "$rc" -eq 2 ] && [ -n "$held" ] && [ "$held" -le "$limit" ]; then
    logger -t gpuverify "another gpuverify is testing $node's GPUs (for ${held}s); it judges them" 2>/dev/null || true
    exit 0
fi
case $rc in
0) exit 0 ;;
1) reason="gpuverify: $line" ;;
124) reason="gpuverify: no verdict within ${limit}s (a GPU or driver call hangs)" ;;
*) reason="gpuverify: could not judge the node: $line" ;;
esac
# Slurm keeps reasons short; the full report is one `gv-check` away on the node.
reason=$(printf '%s' "$reason" | cut -c1-200)
scontrol update nodename="$node" state=drain reason="$reason"
logger -t gpuverify "drained $node: $reason" 2>/dev/null || true
exit 1
