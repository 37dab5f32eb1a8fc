/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* accept4; IFF_UP with glibc's net/if.h */
/* A fake libnccl.so.2 for CI, built from lib/backends/nccl_api.def. Ranks meet in a shared
 * file that the unique id names, so ranks of one process (one communicator per GPU) and ranks
 * of several processes (mpirun) reduce their real host buffers (the fake libcuda's "device"
 * memory) through it. Scenario faults: a wrong sum on rank 0, a collective that never completes
 * (its stream held in the fake libcuda until ncclCommAbort), a collective stuck in the host
 * code (host_hang: a blocking call never returns), a crash in the first collective.
 * Non-blocking communicators report ncclInProgress until every rank has joined; blocking ones
 * wait for them, as NCCL's bootstrap does (up to WAIT_LIMIT_S).
 *
 * With GV_FAKE_NCCL_NET=socket the collectives' data crosses the network, as NCCL's socket
 * transport does: each rank listens on its interface's IPv4 address (NCCL_SOCKET_IFNAME's
 * prefix, else the first one up that is not loopback), publishes it in the shared file, and
 * the ranks pass every rank's input round a TCP ring before each computes its output. The time
 * is the network's: a shaped link (tc tbf) makes its node's collectives slow. Sends and
 * receives still go through the file. Test code only: never shipped. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
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
    /* GV_FAKE_NCCL_NET=socket: where each rank listens (network order), 0 until it does. */
    uint32_t addr[MAX_RANKS];
    uint16_t port[MAX_RANKS];
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
    int collectives;     /* operations run so far (nccl_hang_after) */
    const fake_gpu *gpu; /* the GPU whose context was current at its creation */
    /* GV_FAKE_NCCL_NET=socket: the listening socket, the ring's connections to the next and
     * from the previous rank (-1 until the first collective), every rank's input as the ring
     * brought it (slots of `block` bytes) and each slot's length. */
    int listener, to_next, from_prev;
    char *gathered;
    size_t block, lengths[MAX_RANKS];
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
    if (c->gathered)
        return (float *)(c->gathered + (size_t)rank * c->block);
    return (float *)((char *)c->sh + HEADER_BYTES + (size_t)rank * SLOT_BYTES);
}

static int socket_mode(void)
{
    const char *net = getenv("GV_FAKE_NCCL_NET");
    return net && strcmp(net, "socket") == 0;
}

/* This host's IPv4 address for the ring, network order: NCCL_SOCKET_IFNAME's prefix, else the
 * first interface up that is not loopback, else loopback. */
static uint32_t ring_address(void)
{
    const char *want = getenv("NCCL_SOCKET_IFNAME");
    uint32_t found = htonl(INADDR_LOOPBACK);
    struct ifaddrs *all = NULL;
    if (getifaddrs(&all) != 0)
        return found;
    for (struct ifaddrs *i = all; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK))
            continue;
        if (want && *want && strncmp(i->ifa_name, want, strlen(want)) != 0)
            continue;
        found = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
        break;
    }
    freeifaddrs(all);
    return found;
}

/* Listens on this host's ring address and publishes it for the others; -1 on failure. */
static int ring_listen(gvnc_comm c)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = ring_address()};
    socklen_t len = sizeof a;
    c->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->listener < 0 || bind(c->listener, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(c->listener, 4) != 0 || getsockname(c->listener, (struct sockaddr *)&a, &len) != 0)
        return -1;
    c->sh->addr[c->rank] = a.sin_addr.s_addr;
    __atomic_store_n(&c->sh->port[c->rank], ntohs(a.sin_port), __ATOMIC_RELEASE);
    return 0;
}

/* Connects to the next rank and accepts the previous one's connection (connect completes in
 * the peer's backlog, so every rank may connect first). */
static int ring_connect(gvnc_comm c)
{
    int next = (c->rank + 1) % c->nranks;
    double until = now_s() + WAIT_LIMIT_S;
    while (!__atomic_load_n(&c->sh->port[next], __ATOMIC_ACQUIRE))
        if (now_s() > until)
            return -1;
        else
            nap();
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = c->sh->addr[next],
                            .sin_port = htons(c->sh->port[next])};
    int one = 1;
    c->to_next = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->to_next < 0 || connect(c->to_next, (struct sockaddr *)&a, sizeof a) != 0)
        return -1;
    setsockopt(c->to_next, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct pollfd p = {c->listener, POLLIN, 0};
    if (poll(&p, 1, (int)(WAIT_LIMIT_S * 1000)) != 1)
        return -1;
    c->from_prev = accept4(c->listener, NULL, NULL, SOCK_CLOEXEC);
    if (c->from_prev < 0)
        return -1;
    fcntl(c->to_next, F_SETFL, O_NONBLOCK);
    fcntl(c->from_prev, F_SETFL, O_NONBLOCK);
    return 0;
}

/* Sends `out` (out_len bytes) to the next rank while receiving in_len bytes from the previous
 * one into `in`, both at once so that neither side's buffers fill first; -1 on an error or
 * after WAIT_LIMIT_S without progress. */
static int ring_step(gvnc_comm c, const char *out, size_t out_len, char *in, size_t in_len)
{
    size_t sent = 0, got = 0;
    while (sent < out_len || got < in_len) {
        struct pollfd p[2] = {{c->to_next, sent < out_len ? POLLOUT : 0, 0},
                              {c->from_prev, got < in_len ? POLLIN : 0, 0}};
        int n = poll(p, 2, (int)(WAIT_LIMIT_S * 1000));
        if (n <= 0)
            return -1;
        if (p[0].revents & (POLLERR | POLLHUP) || p[1].revents & POLLERR)
            return -1;
        if (p[0].revents & POLLOUT) {
            ssize_t w = send(c->to_next, out + sent, out_len - sent, MSG_NOSIGNAL);
            if (w < 0 && errno != EAGAIN && errno != EINTR)
                return -1;
            sent += w > 0 ? (size_t)w : 0;
        }
        if (p[1].revents & (POLLIN | POLLHUP)) {
            ssize_t r = recv(c->from_prev, in + got, in_len - got, 0);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
                return -1;
            got += r > 0 ? (size_t)r : 0;
        }
    }
    return 0;
}

/* Every rank's input (this rank's: `bytes` of `mine`) passed round the ring, n - 1 steps, each
 * slot preceded by its length: what NCCL's ring all-gather moves, (n - 1) x bytes a rank. */
static gvnc_result ring_gather(gvnc_comm c, const void *mine, size_t bytes)
{
    if (c->to_next < 0 && ring_connect(c) != 0) {
        snprintf(last_error, sizeof last_error, "fake NCCL: cannot connect the ring (rank %d)",
                 c->rank);
        return GVNC_REMOTE_ERROR;
    }
    if (!c->gathered) {
        c->block = SLOT_BYTES;
        if (!(c->gathered = malloc((size_t)c->nranks * c->block)))
            return GVNC_SYSTEM_ERROR;
    }
    memcpy(c->gathered + (size_t)c->rank * c->block, mine, bytes);
    c->lengths[c->rank] = bytes;
    for (int k = 0; k < c->nranks - 1; k++) {
        int out = (c->rank - k + c->nranks) % c->nranks, in = (out - 1 + c->nranks) % c->nranks;
        uint64_t out_len = c->lengths[out], in_len = 0;
        if (ring_step(c, (const char *)&out_len, sizeof out_len, (char *)&in_len, sizeof in_len) !=
                0 ||
            in_len > c->block ||
            ring_step(c, c->gathered + (size_t)out * c->block, out_len,
                      c->gathered + (size_t)in * c->block, in_len) != 0) {
            snprintf(last_error, sizeof last_error, "fake NCCL: the ring broke at step %d", k);
            return GVNC_REMOTE_ERROR;
        }
        c->lengths[in] = in_len;
    }
    return GVNC_SUCCESS;
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

/* The scenario read again, as every call that starts something does, so that one test process
 * can walk through several nodes; written to the shared copy only when it changed, under a
 * lock: ranks are created from several threads at once, as gpuverify-worker does ahead of its
 * sweep (lib/nccl/nccl_ahead.c), and NCCL allows. */
static void reload_scenario(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    fake_scenario *now = malloc(sizeof *now);
    if (!now)
        return;
    fake_scenario_load(now);
    pthread_mutex_lock(&lock);
    if (memcmp(now, &sc, sizeof sc) != 0)
        memcpy(&sc, now, sizeof sc);
    pthread_mutex_unlock(&lock);
    free(now);
}

gvnc_result ncclGetVersion(int *version)
{
    if (!version)
        return GVNC_INVALID_ARGUMENT;
    reload_scenario();
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
    reload_scenario();
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
    c->listener = c->to_next = c->from_prev = -1;
    if (socket_mode() && ring_listen(c) != 0) {
        snprintf(last_error, sizeof last_error, "fake NCCL: cannot listen for the ring");
        if (c->listener >= 0)
            close(c->listener);
        munmap(map, MAP_BYTES);
        free(c);
        return GVNC_SYSTEM_ERROR;
    }
    c->blocking = !config || config->blocking != 0;
    c->gpu = fake_cuda_current_gpu();
    /* The last rank to join removes the file: every rank has it mapped by then, and a rank
     * killed later (the hang tests) then leaves nothing behind in $TMPDIR. */
    if (__atomic_add_fetch(&c->sh->joined, 1, __ATOMIC_ACQ_REL) == nranks)
        unlink(c->path);
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
        if (now_s() > until) {
            unlink(c->path); /* the ranks that never came find none: they time out too */
            return GVNC_SYSTEM_ERROR;
        } else {
            nap();
        }
    return GVNC_SUCCESS;
}

gvnc_result ncclCommGetAsyncError(gvnc_comm comm, gvnc_result *async_error)
{
    if (!comm || !async_error)
        return GVNC_INVALID_ARGUMENT;
    *async_error = ready(comm) && !comm->stuck ? GVNC_SUCCESS : GVNC_IN_PROGRESS;
    return GVNC_SUCCESS;
}

/* Leaves the rendezvous; the last rank to leave removes the file of one that never filled. */
static gvnc_result leave(gvnc_comm comm)
{
    if (!comm)
        return GVNC_INVALID_ARGUMENT;
    if (comm->held)
        fake_cuda_hold_stream(comm->held, 0);
    int fds[] = {comm->listener, comm->to_next, comm->from_prev};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(comm->gathered);
    int left = __atomic_add_fetch(&comm->sh->left, 1, __ATOMIC_ACQ_REL);
    if (left >= __atomic_load_n(&comm->sh->joined, __ATOMIC_ACQUIRE))
        unlink(comm->path);
    munmap(comm->sh, MAP_BYTES);
    free(comm);
    return GVNC_SUCCESS;
}

gvnc_result ncclCommAbort(gvnc_comm comm)
{
    int fault = fake_cuda_fault("ncclCommAbort");
    return fault ? (gvnc_result)fault : leave(comm);
}

gvnc_result ncclCommFinalize(gvnc_comm comm)
{
    return comm ? GVNC_SUCCESS : GVNC_INVALID_ARGUMENT;
}

gvnc_result ncclCommDestroy(gvnc_comm comm)
{
    int fault = fake_cuda_fault("ncclCommDestroy");
    return fault ? (gvnc_result)fault : leave(comm);
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
    /* nccl_hang_rank: that rank's kernels alone never complete; the others' do (without its
     * data: a GPU that stopped while its peers went on); nccl_hang_after: from that rank's Nth
     * operation on. */
    int hang = 0;
    for (int i = 0; i < n && strcmp(sc.nccl_fault, "hang") == 0; i++)
        hang |= (sc.nccl_hang_rank < 0 || ops[i].comm->rank == sc.nccl_hang_rank) &&
                ++ops[i].comm->collectives >= sc.nccl_hang_after;
    if (hang) {
        for (int i = 0; i < n; i++)
            if (sc.nccl_hang_rank < 0 || ops[i].comm->rank == sc.nccl_hang_rank) {
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
    if (socket_mode()) {
        for (int i = 0; i < n; i++) {
            size_t in = in_elems(&ops[i]) * sizeof(float);
            gvnc_result r =
                in > SLOT_BYTES ? GVNC_INVALID_ARGUMENT : ring_gather(ops[i].comm, ops[i].send, in);
            if (r != GVNC_SUCCESS)
                return r;
            compute(&ops[i]);
            ops[i].comm->seq++;
        }
        return GVNC_SUCCESS;
    }
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
