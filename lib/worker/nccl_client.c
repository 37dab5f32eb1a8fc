/* gv_nccl_bench / gv_nccl_bench_rank through gpuverify-worker: the caller's side. The worker
 * runs the sweep with blocking communicators and writes each stage and, after each size, the
 * result so far; the caller waits for its last word until the deadline (plus a moment for the
 * worker to report a timeout it noticed itself), then kills the worker's process group, which
 * ends any NCCL state however stuck, and returns what had been measured. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/util.h"
#include "nccl/nccl.h"
#include "worker/lines.h"
#include "worker/protocol.h"
#include "worker/spawn.h"

/* After the deadline: the worker's own poll notices a collective that never completes, aborts
 * its communicators and says so; this long is left for that before the kill. */
#define WORKER_GRACE_S 0.4

typedef struct nccl_client {
    gv_nccl_result *r; /* the latest result the worker sent */
    double deadline;   /* absolute */
    int done;          /* its final "done" (or "error") came */
    gv_status status;  /* the call's status in the worker */
    char message[512]; /* and its error text */
    char stage[160];
    char garbage[80];
} nccl_client;

static double until(void *user)
{
    return ((const nccl_client *)user)->deadline;
}

/* One event (lib/worker/nccl_serve.c); 0 when it is one, -1 when it is not the worker's. */
static int take(void *user, char *line)
{
    nccl_client *c = user;
    json_t *ev = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
    const char *kind = json_string_value(json_object_get(ev, "event"));
    int ok = kind != NULL;
    if (!ok) {
        ;
    } else if (!strcmp(kind, "stage")) {
        gv_worker_event_text(ev, "stage", c->stage, sizeof c->stage);
    } else if (!strcmp(kind, "nccl") || !strcmp(kind, "done")) {
        gv_nccl_result got;
        ok = gv_worker_hex_get(json_string_value(json_object_get(ev, "result")), &got,
                               sizeof got) == 0 &&
             got.struct_size == sizeof got;
        if (ok)
            *c->r = got;
    }
    if (ok && kind && (!strcmp(kind, "done") || !strcmp(kind, "error"))) {
        c->status = gv_worker_event_status(ev);
        gv_worker_event_text(ev, "message", c->message, sizeof c->message);
        c->done = 1;
    } else if (ok && strcmp(kind, "stage") && strcmp(kind, "nccl")) {
        ok = 0;
    }
    json_decref(ev);
    if (!ok)
        snprintf(c->garbage, sizeof c->garbage, "%.60s", line);
    return ok ? 0 : -1;
}

/* "all_reduce over 2 ranks", or over the local GPUs when the worker never said how many. */
static void what(const gv_nccl_result *r, char *out, size_t cap)
{
    if (r->nranks > 0)
        snprintf(out, cap, "%s over %d ranks", gv_nccl_collective_name(r->collective),
                 (int)r->nranks);
    else
        snprintf(out, cap, "%s over the local GPUs", gv_nccl_collective_name(r->collective));
}

gv_status gv_nccl_call_worker(gv_ctx *ctx, const char *worker, const gv_nccl_call *call,
                              gv_nccl_result *r)
{
    double t0 = gv_now_s();
    nccl_client c = {.r = r, .deadline = t0 + call->o.deadline_s + WORKER_GRACE_S};
    snprintf(c.stage, sizeof c.stage, "starting gpuverify-worker");
    r->collective = call->o.collective;
    r->nranks = call->by_rank ? call->nranks : (int32_t)call->o.gpu_count;
    r->rank = call->by_rank ? call->rank : 0;
    r->local_gpus = call->by_rank ? 1 : (int32_t)call->o.gpu_count;
    char **argv = gv_worker_nccl_argv(ctx, call, worker);
    if (!argv)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory starting gpuverify-worker");
    gv_worker_proc p;
    char why[PATH_MAX + 128];
    gv_status s = gv_worker_spawn(worker, argv, &p, why, sizeof why);
    gv_worker_argv_free(argv);
    if (s != GV_OK)
        return gv_fail(ctx, s, "%s", why);
    enum gv_read_end end = gv_worker_read_lines(p.fd, until, take, &c);
    /* A worker that gave its result may tidy up until the deadline; any other is killed. */
    double grace = c.deadline - WORKER_GRACE_S - gv_now_s();
    int status = 0;
    int reaped = gv_worker_stop(&p, !c.done, grace < 0 ? 0 : grace > 2 ? 2 : grace, &status);
    r->isolation = GV_ISOLATION_PROCESS;
    r->total_s = gv_now_s() - t0;
    if (c.done)
        return c.status == GV_OK ? GV_OK : gv_fail(ctx, c.status, "%s", c.message);
    char coll[96], ended[96];
    what(r, coll, sizeof coll);
    if (end == GV_READ_DEADLINE) {
        r->verdict = GV_FAIL;
        snprintf(r->message, sizeof r->message,
                 "%s did not finish: the deadline of %.1f s passed while %s; gpuverify-worker "
                 "was %s",
                 coll, call->o.deadline_s, c.stage,
                 reaped ? "stopped"
                        : "killed (stuck in the "
                          "kernel)");
        return gv_fail(ctx, GV_ERR_TIMEOUT, "%s", r->message);
    }
    r->verdict = GV_ERROR;
    if (end == GV_READ_GARBLED || end == GV_READ_TOO_LONG)
        snprintf(r->message, sizeof r->message,
                 "%s: gpuverify-worker wrote something that is not its protocol while %s: "
                 "\"%s\" (a mismatched or broken worker at %s)",
                 coll, c.stage, end == GV_READ_TOO_LONG ? "a line too long" : c.garbage, worker);
    else {
        gv_worker_end_text(status, ended, sizeof ended);
        snprintf(r->message, sizeof r->message, "%s: gpuverify-worker %s while %s", coll,
                 reaped ? ended : "vanished", c.stage);
    }
    return gv_fail(ctx, GV_ERR_DRIVER, "%s", r->message);
}
