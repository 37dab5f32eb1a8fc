/* SPDX-License-Identifier: Apache-2.0 */
/* The collectives' shapes, as nccl-tests gives them: names, bus factors, element counts per
 * size, buffers, the in-place layout, what each rank's output must be checked over, and the
 * NCCL calls of one GPU (NCCL's own all-to-all, gather and scatter from 2.28, sends and
 * receives before). */
#include <stdio.h>

#include "core/util.h"
#include "nccl/nccl_run.h"

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
uint64_t gv_nccl_count_for(int32_t coll, int nranks, uint64_t bytes, uint64_t *actual)
{
    uint64_t parts = split(coll) ? (uint64_t)nranks : 1;
    uint64_t count = bytes / 4 / parts;
    if (coll == GV_NCCL_ALL_TO_ALL)
        count &= ~(uint64_t)3;
    *actual = count * 4 * parts;
    return count;
}

/* Elements of one rank's input and output buffers for `count` (count_for's). */
uint64_t gv_nccl_send_elems(int32_t coll, int nranks, uint64_t count)
{
    int whole =
        coll == GV_NCCL_REDUCE_SCATTER || coll == GV_NCCL_ALL_TO_ALL || coll == GV_NCCL_SCATTER;
    return whole ? count * (uint64_t)nranks : count;
}

uint64_t gv_nccl_recv_elems(int32_t coll, int nranks, uint64_t count)
{
    int whole = coll == GV_NCCL_ALL_GATHER || coll == GV_NCCL_ALL_TO_ALL || coll == GV_NCCL_GATHER;
    return whole ? count * (uint64_t)nranks : count;
}

/* The output elements of `rank` that the collective defines: none off the root of a reduce or
 * a gather. */
uint64_t gv_nccl_checked_elems(const nccl_run *n, int rank, uint64_t count)
{
    int32_t coll = n->o.collective;
    if ((coll == GV_NCCL_REDUCE || coll == GV_NCCL_GATHER) && rank != 0)
        return 0;
    if (coll == GV_NCCL_PAIRS && rank != n->to)
        return 0;
    return gv_nccl_recv_elems(coll, n->nranks, count);
}

/* Whether a collective has an in-place form nccl-tests measures (all-to-all, sendrecv and the
 * pairs have none). */
int gv_nccl_has_in_place(int32_t coll)
{
    return coll != GV_NCCL_ALL_TO_ALL && coll != GV_NCCL_SEND_RECV && coll != GV_NCCL_PAIRS;
}

/* Points every GPU's collective at its buffers: out of place, send and recv; in place, both
 * inside recv where NCCL's documentation puts them (all-gather and gather send from the rank's
 * part of the output, reduce-scatter and scatter receive into the rank's part of the input). */
void gv_nccl_place(nccl_run *n, uint64_t count, int in_place)
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
int gv_nccl_prepare(nccl_run *n, nccl_gpu *g, uint64_t count, int in_place)
{
    int32_t coll = n->o.collective;
    uint64_t out = gv_nccl_checked_elems(n, g->rank, count);
    uint64_t in = gv_nccl_send_elems(coll, n->nranks, count);
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

/* Whether NCCL has the collective as a call of its own (all-to-all, gather and scatter from
 * 2.28), where nccl-tests uses it; else it is made of sends and receives. */
static int native(const nccl_run *n, const void *fn)
{
    return fn && n->r->nccl_version >= 22800;
}

/* Collectives that are several sends and receives per rank: always inside a group. */
int gv_nccl_composite(const nccl_run *n)
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
int gv_nccl_one_call(const nccl_run *n, const nccl_gpu *g, uint64_t count)
{
    const struct gv_nccl_api *nc = n->nc;
    const char *send = (const char *)(uintptr_t)g->at_send;
    char *recv = (char *)(uintptr_t)g->at_recv;
    gvcu_stream st = g->s.stream;
    size_t part = (size_t)count * 4;
    int rc = GVNC_SUCCESS, nranks = n->nranks, p2p = n->composite;
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
