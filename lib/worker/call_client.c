/* SPDX-License-Identifier: Apache-2.0 */
/* One call in gpuverify-worker: the caller's side (call.h). The caller waits for the worker's
 * last word until the call's deadline (plus a moment for a worker that noticed the deadline
 * itself to say so), then kills the worker's process group, which ends any state however
 * stuck in the driver, and returns what had come back. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/util.h"
#include "gpuverify/gv_report.h"
#include "worker/call.h"
#include "worker/lines.h"
#include "worker/protocol.h"
#include "worker/spawn.h"
#include "worker/worker.h"

/* After the deadline: a worker's own poll may notice a wait that never ends, give up on it and
 * say so; this long is left for that before the kill. */
#define WORKER_GRACE_S 0.4

typedef struct call_client {
    gv_ctx *ctx;
    const gv_call_kind *kind;
    void *result;   /* the latest result the worker sent */
    void *incoming; /* scratch for a result or sample being decoded */
    void (*sample)(void *user, const void *sample);
    void *user;
    double deadline; /* absolute */
    int done;        /* its final "done" (or "error") came */
    double done_at;
    gv_status status;
    char message[512];
    char stage[160];
    char garbage[80];
} call_client;

static double until(void *user)
{
    const call_client *c = user;
    return c->done ? fmin(c->deadline, c->done_at + GV_WORKER_EXIT_GRACE_S) : c->deadline;
}

/* A struct in hex into c->incoming; 1 when it was exactly `size` bytes (and, for a result,
 * carries its own size). */
static int decode(call_client *c, json_t *hex, size_t size, int is_result)
{
    if (gv_worker_hex_get(json_string_value(hex), c->incoming, size) != 0)
        return 0;
    uint32_t own;
    memcpy(&own, c->incoming, sizeof own);
    return !is_result || own == size;
}

/* One event (call.h); 0 when it is one, -1 when it is not the worker's. */
static int take(void *user, char *line)
{
    call_client *c = user;
    const gv_call_kind *k = c->kind;
    json_t *ev = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
    const char *kind = json_string_value(json_object_get(ev, "event"));
    int ok = kind != NULL, final = 0;
    if (!ok) {
        ;
    } else if (!strcmp(kind, "stage")) {
        gv_worker_event_text(ev, "stage", c->stage, sizeof c->stage);
    } else if (gv_worker_relay_progress(c->ctx, kind, ev)) {
        ;
    } else if (!strcmp(kind, "sample")) {
        ok = k->sample_size && decode(c, json_object_get(ev, "sample"), k->sample_size, 0);
        if (ok && c->sample)
            c->sample(c->user, c->incoming);
    } else if (!strcmp(kind, "partial") || !strcmp(kind, "done")) {
        ok = decode(c, json_object_get(ev, "result"), k->result_size, 1);
        if (ok)
            memcpy(c->result, c->incoming, k->result_size);
        final = ok && !strcmp(kind, "done");
    } else if (!strcmp(kind, "error")) {
        final = 1;
    } else {
        ok = 0;
    }
    if (final) {
        c->status = gv_worker_event_status(ev);
        gv_worker_event_text(ev, "message", c->message, sizeof c->message);
        c->done = 1;
        c->done_at = gv_now_s();
    }
    json_decref(ev);
    if (!ok)
        snprintf(c->garbage, sizeof c->garbage, "%.60s", line);
    return ok ? 0 : -1;
}

/* The caller's own verdict and message in the result: the worker could not give them. */
static void conclude(const call_client *c, int32_t verdict, const char *text)
{
    const gv_call_kind *k = c->kind;
    memcpy((char *)c->result + k->verdict_at, &verdict, sizeof verdict);
    snprintf((char *)c->result + k->message_at, k->message_cap, "%s", text);
}

gv_status gv_call_in_worker(gv_ctx *ctx, const char *worker, const gv_call_kind *kind,
                            const void *args, void (*sample)(void *user, const void *sample),
                            void *user, void *result)
{
    double t0 = gv_now_s(), limit = kind->deadline(ctx, args);
    size_t scratch = kind->result_size > kind->sample_size ? kind->result_size : kind->sample_size;
    call_client c = {.ctx = ctx,
                     .kind = kind,
                     .result = result,
                     .incoming = malloc(scratch),
                     .sample = sample,
                     .user = user,
                     .deadline = t0 + limit + WORKER_GRACE_S};
    snprintf(c.stage, sizeof c.stage, "starting gpuverify-worker");
    if (kind->prefill)
        kind->prefill(args, result);
    char **argv = c.incoming ? gv_worker_call_argv(ctx, kind, args, worker) : NULL;
    gv_worker_proc p;
    char why[PATH_MAX + 128] = "out of memory starting gpuverify-worker";
    gv_status s =
        argv ? gv_worker_spawn(worker, argv, 0, ctx, &p, why, sizeof why) : GV_ERR_NO_MEMORY;
    gv_worker_argv_free(argv);
    if (s != GV_OK) {
        free(c.incoming);
        return gv_fail(ctx, s, "%s", why);
    }
    enum gv_read_end end = gv_worker_read_lines(p.fd, until, take, &c);
    free(c.incoming);
    /* A worker that gave its result may tidy up until the deadline; any other is killed. */
    double grace = c.deadline - WORKER_GRACE_S - gv_now_s();
    int status = 0;
    int reaped = gv_worker_stop(&p, !c.done, grace < 0 ? 0 : grace > 2 ? 2 : grace, &status);
    if (c.done)
        return c.status == GV_OK ? GV_OK : gv_fail(ctx, c.status, "%s", c.message);
    char what[160], text[512], ended[96];
    kind->describe(args, result, what, sizeof what);
    if (end == GV_READ_DEADLINE) {
        snprintf(text, sizeof text,
                 "%s did not finish: the deadline of %.1f s passed while %s; gpuverify-worker was "
                 "%s",
                 what, limit, c.stage, reaped ? "stopped" : "killed (stuck in the kernel)");
        conclude(&c, GV_FAIL, text);
        return gv_fail(ctx, GV_ERR_TIMEOUT, "%s", text);
    }
    if (end == GV_READ_GARBLED || end == GV_READ_TOO_LONG)
        snprintf(text, sizeof text,
                 "%s: gpuverify-worker wrote something that is not its protocol while %s: "
                 "\"%s\" (a mismatched or broken worker at %s)",
                 what, c.stage, end == GV_READ_TOO_LONG ? "a line too long" : c.garbage, worker);
    else {
        gv_worker_end_text(status, ended, sizeof ended);
        snprintf(text, sizeof text, "%s: gpuverify-worker %s while %s", what,
                 reaped ? ended : "vanished", c.stage);
    }
    conclude(&c, GV_ERROR, text);
    return gv_fail(ctx, GV_ERR_DRIVER, "%s", text);
}

double gv_call_deadline(const gv_ctx *ctx, double start_factor, double factor, double times,
                        double extra_s)
{
    return (start_factor > 0 ? ctx->deadline_s * start_factor : 0) +
           times * (ctx->deadline_s * factor) + extra_s;
}

gv_status gv_call_out(gv_status st, void *out, const void *r, size_t size, size_t min_size)
{
    if (st != GV_OK && st != GV_ERR_TIMEOUT && st != GV_ERR_DRIVER)
        return st;
    gv_status copied = gv_copy_out(out, r, size, min_size);
    return st != GV_OK ? st : copied;
}

int gv_call_isolated(const gv_ctx *ctx, gv_worker_place *where)
{
    return !ctx->in_worker && !ctx->calls_here && !(ctx->flags & GV_CTX_IN_PROCESS) &&
           gv_worker_find(ctx, where);
}

gv_status gv_call(gv_ctx *ctx, const gv_call_kind *kind, const void *args,
                  void (*sample)(void *user, const void *sample), void *user, void *result)
{
    GV_IN_C_LOCALE();
    gv_worker_place where;
    if (gv_call_isolated(ctx, &where))
        return gv_call_in_worker(ctx, where.path, kind, args, sample, user, result);
    gv_call_watch watch = {.sample = sample, .user = user};
    return kind->here(ctx, args, &watch, result);
}
