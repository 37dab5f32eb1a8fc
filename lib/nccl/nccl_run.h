/* SPDX-License-Identifier: Apache-2.0 */
/* One NCCL sweep's state, shared by the sweep itself (nccl_bench.c), the collectives' shapes
 * (nccl_shapes.c: sizes, buffers, calls, exact results) and the pairs (nccl_pairs.c). */
#ifndef GV_NCCL_NCCL_RUN_H
#define GV_NCCL_NCCL_RUN_H

#include <stdint.h>

#include "backends/nccl_backend.h"
#include "compute/session.h"
#include "core/errbuf.h"
#include "gpuverify/gv_nccl.h"
#include "nccl/nccl.h"

typedef struct nccl_gpu {
    gv_session s;
    gvnc_comm comm;
    int rank;
    gvcu_deviceptr send, recv, errors;
    gvcu_deviceptr at_send, at_recv; /* what the collective is given now (gv_nccl_place) */
    gvcu_deviceptr flag;             /* one float: GV_NCCL_PAIRS' barrier between pairs */
} nccl_gpu;

typedef struct nccl_run {
    gv_ctx *ctx;
    const struct gv_nccl_api *nc;
    gv_nccl_opts o;
    gv_nccl_result *r;
    nccl_gpu *gpus;
    uint32_t local; /* sessions opened */
    int nranks;
    uint64_t send_elems, recv_elems; /* per GPU, for the largest size */
    double deadline;                 /* absolute, on gv_now_s()'s clock */
    double wait_allow_s; /* what a wait's GPUs may take on top of the deadline (core/progress.h) */
    double deadline_s;
    int blocking;               /* communicators created blocking (in gpuverify-worker) */
    int from, to;               /* GV_NCCL_PAIRS: the pair under test */
    int composite;              /* sends and receives in one group (gv_nccl_composite) */
    const gv_call_watch *watch; /* told of each stage and measured size; may be NULL */
    const char *stage;          /* what was under way, for messages */
    int timed_out;
    gv_errbuf err;
} nccl_run;

/* nccl_shapes.c: each collective's sizes, buffers, placement and NCCL calls. */
uint64_t gv_nccl_count_for(int32_t coll, int nranks, uint64_t bytes, uint64_t *actual);
uint64_t gv_nccl_send_elems(int32_t coll, int nranks, uint64_t count);
uint64_t gv_nccl_recv_elems(int32_t coll, int nranks, uint64_t count);
uint64_t gv_nccl_checked_elems(const nccl_run *n, int rank, uint64_t count);
int gv_nccl_has_in_place(int32_t coll);
void gv_nccl_place(nccl_run *n, uint64_t count, int in_place);
int gv_nccl_prepare(nccl_run *n, nccl_gpu *g, uint64_t count, int in_place);
int gv_nccl_composite(const nccl_run *n);
int gv_nccl_one_call(const nccl_run *n, const nccl_gpu *g, uint64_t count);

/* nccl_bench.c: the sweep's machinery. */
void gv_nccl_stage(nccl_run *n, const char *stage);
gv_status gv_nccl_fail(nccl_run *n, const char *call, int rc, gvnc_comm comm);
int gv_nccl_use(nccl_run *n, uint32_t i);
gv_status gv_nccl_wait_comms(nccl_run *n);
gv_status gv_nccl_wait_streams(nccl_run *n);
gv_status gv_nccl_measure(nccl_run *n, uint64_t count, int in_place, gv_nccl_size *row);
/* A measured size into the result (its wrong elements, the peak), and the watcher told. */
void gv_nccl_add_size(nccl_run *n, const gv_nccl_size *row, const gv_nccl_size *in_place);

/* nccl_pairs.c: GV_NCCL_PAIRS. */
gv_status gv_nccl_sweep_pairs(nccl_run *n);
int gv_nccl_judge_pairs(nccl_run *n);

#endif
