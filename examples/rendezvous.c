/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include "rendezvous.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_RANKS 65536

struct gv_rdv {
    int rank, size; /* rank: 0 for the process that listens (on the rendezvous's host) */
    int listened;   /* this process listened (rank 0), whether or not every rank came */
    int *peers; /* rank 0: the connection of each other rank (index = rank), else [0] = rank 0 */
};

/* What a rank sends rank 0 on connecting; rank 0 answers with the rank it is to take (int32_t),
 * or closes a connection that is not of its launch (another test at the same port). */
typedef struct hello {
    uint32_t magic; /* HELLO_MAGIC */
    int32_t rank, size;
    uint64_t key;
} hello;
#define HELLO_MAGIC 0x47565231u /* "GVR1" */

/* How long a process on the rendezvous's host other than the launcher's rank 0 looks for
 * another's listening before it listens itself: the launcher's rank 0, started beside it, is
 * the one to print when it is there. */
#define OTHERS_FIRST_S 0.5

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int env_int(const char *name, int *out)
{
    const char *v = getenv(name);
    char *end = NULL;
    long n = v && *v ? strtol(v, &end, 10) : -1;
    if (!end || *end || n < 0 || n > MAX_RANKS)
        return -1;
    *out = (int)n;
    return 0;
}

/* FNV-1a over the values of the variables that name a launch, "\n" after each (unset: empty). */
static uint64_t launch_key(const char *const *names, size_t count)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t k = 0; k < count; k++) {
        const char *v = names[k] ? getenv(names[k]) : NULL;
        for (const char *c = v ? v : ""; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        h = (h ^ '\n') * 1099511628211ull;
    }
    return h;
}

int gv_rdv_from_env(int *rank, int *size, int *local, uint64_t *key)
{
    /* The innermost launcher first: torchrun under srun (SLURM_PROCID is the node's task
     * there, RANK the process's), mpirun in an sbatch script (SLURM_* are the script's). Each
     * with what names its launch, set alike in every process it starts (Open MPI's job id is
     * in both of its variables' spellings; a remote rank of mpirun has no SLURM_*; torchrun's
     * run ID is "none" unless given, its store's address is every worker's). */
    static const struct {
        const char *rank, *size, *local, *launch[3];
    } kinds[] = {
        {"RANK", "WORLD_SIZE", "LOCAL_RANK", {"TORCHELASTIC_RUN_ID", "MASTER_ADDR", "MASTER_PORT"}},
        {"OMPI_COMM_WORLD_RANK",
         "OMPI_COMM_WORLD_SIZE",
         "OMPI_COMM_WORLD_LOCAL_RANK",
         {"OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", NULL}},
        {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", {"SLURM_JOB_ID", "SLURM_STEP_ID", NULL}},
        {"PMI_RANK", "PMI_SIZE", "", {NULL, NULL, NULL}},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (env_int(kinds[k].rank, rank) == 0 && env_int(kinds[k].size, size) == 0 &&
            *rank < *size) {
            if (!kinds[k].local[0] || env_int(kinds[k].local, local) != 0)
                *local = -1;
            *key = launch_key(kinds[k].launch, 3);
            return 0;
        }
    return -1;
}

/* Waits until fd is ready for `events` or `until` passes: 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, double until)
{
    for (;;) {
        double left = until - now_s();
        if (left <= 0)
            return 0;
        struct pollfd p = {fd, events, 0};
        int n = poll(&p, 1, (int)(left * 1000) + 1);
        if (n > 0)
            return p.revents & (POLLERR | POLLNVAL) ? -1 : 1;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

static int send_all(int fd, const void *buf, size_t len, double until)
{
    for (size_t done = 0; done < len;) {
        if (wait_fd(fd, POLLOUT, until) != 1)
            return -1;
        ssize_t w = send(fd, (const char *)buf + done, len - done, MSG_NOSIGNAL);
        if (w < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
        done += w > 0 ? (size_t)w : 0;
    }
    return 0;
}

static int recv_all(int fd, void *buf, size_t len, double until)
{
    for (size_t done = 0; done < len;) {
        if (wait_fd(fd, POLLIN, until) != 1)
            return -1;
        ssize_t r = recv(fd, (char *)buf + done, len - done, 0);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
            return -1;
        done += r > 0 ? (size_t)r : 0;
    }
    return 0;
}

#define HOST_MAX 256

/* "HOST:PORT" (the last colon splits) into the host and the port's text; 0, or -1 with a
 * reason. */
static int split_where(const char *where, char host[HOST_MAX], const char **port, char *err,
                       size_t cap)
{
    const char *colon = strrchr(where, ':');
    if (!colon || colon == where || !colon[1] || (size_t)(colon - where) >= HOST_MAX) {
        snprintf(err, cap, "'%s' is not HOST:PORT (a port from 1 to 65535)", where);
        return -1;
    }
    char *end = NULL;
    errno = 0;
    unsigned long n = strtoul(colon + 1, &end, 10);
    if (!isdigit((unsigned char)colon[1]) || *end || errno || n < 1 || n > 65535) {
        snprintf(err, cap, "'%s': the port wants a number from 1 to 65535, not '%s'", where,
                 colon + 1);
        return -1;
    }
    /* An IPv6 address may come bracketed, as in a URL: "[fd00::1]:29500". */
    int bracketed = where[0] == '[' && colon[-1] == ']' && colon - where > 2;
    snprintf(host, HOST_MAX, "%.*s", (int)(colon - where) - 2 * bracketed, where + bracketed);
    *port = colon + 1;
    return 0;
}

int gv_rdv_check_where(const char *where, char *err, size_t cap)
{
    char host[HOST_MAX];
    const char *port;
    return split_where(where, host, &port, err, cap);
}

/* "HOST:PORT" into an address list; NULL with a reason. */
static struct addrinfo *resolve(const char *where, int passive, char *err, size_t cap)
{
    char host[HOST_MAX], why[320];
    const char *port;
    if (split_where(where, host, &port, why, sizeof why) != 0) {
        snprintf(err, cap, "rendezvous %s", why);
        return NULL;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(passive ? NULL : host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, cap, "rendezvous '%s': %s", where, gai_strerror(rc));
        return NULL;
    }
    return res;
}

/* Whether the rendezvous's host is this one: an address of its binds here. */
static int host_is_here(const char *where)
{
    char host[HOST_MAX], why[320];
    const char *port;
    if (split_where(where, host, &port, why, sizeof why) != 0)
        return 0;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    if (getaddrinfo(host, "0", &hints, &res) != 0)
        return 0;
    int here = 0;
    for (struct addrinfo *a = res; a && !here; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
        here = fd >= 0 && bind(fd, a->ai_addr, a->ai_addrlen) == 0;
        if (fd >= 0)
            close(fd);
    }
    freeaddrinfo(res);
    return here;
}

/* A socket listening on the rendezvous's port, on every address of this host: the ranks may
 * reach it by either family (an IPv6 address given, or a name that resolves to one), IPv6's
 * wildcard taking IPv4 too, IPv4's where IPv6 is off. -2 when another process holds the port
 * (another rank on this host listens, or another test), -1 with a reason. */
static int listen_on(const char *where, char *err, size_t cap)
{
    struct addrinfo *res = resolve(where, 1, err, cap);
    if (!res)
        return -1;
    int one = 1, zero = 0, lfd = -1, in_use = 0;
    for (int pass = 0; pass < 2 && lfd < 0; pass++)
        for (struct addrinfo *a = res; a && lfd < 0; a = a->ai_next) {
            if ((a->ai_family == AF_INET6) != (pass == 0))
                continue;
            lfd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
            if (lfd >= 0 && a->ai_family == AF_INET6)
                setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
            if (lfd >= 0 && (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
                             bind(lfd, a->ai_addr, a->ai_addrlen) != 0 || listen(lfd, 128) != 0)) {
                in_use |= errno == EADDRINUSE;
                snprintf(err, cap, "rendezvous: cannot listen on %s: %s", where, strerror(errno));
                close(lfd);
                lfd = -1;
            }
        }
    freeaddrinfo(res);
    return lfd >= 0 ? lfd : in_use ? -2 : -1;
}

/* The rank a process that sent h takes, or -1 when h is not of this launch or its rank is taken:
 * its own, but the launcher's rank 0 takes the one of the listener (own), which is rank 0. */
static int rank_of(const gv_rdv *r, const hello *h, int own, uint64_t key)
{
    if (h->magic != HELLO_MAGIC || h->size != r->size || h->key != key || h->rank < 0 ||
        h->rank >= r->size || h->rank == own)
        return -1;
    int rank = h->rank == 0 ? own : h->rank;
    return r->peers[rank] < 0 ? rank : -1;
}

static int serve(gv_rdv *r, int lfd, const char *where, int own, uint64_t key, double until,
                 char *err, size_t cap)
{
    int one = 1, joined = 0;
    while (joined < r->size - 1) {
        if (wait_fd(lfd, POLLIN, until) != 1) {
            snprintf(err, cap, "rendezvous: %d of %d ranks joined %s in time", joined + 1, r->size,
                     where);
            break;
        }
        int fd = accept(lfd, NULL, NULL);
        hello h;
        if (fd < 0)
            continue;
        int32_t rank = recv_all(fd, &h, sizeof h, until) == 0 ? rank_of(r, &h, own, key) : -1,
                ack = -1;
        /* The rank counts once the process acknowledged it: one that gave up on us meanwhile
         * (its connection is closed) leaves its rank to its next try. */
        if (rank < 1 || send_all(fd, &rank, sizeof rank, until) != 0 ||
            recv_all(fd, &ack, sizeof ack, until) != 0 || ack != rank) {
            close(fd); /* not one of ours, a rank twice, or gone */
            continue;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        r->peers[rank] = fd;
        joined++;
    }
    close(lfd);
    r->rank = 0;
    return joined == r->size - 1 ? 0 : -1;
}

/* Connects fd to a by `until` (connect() itself waits minutes for a host that drops SYNs);
 * 0 or -1. fd stays non-blocking: send_all and recv_all poll. */
static int connect_by(int fd, const struct addrinfo *a, double until)
{
    int flags = fcntl(fd, F_GETFL), e = 0;
    socklen_t len = sizeof e;
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
        return -1;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
        return 0;
    if (errno != EINPROGRESS || wait_fd(fd, POLLOUT, until) != 1)
        return -1;
    return getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == 0 && e == 0 ? 0 : -1;
}

/* Joins the listener at `where` as the launcher's rank `own`, connecting again until
 * connect_until (it may not listen yet, or a listener of another launch closed on us) and
 * waiting for its answer until `until`; 0 with r's rank set. */
static int connect_to(gv_rdv *r, const char *where, int own, uint64_t key, double connect_until,
                      double until, char *err, size_t cap)
{
    struct addrinfo *res = resolve(where, 0, err, cap);
    if (!res)
        return -1;
    hello h;
    memset(&h, 0, sizeof h); /* its padding too: every byte sent is set */
    h.magic = HELLO_MAGIC, h.rank = own, h.size = r->size, h.key = key;
    int fd = -1;
    int32_t rank = -1;
    while (fd < 0 && now_s() < connect_until) {
        for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
            fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
            if (fd >= 0 &&
                (connect_by(fd, a, connect_until) != 0 || send_all(fd, &h, sizeof h, until) != 0 ||
                 recv_all(fd, &rank, sizeof rank, until) != 0 || rank < 1 || rank >= r->size ||
                 send_all(fd, &rank, sizeof rank, until) != 0)) {
                close(fd);
                fd = -1;
            }
        }
        if (fd < 0) {
            struct timespec t = {0, 100 * 1000 * 1000};
            nanosleep(&t, NULL);
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, cap, "rendezvous: rank %d could not reach rank 0 at %s in time", own, where);
        return -1;
    }
    r->peers[0] = fd;
    r->rank = rank;
    return 0;
}

/* Listens at `where` (this host is its host) or, while another process of this host holds its
 * port, joins that one: a rank of this launch beside us, or another launch's, whose port is
 * free again once its ranks met. */
static int meet_here(gv_rdv *r, const char *where, int own, uint64_t key, double until, char *err,
                     size_t cap)
{
    /* The launcher's rank 0 may be beside us, and about to listen. */
    double first = now_s() + OTHERS_FIRST_S;
    if (own != 0 &&
        connect_to(r, where, own, key, first < until ? first : until, until, err, cap) == 0)
        return 0;
    while (now_s() < until) {
        int lfd = listen_on(where, err, cap);
        r->listened = lfd >= 0;
        if (lfd >= 0)
            return serve(r, lfd, where, own, key, until, err, cap);
        if (lfd == -1)
            return -1;
        double next = now_s() + OTHERS_FIRST_S;
        if (connect_to(r, where, own, key, next < until ? next : until, until, err, cap) == 0)
            return 0;
    }
    snprintf(err, cap,
             "rendezvous: %s is this host, where another program held the port all along and "
             "answered as no rank 0 of this launch (another test at the same port?)",
             where);
    return -1;
}

gv_rdv *gv_rdv_join(const char *where, int rank, int size, uint64_t key, double timeout_s,
                    int *taken, char *err, size_t cap)
{
    *taken = -1;
    if (!where || rank < 0 || size < 1 || size > MAX_RANKS || rank >= size) {
        snprintf(err, cap, "rendezvous: rank %d of %d is not a rank", rank, size);
        return NULL;
    }
    gv_rdv *r = calloc(1, sizeof *r);
    if (r)
        r->peers = malloc((size_t)size * sizeof *r->peers);
    if (!r || !r->peers) {
        free(r);
        snprintf(err, cap, "rendezvous: out of memory");
        return NULL;
    }
    r->rank = rank, r->size = size;
    for (int k = 0; k < size; k++)
        r->peers[k] = -1;
    double until = now_s() + timeout_s;
    /* The process on the rendezvous's host listens, whatever rank its launcher gave it: Open
     * MPI puts its rank 0 on the node mpirun runs on, torchrun orders nodes by name. */
    int met = size == 1             ? 0
              : host_is_here(where) ? meet_here(r, where, rank, key, until, err, cap)
                                    : connect_to(r, where, rank, key, until, until, err, cap);
    if (size == 1)
        r->rank = 0;
    *taken = r->listened || size == 1 ? 0 : met == 0 ? r->rank : -1;
    if (met != 0) {
        gv_rdv_close(r);
        return NULL;
    }
    return r;
}

int gv_rdv_bcast(gv_rdv *r, void *buf, size_t len, double timeout_s, char *err, size_t cap)
{
    double until = now_s() + timeout_s;
    if (r->rank != 0) {
        if (recv_all(r->peers[0], buf, len, until) == 0)
            return 0;
        snprintf(err, cap, "rendezvous: rank %d heard nothing from rank 0", r->rank);
        return -1;
    }
    for (int k = 1; k < r->size; k++)
        if (send_all(r->peers[k], buf, len, until) != 0) {
            snprintf(err, cap, "rendezvous: rank 0 could not reach rank %d", k);
            return -1;
        }
    return 0;
}

int gv_rdv_gather(gv_rdv *r, const void *mine, size_t len, void *all, double timeout_s, char *err,
                  size_t cap)
{
    double until = now_s() + timeout_s;
    if (r->rank != 0)
        return send_all(r->peers[0], mine, len, until);
    memcpy(all, mine, len);
    int missing = 0;
    size_t used = 0;
    for (int k = 1; k < r->size; k++) {
        char *part = (char *)all + (size_t)k * len;
        if (recv_all(r->peers[k], part, len, until) == 0)
            continue;
        memset(part, 0, len);
        if (!missing++)
            used = (size_t)snprintf(err, cap, "rendezvous: no answer from rank %d", k);
        else if (used < cap)
            used += (size_t)snprintf(err + used, cap - used, ", %d", k);
    }
    return missing ? -1 : 0;
}

void gv_rdv_close(gv_rdv *r)
{
    if (!r)
        return;
    for (int k = 0; k < r->size; k++)
        if (r->peers[k] >= 0)
            close(r->peers[k]);
    free(r->peers);
    free(r);
}
