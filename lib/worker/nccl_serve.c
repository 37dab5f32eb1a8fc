/* gpuverify-worker --nccl: one NCCL sweep in this process with blocking communicators (the
 * caller kills this process at the deadline, so nothing here needs to give up on NCCL), its
 * stages and the result after each size written as events for worker/nccl_client.c:
 *   {"event":"stage","stage":"running all_reduce at 8 bytes"}
 *   {"event":"nccl","result":"<gv_nccl_result in hex>"}
 *   {"event":"done","status":0,"message":"","result":"<gv_nccl_result in hex>"} */
#include "worker/nccl_serve.h"

#include <string.h>

#include "worker/protocol.h"

typedef struct serve {
    void (*emit)(json_t *ev);
} serve;

static json_t *result_hex(const gv_nccl_result *r)
{
    char hex[2 * sizeof *r + 1];
    gv_worker_hex_put(r, sizeof *r, hex);
    return json_string(hex);
}

static void on_stage(void *user, const char *stage)
{
    const serve *sv = user;
    sv->emit(json_pack("{s:s, s:s%}", "event", "stage", "stage", stage, strlen(stage)));
}

static void on_size(void *user, const gv_nccl_result *so_far)
{
    const serve *sv = user;
    sv->emit(json_pack("{s:s, s:o}", "event", "nccl", "result", result_hex(so_far)));
}

void gv_worker_serve_nccl(gv_ctx *ctx, const gv_nccl_call *call, void (*emit)(json_t *ev))
{
    serve sv = {emit};
    gv_nccl_watch watch = {on_stage, on_size, &sv};
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    gv_status s = gv_nccl_call_here(ctx, call, 1, &watch, &r);
    const char *message = s == GV_OK ? "" : gv_ctx_last_error(ctx);
    emit(json_pack("{s:s, s:i, s:s%, s:o}", "event", "done", "status", (int)s, "message", message,
                   strlen(message), "result", result_hex(&r)));
}
