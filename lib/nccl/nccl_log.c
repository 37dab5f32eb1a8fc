/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* memfd_create */
#include "nccl/nccl_log.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

#define MAX_LOG (16u << 20) /* a sweep's INIT lines are kilobytes; more is not read */
#define MAX_LINKS 256

int gv_nccl_log_capture(char *path, size_t cap)
{
    /* In memory, not a file in $TMPDIR: a worker killed with its caller (gv-check under a job's
     * time limit) left its file there, one a worker. NCCL opens the path itself, in this
     * process, which keeps the descriptor open to its exit. */
    int fd = memfd_create("gpuverify-nccl-log", MFD_CLOEXEC);
    int w = fd < 0 ? -1 : snprintf(path, cap, "/proc/self/fd/%d", fd);
    /* INIT only: connection lines come once per connection; TUNING would log every operation
     * and slow the small sizes being measured. */
    if (w < 0 || (size_t)w >= cap || setenv("NCCL_DEBUG", "INFO", 1) != 0 ||
        setenv("NCCL_DEBUG_SUBSYS", "INIT", 1) != 0 || setenv("NCCL_DEBUG_FILE", path, 1) != 0) {
        if (fd >= 0)
            close(fd);
        path[0] = '\0';
        return -1;
    }
    return 0;
}

long gv_nccl_log_mark(const char *path)
{
    struct stat st;
    return path && path[0] && stat(path, &st) == 0 ? (long)st.st_size : 0;
}

typedef struct nccl_link {
    int from, to;
    char via[48];
} nccl_link;

typedef struct nccl_links {
    nccl_link l[MAX_LINKS];
    size_t n;
} nccl_links;

static void add_link(nccl_links *ls, gv_nccl_result *r, int from, int to, const char *via)
{
    for (size_t i = 0; i < ls->n; i++)
        if (ls->l[i].from == from && ls->l[i].to == to && !strcmp(ls->l[i].via, via))
            return;
    if (ls->n == MAX_LINKS)
        return;
    nccl_link *k = &ls->l[ls->n++];
    k->from = from, k->to = to;
    snprintf(k->via, sizeof k->via, "%s", via);
    if (!strncmp(via, "P2P", 3))
        r->via_p2p++;
    else if (!strncmp(via, "SHM", 3))
        r->via_shm++;
    else if (!strncmp(via, "NET/", 4)) {
        r->via_net++;
        r->via_socket += !strncmp(via + 4, "Socket", 6);
    } else if (!strncmp(via, "COLLNET", 7))
        r->via_collnet++;
}

/* The connections as text, those not through P2P first: when they do not all fit, the ones a
 * check judges (SHM, the network) are the ones kept, each whole, and the rest counted ("; 5
 * more"). */
static void list_links(const nccl_links *ls, gv_nccl_result *r)
{
    char *out = r->transports;
    size_t listed = 0, full = 0;
    for (int p2p = 0; p2p < 2; p2p++)
        for (size_t i = 0; i < ls->n && !full; i++) {
            const nccl_link *k = &ls->l[i];
            if ((strncmp(k->via, "P2P", 3) == 0) != p2p)
                continue;
            char one[80];
            if (k->to < 0) /* CollNet: to the network's own reduction */
                snprintf(one, sizeof one, "%d->network %s", k->from, k->via);
            else
                snprintf(one, sizeof one, "%d->%d %s", k->from, k->to, k->via);
            full = strlen(out) + strlen("; ") + strlen(one) + strlen("; 9999 more") >=
                   sizeof r->transports;
            if (!full) {
                gv_append(out, sizeof r->transports, "; ", one);
                listed++;
            }
        }
    if (listed < ls->n) {
        char more[32];
        snprintf(more, sizeof more, "%zu more", ls->n - listed);
        gv_append(out, sizeof r->transports, "; ", more);
    }
}

/* The first word after "via " (its options after a space dropped: "P2P/IPC/read"). */
static void via_word(const char *after, char *out, size_t cap)
{
    size_t n = strcspn(after, " \t\r\n");
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), after);
}

/* One message (what follows "NCCL INFO "). */
static void take(nccl_links *ls, gv_nccl_result *r, const char *m)
{
    const char *via = strstr(m, " via ");
    int ch, from, to, dev1, dev2;
    char word[48];
    if (!strncmp(m, "Channel ", 8) && via) {
        const char *colon = strstr(m, " : ");
        if (colon && sscanf(colon, " : %d[%d] -> %d[%d]", &from, &dev1, &to, &dev2) == 4) {
            via_word(via + 5, word, sizeof word);
            add_link(ls, r, from, to, word);
        }
    } else if (!strncmp(m, "CollNet ", 8) && via &&
               sscanf(m, "CollNet %d/%*d : %d", &ch, &from) == 2) {
        via_word(via + 5, word, sizeof word);
        add_link(ls, r, from, -1, word);
    } else if (!strncmp(m, "Using network ", 14)) {
        via_word(m + 14, r->network, sizeof r->network);
    } else if (!strncmp(m, "NVLS multicast support is ", 26)) {
        r->nvls = strncmp(m + 26, "not", 3) != 0;
    }
}

void gv_nccl_log_parse(const char *text, gv_nccl_result *r)
{
    nccl_links *ls = calloc(1, sizeof *ls);
    r->transport_known = 1;
    r->nvls = 0;
    r->via_p2p = r->via_shm = r->via_net = r->via_socket = r->via_collnet = 0;
    r->network[0] = r->transports[0] = '\0';
    for (const char *line = text; ls && line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), line);
        const char *m = strstr(buf, " NCCL INFO ");
        if (m)
            take(ls, r, m + 11);
        line = end ? end + 1 : NULL;
    }
    if (ls)
        list_links(ls, r);
    free(ls);
}

void gv_nccl_log_read(const char *path, long from, gv_nccl_result *r)
{
    FILE *f = path && path[0] ? fopen(path, "re") : NULL;
    if (!f)
        return;
    char *text = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && st.st_size >= from && fseek(f, from, SEEK_SET) == 0) {
        size_t n = (size_t)(st.st_size - from) > MAX_LOG ? MAX_LOG : (size_t)(st.st_size - from);
        text = malloc(n + 1);
        if (text) {
            n = fread(text, 1, n, f);
            text[n] = '\0';
        }
    }
    fclose(f);
    if (text)
        gv_nccl_log_parse(text, r);
    free(text);
}
