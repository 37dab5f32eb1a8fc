/* SPDX-License-Identifier: Apache-2.0 */
/* A topology XML read by hwloc in gpuverify-worker first, so that a file hwloc crashes on
 * crashes the worker, not the caller (hwloc 2.9 dereferences NULL on some malformed files). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "worker/spawn.h"
#include "worker/worker.h"

gv_status gv_worker_probe_xml(gv_ctx *ctx, const char *xml)
{
    gv_worker_place where;
    if (!gv_worker_find(ctx, &where))
        return GV_OK;
    char *argv[] = {where.path, "--probe-topology-xml", (char *)xml, NULL};
    gv_worker_proc p;
    char why[PATH_MAX + 128];
    if (gv_worker_spawn(where.path, argv, 0, NULL, &p, why, sizeof why) != GV_OK)
        return GV_OK; /* no isolation to be had: read it here as before */
    int status = 0;
    int reaped = gv_worker_stop(&p, 0, ctx->deadline_s, &status);
    if (reaped && WIFEXITED(status) &&
        (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == GV_WORKER_PROBE_REFUSED))
        return GV_OK; /* loaded, or refused cleanly: the caller's own load says the same */
    if (!reaped || (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
        return gv_fail(ctx, GV_ERR_TIMEOUT,
                       "hwloc did not finish reading %s within %.0f s (in gpuverify-worker)", xml,
                       ctx->deadline_s);
    char how[64];
    if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "signal %d, %s", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
    return gv_fail(ctx, GV_ERR_PARSE,
                   "hwloc crashed (%s) reading %s in gpuverify-worker: not a topology it can "
                   "load",
                   how, xml);
}
