/* SPDX-License-Identifier: Apache-2.0 */
#include "compute/p2p_bw.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* Queues `count` copies of `bytes` from a to b on a's stream behind a's gate, between a's
 * timing events; they start when the gate opens (*a->flag = 1). */
static int queue_copies(p2p_gpu *a, const p2p_gpu *b, uint64_t bytes, unsigned count)
{
    const struct gv_cuda_api *cu = a->s->cu;
    gvcu_stream stream = a->s->stream;
    *a->flag = 0;
    __sync_synchronize();
    int rc = use(a);
    if (rc == GVCU_SUCCESS)
        rc = gv_session_gate(a->s, stream, a->flag_dev, 2000000000ull);
    if (rc == GVCU_SUCCESS)
        rc = cu->cuEventRecord(a->start, stream);
    for (unsigned i = 0; i < count && rc == GVCU_SUCCESS; i++)
        rc = cu->cuMemcpyDtoDAsync(b->dst, a->src, bytes, stream);
    if (rc == GVCU_SUCCESS)
        rc = cu->cuEventRecord(a->end, stream);
    if (rc == GVCU_SUCCESS)
        rc = gv_session_mark(a->s);
    return rc;
}

/* The time in ms between a's timing events, once its copies completed; -1 with rc set. */
static double elapsed(p2p_gpu *a, int *rc)
{
    float ms = 0;
    *rc = use(a);
    if (*rc == GVCU_SUCCESS)
        *rc = a->s->cu->cuEventElapsedTime(&ms, a->start, a->end);
    return *rc == GVCU_SUCCESS ? ms : -1;
}

/* `count` copies of `bytes` from a to b behind a's gate; their time in ms, or -1 (rc set). */
static double timed(p2p_gpu *a, const p2p_gpu *b, uint64_t bytes, unsigned count, int *rc)
{
    *rc = queue_copies(a, b, bytes, count);
    __sync_synchronize();
    *a->flag = 1; /* everything is queued: the copies start together */
    if (*rc == GVCU_SUCCESS)
        *rc = gv_session_sync(a->s, GV_SESSION_STEP_TIMEOUT_S);
    return *rc == GVCU_SUCCESS ? elapsed(a, rc) : -1;
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

/* Round r of the rounds: GPU i copies to GPU (i + r) % n, every GPU at once, each behind its
 * own gate and timed by its own events, so each sends to one GPU and receives from another:
 * over NVSwitch each direction of each GPU's links carries one copy, as when the pair copies
 * alone. `count` copies of `bytes` each; ms[i] the time of GPU i's, or rc set. A GPU whose
 * copies completed leaves the watch (core/progress.h): one that hangs is named. */
static int round_copies(p2p_gpu *g, size_t n, size_t r, uint64_t bytes, unsigned count, double *ms)
{
    int rc = GVCU_SUCCESS;
    int *pending = calloc(n, sizeof *pending);
    if (!pending)
        return GVCU_ERROR_OUT_OF_MEMORY;
    int ordinals[GV_PROGRESS_MAX_GPUS] = {0};
    size_t watched = 0;
    for (size_t i = 0; i < n && watched < GV_PROGRESS_MAX_GPUS; i++)
        ordinals[watched++] = g[i].s->cuda_index;
    gv_progress_watch(g[0].s->ctx, ordinals, watched);
    for (size_t i = 0; i < n && rc == GVCU_SUCCESS; i++) {
        rc = queue_copies(&g[i], &g[(i + r) % n], bytes, count);
        pending[i] = rc == GVCU_SUCCESS;
    }
    __sync_synchronize();
    for (size_t i = 0; i < n; i++)
        *g[i].flag = 1; /* every copy queued, or the round given up: the gates open together */
    double until = gv_now_s() + GV_SESSION_STEP_TIMEOUT_S;
    struct timespec nap = {0, 20000};
    for (size_t left = n; left > 0 && rc == GVCU_SUCCESS;) {
        left = 0;
        for (size_t i = 0; i < n && rc == GVCU_SUCCESS; i++) {
            if (!pending[i])
                continue;
            int q = use(&g[i]);
            if (q == GVCU_SUCCESS)
                q = gv_session_poll(g[i].s);
            if (q == GVCU_SUCCESS) {
                pending[i] = 0;
                ms[i] = elapsed(&g[i], &rc);
                gv_progress_done(g[i].s->ctx, g[i].s->cuda_index);
            } else if (q != GVCU_ERROR_NOT_READY) {
                rc = q;
            } else {
                left++;
            }
        }
        if (left && gv_now_s() > until)
            rc = GVCU_ERROR_LAUNCH_TIMEOUT;
        else if (left)
            nanosleep(&nap, NULL);
    }
    /* Given up mid-round: what was queued drains before the buffers are freed (release). */
    free(pending);
    return rc;
}

static gv_status measure_round(p2p_gpu *g, size_t n, size_t r, uint64_t bytes, unsigned samples,
                               unsigned copies, gv_p2p_pair *m, gv_errbuf *err)
{
    unsigned k_max = samples < 64 ? samples : 64;
    double *ms = calloc(n, sizeof *ms), *rates = calloc(n * (k_max ? k_max : 1), sizeof *rates);
    if (!ms || !rates) {
        free(ms);
        free(rates);
        return gv_err(err, GV_ERR_NO_MEMORY, "out of memory for the peer copies");
    }
    int rc = GVCU_SUCCESS;
    if (rc == GVCU_SUCCESS)
        rc = round_copies(g, n, r, bytes, 2, ms); /* warm-up: the routes and their mappings */
    for (unsigned k = 0; k < k_max && rc == GVCU_SUCCESS; k++) {
        rc = round_copies(g, n, r, bytes, copies, ms);
        for (size_t i = 0; i < n && rc == GVCU_SUCCESS; i++)
            rates[i * k_max + k] = ms[i] > 0 ? (double)bytes * copies / (ms[i] * 1e-3) / 1e9 : 0;
    }
    if (rc == GVCU_SUCCESS)
        rc = round_copies(g, n, r, SMALL, 32, ms);
    for (size_t i = 0; i < n && rc == GVCU_SUCCESS; i++) {
        gv_p2p_pair *p = &m[i * n + (i + r) % n];
        p->latency_us = ms[i] * 1e3 / 32;
        p->gbps = gv_median(&rates[i * k_max], k_max);
    }
    free(ms);
    free(rates);
    return rc == GVCU_SUCCESS ? GV_OK : gv_session_fail(g[0].s, err, "copying between GPUs", rc);
}

/* Whether every ordered pair copies GPU to GPU (peer access on): only then can a round's
 * copies leave the host out, each on its own links. */
static int all_direct(const gv_p2p_pair *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (i != j && !m[i * n + j].direct)
                return 0;
    return 1;
}

gv_status gv_p2p_matrix(gv_session *const *s, size_t n, uint64_t bytes, unsigned samples,
                        unsigned copies, int rounds, gv_p2p_pair *m, gv_errbuf *err)
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
    rounds = rounds && st == GV_OK && all_direct(m, n);
    for (size_t r = 1; rounds && r < n && st == GV_OK; r++) {
        gv_progress_stage(s[0]->ctx, "copying round %zu of %zu: each GPU to the one %zu after it",
                          r, n - 1, r);
        st = measure_round(g, n, r, bytes, samples, copies, m, err);
    }
    for (size_t i = 0; !rounds && i < n && st == GV_OK; i++)
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
