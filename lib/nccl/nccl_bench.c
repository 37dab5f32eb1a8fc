/* SPDX-License-Identifier: Apache-2.0 */
/* gv_nccl_bench, gv_nccl_unique_id and gv_nccl_bench_rank: a size sweep of one NCCL collective
 * with exact data checked on the GPU and nccl-tests' timing and figures.
 *
 * The public calls hand the sweep to gpuverify-worker when one is found (worker/call.h):
 * there the communicators are blocking, as nccl-tests' and PyTorch's are, and the caller keeps
 * the deadline by killing the worker. In the caller's own process (no worker, or
 * GV_NCCL_IN_PROCESS) they are non-blocking, polled, and aborted when the deadline passes: NCCL
 * then launches every group from a thread of its own, which costs tens of microseconds per
 * operation but is the only way NCCL offers to give up on a peer without hanging.
 *
 * Several local GPUs are driven from the calling thread: each has a session (its primary
 * context, a stream, our kernels), switched to with cuCtxSetCurrent, and every collective is
 * queued for all of them inside one NCCL group, as nccl-tests does with -g. */
#define _GNU_SOURCE
#include <math.h>
#include <stddef.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/libraries.h"
#include "backends/nccl_backend.h"
#include "compute/gpu_lock.h"
#include "compute/session.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "core/util.h"
#include "gpuverify/gv_nccl.h"
#include "gpuverify/gv_report.h"
#include "kernels/gv_random.h"
#include "nccl/nccl.h"
#include "nccl/nccl_ahead.h"
#include "nccl/nccl_log.h"
#include "nccl/nccl_run.h"
#include "worker/worker.h"

/* What is under way now; the watcher hears of it (the worker passes it to its caller). */
void gv_nccl_stage(nccl_run *n, const char *stage)
{
    n->stage = stage;
    if (n->watch && n->watch->stage)
        n->watch->stage(n->watch->user, stage);
    else if (!n->watch)
        gv_progress_stage(n->ctx, "%s", stage); /* gv_run's worker: its caller names it */
}

gv_status gv_nccl_fail(nccl_run *n, const char *call, int rc, gvnc_comm comm)
{
    const char *text = n->nc->ncclGetErrorString ? n->nc->ncclGetErrorString(rc) : NULL;
    const char *last = n->nc->ncclGetLastError ? n->nc->ncclGetLastError(comm) : NULL;
    return gv_err(&n->err, GV_ERR_DRIVER, "%s: NCCL error %d (%s)%s%s", call, rc,
                  text ? text : "no description", last && *last ? ": " : "",
                  last && *last ? last : "");
}

static gv_status timeout(nccl_run *n)
{
    n->timed_out = 1;
    return gv_err(&n->err, GV_ERR_TIMEOUT,
                  "the deadline of %.1f s passed while %s; the communicators were aborted",
                  n->deadline_s, n->stage);
}

/* Between two polls: a yield for the first 2 ms (a launch NCCL finishes in its own thread takes
 * microseconds, and a sleep would become the measurement; the yield lets that thread run when
 * mpirun has bound the rank to one core), then 50 us naps. */
static void pause_after(double since)
{
    if (gv_now_s() - since < 2e-3) {
        sched_yield();
        return;
    }
    struct timespec nap = {0, 50000};
    nanosleep(&nap, NULL);
}

int gv_nccl_use(nccl_run *n, uint32_t i)
{
    return n->gpus[i].s.cu->cuCtxSetCurrent(n->gpus[i].s.context);
}

/* Polls every communicator until none is in progress: creation, and operations queued in
 * non-blocking mode, complete in NCCL's own threads. */
gv_status gv_nccl_wait_comms(nccl_run *n)
{
    double since = gv_now_s();
    for (;;) {
        int busy = 0;
        for (uint32_t i = 0; i < n->local; i++) {
            gvnc_result state = GVNC_SUCCESS;
            int rc = n->nc->ncclCommGetAsyncError(n->gpus[i].comm, &state);
            if (rc != GVNC_SUCCESS)
                return gv_nccl_fail(n, "ncclCommGetAsyncError", rc, n->gpus[i].comm);
            if (state == GVNC_IN_PROGRESS)
                busy = 1;
            else if (state != GVNC_SUCCESS)
                return gv_nccl_fail(n, n->stage, state, n->gpus[i].comm);
        }
        if (!busy)
            return GV_OK;
        if (gv_now_s() > n->deadline)
            return timeout(n);
        pause_after(since);
    }
}

/* Waits for everything queued on every GPU's stream, watching NCCL for asynchronous errors
 * (a peer that died) and the deadline (a collective that never completes). Each GPU is watched
 * until its stream is done (core/progress.h): when some finish and one never does, gv_run
 * names that one; when none does (NCCL's ranks wait for each other), none is named. */
gv_status gv_nccl_wait_streams(nccl_run *n)
{
    int ordinals[GV_PROGRESS_MAX_GPUS], pending[GV_PROGRESS_MAX_GPUS] = {0};
    size_t watched = 0;
    for (uint32_t i = 0; i < n->local; i++) {
        int rc = gv_session_mark(&n->gpus[i].s);
        if (rc != GVCU_SUCCESS)
            return gv_session_fail(&n->gpus[i].s, &n->err, "cuEventRecord", rc);
        pending[i] = 1;
        if (watched < GV_PROGRESS_MAX_GPUS)
            ordinals[watched++] = n->gpus[i].s.cuda_index;
    }
    gv_progress_watch_for(n->ctx, ordinals, watched, n->wait_allow_s);
    double since = gv_now_s();
    for (uint32_t polls = 0;; polls++) {
        int busy = 0;
        for (uint32_t i = 0; i < n->local; i++) {
            if (!pending[i])
                continue;
            int rc = gv_session_poll(&n->gpus[i].s);
            if (rc == GVCU_ERROR_NOT_READY) {
                busy = 1;
                continue;
            }
            if (rc != GVCU_SUCCESS)
                return gv_session_fail(&n->gpus[i].s, &n->err, n->stage, rc);
            pending[i] = 0;
            gv_progress_done(n->ctx, n->gpus[i].s.cuda_index);
        }
        if (!busy)
            return GV_OK;
        if (gv_now_s() > n->deadline)
            return timeout(n);
        if (polls % 50 == 49)
            for (uint32_t i = 0; i < n->local; i++) {
                gvnc_result state = GVNC_SUCCESS;
                n->nc->ncclCommGetAsyncError(n->gpus[i].comm, &state);
                if (state != GVNC_SUCCESS && state != GVNC_IN_PROGRESS)
                    return gv_nccl_fail(n, n->stage, state, n->gpus[i].comm);
            }
        pause_after(since);
    }
}

/* One collective on every local GPU: in one group when there are several, or sends and
 * receives, as nccl-tests does; one GPU's single call alone, since a group costs a fraction of
 * a microsecond that the smallest sizes show. Each GPU's context is made current before its
 * call, as nccl-tests does with cudaSetDevice, so that both time the same calls. */
static gv_status enqueue(nccl_run *n, uint64_t count)
{
    const struct gv_nccl_api *nc = n->nc;
    int grouped = n->local > 1 || n->composite, pending = 0;
    int rc = grouped ? nc->ncclGroupStart() : GVNC_SUCCESS;
    if (rc != GVNC_SUCCESS)
        return gv_nccl_fail(n, "ncclGroupStart", rc, NULL);
    for (uint32_t i = 0; i < n->local; i++) {
        nccl_gpu *g = &n->gpus[i];
        if (n->local > 1)
            gv_nccl_use(n, i); /* one GPU's context is current already */
        rc = gv_nccl_one_call(n, g, count);
        if (rc != GVNC_SUCCESS && rc != GVNC_IN_PROGRESS) {
            if (grouped)
                nc->ncclGroupEnd();
            return gv_nccl_fail(n, gv_nccl_collective_name(n->o.collective), rc, g->comm);
        }
        pending |= rc == GVNC_IN_PROGRESS;
    }
    rc = grouped ? nc->ncclGroupEnd() : pending ? GVNC_IN_PROGRESS : GVNC_SUCCESS;
    if (rc == GVNC_IN_PROGRESS)
        return gv_nccl_wait_comms(n);
    return rc == GVNC_SUCCESS ? GV_OK : gv_nccl_fail(n, "ncclGroupEnd", rc, NULL);
}

static gv_status open_gpus(nccl_run *n, const uint32_t *cuda, uint32_t count)
{
    n->gpus = calloc(count, sizeof *n->gpus);
    n->local = 0;
    if (!n->gpus)
        return gv_err(&n->err, GV_ERR_NO_MEMORY, "out of memory");
    size_t used = 0;
    for (uint32_t i = 0; i < count; i++) {
        gv_status st = gv_session_open(n->ctx, cuda[i], &n->gpus[i].s, &n->err);
        if (st != GV_OK) {
            gv_session_close(&n->gpus[i].s); /* half open: pops what it pushed */
            return st;
        }
        n->local = i + 1;
        int w = snprintf(n->r->gpus + used, sizeof n->r->gpus - used, "%s%u=%s", i ? " " : "",
                         (unsigned)cuda[i], n->gpus[i].s.bus_id);
        if (w > 0 && used + (size_t)w < sizeof n->r->gpus)
            used += (size_t)w;
    }
    return GV_OK;
}

static gv_status alloc_buffers(nccl_run *n)
{
    for (uint32_t i = 0; i < n->local; i++) {
        nccl_gpu *g = &n->gpus[i];
        const struct gv_cuda_api *cu = g->s.cu;
        gv_nccl_use(n, i);
        int rc;
        uint64_t zero = 0;
        /* In place, the output buffer holds the input too (nccl-tests' layout). */
        uint64_t recv_elems = n->o.flags & GV_NCCL_IN_PLACE && n->send_elems > n->recv_elems
                                  ? n->send_elems
                                  : n->recv_elems;
        if ((rc = cu->cuMemAlloc(&g->send, n->send_elems * 4)) ||
            (rc = cu->cuMemAlloc(&g->recv, recv_elems * 4)) ||
            (rc = cu->cuMemAlloc(&g->errors, sizeof zero)) ||
            (rc = cu->cuMemAlloc(&g->flag, sizeof zero)))
            return gv_session_fail(&g->s, &n->err, "cuMemAlloc", rc);
        if ((rc = cu->cuMemcpyHtoD(g->errors, &zero, sizeof zero)) ||
            (rc = gv_session_fill_collective(&g->s, g->send, n->send_elems, g->rank, n->o.seed)))
            return gv_session_fail(&g->s, &n->err, "filling the input", rc);
    }
    return GV_OK;
}

static gv_status init_comms(nccl_run *n, const gvnc_unique_id *id)
{
    gv_nccl_stage(n, "creating the communicators (waiting for every rank)");
    gvnc_config config = {
        sizeof config,         GVNC_CONFIG_MAGIC,     GVNC_CONFIG_VERSION,   n->blocking,
        GVNC_CONFIG_UNDEF_INT, GVNC_CONFIG_UNDEF_INT, GVNC_CONFIG_UNDEF_INT, NULL,
        GVNC_CONFIG_UNDEF_INT};
    double t0 = gv_now_s();
    int rc = n->nc->ncclGroupStart();
    if (rc != GVNC_SUCCESS)
        return gv_nccl_fail(n, "ncclGroupStart", rc, NULL);
    for (uint32_t i = 0; i < n->local; i++) {
        gv_nccl_use(n, i);
        gvnc_config c = config;
        rc = n->nc->ncclCommInitRankConfig(&n->gpus[i].comm, n->nranks, *id, n->gpus[i].rank, &c);
        if (rc != GVNC_SUCCESS && rc != GVNC_IN_PROGRESS) {
            n->nc->ncclGroupEnd();
            return gv_nccl_fail(n, "ncclCommInitRankConfig", rc, NULL);
        }
    }
    rc = n->nc->ncclGroupEnd();
    if (rc != GVNC_SUCCESS && rc != GVNC_IN_PROGRESS)
        return gv_nccl_fail(n, "ncclGroupEnd (creating the communicators)", rc, NULL);
    gv_status st = gv_nccl_wait_comms(n);
    n->r->init_s = gv_now_s() - t0;
    return st;
}

/* New communicators, from id, or from a unique ID made now when id is NULL. */
static gv_status new_comms(nccl_run *n, const gvnc_unique_id *id)
{
    gvnc_unique_id made;
    if (!id) {
        int rc = n->nc->ncclGetUniqueId(&made);
        if (rc != GVNC_SUCCESS)
            return gv_nccl_fail(n, "ncclGetUniqueId", rc, NULL);
        id = &made;
    }
    return init_comms(n, id);
}

/* The communicators made ahead of the sweep in this worker when they are its own
 * (nccl/nccl_ahead.h), else new ones; id NULL: a new one needs its unique ID made. */
static gv_status ahead_or_new_comms(nccl_run *n, const gvnc_unique_id *id, const uint32_t *cuda,
                                    long *log_from)
{
    if (n->blocking || (uint32_t)n->nranks != n->local)
        return new_comms(n, id);
    gv_nccl_stage(n, "creating the communicators (waiting for every rank)");
    gvnc_comm comms[GV_NCCL_MAX_GPUS];
    char why[256];
    double t0 = gv_now_s();
    int took =
        gv_nccl_ahead_take(n->ctx, cuda, n->local, n->deadline, comms, log_from, why, sizeof why);
    if (took == 0)
        return new_comms(n, id);
    n->r->init_s = gv_now_s() - t0;
    if (took < 0)
        return gv_now_s() > n->deadline ? timeout(n) : gv_err(&n->err, GV_ERR_DRIVER, "%s", why);
    for (uint32_t i = 0; i < n->local; i++)
        n->gpus[i].comm = comms[i];
    return GV_OK;
}

/* Reads and clears each GPU's count of wrong elements. */
static gv_status take_errors(nccl_run *n, uint64_t *wrong)
{
    *wrong = 0;
    for (uint32_t i = 0; i < n->local; i++) {
        nccl_gpu *g = &n->gpus[i];
        uint64_t count = 0, zero = 0;
        gv_nccl_use(n, i);
        int rc = g->s.cu->cuMemcpyDtoH(&count, g->errors, sizeof count);
        if (rc == GVCU_SUCCESS)
            rc = g->s.cu->cuMemcpyHtoD(g->errors, &zero, sizeof zero);
        if (rc != GVCU_SUCCESS)
            return gv_session_fail(&g->s, &n->err, "reading the error count", rc);
        *wrong += count;
    }
    return GV_OK;
}

/* One size, out of place or in place: warm-up, one verified operation, its error count read,
 * one untimed operation, then `iters` timed ones. */
gv_status gv_nccl_measure(nccl_run *n, uint64_t count, int in_place, gv_nccl_size *row)
{
    gv_status st = GV_OK;
    gv_nccl_place(n, count, in_place);
    for (uint32_t w = 0; w < n->o.warmup_iters && st == GV_OK; w++)
        st = enqueue(n, count);
    for (uint32_t i = 0; i < n->local && st == GV_OK; i++) {
        gv_nccl_use(n, i);
        int rc = gv_nccl_prepare(n, &n->gpus[i], count, in_place);
        if (rc != GVCU_SUCCESS)
            st = gv_session_fail(&n->gpus[i].s, &n->err, "preparing the buffers", rc);
    }
    if (st == GV_OK)
        st = enqueue(n, count);
    for (uint32_t i = 0; i < n->local && st == GV_OK; i++) {
        nccl_gpu *g = &n->gpus[i];
        uint64_t out = gv_nccl_checked_elems(n, g->rank, count);
        /* A pair's receiver holds the sender's input: sendrecv's result on the rank after it. */
        int pairs = n->o.collective == GV_NCCL_PAIRS;
        int coll = pairs ? GV_NCCL_SEND_RECV : n->o.collective;
        uint32_t as = pairs ? (uint32_t)((n->from + 1) % n->nranks) : (uint32_t)g->rank;
        gv_nccl_use(n, i);
        int rc =
            !out ? GVCU_SUCCESS
                 : gv_session_check_collective(&g->s, g->at_recv, out, coll, (uint32_t)n->nranks,
                                               as, count, n->o.seed, g->errors);
        if (rc != GVCU_SUCCESS)
            st = gv_session_fail(&g->s, &n->err, "checking the output", rc);
    }
    if (st == GV_OK)
        st = gv_nccl_wait_streams(n);
    if (st == GV_OK)
        st = take_errors(n, &row->wrong);
    /* Last before the clock starts: one operation waited for, which every rank leaves together
     * (nccl-tests' synchronized operation and MPI barrier); a rank still copying its error
     * count while the others' timed loops began would add its lag to their first operation. */
    double one = gv_now_s();
    if (st == GV_OK)
        st = enqueue(n, count);
    if (st == GV_OK)
        st = gv_nccl_wait_streams(n);
    if (st != GV_OK)
        return st;
    /* The timed operations are waited for together: each GPU may take twice what they would
     * at that one operation's pace before its silence counts (a 4 GiB sweep step over PCIe
     * takes seconds, not a hang). */
    n->wait_allow_s = 2.0 * n->o.iters * (gv_now_s() - one);
    double t0 = gv_now_s();
    for (uint32_t it = 0; it < n->o.iters && st == GV_OK; it++)
        st = enqueue(n, count);
    if (st == GV_OK)
        st = gv_nccl_wait_streams(n);
    n->wait_allow_s = 0;
    if (st != GV_OK)
        return st;
    double seconds = (gv_now_s() - t0) / n->o.iters;
    row->time_us = seconds * 1e6;
    row->algbw_gbps = seconds > 0 ? (double)row->bytes / seconds / 1e9 : 0;
    row->busbw_gbps = row->algbw_gbps * gv_nccl_bus_factor(n->o.collective, n->nranks);
    return GV_OK;
}

void gv_nccl_add_size(nccl_run *n, const gv_nccl_size *row, const gv_nccl_size *in_place)
{
    gv_nccl_result *r = n->r;
    r->in_place[r->size_count] = *in_place;
    r->sizes[r->size_count++] = *row;
    r->wrong_elements += row->wrong;
    if (row->busbw_gbps > r->peak_busbw_gbps || r->size_count == 1) {
        r->peak_busbw_gbps = row->busbw_gbps;
        r->peak_algbw_gbps = row->algbw_gbps;
        r->peak_bytes = row->bytes;
    }
    if (n->watch && n->watch->partial)
        n->watch->partial(n->watch->user, r);
}

static gv_status sweep(nccl_run *n)
{
    gv_nccl_result *r = n->r;
    char stage[128];
    for (uint64_t bytes = n->o.min_bytes; bytes <= n->o.max_bytes;) {
        gv_nccl_size row = {0};
        row.count = gv_nccl_count_for(n->o.collective, n->nranks, bytes, &row.bytes);
        if (row.count > 0 && r->size_count < GV_NCCL_MAX_SIZES) {
            snprintf(stage, sizeof stage, "running %s at %llu bytes",
                     gv_nccl_collective_name(n->o.collective), (unsigned long long)row.bytes);
            gv_nccl_stage(n, stage);
            gv_status st = gv_nccl_measure(n, row.count, 0, &row);
            if (st != GV_OK)
                return st;
            gv_nccl_size same = {.bytes = row.bytes, .count = row.count};
            if (n->o.flags & GV_NCCL_IN_PLACE && gv_nccl_has_in_place(n->o.collective)) {
                snprintf(stage, sizeof stage, "running %s in place at %llu bytes",
                         gv_nccl_collective_name(n->o.collective), (unsigned long long)row.bytes);
                gv_nccl_stage(n, stage);
                if ((st = gv_nccl_measure(n, row.count, 1, &same)) != GV_OK)
                    return st;
                r->wrong_elements += same.wrong;
            }
            gv_nccl_add_size(n, &row, &same);
        }
        if (bytes > n->o.max_bytes / n->o.step_factor)
            break;
        bytes *= n->o.step_factor;
    }
    return GV_OK;
}

/* Tears down in an order that cannot hang: communicators finalized (or, after a timeout or an
 * error, aborted, which stops their kernels), streams drained for at most a second, and buffers
 * freed only once nothing can still be writing to them. */
static void release(nccl_run *n, int abort)
{
    const struct gv_nccl_api *nc = n->nc;
    gv_errbuf keep = n->err;
    int timed_out = n->timed_out;
    if (!abort) {
        gv_nccl_stage(n, "finalizing the communicators");
        if (n->deadline < gv_now_s() + 0.5)
            n->deadline = gv_now_s() + 0.5;
        for (uint32_t i = 0; i < n->local && !abort; i++) {
            gv_nccl_use(n, i);
            int rc = nc->ncclCommFinalize(n->gpus[i].comm);
            abort = rc != GVNC_SUCCESS && rc != GVNC_IN_PROGRESS;
        }
        if (!abort && gv_nccl_wait_comms(n) != GV_OK)
            abort = 1;
    }
    for (uint32_t i = 0; i < n->local; i++)
        if (n->gpus[i].comm) {
            gv_progress_watch(n->ctx, &n->gpus[i].s.cuda_index, 1); /* it may hang here too */
            gv_nccl_use(n, i);
            if (abort)
                nc->ncclCommAbort(n->gpus[i].comm);
            else
                nc->ncclCommDestroy(n->gpus[i].comm);
            n->gpus[i].comm = NULL;
        }
    n->deadline = gv_now_s() + 1.0;
    gv_nccl_stage(n, "draining the streams");
    int drained = gv_nccl_wait_streams(n) == GV_OK;
    n->err = keep;
    n->timed_out = timed_out;
    for (uint32_t i = n->local; i-- > 0;) {
        nccl_gpu *g = &n->gpus[i];
        gv_progress_watch(n->ctx, &g->s.cuda_index, 1);
        gv_nccl_use(n, i);
        if (drained) {
            gvcu_deviceptr bufs[] = {g->send, g->recv, g->errors, g->flag};
            for (size_t b = 0; b < 4; b++)
                if (bufs[b])
                    g->s.cu->cuMemFree(bufs[b]);
        }
        gv_session_close(&g->s);
    }
    free(n->gpus);
    n->gpus = NULL;
    n->local = 0;
}

static void judge(nccl_run *n, gv_status st)
{
    gv_nccl_result *r = n->r;
    const char *coll = gv_nccl_collective_name(n->o.collective);
    if (st == GV_ERR_TIMEOUT) {
        r->verdict = GV_FAIL;
        snprintf(r->message, sizeof r->message, "%s over %d ranks did not finish: %s", coll,
                 n->nranks, n->err.text);
    } else if (st != GV_OK) {
        r->verdict = GV_ERROR;
        snprintf(r->message, sizeof r->message, "%s over %d ranks: %s", coll, n->nranks,
                 n->err.text);
    } else if (r->wrong_elements > 0) {
        uint64_t first = 0;
        for (uint32_t i = 0; i < r->size_count && !first; i++)
            if (r->sizes[i].wrong)
                first = r->sizes[i].bytes;
        r->verdict = GV_FAIL;
        snprintf(r->message, sizeof r->message,
                 "%s over %d ranks returned %llu wrong element(s), the first at %llu bytes: "
                 "silent data corruption on a GPU or link of this node",
                 coll, n->nranks, (unsigned long long)r->wrong_elements, (unsigned long long)first);
    } else if (n->o.collective == GV_NCCL_PAIRS && gv_nccl_judge_pairs(n)) {
        ; /* a pair far from the others: WARN naming it */
    } else if (n->o.min_busbw_gbps > 0 && r->peak_busbw_gbps < n->o.min_busbw_gbps) {
        r->verdict = GV_FAIL;
        snprintf(r->message, sizeof r->message,
                 "%s over %d ranks: peak busbw %.6g GB/s (at %llu bytes) is below the floor of "
                 "%.6g GB/s; data exact at %u sizes",
                 coll, n->nranks, r->peak_busbw_gbps, (unsigned long long)r->peak_bytes,
                 n->o.min_busbw_gbps, (unsigned)r->size_count);
    } else {
        r->verdict = GV_PASS;
        char pairs[96] = "";
        if (n->o.collective == GV_NCCL_PAIRS)
            snprintf(pairs, sizeof pairs, " (the median of %u pairs; none under half of it)",
                     (unsigned)r->pair_count);
        snprintf(r->message, sizeof r->message,
                 "%s over %d ranks: data exact at %u sizes; peak busbw %.1f GB/s at %llu bytes%s",
                 coll, n->nranks, (unsigned)r->size_count, r->peak_busbw_gbps,
                 (unsigned long long)r->peak_bytes,
                 gv_nccl_bus_factor(n->o.collective, n->nranks) == 0
                     ? " (one rank moves no data: busbw is 0)"
                     : pairs);
    }
}

static gv_status check_opts(gv_ctx *ctx, const gv_nccl_opts *o)
{
    if (o->flags & ~(GV_NCCL_IN_PROCESS | GV_NCCL_IN_PLACE))
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_nccl_opts.flags 0x%x: only GV_NCCL_IN_PROCESS (0x1) and "
                       "GV_NCCL_IN_PLACE (0x2) are defined",
                       (unsigned)o->flags);
    if (o->collective < 0 || o->collective >= GV_NCCL_COLLECTIVES)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_nccl_opts.collective %d is not a collective",
                       (int)o->collective);
    if (o->min_bytes < 4 || o->max_bytes < o->min_bytes || o->max_bytes > (64ull << 30))
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_nccl_opts: sizes %llu..%llu bytes (need 4 <= min <= max <= 64 GiB)",
                       (unsigned long long)o->min_bytes, (unsigned long long)o->max_bytes);
    if (o->step_factor < 2 || o->step_factor > 1024)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_nccl_opts.step_factor %u (2..1024)",
                       (unsigned)o->step_factor);
    /* 4 B .. 64 GiB by factors of 2 or more is at most 35 sizes: sizes[] always has room. */
    if (o->iters < 1 || o->iters > 100000 || o->warmup_iters > 100000)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_nccl_opts: iters %u (1..100000), warmup %u",
                       (unsigned)o->iters, (unsigned)o->warmup_iters);
    if (!(o->deadline_s >= 0) || o->deadline_s > 86400 || !(o->min_busbw_gbps >= 0))
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_nccl_opts: deadline %g s (0..86400), min busbw %g (>= 0)", o->deadline_s,
                       o->min_busbw_gbps);
    if (o->gpu_count > GV_NCCL_MAX_GPUS)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_nccl_opts.gpu_count %u (at most %d)",
                       (unsigned)o->gpu_count, GV_NCCL_MAX_GPUS);
    return GV_OK;
}

/* The argument checks both public calls share; fills *o from opts and the defaults. */
static gv_status prologue(gv_ctx *ctx, const char *fn, const gv_nccl_opts *opts,
                          gv_nccl_result *out, gv_nccl_opts *o)
{
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "%s: out is NULL", fn);
    static const gv_nccl_opts defaults = GV_NCCL_OPTS_INIT;
    gv_status st;
    if ((st = gv_out_known(ctx, "gv_nccl_result", out, GV_NCCL_RESULT_SIZE_V1)) ||
        (st = gv_opts_in(ctx, "gv_nccl_opts", o, sizeof *o, opts, GV_NCCL_OPTS_SIZE_V1, &defaults)))
        return st;
    return check_opts(ctx, o);
}

/* The vtable, or GV_ERR_LIBRARY on the context naming why NCCL is not usable. */
static gv_status usable_nccl(gv_ctx *ctx, const struct gv_nccl_api **nc)
{
    *nc = gv_nccl(ctx);
    if (*nc)
        return GV_OK;
    gv_lib_slot *slot = gv_library_slot(ctx, GV_LIB_NCCL);
    return gv_fail(ctx, GV_ERR_LIBRARY, "NCCL is not usable: %s",
                   slot->detail[0] ? slot->detail : slot->tried);
}

/* The library and its versions in the result. */
static gv_status load_nccl(gv_ctx *ctx, gv_nccl_result *r, const struct gv_nccl_api **nc)
{
    gv_status st = usable_nccl(ctx, nc);
    if (st != GV_OK)
        return st;
    int v = 0;
    if ((*nc)->ncclGetVersion(&v) == GVNC_SUCCESS && v > 0) {
        r->nccl_version = v;
        gv_nccl_version_text(v, r->version, sizeof r->version);
    }
    r->nccl_cuda = gv_nccl_build_cuda(ctx);
    return GV_OK;
}

/* Sizes that leave no element per rank (an all-gather of 16 bytes over 8 ranks). */
static gv_status check_ranks(gv_ctx *ctx, const gv_nccl_opts *o, int nranks)
{
    uint64_t ignored;
    if (o->collective == GV_NCCL_PAIRS && (nranks < 2 || nranks > GV_NCCL_PAIRS_MAX_RANKS))
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "pairs over %d ranks: between 2 and %d ranks (%d ordered pairs at most)",
                       nranks, GV_NCCL_PAIRS_MAX_RANKS, GV_NCCL_MAX_PAIRS);
    if (gv_nccl_count_for(o->collective, nranks, o->max_bytes, &ignored) == 0)
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_nccl_opts.max_bytes %llu leaves no element per rank for a %s over %d "
                       "ranks",
                       (unsigned long long)o->max_bytes, gv_nccl_collective_name(o->collective),
                       nranks);
    return GV_OK;
}

/* The sweep in this process, after the argument checks: cuda[] are this process's GPUs,
 * ranks first_rank.. of nranks; id NULL when the ranks made ahead may be the sweep's (a unique
 * ID is made only if they are not). */
static gv_status run(gv_ctx *ctx, const struct gv_nccl_api *nc, const gv_nccl_call *call,
                     const gvnc_unique_id *id, const uint32_t *cuda, uint32_t count, int first_rank,
                     int nranks, int blocking, const gv_call_watch *watch, gv_nccl_result *r)
{
    nccl_run *n = calloc(1, sizeof *n);
    if (!n)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory");
    const gv_nccl_opts *o = &call->o;
    double t0 = gv_now_s();
    n->ctx = ctx, n->nc = nc, n->o = *o, n->r = r, n->nranks = nranks;
    n->blocking = blocking, n->watch = watch;
    n->composite = gv_nccl_composite(n); /* once: every operation asks */
    n->deadline_s = o->deadline_s > 0 ? o->deadline_s : ctx->deadline_s;
    n->deadline = t0 + n->deadline_s;
    gv_nccl_stage(n, "opening the GPUs");
    r->collective = o->collective;
    r->nranks = nranks;
    r->rank = first_rank;
    r->local_gpus = (int32_t)count;
    gv_nccl_settings_text(ctx, r->settings, sizeof r->settings);
    uint64_t ignored, per = gv_nccl_count_for(o->collective, nranks, o->max_bytes, &ignored);
    n->send_elems = gv_nccl_send_elems(o->collective, nranks, per);
    n->recv_elems = gv_nccl_recv_elems(o->collective, nranks, per);
    int several;
    gv_status st = gv_session_take_several(ctx, count, &several, &n->err);
    if (st == GV_OK)
        st = open_gpus(n, cuda, count);
    for (uint32_t i = 0; i < n->local; i++)
        n->gpus[i].rank = first_rank + (int)i;
    if (st == GV_OK) {
        gv_nccl_stage(n, "allocating the buffers");
        st = alloc_buffers(n);
    }
    long log_from = gv_nccl_log_mark(ctx->nccl_log);
    if (st == GV_OK)
        st = ahead_or_new_comms(n, id, cuda, &log_from);
    if (st == GV_OK)
        st = n->o.collective == GV_NCCL_PAIRS ? gv_nccl_sweep_pairs(n) : sweep(n);
    if (ctx->nccl_log[0]) /* NCCL's account of its connections, whatever the outcome */
        gv_nccl_log_read(ctx->nccl_log, log_from, r);
    /* A worker that ends with this call leaves the communicators, streams and buffers of a run
     * that went well to its exit: finalizing and destroying them took 0.44 s of a 1.2 s sweep
     * on 2 x H200, the exit no longer for it. Ranks in other processes may still be finalizing
     * with ours: those keep the teardown, as does anything after an error. */
    if (st == GV_OK && ctx->exit_follows && n->local == (uint32_t)nranks) {
        gv_nccl_stage(n, "leaving the communicators to the worker's exit");
        ctx->left_to_exit = 1; /* the GPUs too, and so the several-GPUs lock */
    } else {
        release(n, st != GV_OK);
        if (several)
            gv_several_gpus_give();
    }
    r->total_s = gv_now_s() - t0;
    judge(n, st);
    if (st != GV_OK)
        st = gv_fail(ctx, st, "%s", r->message);
    free(n);
    return st;
}

gv_status gv_nccl_call_here(gv_ctx *ctx, const gv_nccl_call *call, int blocking,
                            const gv_call_watch *watch, gv_nccl_result *r)
{
    const struct gv_nccl_api *nc;
    r->isolation = blocking ? GV_ISOLATION_PROCESS : GV_ISOLATION_NONE;
    gv_status st = load_nccl(ctx, r, &nc);
    if (st != GV_OK)
        return st;
    gvnc_unique_id id;
    if (call->by_rank) {
        if ((st = check_ranks(ctx, &call->o, call->nranks)) != GV_OK)
            return st;
        _Static_assert(sizeof id == sizeof call->id, "gv_nccl_id mirrors ncclUniqueId");
        memcpy(&id, &call->id, sizeof id);
        return run(ctx, nc, call, &id, &call->gpu, 1, call->rank, call->nranks, blocking, watch, r);
    }
    uint32_t all[GV_NCCL_MAX_GPUS];
    const uint32_t *cuda = call->o.gpus;
    uint32_t count = call->o.gpu_count;
    if (count == 0) {
        const struct gv_cuda_api *cu = gv_cuda(ctx);
        int devices = 0;
        if (!cu || gv_cuda_init(ctx) != GVCU_SUCCESS ||
            cu->cuDeviceGetCount(&devices) != GVCU_SUCCESS || devices <= 0)
            return gv_fail(ctx, GV_ERR_LIBRARY, "gv_nccl_bench: CUDA lists no GPU");
        count = devices > GV_NCCL_MAX_GPUS ? GV_NCCL_MAX_GPUS : (uint32_t)devices;
        for (uint32_t i = 0; i < count; i++)
            all[i] = i;
        cuda = all;
    }
    if ((st = check_ranks(ctx, &call->o, (int)count)) != GV_OK)
        return st;
    if (!blocking && gv_nccl_ahead_pending(ctx))
        return run(ctx, nc, call, NULL, cuda, count, 0, (int)count, blocking, watch, r);
    int rc = nc->ncclGetUniqueId(&id);
    if (rc != GVNC_SUCCESS)
        return gv_fail(ctx, GV_ERR_DRIVER, "ncclGetUniqueId: NCCL error %d", rc);
    return run(ctx, nc, call, &id, cuda, count, 0, (int)count, blocking, watch, r);
}

/* The sweep as a call of gpuverify-worker (worker/call.h): blocking communicators there, the
 * caller keeping the deadline by killing the worker. */
static gv_status call_here(gv_ctx *ctx, const void *args, const gv_call_watch *watch, void *result)
{
    return gv_nccl_call_here(ctx, args, 1, watch, result);
}

static double call_deadline(const gv_ctx *ctx, const void *args)
{
    (void)ctx;
    return ((const gv_nccl_call *)args)->o.deadline_s;
}

static void call_prefill(const void *args, void *result)
{
    const gv_nccl_call *call = args;
    gv_nccl_result *r = result;
    r->collective = call->o.collective;
    r->nranks = call->by_rank ? call->nranks : (int32_t)call->o.gpu_count;
    r->rank = call->by_rank ? call->rank : 0;
    r->local_gpus = call->by_rank ? 1 : (int32_t)call->o.gpu_count;
}

/* "all_reduce over 2 ranks", or over the local GPUs when the worker never said how many. */
static void call_describe(const void *args, const void *result, char *out, size_t cap)
{
    (void)args;
    const gv_nccl_result *r = result;
    if (r->nranks > 0)
        snprintf(out, cap, "%s over %d ranks", gv_nccl_collective_name(r->collective),
                 (int)r->nranks);
    else
        snprintf(out, cap, "%s over the local GPUs", gv_nccl_collective_name(r->collective));
}

const gv_call_kind gv_call_nccl = GV_CALL_KIND("nccl", gv_nccl_call, gv_nccl_result, 0, call_here,
                                               call_deadline, call_prefill, call_describe);

/* Both public calls after their argument checks: in gpuverify-worker when one is found and
 * the caller did not ask for its own process; the result copied out either way. */
static gv_status dispatch(gv_ctx *ctx, gv_nccl_call *call, gv_nccl_result *out)
{
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    gv_worker_place where;
    gv_status st;
    if (call->o.deadline_s <= 0)
        call->o.deadline_s = ctx->deadline_s; /* the worker's context has its own default */
    /* In this process the communicators must be non-blocking: nobody else would end a wait
     * that never ends (inside gv_run's worker its caller would, but the sweep's own deadline
     * makes the row say where it stopped). */
    int here = (call->o.flags & GV_NCCL_IN_PROCESS) || (ctx->flags & GV_CTX_IN_PROCESS);
    if (!here && gv_worker_find(ctx, &where)) {
        double t0 = gv_now_s();
        st = gv_call_in_worker(ctx, where.path, &gv_call_nccl, call, NULL, NULL, &r);
        r.isolation = GV_ISOLATION_PROCESS;
        r.total_s = gv_now_s() - t0;
    } else {
        st = gv_nccl_call_here(ctx, call, 0, NULL, &r);
    }
    /* Refused input or no NCCL: nothing ran, nothing is written. */
    if (st == GV_ERR_INVALID_ARG || st == GV_ERR_LIBRARY)
        return st;
    gv_status copied = gv_copy_out(out, &r, sizeof r, GV_NCCL_RESULT_SIZE_V1);
    return st != GV_OK ? st : copied;
}

gv_status gv_nccl_bench(gv_ctx *ctx, const gv_nccl_opts *opts, gv_nccl_result *out)
{
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    gv_nccl_call call = {0};
    gv_status st = prologue(ctx, "gv_nccl_bench", opts, out, &call.o);
    if (st != GV_OK)
        return st;
    for (uint32_t i = 0; i < call.o.gpu_count; i++)
        for (uint32_t j = 0; j < i; j++)
            if (call.o.gpus[i] == call.o.gpus[j])
                return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_nccl_opts.gpus lists GPU %u twice",
                               (unsigned)call.o.gpus[i]);
    if (call.o.gpu_count && (st = check_ranks(ctx, &call.o, (int)call.o.gpu_count)) != GV_OK)
        return st;
    return dispatch(ctx, &call, out);
}

gv_status gv_nccl_unique_id(gv_ctx *ctx, gv_nccl_id *out)
{
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_nccl_unique_id: out is NULL");
    const struct gv_nccl_api *nc;
    gv_status st = usable_nccl(ctx, &nc);
    if (st != GV_OK)
        return st;
    gvnc_unique_id id;
    int rc = nc->ncclGetUniqueId(&id);
    if (rc != GVNC_SUCCESS)
        return gv_fail(ctx, GV_ERR_DRIVER, "ncclGetUniqueId: NCCL error %d", rc);
    _Static_assert(sizeof id == sizeof *out, "gv_nccl_id mirrors ncclUniqueId");
    memcpy(out, &id, sizeof id);
    return GV_OK;
}

gv_status gv_nccl_bench_rank(gv_ctx *ctx, const gv_nccl_id *id, int32_t rank, int32_t nranks,
                             uint32_t gpu, const gv_nccl_opts *opts, gv_nccl_result *out)
{
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!id)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_nccl_bench_rank: id is NULL");
    if (nranks < 1 || nranks > (1 << 20) || rank < 0 || rank >= nranks)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_nccl_bench_rank: rank %d of %d", (int)rank,
                       (int)nranks);
    gv_nccl_call call = {.by_rank = 1, .id = *id, .rank = rank, .nranks = nranks, .gpu = gpu};
    gv_status st = prologue(ctx, "gv_nccl_bench_rank", opts, out, &call.o);
    if (st == GV_OK)
        st = check_ranks(ctx, &call.o, nranks);
    return st != GV_OK ? st : dispatch(ctx, &call, out);
}
