/* SPDX-License-Identifier: Apache-2.0 */
/* One call in gpuverify-worker: the worker's side (call.h). The call runs in this process with
 * nothing to guard against (its caller kills this process at the deadline); what it reports on
 * the way goes out as events. */
#include <stdlib.h>
#include <string.h>

#include "core/progress.h"
#include "worker/call.h"
#include "worker/protocol.h"

typedef struct serve {
    const gv_call_kind *kind;
    void (*emit)(json_t *ev);
} serve;

/* n bytes as a JSON string of hex digits; NULL when out of memory (the event then fails to
 * pack, and emit gives up). */
static json_t *hex_of(const void *data, size_t n)
{
    char *hex = malloc(2 * n + 1);
    if (!hex)
        return NULL;
    gv_worker_hex_put(data, n, hex);
    json_t *s = json_string(hex);
    free(hex);
    return s;
}

static void on_stage(void *user, const char *stage)
{
    const serve *sv = user;
    sv->emit(json_pack("{s:s, s:s%}", "event", "stage", "stage", stage, strlen(stage)));
}

static void on_partial(void *user, const void *result)
{
    const serve *sv = user;
    sv->emit(json_pack("{s:s, s:o}", "event", "partial", "result",
                       hex_of(result, sv->kind->result_size)));
}

static void on_sample(void *user, const void *sample)
{
    const serve *sv = user;
    sv->emit(json_pack("{s:s, s:o}", "event", "sample", "sample",
                       hex_of(sample, sv->kind->sample_size)));
}

/* The library's own progress stages (gv_progress_stage) become the call's; its heartbeats and
 * watches go on to the caller's progress (a sweep inside gv_run's worker beats there). */
static void on_progress(void *user, int kind, const char *check, const char *text)
{
    (void)check;
    const serve *sv = user;
    if (kind == GV_PROGRESS_STAGE)
        on_stage(user, text);
    else if (gv_worker_is_liveness(kind))
        sv->emit(gv_worker_progress_event(kind, text));
}

void gv_call_serve(gv_ctx *ctx, const gv_call_kind *kind, const void *args,
                   void (*emit)(json_t *ev))
{
    serve sv = {kind, emit};
    gv_call_watch watch = {on_stage, on_partial, on_sample, &sv};
    ctx->progress = on_progress;
    ctx->progress_user = &sv;
    void *result = calloc(1, kind->result_size);
    if (!result) {
        emit(json_pack("{s:s, s:i, s:s}", "event", "error", "status", (int)GV_ERR_NO_MEMORY,
                       "message", "gpuverify-worker: out of memory"));
        return;
    }
    uint32_t size = (uint32_t)kind->result_size;
    memcpy(result, &size, sizeof size);
    gv_status s = kind->here(ctx, args, &watch, result);
    const char *message = s == GV_OK ? "" : gv_ctx_last_error(ctx);
    emit(json_pack("{s:s, s:i, s:s%, s:o}", "event", "done", "status", (int)s, "message", message,
                   strlen(message), "result", hex_of(result, kind->result_size)));
    free(result);
}
