/* Reading /dev/kmsg: each read() returns one record ("6,1234,5678,-;text"); O_NONBLOCK ends
 * the loop with EAGAIN at the newest record instead of waiting for the next, and EPIPE means
 * records were overwritten while reading (skip on). A captured log in a sysroot is a regular
 * file of the same lines, read in chunks. */
#include "sys/kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/sysroot.h"

#define MAX_BYTES (16u << 20) /* the largest kernel ring buffers are a few MiB */
#define MAX_EVENTS 4096

typedef struct collector {
    gv_xid_event *events;
    size_t count, cap;
    int out_of_memory;
    int lines;
    gv_kmsg_span *span;
} collector;

/* One log line: an Xid event when it is one. The first says where the log starts:
 * "6,1234,5678,-;text" is priority, sequence number, microseconds since boot, flags. */
static void line(collector *c, const char *s)
{
    long long seq, usec;
    if (c->lines++ == 0 && sscanf(s, "%*d,%lld,%lld", &seq, &usec) == 2 && seq >= 0 && usec >= 0) {
        c->span->first_seq = seq;
        c->span->first_s = (double)usec / 1e6;
    }
    const char *x = strstr(s, "NVRM: Xid (PCI:");
    if (!x || c->count >= MAX_EVENTS)
        return;
    x += strlen("NVRM: Xid (PCI:");
    const char *close = strchr(x, ')');
    int xid;
    int used = 0;
    if (!close || (size_t)(close - x) >= sizeof c->events->bus ||
        sscanf(close, "): %d%n", &xid, &used) != 1)
        return;
    if (c->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        gv_xid_event *grown = realloc(c->events, cap * sizeof *grown);
        if (!grown) {
            c->out_of_memory = 1;
            return;
        }
        c->events = grown, c->cap = cap;
    }
    gv_xid_event *e = &c->events[c->count++];
    snprintf(e->bus, sizeof e->bus, "%.*s", (int)(close - x), x);
    e->xid = xid;
    const char *rest = close + used;
    rest += strspn(rest, ", ");
    snprintf(e->text, sizeof e->text, "%.*s", (int)strcspn(rest, "\n"), rest);
}

gv_status gv_kmsg_xids(const char *root, gv_xid_event **events, size_t *count, gv_kmsg_span *span,
                       gv_errbuf *err)
{
    *events = NULL;
    *count = 0;
    span->first_seq = -1;
    span->first_s = -1;
    char path[4096];
    gv_status st = gv_sys_path(root, "/dev/kmsg", path, sizeof path);
    if (st != GV_OK)
        return gv_err(err, st, "%s/dev/kmsg: path too long", gv_sys_shown(root));
    int fd = gv_sys_open(root, "/dev/kmsg", O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return gv_err(err, GV_ERR_IO, "%s: %s%s", path, strerror(errno),
                      errno == EACCES || errno == EPERM
                          ? " (the kernel log needs root or kernel.dmesg_restrict=0)"
                          : "");
    collector c = {.span = span};
    char *buf = malloc(65536 + 1);
    size_t carry = 0, total = 0; /* bytes of an unfinished line kept from the last chunk */
    while (buf && total < MAX_BYTES) {
        ssize_t n = read(fd, buf + carry, 65536 - carry);
        if (n < 0 && errno == EPIPE)
            continue;
        if (n <= 0)
            break; /* EAGAIN: the newest record; 0: end of a captured file */
        total += (size_t)n;
        size_t len = carry + (size_t)n, start = 0;
        buf[len] = '\0';
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '\n') {
                buf[i] = '\0';
                line(&c, buf + start);
                start = i + 1;
            }
        carry = len - start;
        if (carry == 65536) { /* a line longer than the buffer: judge what there is */
            line(&c, buf);
            carry = 0;
        }
        memmove(buf, buf + start, carry);
    }
    if (buf && carry) {
        buf[carry] = '\0';
        line(&c, buf);
    }
    close(fd);
    free(buf);
    if (!buf || c.out_of_memory) {
        free(c.events);
        return gv_err(err, GV_ERR_NO_MEMORY, "out of memory reading %s", path);
    }
    *events = c.events;
    *count = c.count;
    return GV_OK;
}
