/* SPDX-License-Identifier: Apache-2.0 */
#include "compute/p2p_bw.h"

#include <stdlib.h>
#include <string.h>

#include "core/progress.h"
#include "core/util.h"

#define SMALL 64 /* bytes of the copy whose time is the latency */

typedef struct p2p_gpu {
    gv_session *s;
    gvcu_deviceptr src, dst;
    volatile int *flag;
    gvcu_deviceptr flag_dev;
    gvcu_event start, end;
} p2p_gpu;

static int use(const p2p_gpu *g)
{
    return g->s->cu->cuCtxSetCurrent(g->s->context);
}

static gv_status setup(p2p_gpu *g, uint64_t bytes, gv_errbuf *err)
{
    const struct gv_cuda_api *cu = g->s->cu;
    void *flag = NULL;
    int rc = use(g);
    if (rc == GVCU_SUCCESS && (rc = cu->cuMemAlloc(&g->src, bytes)) == GVCU_SUCCESS &&
        (rc = cu->cuMemAlloc(&g->dst, bytes)) == GVCU_SUCCESS &&
        (rc = cu->cuMemHostAlloc(&flag, 64, GVCU_MEMHOSTALLOC_DEVICEMAP)) == GVCU_SUCCESS) {
        g->flag = flag;
        *g->flag = 1;
        if ((rc = cu->cuMemHostGetDevicePointer(&g->flag_dev, flag, 0)) == GVCU_SUCCESS &&
            (rc = cu->cuEventCreate(&g->start, GVCU_EVENT_DEFAULT)) == GVCU_SUCCESS)
            rc = cu->cuEventCreate(&g->end, GVCU_EVENT_DEFAULT);
    }
    if (rc == GVCU_SUCCESS)
        rc = gv_session_fill_pattern(g->s, g->src, bytes / 8, 0x9e37);
    return rc == GVCU_SUCCESS ? GV_OK
                              : gv_session_fail(g->s, err, "setting up the peer copies", rc);
}

static void release(p2p_gpu *g)
{
    const struct gv_cuda_api *cu = g->s->cu;
    if (use(g) != GVCU_SUCCESS)
        return;
    gv_session_sync(g->s, GV_SESSION_STEP_TIMEOUT_S);
    if (g->flag)
        *g->flag = 1;
    if (g->start)
        cu->cuEventDestroy(g->start);
    if (g->end)
        cu->cuEventDestroy(g->end);
    if (g->src)
        cu->cuMemFree(g->src);
    if (g->dst)
        cu->cuMemFree(g->dst);
    if (g->flag)
        cu->cuMemFreeHost((void *)g->flag);
}

/* Peer access from a's context towards every GPU that allows it. */
static int enable_peers(p2p_gpu *g, size_t n, size_t a, gv_p2p_pair *m)
{
    const struct gv_cuda_api *cu = g[a].s->cu;
    int rc = use(&g[a]);
    for (size_t b = 0; b < n && rc == GVCU_SUCCESS; b++) {
        gv_p2p_pair *p = &m[a * n + b];
        if (b == a || !cu->cuDeviceCanAccessPeer || !cu->cuCtxEnablePeerAccess)
            continue;
        rc = cu->cuDeviceCanAccessPeer(&p->can_access, g[a].s->device, g[b].s->device);
        if (rc != GVCU_SUCCESS || !p->can_access)
            continue;
        rc = cu->cuCtxEnablePeerAccess(g[b].s->context, 0);
        /* Refused (too many peers, say): the pair is measured as it is, through the host,
         * and the check says peer access was off. */
        p->direct = rc == GVCU_SUCCESS || rc == GVCU_ERROR_PEER_ACCESS_ALREADY_ENABLED;
        rc = GVCU_SUCCESS;
    }
    return rc;
}

/* `count` copies of `bytes` from a to b behind a's gate; their time in ms, or -1 (rc set). */
static double timed(p2p_gpu *a, const p2p_gpu *b, uint64_t bytes, unsigned count, int *rc)
{
    const struct gv_cuda_api *cu = a->s->cu;
    gvcu_stream stream = a->s->stream;
    *a->flag = 0;
    __sync_synchronize();
    *rc = gv_session_gate(a->s, stream, a->flag_dev, 2000000000ull);
    if (*rc == GVCU_SUCCESS)
        *rc = cu->cuEventRecord(a->start, stream);
    for (unsigned i = 0; i < count && *rc == GVCU_SUCCESS; i++)
        *rc = cu->cuMemcpyDtoDAsync(b->dst, a->src, bytes, stream);
    if (*rc == GVCU_SUCCESS)
        *rc = cu->cuEventRecord(a->end, stream);
    __sync_synchronize();
    *a->flag = 1; /* everything is queued: the copies start together */
    if (*rc == GVCU_SUCCESS)
        *rc = gv_session_sync(a->s, GV_SESSION_STEP_TIMEOUT_S);
    float ms = 0;
    if (*rc == GVCU_SUCCESS)
        *rc = cu->cuEventElapsedTime(&ms, a->start, a->end);
    return *rc == GVCU_SUCCESS ? ms : -1;
}

static gv_status measure_pair(p2p_gpu *a, const p2p_gpu *b, uint64_t bytes, unsigned samples,
                              unsigned copies, gv_p2p_pair *p, gv_errbuf *err)
{
    int rc = use(a);
    double rates[64], ms = 0;
    unsigned n = samples < 64 ? samples : 64;
    if (rc == GVCU_SUCCESS)
        timed(a, b, bytes, 2, &rc); /* warm-up: the route and its mappings */
    for (unsigned k = 0; k < n && rc == GVCU_SUCCESS; k++) {
        ms = timed(a, b, bytes, copies, &rc);
        rates[k] = ms > 0 ? (double)bytes * copies / (ms * 1e-3) / 1e9 : 0;
    }
    if (rc == GVCU_SUCCESS && (ms = timed(a, b, SMALL, 32, &rc)) >= 0)
        p->latency_us = ms * 1e3 / 32;
    if (rc != GVCU_SUCCESS)
        return gv_session_fail(a->s, err, "copying to another GPU", rc);
    p->gbps = gv_median(rates, n);
    return GV_OK;
}

gv_status gv_p2p_matrix(gv_session *const *s, size_t n, uint64_t bytes, unsigned samples,
                        unsigned copies, gv_p2p_pair *m, gv_errbuf *err)
{
    memset(m, 0, n * n * sizeof *m);
    p2p_gpu *g = calloc(n ? n : 1, sizeof *g);
    if (!g)
        return gv_err(err, GV_ERR_NO_MEMORY, "out of memory for the peer copies");
    bytes = bytes / 8 * 8;
    gv_status st = GV_OK;
    for (size_t i = 0; i < n; i++)
        g[i].s = s[i];
    /* Each step watches the GPU at work (core/progress.h): one that hangs is named. */
    for (size_t i = 0; i < n && st == GV_OK; i++) {
        gv_progress_watch(s[i]->ctx, &s[i]->cuda_index, 1);
        st = setup(&g[i], bytes, err);
    }
    for (size_t i = 0; i < n && st == GV_OK; i++) {
        int rc = enable_peers(g, n, i, m);
        if (rc != GVCU_SUCCESS)
            st = gv_session_fail(g[i].s, err, "cuCtxEnablePeerAccess", rc);
    }
    for (size_t i = 0; i < n && st == GV_OK; i++)
        for (size_t j = 0; j < n && st == GV_OK; j++)
            if (i != j) {
                gv_progress_stage(s[i]->ctx, "copying from GPU %d to GPU %d", s[i]->cuda_index,
                                  s[j]->cuda_index);
                gv_progress_watch(s[i]->ctx, &s[i]->cuda_index, 1);
                st = measure_pair(&g[i], &g[j], bytes, samples, copies, &m[i * n + j], err);
            }
    for (size_t i = n; i-- > 0;) {
        gv_progress_watch(s[i]->ctx, &s[i]->cuda_index, 1);
        release(&g[i]);
    }
    free(g);
    return st;
}
