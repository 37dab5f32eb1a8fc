/* SPDX-License-Identifier: Apache-2.0 */
/* A fake libnccl.so.2 for CI, built from lib/backends/nccl_api.def. Ranks meet in a shared
 * file that the unique id names, so ranks of one process (one communicator per GPU) and ranks
 * of several processes (mpirun) reduce their real host buffers (the fake libcuda's "device"
 * memory) through it. Scenario faults: a wrong sum on rank 0, a collective that never completes
 * (its stream held in the fake libcuda until ncclCommAbort), a collective stuck in the host
 * code (host_hang: a blocking call never returns), a crash in the first collective.
 * Non-blocking communicators report ncclInProgress until every rank has joined; blocking ones
 * wait for them, as NCCL's bootstrap does (up to WAIT_LIMIT_S). Test code only: never
 * shipped. */
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "backends/nvabi/nccl_abi.h"
#include "fake_cuda_device.h"
#include "kernels/gv_random.h"
#include "scenario.h"

#define GV_NCCL_FN(ret, name, required, params)                                                    \
    __attribute__((visibility("default"))) ret name params;
#include "backends/nccl_api.def"
#undef GV_NCCL_FN

/* Where the loader finds the CUDA version NCCL was built for (NCCL's own convention). */
__attribute__((used)) static const char version_string[] = "NCCL version 2.28.9+cuda13.0";

#define MAX_RANKS 16
#define SLOT_BYTES (64u << 20) /* largest send buffer per rank: the sizes nccl.allreduce judges */
#define HEADER_BYTES 8192
#define MAP_BYTES (HEADER_BYTES + (size_t)MAX_RANKS * SLOT_BYTES)
#define WAIT_LIMIT_S 30.0 /* a peer that never comes: ncclSystemError rather than a hang */

typedef struct shared {
    int joined, left;
    uint64_t arrived, departed; /* barrier counters of the collectives, monotonic */
    /* Point-to-point channels: messages from rank s to rank d put in s's mailbox for d, and
     * how many of them d has taken (one message in flight per channel). */
    uint64_t sent[MAX_RANKS][MAX_RANKS], taken[MAX_RANKS][MAX_RANKS];
} shared;
_Static_assert(sizeof(shared) <= HEADER_BYTES, "the header holds the channels");

struct gvnc_comm_st {
    shared *sh;
    char path[GVNC_UNIQUE_ID_BYTES];
    int rank, nranks, blocking;
    uint64_t seq; /* collectives completed */
    int logged;   /* its connections are in NCCL's log */
    int stuck;    /* nccl_fault = host_hang: its operation never leaves NCCL's host code */
    gvcu_stream held;
    const fake_gpu *gpu; /* the GPU whose context was current at its creation */
};

/* Point-to-point ops, beside the collectives' GV_COLL_* numbers. */
#define OP_SEND 100
#define OP_RECV 101
/* A sender's part of its slot for each receiver. */
#define MAILBOX_BYTES (SLOT_BYTES / MAX_RANKS)

typedef struct queued_op {
    int kind; /* GV_COLL_*, OP_SEND, OP_RECV */
    const float *send;
    float *recv;
    size_t count;
    int peer; /* OP_SEND, OP_RECV */
    gvnc_comm comm;
    gvcu_stream stream;
} queued_op;

static fake_scenario sc;
static __thread int group_depth;
static __thread queued_op queued[1024]; /* 64 GPUs' sends and receives of an all-to-all */
static __thread int queued_count;
static __thread gvnc_comm joining[64];
static __thread int joining_count;
static __thread char last_error[256];

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void nap(void)
{
    struct timespec t = {0, 50000};
    nanosleep(&t, NULL);
}

static float *slot(gvnc_comm c, int rank)
{
    return (float *)((char *)c->sh + HEADER_BYTES + (size_t)rank * SLOT_BYTES);
}

static int ready(gvnc_comm c)
{
    return __atomic_load_n(&c->sh->joined, __ATOMIC_ACQUIRE) >= c->nranks;
}

/* Waits until *counter reaches target; 0, or -1 after WAIT_LIMIT_S. */
static int wait_for(uint64_t *counter, uint64_t target)
{
    double until = now_s() + WAIT_LIMIT_S;
    while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < target)
        if (now_s() > until)
            return -1;
        else
            nap();
    return 0;
}

gvnc_result ncclGetVersion(int *version)
{
    if (!version)
        return GVNC_INVALID_ARGUMENT;
    fake_scenario_load(&sc);
    *version = sc.nccl_version ? sc.nccl_version : 22809;
    return GVNC_SUCCESS;
}

gvnc_result ncclGetUniqueId(gvnc_unique_id *id)
{
    static unsigned counter;
    if (!id)
        return GVNC_INVALID_ARGUMENT;
    memset(id, 0, sizeof *id);
    const char *tmp = getenv("TMPDIR");
    snprintf(id->internal, sizeof id->internal, "%s/gvfake-nccl-%ld-%u-%ld",
             tmp && *tmp ? tmp : "/tmp", (long)getpid(), __atomic_add_fetch(&counter, 1, 0),
             (long)(now_s() * 1e6) % 1000000);
    return GVNC_SUCCESS; /* the first rank to join creates the file */
}

gvnc_result ncclCommInitRankConfig(gvnc_comm *comm, int nranks, gvnc_unique_id id, int rank,
                                   gvnc_config *config)
{
    if (!comm || nranks < 1 || nranks > MAX_RANKS || rank < 0 || rank >= nranks)
        return GVNC_INVALID_ARGUMENT;
    if (config && config->magic != GVNC_CONFIG_MAGIC)
        return GVNC_INVALID_ARGUMENT;
    fake_scenario_load(&sc);
    gvnc_comm c = calloc(1, sizeof *c);
    if (!c)
        return GVNC_SYSTEM_ERROR;
    memcpy(c->path, id.internal, sizeof c->path);
    c->path[sizeof c->path - 1] = '\0';
    int fd = open(c->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    /* Sparse: only what the ranks write takes space. Growing it again is harmless. */
    void *map = fd < 0 || ftruncate(fd, (off_t)MAP_BYTES) != 0
                    ? MAP_FAILED
                    : mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    if (map == MAP_FAILED) {
        snprintf(last_error, sizeof last_error, "fake NCCL: cannot map %s", c->path);
        free(c);
        return GVNC_SYSTEM_ERROR;
    }
    c->sh = map;
    c->rank = rank, c->nranks = nranks;
    c->blocking = !config || config->blocking != 0;
    c->gpu = fake_cuda_current_gpu();
    __atomic_add_fetch(&c->sh->joined, 1, __ATOMIC_ACQ_REL);
    *comm = c;
    if (group_depth > 0) {
        if (joining_count < 64)
            joining[joining_count++] = c;
        return GVNC_SUCCESS;
    }
    if (!c->blocking)
        return ready(c) ? GVNC_SUCCESS : GVNC_IN_PROGRESS;
    double until = now_s() + WAIT_LIMIT_S;
    while (!ready(c))
        if (now_s() > until)
            return GVNC_SYSTEM_ERROR;
        else
            nap();
    return GVNC_SUCCESS;
}

gvnc_result ncclCommGetAsyncError(gvnc_comm comm, gvnc_result *async_error)
{
    if (!comm || !async_error)
        return GVNC_INVALID_ARGUMENT;
    *async_error = ready(comm) && !comm->stuck ? GVNC_SUCCESS : GVNC_IN_PROGRESS;
    return GVNC_SUCCESS;
}

/* Leaves the rendezvous; the last rank to leave removes the file. */
static gvnc_result leave(gvnc_comm comm)
{
    if (!comm)
        return GVNC_INVALID_ARGUMENT;
    if (comm->held)
        fake_cuda_hold_stream(comm->held, 0);
    int left = __atomic_add_fetch(&comm->sh->left, 1, __ATOMIC_ACQ_REL);
    if (left >= __atomic_load_n(&comm->sh->joined, __ATOMIC_ACQUIRE))
        unlink(comm->path);
    munmap(comm->sh, MAP_BYTES);
    free(comm);
    return GVNC_SUCCESS;
}

gvnc_result ncclCommAbort(gvnc_comm comm)
{
    return leave(comm);
}

gvnc_result ncclCommFinalize(gvnc_comm comm)
{
    return comm ? GVNC_SUCCESS : GVNC_INVALID_ARGUMENT;
}

gvnc_result ncclCommDestroy(gvnc_comm comm)
{
    return leave(comm);
}

gvnc_result ncclGroupStart(void)
{
    group_depth++;
    return GVNC_SUCCESS;
}

/* Elements an op puts in its rank's slot (its input), and those it writes on this rank. */
static size_t in_elems(const queued_op *o)
{
    int whole = o->kind == GV_COLL_REDUCE_SCATTER || o->kind == GV_COLL_ALL_TO_ALL ||
                o->kind == GV_COLL_SCATTER;
    int rooted = o->kind == GV_COLL_BROADCAST || o->kind == GV_COLL_SCATTER;
    if (o->kind == OP_RECV || (rooted && o->comm->rank != 0))
        return 0;
    return whole ? o->count * (size_t)o->comm->nranks : o->count;
}

static size_t out_elems(const queued_op *o)
{
    int whole =
        o->kind == GV_COLL_ALL_GATHER || o->kind == GV_COLL_ALL_TO_ALL || o->kind == GV_COLL_GATHER;
    int at_root = o->kind == GV_COLL_REDUCE || o->kind == GV_COLL_GATHER;
    if (o->kind == OP_SEND || (at_root && o->comm->rank != 0))
        return 0;
    return whole ? o->count * (size_t)o->comm->nranks : o->count;
}

/* Rank `rank`'s output, from every rank's input in the slots (a receive: from its sender's
 * mailbox for it). */
static void compute(const queued_op *o)
{
    gvnc_comm c = o->comm;
    size_t out = out_elems(o), n = o->count;
    for (size_t j = 0; j < out; j++) {
        float v = 0;
        switch (o->kind) {
        case GV_COLL_ALL_GATHER:
        case GV_COLL_GATHER:
            v = slot(c, (int)(j / n))[j % n];
            break;
        case GV_COLL_BROADCAST:
            v = slot(c, 0)[j];
            break;
        case GV_COLL_ALL_TO_ALL:
            v = slot(c, (int)(j / n))[(size_t)c->rank * n + j % n];
            break;
        case GV_COLL_SCATTER:
            v = slot(c, 0)[(size_t)c->rank * n + j];
            break;
        default: /* all-reduce, reduce, reduce-scatter */
            for (int r = 0; r < c->nranks; r++)
                v += slot(c, r)[(o->kind == GV_COLL_REDUCE_SCATTER ? (size_t)c->rank * n : 0) + j];
        }
        o->recv[j] = v;
    }
    if (out && c->rank == 0 && strcmp(sc.nccl_fault, "wrong_sum") == 0)
        o->recv[0] += 1;
}

/* The distinct communicators of a group's ops: each passes the barriers once. */
static int distinct_comms(const queued_op *ops, int n, gvnc_comm *out)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < k; j++)
            seen |= out[j] == ops[i].comm;
        if (!seen)
            out[k++] = ops[i].comm;
    }
    return k;
}

/* The scenario's transport between two ranks: across pairs (0-1, 2-3, ...) its own when set. */
static const char *transport_to(int rank, int peer)
{
    return sc.nccl_transport_across_pairs[0] && rank / 2 != peer / 2
               ? sc.nccl_transport_across_pairs
               : sc.nccl_transport;
}

/* With NCCL_DEBUG=INFO, what NCCL logs when a rank first connects to its ring neighbours (it
 * connects at the first collective): the scenario's transport, in NCCL's own line format, to
 * NCCL_DEBUG_FILE or else stdout, as NCCL does. */
static void log_connections(gvnc_comm c)
{
    const char *level = getenv("NCCL_DEBUG"), *path = getenv("NCCL_DEBUG_FILE");
    if (!level || strcmp(level, "INFO") != 0 || c->nranks < 2)
        return;
    FILE *f = path && *path ? fopen(path, "a") : stdout;
    if (!f)
        return;
    int next = (c->rank + 1) % c->nranks, prev = (c->rank + c->nranks - 1) % c->nranks;
    const char *head = "fakehost:1:1";
    if (c->rank == 0)
        fprintf(f, "%s [%d] NCCL INFO Using network %s\n", head, c->rank, sc.nccl_network);
    for (int ch = 0; ch < 2; ch++) {
        fprintf(f, "%s [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via %s\n", head, c->rank,
                ch, c->rank, c->rank, next, next, transport_to(c->rank, next));
        fprintf(f, "%s [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via %s\n", head, c->rank,
                ch, c->rank, c->rank, prev, prev, transport_to(c->rank, prev));
    }
    if (f != stdout)
        fclose(f);
    else
        fflush(f);
}

/* A group of sends and receives: only the ranks in it take part, each channel in order. Every
 * send of the group is posted before any receive waits, as NCCL's group semantics allow. */
static gvnc_result run_p2p(const queued_op *ops, int n)
{
    for (int i = 0; i < n; i++) {
        const queued_op *o = &ops[i];
        shared *sh = o->comm->sh;
        int me = o->comm->rank;
        if (o->kind != OP_SEND)
            continue;
        if (o->count * sizeof(float) > MAILBOX_BYTES) {
            snprintf(last_error, sizeof last_error, "fake NCCL: a send of %zu bytes, at most %u",
                     o->count * sizeof(float), MAILBOX_BYTES);
            return GVNC_INVALID_ARGUMENT;
        }
        /* The previous message on this channel must have been taken. */
        if (wait_for(&sh->taken[me][o->peer], __atomic_load_n(&sh->sent[me][o->peer], 0)))
            return GVNC_SYSTEM_ERROR;
        memcpy((char *)slot(o->comm, me) + (size_t)o->peer * MAILBOX_BYTES, o->send,
               o->count * sizeof(float));
        __atomic_add_fetch(&sh->sent[me][o->peer], 1, __ATOMIC_ACQ_REL);
        /* A link takes its time: 1 ms + 2 GB/s, the scenario's slow one 2.5 ms + 0.1 GB/s.
         * A pair is timed over its loop of operations (50 in test_nccl's pairs): at 1 ms each,
         * a stall of the host's of tens of milliseconds on a busy machine does not make one
         * pair look twice as slow as the others, as it would over a loop of microseconds. */
        const int *slow = sc.nccl_slow_link;
        double bytes = (double)o->count * sizeof(float);
        double seconds =
            (me == slow[0] && o->peer == slow[1]) || (me == slow[1] && o->peer == slow[0])
                ? 2.5e-3 + bytes / 1e8
                : 1e-3 + bytes / 2e9;
        struct timespec t = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
        nanosleep(&t, NULL);
    }
    for (int i = 0; i < n; i++) {
        const queued_op *o = &ops[i];
        shared *sh = o->comm->sh;
        int me = o->comm->rank;
        if (o->kind != OP_RECV)
            continue;
        uint64_t next = __atomic_load_n(&sh->taken[o->peer][me], __ATOMIC_ACQUIRE) + 1;
        if (wait_for(&sh->sent[o->peer][me], next))
            return GVNC_SYSTEM_ERROR;
        memcpy(o->recv, (const char *)slot(o->comm, o->peer) + (size_t)me * MAILBOX_BYTES,
               o->count * sizeof(float));
        if (me == 0 && strcmp(sc.nccl_fault, "wrong_sum") == 0)
            o->recv[0] += 1;
        __atomic_store_n(&sh->taken[o->peer][me], next, __ATOMIC_RELEASE);
    }
    return GVNC_SUCCESS;
}

static gvnc_result run(const queued_op *ops, int n)
{
    double start = now_s();
    if (strcmp(sc.nccl_fault, "crash") == 0 && n > 0)
        raise(SIGSEGV); /* a bug in the library, as a process would meet it */
    if (strcmp(sc.nccl_fault, "host_hang") == 0 && n > 0) {
        /* Stuck in NCCL's host code (a connection that never completes): a blocking call never
         * returns; a non-blocking one stays in progress until aborted. */
        int blocking = 1;
        for (int i = 0; i < n; i++)
            blocking &= ops[i].comm->blocking, ops[i].comm->stuck = 1;
        while (blocking)
            nap();
        return GVNC_IN_PROGRESS;
    }
    if (strcmp(sc.nccl_fault, "hang") == 0) {
        for (int i = 0; i < n; i++) {
            fake_cuda_hold_stream(ops[i].stream, 1);
            ops[i].comm->held = ops[i].stream;
        }
        return GVNC_SUCCESS;
    }
    gvnc_comm comms[64];
    int ncomms = distinct_comms(ops, n, comms);
    for (int i = 0; i < ncomms; i++)
        if (!comms[i]->logged) {
            log_connections(comms[i]);
            comms[i]->logged = 1;
        }
    if (n > 0 && (ops[0].kind == OP_SEND || ops[0].kind == OP_RECV))
        return run_p2p(ops, n);
    for (int i = 0; i < n; i++) {
        const queued_op *o = &ops[i];
        size_t in = in_elems(o);
        if (in * sizeof(float) > SLOT_BYTES) {
            snprintf(last_error, sizeof last_error, "fake NCCL: %zu bytes per rank, at most %u",
                     in * sizeof(float), SLOT_BYTES);
            return GVNC_INVALID_ARGUMENT;
        }
        if (in) /* a receive has no input (and no send pointer) */
            memcpy(slot(o->comm, o->comm->rank), o->send, in * sizeof(float));
    }
    for (int i = 0; i < ncomms; i++)
        __atomic_add_fetch(&comms[i]->sh->arrived, 1, __ATOMIC_ACQ_REL);
    for (int i = 0; i < ncomms; i++)
        if (wait_for(&comms[i]->sh->arrived, (comms[i]->seq + 1) * comms[i]->nranks))
            return GVNC_SYSTEM_ERROR;
    for (int i = 0; i < n; i++)
        compute(&ops[i]);
    if (sc.nccl_busbw_gbps > 0 && n > 0) {
        /* Take the time the scenario's bus bandwidth gives (nccl-tests' factors), counting the
         * time the host took to compute it. */
        const queued_op *o = &ops[0];
        size_t most = in_elems(o) > out_elems(o) ? in_elems(o) : out_elems(o);
        double bytes = (double)most * sizeof(float);
        double n_r = o->comm->nranks;
        int whole = o->kind == GV_COLL_BROADCAST || o->kind == GV_COLL_REDUCE || o->kind >= OP_SEND;
        double factor = n_r <= 1                        ? 0
                        : o->kind == GV_COLL_ALL_REDUCE ? 2 * (n_r - 1) / n_r
                        : whole                         ? 1
                                                        : (n_r - 1) / n_r;
        double seconds = start + bytes * factor / (sc.nccl_busbw_gbps * 1e9) - now_s();
        if (seconds < 0)
            seconds = 0;
        struct timespec t = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
        nanosleep(&t, NULL);
    }
    for (int i = 0; i < ncomms; i++)
        __atomic_add_fetch(&comms[i]->sh->departed, 1, __ATOMIC_ACQ_REL);
    for (int i = 0; i < ncomms; i++)
        if (wait_for(&comms[i]->sh->departed, (comms[i]->seq + 1) * comms[i]->nranks))
            return GVNC_SYSTEM_ERROR;
    for (int i = 0; i < ncomms; i++)
        comms[i]->seq++;
    return GVNC_SUCCESS;
}

gvnc_result ncclGroupEnd(void)
{
    if (group_depth <= 0)
        return GVNC_INVALID_USAGE;
    if (--group_depth > 0)
        return GVNC_SUCCESS;
    int pending = 0, blocking = 1, joiners = joining_count;
    for (int i = 0; i < joiners; i++) {
        pending |= !ready(joining[i]);
        blocking &= joining[i]->blocking;
    }
    joining_count = 0;
    int n = queued_count;
    queued_count = 0;
    if (pending && !blocking)
        return GVNC_IN_PROGRESS;
    double until = now_s() + WAIT_LIMIT_S;
    for (int i = 0; pending && i < joiners; i++)
        while (!ready(joining[i]))
            if (now_s() > until)
                return GVNC_SYSTEM_ERROR;
            else
                nap();
    return run(queued, n);
}

static gvnc_result enqueue(int kind, const void *send, void *recv, size_t count, int peer,
                           gvnc_comm comm, gvcu_stream stream)
{
    if (!comm || (!send && kind != OP_RECV) || (!recv && kind != OP_SEND) || count == 0)
        return GVNC_INVALID_ARGUMENT;
    if ((kind == OP_SEND || kind == OP_RECV) && (peer < 0 || peer >= comm->nranks))
        return GVNC_INVALID_ARGUMENT;
    if (!ready(comm))
        return GVNC_INVALID_USAGE;
    /* Stricter than NCCL, which switches devices itself: the caller makes each communicator's
     * GPU current before its call, as nccl-tests does, so that both time the same calls. */
    if (comm->gpu && fake_cuda_current_gpu() != comm->gpu) {
        snprintf(last_error, sizeof last_error,
                 "fake NCCL: called with another GPU's context current than its communicator's");
        return GVNC_INVALID_USAGE;
    }
    queued_op o = {kind, send, recv, count, peer, comm, stream};
    if (group_depth == 0)
        return run(&o, 1);
    if (queued_count >= (int)(sizeof queued / sizeof *queued))
        return GVNC_INVALID_USAGE;
    queued[queued_count++] = o;
    return GVNC_SUCCESS;
}

gvnc_result ncclAllReduce(const void *send, void *recv, size_t count, gvnc_data_type type,
                          gvnc_red_op op, gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32 || op != GVNC_SUM)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_ALL_REDUCE, send, recv, count, 0, comm, stream);
}

gvnc_result ncclAllGather(const void *send, void *recv, size_t send_count, gvnc_data_type type,
                          gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_ALL_GATHER, send, recv, send_count, 0, comm, stream);
}

gvnc_result ncclReduceScatter(const void *send, void *recv, size_t recv_count, gvnc_data_type type,
                              gvnc_red_op op, gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32 || op != GVNC_SUM)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_REDUCE_SCATTER, send, recv, recv_count, 0, comm, stream);
}

gvnc_result ncclBroadcast(const void *send, void *recv, size_t count, gvnc_data_type type, int root,
                          gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32 || root != 0)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_BROADCAST, send, recv, count, 0, comm, stream);
}

gvnc_result ncclReduce(const void *send, void *recv, size_t count, gvnc_data_type type,
                       gvnc_red_op op, int root, gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32 || op != GVNC_SUM || root != 0)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_REDUCE, send, recv, count, 0, comm, stream);
}

gvnc_result ncclSend(const void *send, size_t count, gvnc_data_type type, int peer, gvnc_comm comm,
                     gvcu_stream stream)
{
    if (type != GVNC_FLOAT32)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(OP_SEND, send, NULL, count, peer, comm, stream);
}

gvnc_result ncclRecv(void *recv, size_t count, gvnc_data_type type, int peer, gvnc_comm comm,
                     gvcu_stream stream)
{
    if (type != GVNC_FLOAT32)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(OP_RECV, NULL, recv, count, peer, comm, stream);
}

gvnc_result ncclAlltoAll(const void *send, void *recv, size_t count, gvnc_data_type type,
                         gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_ALL_TO_ALL, send, recv, count, 0, comm, stream);
}

gvnc_result ncclGather(const void *send, void *recv, size_t count, gvnc_data_type type, int root,
                       gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32 || root != 0)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_GATHER, send, recv, count, 0, comm, stream);
}

gvnc_result ncclScatter(const void *send, void *recv, size_t count, gvnc_data_type type, int root,
                        gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32 || root != 0)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_SCATTER, send, recv, count, 0, comm, stream);
}

const char *ncclGetLastError(gvnc_comm comm)
{
    (void)comm;
    return last_error;
}

const char *ncclGetErrorString(gvnc_result result)
{
    static const char *const names[] = {"no error",
                                        "unhandled cuda error",
                                        "unhandled system error",
                                        "internal error",
                                        "invalid argument",
                                        "invalid usage",
                                        "remote process exited or there was a network error",
                                        "NCCL operation in progress"};
    return result >= 0 && result < 8 ? names[result] : "unknown result code";
}
