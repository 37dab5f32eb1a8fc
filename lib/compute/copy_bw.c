/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "compute/copy_bw.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "compute/compute.h"
#include "compute/gpu_lock.h"
#include "core/c_locale.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"
#include "sys/pci.h"
#include "kernels/gv_random.h"

enum direction { H2D, D2H, D2D };

/* How long timed copies wait for another GPU's to leave the host's links: two deadlines of
 * cuda.copy's, by which a holder that hung (another lane's test) was stopped. */
#define LINKS_WAIT_DEADLINES 2

/* The host's links to these copies alone (gv_host_copies_take): another GPU's timed copies, in
 * a lane beside this one or another gpuverify, are waited for, and the wait is announced so
 * that it is not the check's time. The locked descriptor, -1 when there is nothing to lock
 * through; -2 when another held them all along (GV_ERR_BUSY in err, saying who). */
static int take_links(gv_ctx *ctx, gv_errbuf *err)
{
    int fd = gv_host_copies_take(0, NULL);
    if (fd != -2)
        return fd;
    double wait_s = LINKS_WAIT_DEADLINES * ctx->deadline_s * GV_DEADLINE_CUDA_CHECK;
    gv_progress_wait(ctx, "", wait_s, "another GPU's copies to leave the host's links");
    gv_gpu_holder holder;
    fd = gv_host_copies_take(wait_s, &holder);
    gv_progress_wait(ctx, "", 0, ""); /* over: the check's own time from here */
    if (fd == -2) {
        char who[200];
        gv_gpu_holder_text(&holder, who, sizeof who);
        gv_err(err, GV_ERR_BUSY, "not measured: %s held the host's links for copies all of %.0f s",
               who, wait_s);
    }
    return fd;
}

struct job {
    gv_session *s;
    const char *local_cpus;
    uint64_t bytes;
    unsigned samples, copies;
    gv_copy_figures *out;
    gv_errbuf *err;
    gv_status status;
    /* buffers */
    void *host;
    volatile int *flag;
    gvcu_deviceptr flag_dev, dev_a, dev_b, counter;
    gvcu_event start, end;
    /* With other GPUs measured at once: every gate opens when all batches are queued. */
    struct pace *together;
};

/* A barrier the GPUs measured at once meet at before each sample, which a GPU leaves when it
 * stops (done, or a CUDA error), so that the others never wait for it. */
struct pace {
    pthread_mutex_t lock;
    pthread_cond_t moved;
    unsigned members, arrived;
    unsigned long round;
};

static void pace_release(struct pace *p)
{
    p->arrived = 0;
    p->round++;
    pthread_cond_broadcast(&p->moved);
}

/* A GPU waiting for the others has done its part of the round (core/progress.h): if one of
 * them hangs, that one is named, not every GPU it holds up. */
static void pace_wait(struct pace *p, const gv_session *s)
{
    pthread_mutex_lock(&p->lock);
    unsigned long round = p->round;
    if (++p->arrived >= p->members) {
        pace_release(p);
    } else {
        gv_progress_done(s->ctx, s->cuda_index);
        while (round == p->round)
            pthread_cond_wait(&p->moved, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
}

static void pace_leave(struct pace *p)
{
    pthread_mutex_lock(&p->lock);
    if (--p->members > 0 && p->arrived >= p->members)
        pace_release(p);
    pthread_mutex_unlock(&p->lock);
}

static int copy_once(struct job *j, enum direction d)
{
    const struct gv_cuda_api *cu = j->s->cu;
    switch (d) {
    case H2D:
        return cu->cuMemcpyHtoDAsync(j->dev_b, j->host, j->bytes, j->s->stream);
    case D2H:
        return cu->cuMemcpyDtoHAsync(j->host, j->dev_a, j->bytes, j->s->stream);
    case D2D:
        return cu->cuMemcpyDtoDAsync(j->dev_b, j->dev_a, j->bytes, j->s->stream);
    }
    return GVCU_ERROR_INVALID_VALUE;
}

/* Warm-up, then `samples` gated batches of `copies`; the median rate in GB/s. Measured with
 * other GPUs (j->together), each sample's gate opens when every GPU has queued its batch. */
static gv_status measure(struct job *j, enum direction d, double *gbps)
{
    gv_session *s = j->s;
    const struct gv_cuda_api *cu = s->cu;
    int rc = GVCU_SUCCESS;
    for (int i = 0; i < 4 && rc == GVCU_SUCCESS; i++)
        rc = copy_once(j, d);
    if (rc == GVCU_SUCCESS)
        rc = gv_session_sync(s, GV_SESSION_STEP_TIMEOUT_S);
    double rates[64];
    unsigned n = j->samples < 64 ? j->samples : 64;
    for (unsigned k = 0; k < n && rc == GVCU_SUCCESS; k++) {
        *j->flag = 0;
        __sync_synchronize();
        rc = gv_session_gate(s, s->stream, j->flag_dev, 2000000000ull);
        if (rc == GVCU_SUCCESS)
            rc = cu->cuEventRecord(j->start, s->stream);
        for (unsigned i = 0; i < j->copies && rc == GVCU_SUCCESS; i++)
            rc = copy_once(j, d);
        if (rc == GVCU_SUCCESS)
            rc = cu->cuEventRecord(j->end, s->stream);
        if (j->together)
            pace_wait(j->together, j->s);
        __sync_synchronize();
        *j->flag = 1; /* open the gate: everything is queued */
        if (rc == GVCU_SUCCESS)
            rc = gv_session_sync(s, GV_SESSION_STEP_TIMEOUT_S);
        float ms = 0;
        if (rc == GVCU_SUCCESS)
            rc = cu->cuEventElapsedTime(&ms, j->start, j->end);
        double moved = (double)j->bytes * j->copies * (d == D2D ? 2 : 1);
        rates[k] = ms > 0 ? moved / (ms * 1e-3) / 1e9 : 0;
    }
    *j->flag = 1;
    if (rc != GVCU_SUCCESS)
        return gv_session_fail(s, j->err,
                               d == H2D   ? "host-to-device copy"
                               : d == D2H ? "device-to-host copy"
                                          : "device-to-device copy",
                               rc);
    *gbps = gv_median(rates, n);
    return GV_OK;
}

static uint64_t host_mismatches(const struct job *j, uint64_t seed)
{
    const uint64_t *w = j->host;
    uint64_t bad = 0, words = j->bytes / 8;
    for (uint64_t i = 0; i < words; i++)
        bad += w[i] != gv_pattern_word(seed, i);
    return bad;
}

/* Counts words of dev_b that differ from the pattern, on the device. */
static int device_mismatches(struct job *j, uint64_t seed, uint64_t *bad)
{
    gv_session *s = j->s;
    uint64_t zero = 0;
    int rc = s->cu->cuMemcpyHtoD(j->counter, &zero, sizeof zero);
    if (rc == GVCU_SUCCESS)
        rc = gv_session_check_pattern(s, j->dev_b, j->bytes / 8, seed, j->counter);
    if (rc == GVCU_SUCCESS)
        rc = gv_session_sync(s, GV_SESSION_STEP_TIMEOUT_S);
    if (rc == GVCU_SUCCESS)
        rc = s->cu->cuMemcpyDtoH(bad, j->counter, sizeof *bad);
    return rc;
}

static gv_status run_all(struct job *j)
{
    gv_session *s = j->s;
    const struct gv_cuda_api *cu = s->cu;
    const uint64_t seed_a = 0x51ed2701, seed_b = 0x0ddba11;
    uint64_t bad;
    int rc = gv_session_fill_pattern(s, j->dev_a, j->bytes / 8, seed_a);
    if (rc != GVCU_SUCCESS)
        return gv_session_fail(s, j->err, "filling the copy buffer", rc);
    /* Timed with the host's links to these copies alone, and no longer: a GPU's lane measures
     * them while the other lanes run their own tests. */
    int links = take_links(s->ctx, j->err);
    if (links == -2)
        return GV_ERR_BUSY;
    gv_status st = measure(j, D2H, &j->out->d2h_gbps);
    if (st == GV_OK)
        st = measure(j, H2D, &j->out->h2d_gbps);
    gv_host_copies_give(links);
    if (st != GV_OK)
        return st;
    /* The host buffer holds what D2H brought back; H2D wrote it to the device again. */
    j->out->bad_words += host_mismatches(j, seed_a);
    if ((rc = device_mismatches(j, seed_a, &bad)) != GVCU_SUCCESS)
        return gv_session_fail(s, j->err, "checking the host-to-device copy", rc);
    j->out->bad_words += bad;
    if ((rc = gv_session_fill_pattern(s, j->dev_a, j->bytes / 8, seed_b)) != GVCU_SUCCESS)
        return gv_session_fail(s, j->err, "filling the copy buffer", rc);
    if ((st = measure(j, D2D, &j->out->d2d_gbps)) != GV_OK)
        return st;
    if ((rc = device_mismatches(j, seed_b, &bad)) != GVCU_SUCCESS)
        return gv_session_fail(s, j->err, "checking the device-to-device copy", rc);
    j->out->bad_words += bad;
    (void)cu;
    return GV_OK;
}

/* The figures of the GPUs measured at once: the host links, each direction (the device-local
 * copy shares nothing, and the data were verified when each GPU was measured alone). */
static gv_status run_together(struct job *j)
{
    gv_status st = measure(j, H2D, &j->out->h2d_gbps);
    return st == GV_OK ? measure(j, D2H, &j->out->d2h_gbps) : st;
}

static gv_status allocate(struct job *j)
{
    gv_session *s = j->s;
    const struct gv_cuda_api *cu = s->cu;
    int rc;
    if ((rc = cu->cuMemHostAlloc(&j->host, j->bytes, GVCU_MEMHOSTALLOC_PORTABLE)) != 0) {
        j->host = NULL;
        return gv_session_fail(s, j->err, "cuMemHostAlloc (pinned copy buffer)", rc);
    }
    void *flag = NULL;
    if ((rc = cu->cuMemHostAlloc(&flag, 64, GVCU_MEMHOSTALLOC_DEVICEMAP)) != 0)
        return gv_session_fail(s, j->err, "cuMemHostAlloc (gate flag)", rc);
    j->flag = flag;
    *j->flag = 1;
    if ((rc = cu->cuMemHostGetDevicePointer(&j->flag_dev, flag, 0)) != 0)
        return gv_session_fail(s, j->err, "cuMemHostGetDevicePointer", rc);
    if ((rc = cu->cuMemAlloc(&j->dev_a, j->bytes)) != 0 ||
        (rc = cu->cuMemAlloc(&j->dev_b, j->bytes)) != 0 ||
        (rc = cu->cuMemAlloc(&j->counter, sizeof(uint64_t))) != 0)
        return gv_session_fail(s, j->err, "cuMemAlloc (copy buffers)", rc);
    if ((rc = cu->cuEventCreate(&j->start, GVCU_EVENT_DEFAULT)) != 0 ||
        (rc = cu->cuEventCreate(&j->end, GVCU_EVENT_DEFAULT)) != 0)
        return gv_session_fail(s, j->err, "cuEventCreate", rc);
    return GV_OK;
}

static void release(struct job *j)
{
    const struct gv_cuda_api *cu = j->s->cu;
    gv_session_sync(j->s, GV_SESSION_STEP_TIMEOUT_S);
    if (j->start)
        cu->cuEventDestroy(j->start);
    if (j->end)
        cu->cuEventDestroy(j->end);
    if (j->dev_a)
        cu->cuMemFree(j->dev_a);
    if (j->dev_b)
        cu->cuMemFree(j->dev_b);
    if (j->counter)
        cu->cuMemFree(j->counter);
    if (j->flag)
        cu->cuMemFreeHost((void *)j->flag);
    if (j->host)
        cu->cuMemFreeHost(j->host);
}

/* The measuring thread: bound to the GPU's CPUs before it pins memory, so the kernel places
 * the pages on that NUMA node; the caller's own thread keeps its affinity. */
static void *copy_thread(void *arg)
{
    GV_IN_C_LOCALE();
    struct job *j = arg;
    if (j->local_cpus[0])
        gv_pci_bind_to_cpus(j->local_cpus);
    int rc = j->s->cu->cuCtxPushCurrent(j->s->context);
    if (rc != GVCU_SUCCESS) {
        j->status = gv_session_fail(j->s, j->err, "cuCtxPushCurrent (copy thread)", rc);
        if (j->together)
            pace_leave(j->together);
        return NULL;
    }
    j->status = allocate(j);
    if (j->status == GV_OK)
        j->status = j->together ? run_together(j) : run_all(j);
    if (j->together)
        pace_leave(j->together); /* done: the others no longer wait for this GPU */
    gv_progress_done(j->s->ctx, j->s->cuda_index);
    release(j);
    gvcu_context popped;
    j->s->cu->cuCtxPopCurrent(&popped);
    return NULL;
}

gv_status gv_copy_bandwidth(gv_session *s, const char *local_cpus, int numa_node, uint64_t bytes,
                            unsigned samples, unsigned copies, gv_copy_figures *out, gv_errbuf *err)
{
    memset(out, 0, sizeof *out);
    out->numa_node = numa_node;
    struct job j = {.s = s,
                    .local_cpus = local_cpus ? local_cpus : "",
                    .bytes = bytes / 8 * 8,
                    .samples = samples,
                    .copies = copies,
                    .out = out,
                    .err = err};
    pthread_t t;
    if (pthread_create(&t, NULL, copy_thread, &j) != 0)
        return gv_err(err, GV_ERR_INTERNAL, "could not start the copy thread");
    pthread_join(t, NULL);
    return j.status;
}

gv_status gv_copy_together(gv_copy_gpu *gpus, size_t n, uint64_t bytes, unsigned samples,
                           unsigned copies)
{
    struct pace pace = {.members = (unsigned)n};
    struct job *jobs = calloc(n ? n : 1, sizeof *jobs);
    pthread_t *threads = calloc(n ? n : 1, sizeof *threads);
    int *started = calloc(n ? n : 1, sizeof *started);
    if (!jobs || !threads || !started) {
        free(jobs);
        free(threads);
        free(started);
        return GV_ERR_NO_MEMORY;
    }
    pthread_mutex_init(&pace.lock, NULL);
    pthread_cond_init(&pace.moved, NULL);
    /* The host's links to these GPUs' copies alone for the whole measurement. */
    gv_errbuf held = {""};
    int links = n ? take_links(gpus[0].s->ctx, &held) : -1;
    for (size_t i = 0; links == -2 && i < n; i++) {
        gpus[i].err = held;
        gpus[i].status = GV_ERR_BUSY;
    }
    for (size_t i = 0; links != -2 && i < n; i++) {
        gv_copy_gpu *g = &gpus[i];
        memset(&g->out, 0, sizeof g->out);
        g->out.numa_node = g->numa_node;
        g->err.text[0] = '\0';
        jobs[i] = (struct job){.s = g->s,
                               .local_cpus = g->local_cpus ? g->local_cpus : "",
                               .bytes = bytes / 8 * 8,
                               .samples = samples,
                               .copies = copies,
                               .out = &g->out,
                               .err = &g->err,
                               .together = &pace};
        started[i] = pthread_create(&threads[i], NULL, copy_thread, &jobs[i]) == 0;
        if (!started[i]) {
            jobs[i].status = gv_err(&g->err, GV_ERR_INTERNAL, "could not start a copy thread");
            pace_leave(&pace);
        }
    }
    for (size_t i = 0; links != -2 && i < n; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        gpus[i].status = jobs[i].status;
    }
    gv_host_copies_give(links);
    pthread_cond_destroy(&pace.moved);
    pthread_mutex_destroy(&pace.lock);
    free(jobs);
    free(threads);
    free(started);
    return GV_OK;
}
