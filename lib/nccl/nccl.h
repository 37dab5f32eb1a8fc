/* SPDX-License-Identifier: Apache-2.0 */
/* What the NCCL benchmark shares with the nccl.* checks. */
#ifndef GV_NCCL_NCCL_H
#define GV_NCCL_NCCL_H

#include <stddef.h>
#include <stdint.h>

#include "gpuverify/gv_context.h"
#include "gpuverify/gv_nccl.h"
#include "worker/call.h"

/* nccl-tests' bus bandwidth factor for a collective over nranks: with one rank 0, but 1 for
 * broadcast, reduce and sendrecv, as nccl-tests prints them. */
double gv_nccl_bus_factor(int32_t collective, int nranks);

/* The NCCL settings that choose algorithms, protocols and transports, as NCCL would see them
 * ("NCCL_ALGO=Ring (environment); NCCL_P2P_LEVEL=NVL (/etc/nccl.conf)"), or a line saying none
 * is set. */
void gv_nccl_settings_text(gv_ctx *ctx, char *out, size_t cap);

/* What one gv_nccl_bench / gv_nccl_bench_rank call runs, wherever it runs: its options
 * checked, defaults and deadline filled in. */
typedef struct gv_nccl_call {
    gv_nccl_opts o;
    int by_rank; /* gv_nccl_bench_rank: the fields below; else o.gpus, and an id made here */
    gv_nccl_id id;
    int32_t rank, nranks;
    uint32_t gpu;
} gv_nccl_call;

/* The call in this process, communicators blocking or not; *r filled as far as it got. The
 * watch (may be NULL) hears each stage as it starts and the result after each size. In
 * gpuverify-worker it runs as the call kind gv_call_nccl (worker/call.h), blocking. */
gv_status gv_nccl_call_here(gv_ctx *ctx, const gv_nccl_call *call, int blocking,
                            const gv_call_watch *watch, gv_nccl_result *r);

#endif
