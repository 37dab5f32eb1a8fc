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
    int rank, size;
    int *peers; /* rank 0: the connection of each other rank (index = rank), else [0] = rank 0 */
};

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

int gv_rdv_from_env(int *rank, int *size, int *local)
{
    static const char *const names[][3] = {
        {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
        {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
        {"PMI_RANK", "PMI_SIZE", ""},
    };
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (env_int(names[k][0], rank) == 0 && env_int(names[k][1], size) == 0 && *rank < *size) {
            if (!names[k][2][0] || env_int(names[k][2], local) != 0)
                *local = -1;
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

static int serve(gv_rdv *r, const char *where, double until, char *err, size_t cap)
{
    struct addrinfo *res = resolve(where, 1, err, cap);
    if (!res)
        return -1;
    /* IPv6's wildcard first, taking IPv4 too: the ranks may reach this host by either family
     * (an IPv6 address given, or a name that resolves to one); IPv4's where IPv6 is off. */
    int one = 1, zero = 0, lfd = -1;
    for (int pass = 0; pass < 2 && lfd < 0; pass++)
        for (struct addrinfo *a = res; a && lfd < 0; a = a->ai_next) {
            if ((a->ai_family == AF_INET6) != (pass == 0))
                continue;
            lfd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
            if (lfd >= 0 && a->ai_family == AF_INET6)
                setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
            if (lfd >= 0 && (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
                             bind(lfd, a->ai_addr, a->ai_addrlen) != 0 || listen(lfd, 128) != 0)) {
                snprintf(err, cap, "rendezvous: cannot listen on %s: %s", where, strerror(errno));
                close(lfd);
                lfd = -1;
            }
        }
    freeaddrinfo(res);
    if (lfd < 0)
        return -1;
    int joined = 0;
    while (joined < r->size - 1) {
        if (wait_fd(lfd, POLLIN, until) != 1) {
            snprintf(err, cap, "rendezvous: %d of %d ranks joined %s in time", joined + 1, r->size,
                     where);
            break;
        }
        int fd = accept(lfd, NULL, NULL);
        int32_t rank = -1;
        if (fd < 0)
            continue;
        if (recv_all(fd, &rank, sizeof rank, until) != 0 || rank < 1 || rank >= r->size ||
            r->peers[rank] >= 0) {
            close(fd); /* not one of ours, or a rank twice */
            continue;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        r->peers[rank] = fd;
        joined++;
    }
    close(lfd);
    return joined == r->size - 1 ? 0 : -1;
}

static int connect_to(gv_rdv *r, const char *where, double until, char *err, size_t cap)
{
    struct addrinfo *res = resolve(where, 0, err, cap);
    if (!res)
        return -1;
    int fd = -1;
    /* Rank 0 may not listen yet: try again until the timeout. */
    while (fd < 0 && now_s() < until) {
        for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
            fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
            if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
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
    int32_t rank = r->rank;
    if (fd < 0 || send_all(fd, &rank, sizeof rank, until) != 0) {
        snprintf(err, cap, "rendezvous: rank %d could not reach rank 0 at %s in time", r->rank,
                 where);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    r->peers[0] = fd;
    return 0;
}

gv_rdv *gv_rdv_join(const char *where, int rank, int size, double timeout_s, char *err, size_t cap)
{
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
    if ((rank == 0 ? serve(r, where, until, err, cap) : connect_to(r, where, until, err, cap)) !=
        0) {
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
