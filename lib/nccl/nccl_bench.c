/* gv_nccl_bench, gv_nccl_unique_id and gv_nccl_bench_rank: a size sweep of one NCCL collective
 * with exact data checked on the GPU and nccl-tests' timing and figures.
 *
 * The public calls hand the sweep to gpuverify-worker when one is found (worker/nccl_client.c):
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
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/libraries.h"
#include "backends/nccl_backend.h"
#include "compute/session.h"
#include "core/context.h"
#include "core/sizes.h"
#include "core/util.h"
#include "gpuverify/gv_nccl.h"
#include "gpuverify/gv_report.h"
#include "kernels/gv_random.h"
#include "nccl/nccl.h"
#include "nccl/nccl_log.h"
#include "worker/worker.h"

typedef struct nccl_gpu {
    gv_session s;
    gvnc_comm comm;
    int rank;
    gvcu_deviceptr send, recv, errors;
    gvcu_deviceptr at_send, at_recv; /* what the collective is given now (place()) */
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
    double deadline_s;
    int blocking;               /* communicators created blocking (in gpuverify-worker) */
    int from, to;               /* GV_NCCL_PAIRS: the pair under test */
    const gv_nccl_watch *watch; /* told of each stage and measured size; may be NULL */
    const char *stage;          /* what was under way, for messages */
    int timed_out;
    gv_errbuf err;
} nccl_run;

const char *gv_nccl_collective_name(int32_t collective)
{
    static const char *const names[GV_NCCL_COLLECTIVES] = {
        "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
        "alltoall",   "gather",     "scatter",        "sendrecv",  "pairs"};
    return collective >= 0 && collective < GV_NCCL_COLLECTIVES ? names[collective] : "unknown";
}

double gv_nccl_bus_factor(int32_t collective, int nranks)
{
    if (nranks < 1)
        return 0;
    switch (collective) {
    case GV_NCCL_ALL_REDUCE:
        return 2.0 * (nranks - 1) / nranks;
    case GV_NCCL_BROADCAST:
    case GV_NCCL_REDUCE:
    case GV_NCCL_SEND_RECV:
    case GV_NCCL_PAIRS:
        return 1;
    default:
        return (double)(nranks - 1) / nranks;
    }
}

/* Collectives whose "bytes" covers every rank's part: nranks x count elements. */
static int split(int32_t coll)
{
    return coll == GV_NCCL_ALL_GATHER || coll == GV_NCCL_REDUCE_SCATTER ||
           coll == GV_NCCL_ALL_TO_ALL || coll == GV_NCCL_GATHER || coll == GV_NCCL_SCATTER;
}

/* Elements each rank passes to NCCL for a sweep size, and the size nccl-tests prints
 * (all-to-all parts in whole 16 bytes, as nccl-tests makes them). */
static uint64_t count_for(int32_t coll, int nranks, uint64_t bytes, uint64_t *actual)
{
    uint64_t parts = split(coll) ? (uint64_t)nranks : 1;
    uint64_t count = bytes / 4 / parts;
    if (coll == GV_NCCL_ALL_TO_ALL)
        count &= ~(uint64_t)3;
    *actual = count * 4 * parts;
    return count;
}

/* Elements of one rank's input and output buffers for `count` (count_for's). */
static uint64_t send_elems_for(int32_t coll, int nranks, uint64_t count)
{
    int whole =
        coll == GV_NCCL_REDUCE_SCATTER || coll == GV_NCCL_ALL_TO_ALL || coll == GV_NCCL_SCATTER;
    return whole ? count * (uint64_t)nranks : count;
}

static uint64_t recv_elems_for(int32_t coll, int nranks, uint64_t count)
{
    int whole = coll == GV_NCCL_ALL_GATHER || coll == GV_NCCL_ALL_TO_ALL || coll == GV_NCCL_GATHER;
    return whole ? count * (uint64_t)nranks : count;
}

/* The output elements of `rank` that the collective defines: none off the root of a reduce or
 * a gather. */
static uint64_t checked_elems(const nccl_run *n, int rank, uint64_t count)
{
    int32_t coll = n->o.collective;
    if ((coll == GV_NCCL_REDUCE || coll == GV_NCCL_GATHER) && rank != 0)
        return 0;
    if (coll == GV_NCCL_PAIRS && rank != n->to)
        return 0;
    return recv_elems_for(coll, n->nranks, count);
}

/* What is under way now; the watcher hears of it (the worker passes it to its caller). */
static void set_stage(nccl_run *n, const char *stage)
{
    n->stage = stage;
    if (n->watch && n->watch->stage)
        n->watch->stage(n->watch->user, stage);
}

static gv_status nccl_fail(nccl_run *n, const char *call, int rc, gvnc_comm comm)
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

static int use(nccl_run *n, uint32_t i)
{
    return n->gpus[i].s.cu->cuCtxSetCurrent(n->gpus[i].s.context);
}

/* Polls every communicator until none is in progress: creation, and operations queued in
 * non-blocking mode, complete in NCCL's own threads. */
static gv_status wait_comms(nccl_run *n)
{
    double since = gv_now_s();
    for (;;) {
        int busy = 0;
        for (uint32_t i = 0; i < n->local; i++) {
            gvnc_result state = GVNC_SUCCESS;
            int rc = n->nc->ncclCommGetAsyncError(n->gpus[i].comm, &state);
            if (rc != GVNC_SUCCESS)
                return nccl_fail(n, "ncclCommGetAsyncError", rc, n->gpus[i].comm);
            if (state == GVNC_IN_PROGRESS)
                busy = 1;
            else if (state != GVNC_SUCCESS)
                return nccl_fail(n, n->stage, state, n->gpus[i].comm);
        }
        if (!busy)
            return GV_OK;
        if (gv_now_s() > n->deadline)
            return timeout(n);
        pause_after(since);
    }
}

/* Waits for everything queued on every GPU's stream, watching NCCL for asynchronous errors
 * (a peer that died) and the deadline (a collective that never completes). */
static gv_status wait_streams(nccl_run *n)
{
    for (uint32_t i = 0; i < n->local; i++) {
        int rc = n->gpus[i].s.cu->cuEventRecord(n->gpus[i].s.done, n->gpus[i].s.stream);
        if (rc != GVCU_SUCCESS)
            return gv_session_fail(&n->gpus[i].s, &n->err, "cuEventRecord", rc);
    }
    double since = gv_now_s();
    for (uint32_t polls = 0;; polls++) {
        int busy = 0;
        for (uint32_t i = 0; i < n->local && !busy; i++) {
            int rc = n->gpus[i].s.cu->cuEventQuery(n->gpus[i].s.done);
            if (rc == GVCU_ERROR_NOT_READY)
                busy = 1;
            else if (rc != GVCU_SUCCESS)
                return gv_session_fail(&n->gpus[i].s, &n->err, n->stage, rc);
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
                    return nccl_fail(n, n->stage, state, n->gpus[i].comm);
            }
        pause_after(since);
    }
}

/* Whether NCCL has the collective as a call of its own (all-to-all, gather and scatter from
 * 2.28), where nccl-tests uses it; else it is made of sends and receives. */
static int native(const nccl_run *n, const void *fn)
{
    return fn && n->r->nccl_version >= 22800;
}

/* Collectives that are several sends and receives per rank: always inside a group. */
static int composite(const nccl_run *n)
{
    switch (n->o.collective) {
    case GV_NCCL_SEND_RECV:
        return 1;
    case GV_NCCL_ALL_TO_ALL:
        return !native(n, (const void *)n->nc->ncclAlltoAll);
    case GV_NCCL_GATHER:
        return !native(n, (const void *)n->nc->ncclGather);
    case GV_NCCL_SCATTER:
        return !native(n, (const void *)n->nc->ncclScatter);
    default:
        return 0;
    }
}

/* One GPU's part of the collective: NCCL's call, or its sends and receives as nccl-tests makes
 * them (root 0). */
static int one_call(const nccl_run *n, const nccl_gpu *g, uint64_t count)
{
    const struct gv_nccl_api *nc = n->nc;
    const char *send = (const char *)(uintptr_t)g->at_send;
    char *recv = (char *)(uintptr_t)g->at_recv;
    gvcu_stream st = g->s.stream;
    size_t part = (size_t)count * 4;
    int rc = GVNC_SUCCESS, nranks = n->nranks, p2p = composite(n);
    switch (n->o.collective) {
    case GV_NCCL_ALL_GATHER:
        return nc->ncclAllGather(send, recv, count, GVNC_FLOAT32, g->comm, st);
    case GV_NCCL_REDUCE_SCATTER:
        return nc->ncclReduceScatter(send, recv, count, GVNC_FLOAT32, GVNC_SUM, g->comm, st);
    case GV_NCCL_BROADCAST:
        return nc->ncclBroadcast(send, recv, count, GVNC_FLOAT32, 0, g->comm, st);
    case GV_NCCL_REDUCE:
        return nc->ncclReduce(send, recv, count, GVNC_FLOAT32, GVNC_SUM, 0, g->comm, st);
    case GV_NCCL_PAIRS:
        if (g->rank == n->from)
            return nc->ncclSend(send, count, GVNC_FLOAT32, n->to, g->comm, st);
        if (g->rank == n->to)
            return nc->ncclRecv(recv, count, GVNC_FLOAT32, n->from, g->comm, st);
        return GVNC_SUCCESS;
    case GV_NCCL_SEND_RECV:
        rc = nc->ncclSend(send, count, GVNC_FLOAT32, (g->rank + 1) % nranks, g->comm, st);
        if (rc == GVNC_SUCCESS || rc == GVNC_IN_PROGRESS)
            rc = nc->ncclRecv(recv, count, GVNC_FLOAT32, (g->rank + nranks - 1) % nranks, g->comm,
                              st);
        return rc;
    case GV_NCCL_ALL_TO_ALL:
        if (!p2p)
            return nc->ncclAlltoAll(send, recv, count, GVNC_FLOAT32, g->comm, st);
        for (int r = 0; r < nranks && (rc == GVNC_SUCCESS || rc == GVNC_IN_PROGRESS); r++) {
            rc = nc->ncclSend(send + (size_t)r * part, count, GVNC_FLOAT32, r, g->comm, st);
            if (rc == GVNC_SUCCESS || rc == GVNC_IN_PROGRESS)
                rc = nc->ncclRecv(recv + (size_t)r * part, count, GVNC_FLOAT32, r, g->comm, st);
        }
        return rc;
    case GV_NCCL_GATHER:
        if (!p2p)
            return nc->ncclGather(send, recv, count, GVNC_FLOAT32, 0, g->comm, st);
        rc = nc->ncclSend(send, count, GVNC_FLOAT32, 0, g->comm, st);
        for (int r = 0;
             g->rank == 0 && r < nranks && (rc == GVNC_SUCCESS || rc == GVNC_IN_PROGRESS); r++)
            rc = nc->ncclRecv(recv + (size_t)r * part, count, GVNC_FLOAT32, r, g->comm, st);
        return rc;
    case GV_NCCL_SCATTER:
        if (!p2p)
            return nc->ncclScatter(send, recv, count, GVNC_FLOAT32, 0, g->comm, st);
        for (int r = 0;
             g->rank == 0 && r < nranks && (rc == GVNC_SUCCESS || rc == GVNC_IN_PROGRESS); r++)
            rc = nc->ncclSend(send + (size_t)r * part, count, GVNC_FLOAT32, r, g->comm, st);
        if (rc == GVNC_SUCCESS || rc == GVNC_IN_PROGRESS)
            rc = nc->ncclRecv(recv, count, GVNC_FLOAT32, 0, g->comm, st);
        return rc;
    default:
        return nc->ncclAllReduce(send, recv, count, GVNC_FLOAT32, GVNC_SUM, g->comm, st);
    }
}

/* One collective on every local GPU: in one group when there are several, or sends and
 * receives, as nccl-tests does; one GPU's single call alone, since a group costs a fraction of
 * a microsecond that the smallest sizes show. */
static gv_status enqueue(nccl_run *n, uint64_t count)
{
    const struct gv_nccl_api *nc = n->nc;
    int grouped = n->local > 1 || composite(n), pending = 0;
    int rc = grouped ? nc->ncclGroupStart() : GVNC_SUCCESS;
    if (rc != GVNC_SUCCESS)
        return nccl_fail(n, "ncclGroupStart", rc, NULL);
    for (uint32_t i = 0; i < n->local; i++) {
        nccl_gpu *g = &n->gpus[i];
        if (n->local > 1)
            use(n, i); /* one GPU's context is current already */
        rc = one_call(n, g, count);
        if (rc != GVNC_SUCCESS && rc != GVNC_IN_PROGRESS) {
            if (grouped)
                nc->ncclGroupEnd();
            return nccl_fail(n, gv_nccl_collective_name(n->o.collective), rc, g->comm);
        }
        pending |= rc == GVNC_IN_PROGRESS;
    }
    rc = grouped ? nc->ncclGroupEnd() : pending ? GVNC_IN_PROGRESS : GVNC_SUCCESS;
    if (rc == GVNC_IN_PROGRESS)
        return wait_comms(n);
    return rc == GVNC_SUCCESS ? GV_OK : nccl_fail(n, "ncclGroupEnd", rc, NULL);
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
        use(n, i);
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
    set_stage(n, "creating the communicators (waiting for every rank)");
    gvnc_config config = {
        sizeof config,         GVNC_CONFIG_MAGIC,     GVNC_CONFIG_VERSION,   n->blocking,
        GVNC_CONFIG_UNDEF_INT, GVNC_CONFIG_UNDEF_INT, GVNC_CONFIG_UNDEF_INT, NULL,
        GVNC_CONFIG_UNDEF_INT};
    double t0 = gv_now_s();
    int rc = n->nc->ncclGroupStart();
    if (rc != GVNC_SUCCESS)
        return nccl_fail(n, "ncclGroupStart", rc, NULL);
    for (uint32_t i = 0; i < n->local; i++) {
        use(n, i);
        gvnc_config c = config;
        rc = n->nc->ncclCommInitRankConfig(&n->gpus[i].comm, n->nranks, *id, n->gpus[i].rank, &c);
        if (rc != GVNC_SUCCESS && rc != GVNC_IN_PROGRESS) {
            n->nc->ncclGroupEnd();
            return nccl_fail(n, "ncclCommInitRankConfig", rc, NULL);
        }
    }
    rc = n->nc->ncclGroupEnd();
    if (rc != GVNC_SUCCESS && rc != GVNC_IN_PROGRESS)
        return nccl_fail(n, "ncclGroupEnd (creating the communicators)", rc, NULL);
    gv_status st = wait_comms(n);
    n->r->init_s = gv_now_s() - t0;
    return st;
}

/* Reads and clears each GPU's count of wrong elements. */
static gv_status take_errors(nccl_run *n, uint64_t *wrong)
{
    *wrong = 0;
    for (uint32_t i = 0; i < n->local; i++) {
        nccl_gpu *g = &n->gpus[i];
        uint64_t count = 0, zero = 0;
        use(n, i);
        int rc = g->s.cu->cuMemcpyDtoH(&count, g->errors, sizeof count);
        if (rc == GVCU_SUCCESS)
            rc = g->s.cu->cuMemcpyHtoD(g->errors, &zero, sizeof zero);
        if (rc != GVCU_SUCCESS)
            return gv_session_fail(&g->s, &n->err, "reading the error count", rc);
        *wrong += count;
    }
    return GV_OK;
}

/* Whether a collective has an in-place form nccl-tests measures (all-to-all, sendrecv and the
 * pairs have none). */
static int has_in_place(int32_t coll)
{
    return coll != GV_NCCL_ALL_TO_ALL && coll != GV_NCCL_SEND_RECV && coll != GV_NCCL_PAIRS;
}

/* Points every GPU's collective at its buffers: out of place, send and recv; in place, both
 * inside recv where NCCL's documentation puts them (all-gather and gather send from the rank's
 * part of the output, reduce-scatter and scatter receive into the rank's part of the input). */
static void place(nccl_run *n, uint64_t count, int in_place)
{
    int32_t coll = n->o.collective;
    for (uint32_t i = 0; i < n->local; i++) {
        nccl_gpu *g = &n->gpus[i];
        uint64_t part = count * 4 * (uint64_t)g->rank;
        g->at_send = in_place ? g->recv : g->send;
        g->at_recv = g->recv;
        if (in_place && (coll == GV_NCCL_ALL_GATHER || coll == GV_NCCL_GATHER))
            g->at_send += part;
        if (in_place && (coll == GV_NCCL_REDUCE_SCATTER || coll == GV_NCCL_SCATTER))
            g->at_recv += part;
    }
}

/* Before the verified operation: the output poisoned (NaN) where the collective must write;
 * in place, the input written where it belongs first (an output that is the untouched input
 * still fails: it differs from the exact result but for one rank's all-reduce). */
static int prepare(nccl_run *n, nccl_gpu *g, uint64_t count, int in_place)
{
    int32_t coll = n->o.collective;
    uint64_t out = checked_elems(n, g->rank, count);
    uint64_t in = send_elems_for(coll, n->nranks, count);
    gv_session *s = &g->s;
    int rc = GVCU_SUCCESS;
    if (!in_place)
        return out ? gv_session_fill_collective(s, g->at_recv, out, -1, 0) : GVCU_SUCCESS;
    if (coll == GV_NCCL_ALL_GATHER || coll == GV_NCCL_GATHER) {
        rc = gv_session_fill_collective(s, g->recv, count * (uint64_t)n->nranks, -1, 0);
        return rc ? rc : gv_session_fill_collective(s, g->at_send, count, g->rank, n->o.seed);
    }
    if (coll == GV_NCCL_SCATTER && g->rank != 0)
        return gv_session_fill_collective(s, g->at_recv, count, -1, 0);
    return gv_session_fill_collective(s, g->recv, in, g->rank, n->o.seed);
}

/* One size, out of place or in place: warm-up, one verified operation, one untimed operation,
 * then `iters` timed ones. */
static gv_status measure_size(nccl_run *n, uint64_t count, int in_place, gv_nccl_size *row)
{
    gv_status st = GV_OK;
    place(n, count, in_place);
    for (uint32_t w = 0; w < n->o.warmup_iters && st == GV_OK; w++)
        st = enqueue(n, count);
    for (uint32_t i = 0; i < n->local && st == GV_OK; i++) {
        use(n, i);
        int rc = prepare(n, &n->gpus[i], count, in_place);
        if (rc != GVCU_SUCCESS)
            st = gv_session_fail(&n->gpus[i].s, &n->err, "preparing the buffers", rc);
    }
    if (st == GV_OK)
        st = enqueue(n, count);
    for (uint32_t i = 0; i < n->local && st == GV_OK; i++) {
        nccl_gpu *g = &n->gpus[i];
        uint64_t out = checked_elems(n, g->rank, count);
        /* A pair's receiver holds the sender's input: sendrecv's result on the rank after it. */
        int pairs = n->o.collective == GV_NCCL_PAIRS;
        int coll = pairs ? GV_NCCL_SEND_RECV : n->o.collective;
        uint32_t as = pairs ? (uint32_t)((n->from + 1) % n->nranks) : (uint32_t)g->rank;
        use(n, i);
        int rc =
            !out ? GVCU_SUCCESS
                 : gv_session_check_collective(&g->s, g->at_recv, out, coll, (uint32_t)n->nranks,
                                               as, count, n->o.seed, g->errors);
        if (rc != GVCU_SUCCESS)
            st = gv_session_fail(&g->s, &n->err, "checking the output", rc);
    }
    if (st == GV_OK)
        st = enqueue(n, count);
    if (st == GV_OK)
        st = wait_streams(n);
    if (st == GV_OK)
        st = take_errors(n, &row->wrong);
    if (st != GV_OK)
        return st;
    double t0 = gv_now_s();
    for (uint32_t it = 0; it < n->o.iters && st == GV_OK; it++)
        st = enqueue(n, count);
    if (st == GV_OK)
        st = wait_streams(n);
    if (st != GV_OK)
        return st;
    double seconds = (gv_now_s() - t0) / n->o.iters;
    row->time_us = seconds * 1e6;
    row->algbw_gbps = seconds > 0 ? (double)row->bytes / seconds / 1e9 : 0;
    row->busbw_gbps = row->algbw_gbps * gv_nccl_bus_factor(n->o.collective, n->nranks);
    return GV_OK;
}

static gv_status sweep(nccl_run *n)
{
    gv_nccl_result *r = n->r;
    char stage[128];
    for (uint64_t bytes = n->o.min_bytes; bytes <= n->o.max_bytes;) {
        gv_nccl_size row = {0};
        row.count = count_for(n->o.collective, n->nranks, bytes, &row.bytes);
        if (row.count > 0 && r->size_count < GV_NCCL_MAX_SIZES) {
            snprintf(stage, sizeof stage, "running %s at %llu bytes",
                     gv_nccl_collective_name(n->o.collective), (unsigned long long)row.bytes);
            set_stage(n, stage);
            gv_status st = measure_size(n, row.count, 0, &row);
            if (st != GV_OK)
                return st;
            gv_nccl_size same = {.bytes = row.bytes, .count = row.count};
            if (n->o.flags & GV_NCCL_IN_PLACE && has_in_place(n->o.collective)) {
                snprintf(stage, sizeof stage, "running %s in place at %llu bytes",
                         gv_nccl_collective_name(n->o.collective), (unsigned long long)row.bytes);
                set_stage(n, stage);
                if ((st = measure_size(n, row.count, 1, &same)) != GV_OK)
                    return st;
                r->wrong_elements += same.wrong;
            }
            r->in_place[r->size_count] = same;
            r->sizes[r->size_count++] = row;
            r->wrong_elements += row.wrong;
            if (row.busbw_gbps > r->peak_busbw_gbps || r->size_count == 1) {
                r->peak_busbw_gbps = row.busbw_gbps;
                r->peak_algbw_gbps = row.algbw_gbps;
                r->peak_bytes = row.bytes;
            }
            if (n->watch && n->watch->size)
                n->watch->size(n->watch->user, r);
        }
        if (bytes > n->o.max_bytes / n->o.step_factor)
            break;
        bytes *= n->o.step_factor;
    }
    return GV_OK;
}

/* Between two pairs of GV_NCCL_PAIRS over several processes: a one-element all-reduce on
 * every rank, so that no pair's timing includes a rank still busy with the one before. */
static gv_status barrier(nccl_run *n)
{
    const struct gv_nccl_api *nc = n->nc;
    int grouped = n->local > 1;
    int rc = grouped ? nc->ncclGroupStart() : GVNC_SUCCESS;
    for (uint32_t i = 0; i < n->local && (rc == GVNC_SUCCESS || rc == GVNC_IN_PROGRESS); i++) {
        nccl_gpu *g = &n->gpus[i];
        if (grouped)
            use(n, i);
        void *flag = (void *)(uintptr_t)g->flag;
        rc = nc->ncclAllReduce(flag, flag, 1, GVNC_FLOAT32, GVNC_SUM, g->comm, g->s.stream);
    }
    if (grouped) {
        int end = nc->ncclGroupEnd();
        rc = rc == GVNC_SUCCESS || rc == GVNC_IN_PROGRESS ? end : rc;
    }
    if (rc == GVNC_IN_PROGRESS && wait_comms(n) != GV_OK)
        return GV_ERR_TIMEOUT;
    if (rc != GVNC_SUCCESS && rc != GVNC_IN_PROGRESS)
        return nccl_fail(n, "ncclAllReduce (between pairs)", rc, NULL);
    return wait_streams(n);
}

/* Whether one of this call's GPUs is rank r. */
static int local_rank_of(const nccl_run *n, int r)
{
    for (uint32_t i = 0; i < n->local; i++)
        if (n->gpus[i].rank == r)
            return 1;
    return 0;
}

/* GV_NCCL_PAIRS: at min_bytes, then max_bytes, every ordered pair in turn; sizes[] gets the
 * median of the pairs this call took part in. */
static gv_status sweep_pairs(nccl_run *n)
{
    gv_nccl_result *r = n->r;
    uint64_t sizes[2] = {n->o.min_bytes, n->o.max_bytes};
    int nsizes = n->o.min_bytes == n->o.max_bytes ? 1 : 2;
    char stage[128];
    r->pair_count = 0;
    for (int a = 0; a < n->nranks; a++)
        for (int b = 0; b < n->nranks; b++)
            if (a != b && r->pair_count < GV_NCCL_MAX_PAIRS)
                r->pairs[r->pair_count++] = (gv_nccl_pair){.from = a, .to = b};
    double times[GV_NCCL_MAX_PAIRS];
    for (int z = 0; z < nsizes && r->size_count < GV_NCCL_MAX_SIZES; z++) {
        gv_nccl_size row = {0};
        row.count = count_for(GV_NCCL_PAIRS, n->nranks, sizes[z], &row.bytes);
        size_t took = 0;
        for (uint32_t k = 0; k < r->pair_count; k++) {
            gv_nccl_pair *p = &r->pairs[k];
            n->from = p->from, n->to = p->to;
            snprintf(stage, sizeof stage, "running pairs: %d->%d at %llu bytes", p->from, p->to,
                     (unsigned long long)row.bytes);
            set_stage(n, stage);
            gv_nccl_size one = row;
            gv_status st = measure_size(n, row.count, 0, &one);
            if (st == GV_OK && n->local < (uint32_t)n->nranks)
                st = barrier(n);
            if (st != GV_OK)
                return st;
            if (!local_rank_of(n, p->from) && !local_rank_of(n, p->to))
                continue;
            times[took++] = one.time_us;
            p->wrong += one.wrong;
            row.wrong += one.wrong;
            if (z == 0)
                p->latency_us = one.time_us;
            if (z == nsizes - 1)
                p->busbw_gbps = one.busbw_gbps;
        }
        double median = took ? gv_median(times, took) : 0;
        row.time_us = median;
        row.algbw_gbps = row.busbw_gbps = median > 0 ? (double)row.bytes / (median * 1e3) : 0;
        r->wrong_elements += row.wrong;
        r->sizes[r->size_count++] = row;
        if (row.busbw_gbps > r->peak_busbw_gbps || r->size_count == 1) {
            r->peak_busbw_gbps = row.busbw_gbps;
            r->peak_algbw_gbps = row.algbw_gbps;
            r->peak_bytes = row.bytes;
        }
        if (n->watch && n->watch->size)
            n->watch->size(n->watch->user, r);
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
        set_stage(n, "finalizing the communicators");
        if (n->deadline < gv_now_s() + 0.5)
            n->deadline = gv_now_s() + 0.5;
        for (uint32_t i = 0; i < n->local && !abort; i++) {
            use(n, i);
            int rc = nc->ncclCommFinalize(n->gpus[i].comm);
            abort = rc != GVNC_SUCCESS && rc != GVNC_IN_PROGRESS;
        }
        if (!abort && wait_comms(n) != GV_OK)
            abort = 1;
    }
    for (uint32_t i = 0; i < n->local; i++)
        if (n->gpus[i].comm) {
            use(n, i);
            if (abort)
                nc->ncclCommAbort(n->gpus[i].comm);
            else
                nc->ncclCommDestroy(n->gpus[i].comm);
            n->gpus[i].comm = NULL;
        }
    n->deadline = gv_now_s() + 1.0;
    set_stage(n, "draining the streams");
    int drained = wait_streams(n) == GV_OK;
    n->err = keep;
    n->timed_out = timed_out;
    for (uint32_t i = n->local; i-- > 0;) {
        nccl_gpu *g = &n->gpus[i];
        use(n, i);
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

/* GV_NCCL_PAIRS: a pair at less than half the median pair's bandwidth, or more than twice its
 * latency (and 10 us more: a host's hiccup over a few microseconds is not a link), is the one
 * bad link (WARN: slow, not wrong). 1 when it judged so. */
static int judge_pairs(nccl_run *n)
{
    gv_nccl_result *r = n->r;
    double bw[GV_NCCL_MAX_PAIRS], lat[GV_NCCL_MAX_PAIRS];
    size_t m = 0;
    const gv_nccl_pair *slow = NULL, *late = NULL;
    for (uint32_t k = 0; k < r->pair_count; k++) {
        const gv_nccl_pair *p = &r->pairs[k];
        if (p->latency_us <= 0)
            continue; /* another process's pair */
        bw[m] = p->busbw_gbps, lat[m++] = p->latency_us;
        if (!slow || p->busbw_gbps < slow->busbw_gbps)
            slow = p;
        if (!late || p->latency_us > late->latency_us)
            late = p;
    }
    if (m < 2)
        return 0;
    double median_bw = gv_median(bw, m), median_lat = gv_median(lat, m);
    if (slow->busbw_gbps < 0.5 * median_bw)
        snprintf(r->message, sizeof r->message,
                 "pairs over %d ranks: %d->%d moves %.1f GB/s at %llu bytes, under half the "
                 "median pair's %.1f GB/s: a slow link or path; data exact",
                 n->nranks, slow->from, slow->to, slow->busbw_gbps,
                 (unsigned long long)n->o.max_bytes, median_bw);
    else if (late->latency_us > 2 * median_lat && late->latency_us > median_lat + 10)
        snprintf(r->message, sizeof r->message,
                 "pairs over %d ranks: %d->%d takes %.1f us at %llu bytes, over twice the median "
                 "pair's %.1f us: a slow link or path; data exact",
                 n->nranks, late->from, late->to, late->latency_us,
                 (unsigned long long)n->o.min_bytes, median_lat);
    else
        return 0;
    r->verdict = GV_WARN;
    return 1;
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
    } else if (n->o.collective == GV_NCCL_PAIRS && judge_pairs(n)) {
        ; /* a pair far from the others: WARN naming it */
    } else if (n->o.min_busbw_gbps > 0 && r->peak_busbw_gbps < n->o.min_busbw_gbps) {
        r->verdict = GV_FAIL;
        snprintf(r->message, sizeof r->message,
                 "%s over %d ranks: peak busbw %.1f GB/s (at %llu bytes) is below the floor of "
                 "%.1f GB/s; data exact at %u sizes",
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
    if (out->struct_size < GV_NCCL_RESULT_SIZE_V1)
        return gv_fail(ctx, GV_ERR_VERSION, "gv_nccl_result.struct_size %u < %zu",
                       (unsigned)out->struct_size, (size_t)GV_NCCL_RESULT_SIZE_V1);
    static const gv_nccl_opts defaults = GV_NCCL_OPTS_INIT;
    *o = defaults;
    if (opts && gv_copy_in(o, sizeof *o, opts, GV_NCCL_OPTS_SIZE_V1, &defaults) != GV_OK)
        return gv_fail(ctx, GV_ERR_VERSION, "gv_nccl_opts.struct_size %u is not a valid layout",
                       (unsigned)opts->struct_size);
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
    if (count_for(o->collective, nranks, o->max_bytes, &ignored) == 0)
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_nccl_opts.max_bytes %llu leaves no element per rank for a %s over %d "
                       "ranks",
                       (unsigned long long)o->max_bytes, gv_nccl_collective_name(o->collective),
                       nranks);
    return GV_OK;
}

/* The sweep in this process, after the argument checks: cuda[] are this process's GPUs,
 * ranks first_rank.. of nranks. */
static gv_status run(gv_ctx *ctx, const struct gv_nccl_api *nc, const gv_nccl_call *call,
                     const gvnc_unique_id *id, const uint32_t *cuda, uint32_t count, int first_rank,
                     int nranks, int blocking, const gv_nccl_watch *watch, gv_nccl_result *r)
{
    nccl_run *n = calloc(1, sizeof *n);
    if (!n)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory");
    const gv_nccl_opts *o = &call->o;
    double t0 = gv_now_s();
    n->ctx = ctx, n->nc = nc, n->o = *o, n->r = r, n->nranks = nranks;
    n->blocking = blocking, n->watch = watch;
    n->deadline_s = o->deadline_s > 0 ? o->deadline_s : ctx->deadline_s;
    n->deadline = t0 + n->deadline_s;
    set_stage(n, "opening the GPUs");
    r->collective = o->collective;
    r->nranks = nranks;
    r->rank = first_rank;
    r->local_gpus = (int32_t)count;
    gv_nccl_settings_text(ctx, r->settings, sizeof r->settings);
    uint64_t ignored, per = count_for(o->collective, nranks, o->max_bytes, &ignored);
    n->send_elems = send_elems_for(o->collective, nranks, per);
    n->recv_elems = recv_elems_for(o->collective, nranks, per);
    gv_status st = open_gpus(n, cuda, count);
    for (uint32_t i = 0; i < n->local; i++)
        n->gpus[i].rank = first_rank + (int)i;
    if (st == GV_OK) {
        set_stage(n, "allocating the buffers");
        st = alloc_buffers(n);
    }
    long log_from = gv_nccl_log_mark(ctx->nccl_log);
    if (st == GV_OK)
        st = init_comms(n, id);
    if (st == GV_OK)
        st = n->o.collective == GV_NCCL_PAIRS ? sweep_pairs(n) : sweep(n);
    if (ctx->nccl_log[0]) /* NCCL's account of its connections, whatever the outcome */
        gv_nccl_log_read(ctx->nccl_log, log_from, r);
    release(n, st != GV_OK);
    r->total_s = gv_now_s() - t0;
    judge(n, st);
    if (st != GV_OK)
        st = gv_fail(ctx, st, "%s", r->message);
    free(n);
    return st;
}

gv_status gv_nccl_call_here(gv_ctx *ctx, const gv_nccl_call *call, int blocking,
                            const gv_nccl_watch *watch, gv_nccl_result *r)
{
    const struct gv_nccl_api *nc;
    r->isolation = ctx->in_worker ? GV_ISOLATION_PROCESS : GV_ISOLATION_NONE;
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
    int rc = nc->ncclGetUniqueId(&id);
    if (rc != GVNC_SUCCESS)
        return gv_fail(ctx, GV_ERR_DRIVER, "ncclGetUniqueId: NCCL error %d", rc);
    return run(ctx, nc, call, &id, cuda, count, 0, (int)count, blocking, watch, r);
}

/* Both public calls after their argument checks: in gpuverify-worker when one is found and
 * the caller did not ask for its own process; the result copied out either way. */
static gv_status dispatch(gv_ctx *ctx, gv_nccl_call *call, gv_nccl_result *out)
{
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    gv_worker_place where;
    gv_status st;
    if (call->o.deadline_s <= 0)
        call->o.deadline_s = ctx->deadline_s; /* the worker's context has its own default */
    if (!(call->o.flags & GV_NCCL_IN_PROCESS) && !ctx->in_worker && gv_worker_find(ctx, &where))
        st = gv_nccl_call_worker(ctx, where.path, call, &r);
    else
        st = gv_nccl_call_here(ctx, call, ctx->in_worker, NULL, &r);
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
