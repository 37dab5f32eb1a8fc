/* SPDX-License-Identifier: Apache-2.0 */
/* The sweep's communicator, made rank by rank ahead of it in gpuverify-worker's tests across
 * GPUs: each GPU joins as its lane finishes, while the other lanes still run, so that only the
 * last GPU's rank follows the last lane. A rank's creation is mostly per GPU (NCCL loads its
 * kernels there: 0.13-0.5 s) and then waits for its peers; on 2 x H200 the last rank's took
 * 0.11-0.16 s against 0.44-0.51 s for all ranks at once (bench/nccl_late_rank.py).
 *
 * Each rank is created non-blocking, as the sweep's are in that worker, and polled by a thread
 * of its own, which aborts it when told to give up (NCCL's one way to stop a creation whose
 * peers never come). A rank waiting for its peers keeps one CPU busy (NCCL's bootstrap). */
#ifndef GV_NCCL_NCCL_AHEAD_H
#define GV_NCCL_NCCL_AHEAD_H

#include <stdint.h>

#include "backends/nccl_backend.h"
#include "gpuverify/gv_context.h"

/* Starts the creation of rank `rank` of `nranks` on CUDA GPU `gpu`, whose context this worker
 * has made; the communicator's unique ID is made with the first rank. Nothing happens outside
 * gpuverify-worker, for a GPU already joined, or with another count of ranks. 0 when started. */
int gv_nccl_ahead_join(gv_ctx *ctx, uint32_t gpu, int rank, int nranks);

/* Before the tests across GPUs measure: when every GPU of cuda[] (ranks in that order) has
 * joined, every rank's creation is waited for until `until` (gv_now_s()), so that none of it
 * runs beside a measurement. Ranks that do not fit cuda[], a GPU of cuda[] not joined (this
 * worker could not take it: another gpuverify holds it), or a rank that failed or was late:
 * the ranks are given up, and the sweep makes its own under the run's hold. */
void gv_nccl_ahead_settle(gv_ctx *ctx, const uint32_t *cuda, uint32_t count, double until);

/* Whether ranks were made ahead in this worker: the sweep then makes no unique ID of its own
 * unless they do not fit (an unused one would keep NCCL's bootstrap root waiting). */
int gv_nccl_ahead_pending(const gv_ctx *ctx);

/* The sweep's communicators when those made ahead are its own: one rank per GPU of cuda[], in
 * that order, and no other. The GPUs not joined yet join now; every rank is waited for until
 * `deadline` (gv_now_s()). 1 with comms[] filled (they are the caller's from then on); 0 when
 * none were made ahead or they do not fit (those are given up: the caller makes its own); -1
 * when a rank failed or the deadline passed (why in err, what was made is given up). log_from
 * becomes where NCCL's log of their creation begins (nccl/nccl_log.h). */
int gv_nccl_ahead_take(gv_ctx *ctx, const uint32_t *cuda, uint32_t count, double deadline,
                       gvnc_comm *comms, long *log_from, char *err, size_t cap);

#endif
