/* SPDX-License-Identifier: Apache-2.0 */
#include "nccl/nccl_ahead.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda_backend.h"
#include "core/c_locale.h"
#include "core/context.h"
#include "core/util.h"
#include "nccl/nccl_log.h"

/* How long giving up waits for the ranks to abort themselves (NCCL's abort of a creation is
 * immediate; a thread stuck in the driver is left, with its state, to the worker's exit). */
#define GIVE_UP_WAIT_S 2.0

typedef struct ahead_rank {
    struct gv_nccl_ahead *all;
    pthread_t thread;
    int started;
    int rank;
    gvcu_device device;
    gvnc_comm comm;  /* the thread's until done */
    int state;       /* NCCL's last word on the creation, once done */
    int done;        /* atomic: the thread has finished */
    int give_up;     /* atomic: abort the creation */
    char failed[96]; /* the call that failed, when state is not success */
} ahead_rank;

struct gv_nccl_ahead {
    const struct gv_nccl_api *nc;
    const struct gv_cuda_api *cu;
    /* Made by the first rank's thread: NCCL's first call in a process starts its network
     * plugins (libibverbs), which may hang or crash; the worker's main thread stays out. */
    gvnc_unique_id id;
    int id_state; /* atomic: 0 being made, 1 made, -1 failed */
    int id_claimed;
    int nranks;
    long log_from;
    ahead_rank gpus[GV_NCCL_MAX_GPUS]; /* by CUDA ordinal */
};

/* The communicator's unique ID: the first rank makes it, the others wait for it. 1 when made. */
static int unique_id(ahead_rank *a)
{
    struct gv_nccl_ahead *h = a->all;
    if (!__atomic_exchange_n(&h->id_claimed, 1, __ATOMIC_ACQ_REL))
        __atomic_store_n(&h->id_state, h->nc->ncclGetUniqueId(&h->id) == GVNC_SUCCESS ? 1 : -1,
                         __ATOMIC_RELEASE);
    int made;
    while ((made = __atomic_load_n(&h->id_state, __ATOMIC_ACQUIRE)) == 0 &&
           !__atomic_load_n(&a->give_up, __ATOMIC_ACQUIRE))
        gv_nap_ms(1);
    snprintf(a->failed, sizeof a->failed, "ncclGetUniqueId");
    return made == 1;
}

/* Creates the rank on the thread's current context and polls it until it is made, fails, or
 * is given up; NCCL's last word on it. */
static int create(ahead_rank *a, gvnc_comm *comm)
{
    const struct gv_nccl_api *nc = a->all->nc;
    gvnc_config c = {sizeof c,
                     GVNC_CONFIG_MAGIC,
                     GVNC_CONFIG_VERSION,
                     0,
                     GVNC_CONFIG_UNDEF_INT,
                     GVNC_CONFIG_UNDEF_INT,
                     GVNC_CONFIG_UNDEF_INT,
                     NULL,
                     GVNC_CONFIG_UNDEF_INT};
    snprintf(a->failed, sizeof a->failed, "ncclCommInitRankConfig");
    int state = nc->ncclCommInitRankConfig(comm, a->all->nranks, a->all->id, a->rank, &c);
    snprintf(a->failed, sizeof a->failed, "creating rank %d of %d", a->rank, a->all->nranks);
    while (state == GVNC_IN_PROGRESS || state == GVNC_SUCCESS) {
        gvnc_result now = GVNC_IN_PROGRESS;
        if (nc->ncclCommGetAsyncError(*comm, &now) != GVNC_SUCCESS)
            now = GVNC_INTERNAL_ERROR;
        state = now;
        if (state != GVNC_IN_PROGRESS)
            break;
        if (__atomic_load_n(&a->give_up, __ATOMIC_ACQUIRE)) {
            snprintf(a->failed, sizeof a->failed, "given up");
            break;
        }
        gv_nap_ms(1);
    }
    return state;
}

static void *make_rank(void *arg)
{
    GV_IN_C_LOCALE();
    ahead_rank *a = arg;
    const struct gv_cuda_api *cu = a->all->cu;
    gvcu_context context = NULL;
    gvnc_comm comm = NULL;
    int state = -1;
    if (unique_id(a)) {
        snprintf(a->failed, sizeof a->failed, "cuDevicePrimaryCtxRetain");
        if (cu->cuDevicePrimaryCtxRetain(&context, a->device) != GVCU_SUCCESS)
            context = NULL;
        else if (cu->cuCtxSetCurrent(context) == GVCU_SUCCESS)
            state = create(a, &comm);
    }
    if (comm && state != GVNC_SUCCESS) {
        a->all->nc->ncclCommAbort(comm);
        comm = NULL;
    }
    if (context) {
        cu->cuCtxSetCurrent(NULL);
        cu->cuDevicePrimaryCtxRelease(a->device);
    }
    a->comm = comm;
    a->state = state;
    __atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Tells every rank to give up and waits for them a while; frees the state once every thread
 * has finished (one stuck in the driver keeps it: the worker's exit ends both). */
static void give_up(gv_ctx *ctx)
{
    struct gv_nccl_ahead *h = ctx->nccl_ahead;
    if (!h)
        return;
    for (int g = 0; g < GV_NCCL_MAX_GPUS; g++)
        __atomic_store_n(&h->gpus[g].give_up, 1, __ATOMIC_RELEASE);
    double until = gv_now_s() + GIVE_UP_WAIT_S;
    int running = 0;
    for (int g = 0; g < GV_NCCL_MAX_GPUS; g++) {
        ahead_rank *a = &h->gpus[g];
        if (!a->started)
            continue;
        while (!__atomic_load_n(&a->done, __ATOMIC_ACQUIRE) && gv_now_s() < until)
            gv_nap_ms(1);
        if (!__atomic_load_n(&a->done, __ATOMIC_ACQUIRE)) {
            running = 1;
            continue;
        }
        if (a->comm)
            h->nc->ncclCommAbort(a->comm);
        a->comm = NULL;
    }
    ctx->nccl_ahead = NULL;
    ctx->drop_nccl_ahead = NULL;
    if (!running)
        free(h);
}

static int start(struct gv_nccl_ahead *h, uint32_t gpu, int rank)
{
    ahead_rank *a = &h->gpus[gpu];
    a->all = h;
    a->rank = rank;
    if (h->cu->cuDeviceGet(&a->device, (int)gpu) != GVCU_SUCCESS)
        return -1;
    /* The thread takes no signal: the worker's own handlers stay on its main thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    a->started = pthread_create(&a->thread, NULL, make_rank, a) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (a->started)
        pthread_detach(a->thread);
    return a->started ? 0 : -1;
}

int gv_nccl_ahead_join(gv_ctx *ctx, uint32_t gpu, int rank, int nranks)
{
    if (!ctx->in_worker || gpu >= GV_NCCL_MAX_GPUS || nranks < 2 || nranks > GV_NCCL_MAX_GPUS ||
        rank < 0 || rank >= nranks)
        return -1;
    struct gv_nccl_ahead *h = ctx->nccl_ahead;
    if (h && (h->nranks != nranks || h->gpus[gpu].started))
        return -1;
    if (!h) {
        const struct gv_nccl_api *nc = gv_nccl(ctx);
        const struct gv_cuda_api *cu = gv_cuda(ctx);
        if (!nc || !cu || gv_cuda_init(ctx) != GVCU_SUCCESS || !(h = calloc(1, sizeof *h)))
            return -1;
        h->nc = nc, h->cu = cu, h->nranks = nranks;
        h->log_from = gv_nccl_log_mark(ctx->nccl_log);
        ctx->nccl_ahead = h;
        ctx->drop_nccl_ahead = give_up;
    }
    return start(h, gpu, rank);
}

/* Whether the ranks made ahead are exactly the GPUs of cuda[] in that order. */
static int fits(const struct gv_nccl_ahead *h, const uint32_t *cuda, uint32_t count)
{
    if ((uint32_t)h->nranks != count)
        return 0;
    int listed[GV_NCCL_MAX_GPUS] = {0};
    for (uint32_t i = 0; i < count; i++) {
        if (cuda[i] >= GV_NCCL_MAX_GPUS)
            return 0;
        const ahead_rank *a = &h->gpus[cuda[i]];
        if (a->started && a->rank != (int)i)
            return 0;
        listed[cuda[i]] = 1;
    }
    for (int g = 0; g < GV_NCCL_MAX_GPUS; g++)
        if (h->gpus[g].started && !listed[g])
            return 0;
    return 1;
}

/* Joins the GPUs of cuda[] not joined yet (when may_join; else their absence gives the ranks
 * up) and waits for every rank's creation to end, until `until`: 1 when every rank was made,
 * 0 when they do not fit cuda[] (given up), -1 when one failed or was late (why in err; given
 * up). */
static int complete(gv_ctx *ctx, const uint32_t *cuda, uint32_t count, int may_join, double until,
                    char *err, size_t cap)
{
    struct gv_nccl_ahead *h = ctx->nccl_ahead;
    int all_joined = 1;
    for (uint32_t i = 0; i < count && cuda[i] < GV_NCCL_MAX_GPUS; i++)
        all_joined &= h->gpus[cuda[i]].started;
    if (!fits(h, cuda, count) || (!may_join && !all_joined)) {
        give_up(ctx);
        return 0;
    }
    for (uint32_t i = 0; i < count; i++)
        if (!h->gpus[cuda[i]].started && start(h, cuda[i], (int)i) != 0) {
            snprintf(err, cap, "could not start the creation of rank %u (GPU %u)", (unsigned)i,
                     (unsigned)cuda[i]);
            give_up(ctx);
            return -1;
        }
    /* Every rank polled at each turn: one that failed leaves its peers waiting for it, so its
     * failure is seen at once rather than after theirs time out. */
    for (;;) {
        int waiting = -1, failed = -1;
        for (uint32_t i = 0; i < count && failed < 0; i++) {
            const ahead_rank *a = &h->gpus[cuda[i]];
            if (!__atomic_load_n(&a->done, __ATOMIC_ACQUIRE))
                waiting = waiting < 0 ? (int)i : waiting;
            else if (a->state != GVNC_SUCCESS)
                failed = (int)i;
        }
        if (waiting < 0 && failed < 0)
            return 1;
        if (failed < 0 && gv_now_s() < until) {
            gv_nap_ms(1);
            continue;
        }
        if (failed < 0)
            snprintf(err, cap, "rank %d (GPU %u) was not created in time", waiting,
                     (unsigned)cuda[waiting]);
        else if (h->gpus[cuda[failed]].state < 0) /* before NCCL: the unique ID, the context */
            snprintf(err, cap, "rank %d (GPU %u): %s failed", failed, (unsigned)cuda[failed],
                     h->gpus[cuda[failed]].failed);
        else
            snprintf(err, cap, "rank %d (GPU %u): %s: NCCL error %d", failed,
                     (unsigned)cuda[failed], h->gpus[cuda[failed]].failed,
                     h->gpus[cuda[failed]].state);
        give_up(ctx);
        return -1;
    }
}

int gv_nccl_ahead_pending(const gv_ctx *ctx)
{
    return ctx->nccl_ahead != NULL;
}

void gv_nccl_ahead_settle(gv_ctx *ctx, const uint32_t *cuda, uint32_t count, double until)
{
    char ignored[160];
    if (ctx->nccl_ahead)
        complete(ctx, cuda, count, 0, until, ignored, sizeof ignored);
}

int gv_nccl_ahead_take(gv_ctx *ctx, const uint32_t *cuda, uint32_t count, double deadline,
                       gvnc_comm *comms, long *log_from, char *err, size_t cap)
{
    struct gv_nccl_ahead *h = ctx->nccl_ahead;
    int made = h ? complete(ctx, cuda, count, 1, deadline, err, cap) : 0;
    if (made != 1)
        return made;
    for (uint32_t i = 0; i < count; i++) {
        comms[i] = h->gpus[cuda[i]].comm;
        h->gpus[cuda[i]].comm = NULL;
    }
    *log_from = h->log_from;
    give_up(ctx); /* every thread is done: this frees the state */
    return 1;
}
