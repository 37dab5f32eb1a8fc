/* The worker's side of gv_nccl_bench / gv_nccl_bench_rank (gpuverify-worker --nccl). */
#ifndef GV_WORKER_NCCL_SERVE_H
#define GV_WORKER_NCCL_SERVE_H

#include <jansson.h>

#include "core/context.h"
#include "nccl/nccl.h"

/* Runs the call here (ctx->in_worker set) and writes its events through emit, which takes
 * each event and writes it as one line. */
void gv_worker_serve_nccl(gv_ctx *ctx, const gv_nccl_call *call, void (*emit)(json_t *ev));

#endif
