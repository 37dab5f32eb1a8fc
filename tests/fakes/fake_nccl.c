/* A fake libnccl.so.2 for CI, built from lib/backends/nccl_api.def. Ranks meet in a shared
 * file that the unique id names, so ranks of one process (one communicator per GPU) and ranks
 * of several processes (mpirun) reduce their real host buffers (the fake libcuda's "device"
 * memory) through it. Scenario faults: a wrong sum on rank 0, a collective that never completes
 * (its stream held in the fake libcuda until ncclCommAbort), a crash in the first collective.
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
#define SLOT_BYTES (4u << 20) /* largest send buffer per rank */
#define HEADER_BYTES 4096
#define MAP_BYTES (HEADER_BYTES + (size_t)MAX_RANKS * SLOT_BYTES)
#define WAIT_LIMIT_S 30.0 /* a peer that never comes: ncclSystemError rather than a hang */

typedef struct shared {
    int joined, left;
    uint64_t arrived, departed; /* barrier counters, monotonic */
} shared;

struct gvnc_comm_st {
    shared *sh;
    char path[GVNC_UNIQUE_ID_BYTES];
    int rank, nranks, blocking;
    uint64_t seq; /* collectives completed */
    gvcu_stream held;
};

typedef struct queued_op {
    int kind; /* GV_COLL_* */
    const float *send;
    float *recv;
    size_t count;
    gvnc_comm comm;
    gvcu_stream stream;
} queued_op;

static fake_scenario sc;
static __thread int group_depth;
static __thread queued_op queued[64];
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
    *async_error = ready(comm) ? GVNC_SUCCESS : GVNC_IN_PROGRESS;
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

/* One element of rank `rank`'s output, from every rank's input in the slots. */
static void compute(const queued_op *o)
{
    gvnc_comm c = o->comm;
    size_t out = o->kind == GV_COLL_ALL_GATHER ? o->count * (size_t)c->nranks : o->count;
    for (size_t j = 0; j < out; j++) {
        float v = 0;
        if (o->kind == GV_COLL_ALL_GATHER)
            v = slot(c, (int)(j / o->count))[j % o->count];
        else if (o->kind == GV_COLL_BROADCAST)
            v = slot(c, 0)[j];
        else
            for (int r = 0; r < c->nranks; r++)
                v += slot(
                    c, r)[(o->kind == GV_COLL_REDUCE_SCATTER ? (size_t)c->rank * o->count : 0) + j];
        o->recv[j] = v;
    }
    if (c->rank == 0 && strcmp(sc.nccl_fault, "wrong_sum") == 0)
        o->recv[0] += 1;
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
                ch, c->rank, c->rank, next, next, sc.nccl_transport);
        fprintf(f, "%s [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via %s\n", head, c->rank,
                ch, c->rank, c->rank, prev, prev, sc.nccl_transport);
    }
    if (f != stdout)
        fclose(f);
    else
        fflush(f);
}

static gvnc_result run(const queued_op *ops, int n)
{
    double start = now_s();
    if (strcmp(sc.nccl_fault, "crash") == 0 && n > 0)
        raise(SIGSEGV); /* a bug in the library, as a process would meet it */
    if (strcmp(sc.nccl_fault, "hang") == 0) {
        for (int i = 0; i < n; i++) {
            fake_cuda_hold_stream(ops[i].stream, 1);
            ops[i].comm->held = ops[i].stream;
        }
        return GVNC_SUCCESS;
    }
    for (int i = 0; i < n; i++)
        if (ops[i].comm->seq == 0)
            log_connections(ops[i].comm);
    for (int i = 0; i < n; i++) {
        const queued_op *o = &ops[i];
        size_t in =
            o->kind == GV_COLL_REDUCE_SCATTER ? o->count * (size_t)o->comm->nranks : o->count;
        if (in * sizeof(float) > SLOT_BYTES) {
            snprintf(last_error, sizeof last_error, "fake NCCL: %zu bytes per rank, at most %u",
                     in * sizeof(float), SLOT_BYTES);
            return GVNC_INVALID_ARGUMENT;
        }
        if (o->kind != GV_COLL_BROADCAST || o->comm->rank == 0)
            memcpy(slot(o->comm, o->comm->rank), o->send, in * sizeof(float));
        __atomic_add_fetch(&o->comm->sh->arrived, 1, __ATOMIC_ACQ_REL);
    }
    for (int i = 0; i < n; i++)
        if (wait_for(&ops[i].comm->sh->arrived, (ops[i].comm->seq + 1) * ops[i].comm->nranks))
            return GVNC_SYSTEM_ERROR;
    for (int i = 0; i < n; i++)
        compute(&ops[i]);
    if (sc.nccl_busbw_gbps > 0 && n > 0) {
        /* Take the time the scenario's bus bandwidth gives (nccl-tests' factors), counting the
         * time the host took to compute it. */
        const queued_op *o = &ops[0];
        double bytes =
            (double)o->count * sizeof(float) *
            (o->kind == GV_COLL_ALL_GATHER || o->kind == GV_COLL_REDUCE_SCATTER ? o->comm->nranks
                                                                                : 1);
        double n_r = o->comm->nranks;
        double factor = n_r <= 1                        ? 0
                        : o->kind == GV_COLL_ALL_REDUCE ? 2 * (n_r - 1) / n_r
                        : o->kind == GV_COLL_BROADCAST  ? 1
                                                        : (n_r - 1) / n_r;
        double seconds = start + bytes * factor / (sc.nccl_busbw_gbps * 1e9) - now_s();
        if (seconds < 0)
            seconds = 0;
        struct timespec t = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
        nanosleep(&t, NULL);
    }
    for (int i = 0; i < n; i++)
        __atomic_add_fetch(&ops[i].comm->sh->departed, 1, __ATOMIC_ACQ_REL);
    for (int i = 0; i < n; i++) {
        if (wait_for(&ops[i].comm->sh->departed, (ops[i].comm->seq + 1) * ops[i].comm->nranks))
            return GVNC_SYSTEM_ERROR;
    }
    for (int i = 0; i < n; i++)
        ops[i].comm->seq++;
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

static gvnc_result enqueue(int kind, const void *send, void *recv, size_t count, gvnc_comm comm,
                           gvcu_stream stream)
{
    if (!comm || !send || !recv || count == 0)
        return GVNC_INVALID_ARGUMENT;
    if (!ready(comm))
        return GVNC_INVALID_USAGE;
    queued_op o = {kind, send, recv, count, comm, stream};
    if (group_depth == 0)
        return run(&o, 1);
    if (queued_count >= 64)
        return GVNC_INVALID_USAGE;
    queued[queued_count++] = o;
    return GVNC_SUCCESS;
}

gvnc_result ncclAllReduce(const void *send, void *recv, size_t count, gvnc_data_type type,
                          gvnc_red_op op, gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32 || op != GVNC_SUM)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_ALL_REDUCE, send, recv, count, comm, stream);
}

gvnc_result ncclAllGather(const void *send, void *recv, size_t send_count, gvnc_data_type type,
                          gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_ALL_GATHER, send, recv, send_count, comm, stream);
}

gvnc_result ncclReduceScatter(const void *send, void *recv, size_t recv_count, gvnc_data_type type,
                              gvnc_red_op op, gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32 || op != GVNC_SUM)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_REDUCE_SCATTER, send, recv, recv_count, comm, stream);
}

gvnc_result ncclBroadcast(const void *send, void *recv, size_t count, gvnc_data_type type, int root,
                          gvnc_comm comm, gvcu_stream stream)
{
    if (type != GVNC_FLOAT32 || root != 0)
        return GVNC_INVALID_ARGUMENT;
    return enqueue(GV_COLL_BROADCAST, send, recv, count, comm, stream);
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
