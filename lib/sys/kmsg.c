/* SPDX-License-Identifier: Apache-2.0 */
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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/parse.h"
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

/* The first record not read, and how many: the rows then say the log was not read whole. */
static void unreadable(collector *c, const char *why)
{
    if (!c->span->unreadable++)
        snprintf(c->span->why, sizeof c->span->why, "%s", why);
}

/* "6,1234,5678,-;text": priority, sequence number, microseconds since boot, flags. */
static void first_record(collector *c, const char *s)
{
    uint64_t prio, seq, usec;
    const char *p = s;
    if (gv_parse_u64_at(&p, 10, 0, 1023, &prio) == GV_PARSE_OK && *p++ == ',' &&
        gv_parse_u64_at(&p, 10, 0, INT64_MAX, &seq) == GV_PARSE_OK && *p++ == ',' &&
        gv_parse_u64_at(&p, 10, 0, INT64_MAX, &usec) == GV_PARSE_OK && (*p == ',' || *p == ';')) {
        c->span->first_seq = (long long)seq;
        c->span->first_s = (double)usec / 1e6;
    }
}

/* "nvidia-nvswitch3" before ": SXid" in s (at x), "" when the line names no device. */
static void sxid_device(const char *s, const char *x, char *out, size_t cap)
{
    const char *start = x;
    while (start > s && start[-1] != ' ' && start[-1] != ';' && start[-1] != ']')
        start--;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(x - start), start);
    gv_text_clean(out, cap, name);
}

/* After an SXid's code: "Fatal, Link 30 ..." or "Non-fatal, Link 04 ...". */
static void sxid_severity(gv_xid_event *e, const char *p)
{
    e->fatal = strncmp(p, "Fatal", 5) == 0;
    e->link = -1;
    const char *l = strstr(p, "Link ");
    uint64_t link;
    if (l) {
        l += 5;
        if (gv_parse_u64_at(&l, 10, 0, 1023, &link) == GV_PARSE_OK)
            e->link = (int)link;
    }
}

/* One log line: an Xid or SXid event when it is one. The first says where the log starts. */
static void line(collector *c, const char *s)
{
    if (c->lines++ == 0)
        first_record(c, s);
    static const char xid_mark[] = "NVRM: Xid (PCI:", sxid_mark[] = ": SXid (PCI:";
    const char *x = strstr(s, xid_mark);
    int sxid = 0;
    if (!x && (x = strstr(s, sxid_mark)) != NULL)
        sxid = 1;
    if (!x)
        return;
    if (c->count >= MAX_EVENTS) {
        snprintf(c->span->cut_short, sizeof c->span->cut_short,
                 "more than %d Xid lines: the rest not read", MAX_EVENTS);
        return;
    }
    const char *mark = x;
    x += sxid ? strlen(sxid_mark) : strlen(xid_mark);
    const char *close = strchr(x, ')');
    if (!close || close == x || (size_t)(close - x) >= sizeof c->events->bus) {
        char shown[64];
        gv_text_clean(shown, sizeof shown, x);
        char why[160];
        snprintf(why, sizeof why, "an %s line naming no %s: '%s'", sxid ? "SXid" : "Xid",
                 sxid ? "NVSwitch" : "GPU", shown);
        unreadable(c, why);
        return;
    }
    /* A code that is not a number in range is that device's unknown Xid, never a value: a
     * wrapped or truncated number must not read as some other code. */
    const char *p = close + 1;
    uint64_t code = 0;
    enum gv_parse_result pr = GV_PARSE_NOT_NUMBER;
    if (*p == ':') {
        p++;
        pr = gv_parse_u64_at(&p, 10, 1, sxid ? 99999 : 65535, &code);
        /* "2x0o34": a number cut short by garbage is no code at all. */
        if (pr == GV_PARSE_OK && *p && *p != ',' && *p != ' ' && *p != '\n')
            pr = GV_PARSE_TRAILING;
    }
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
    memset(e, 0, sizeof *e);
    e->sxid = sxid;
    e->link = -1;
    if (sxid)
        sxid_device(s, mark, e->device, sizeof e->device);
    char bus[sizeof e->bus];
    snprintf(bus, sizeof bus, "%.*s", (int)(close - x), x);
    gv_text_clean(e->bus, sizeof e->bus, bus);
    char rest[sizeof e->text];
    if (pr == GV_PARSE_OK) {
        e->xid = (int)code;
        e->unreadable = 0;
        p += strspn(p, ", ");
        if (sxid) { /* the severity is a field of its own: the text is what follows */
            sxid_severity(e, p);
            size_t word = strcspn(p, ",");
            if (!strncmp(p, "Fatal", 5) || !strncmp(p, "Non-fatal", 9))
                p += word + strspn(p + word, ", ");
        }
        snprintf(rest, sizeof rest, "%.*s", (int)strcspn(p, "\n"), p);
    } else {
        e->xid = 0;
        e->unreadable = 1;
        const char *q = close + 1 + (close[1] == ':');
        q += strspn(q, " ");
        snprintf(rest, sizeof rest, "an %s whose code is %s: '%.*s'", sxid ? "SXid" : "Xid",
                 gv_parse_why(pr), (int)strcspn(q, ",\n"), q);
    }
    gv_text_clean(e->text, sizeof e->text, rest);
}

/* One record of n bytes at s (s[n] is writable): kmsg escapes every byte that is not
 * printable ASCII, so a record that is not text is not the kernel log (/dev/zero, random
 * bytes, a binary file in its place) and is counted, not read. */
static void record(collector *c, char *s, size_t n)
{
    if (!gv_text_is_printable(s, n)) {
        c->lines++; /* a binary first record says nothing of where the log starts */
        unreadable(c, "not text (binary data)");
        return;
    }
    s[n] = '\0';
    line(c, s);
}

gv_status gv_kmsg_xids(const char *root, gv_xid_event **events, size_t *count, gv_kmsg_span *span,
                       gv_errbuf *err)
{
    *events = NULL;
    *count = 0;
    memset(span, 0, sizeof *span);
    span->first_seq = -1;
    span->first_s = -1;
    char path[4096];
    gv_status st = gv_sys_path(root, "/dev/kmsg", path, sizeof path);
    if (st != GV_OK)
        return gv_err(err, st, "%s/dev/kmsg: path too long", gv_sys_shown(root));
    /* O_NOCTTY: /dev/console in its place (a kind node's link), opened by a session leader
     * without a terminal (a container's first process), would become its terminal. */
    int fd = gv_sys_open(root, "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return gv_err(err, GV_ERR_IO, "%s: %s%s", path, strerror(errno),
                      errno == EACCES || errno == EPERM
                          ? " (the kernel log needs CAP_SYSLOG where kernel.dmesg_restrict is "
                            "1, and in a container the device allowed by its cgroup: privileged)"
                          : "");
    gv_text_clean(span->path, sizeof span->path, path);
    collector c = {.span = span};
    struct stat fs;
    /* A device in its place reads as an empty log: /dev/null or /dev/console bound over it (a
     * kind node links /dev/kmsg to /dev/console) would pass every GPU as "no Xid logged". */
    if (fstat(fd, &fs) == 0 && S_ISCHR(fs.st_mode) &&
        (major(fs.st_rdev) != 1 || minor(fs.st_rdev) != 11)) {
        close(fd);
        return gv_err(err, GV_ERR_IO, "%s: character device %u:%u, not the kernel's log (1:11)",
                      path, major(fs.st_rdev), minor(fs.st_rdev));
    }
    if (fstat(fd, &fs) == 0 && !S_ISREG(fs.st_mode) && !S_ISCHR(fs.st_mode)) {
        /* The log is the kernel's character device or a captured file, never a FIFO. */
        close(fd);
        snprintf(span->cut_short, sizeof span->cut_short, "%s",
                 S_ISFIFO(fs.st_mode) ? "a FIFO, not a kernel log" : "not a kernel log");
        return GV_OK;
    }
    char *buf = malloc(65536 + 1);
    size_t carry = 0, total = 0; /* bytes of an unfinished line kept from the last chunk */
    int ended = 0;
    while (buf && total < MAX_BYTES) {
        ssize_t n = read(fd, buf + carry, 65536 - carry);
        if (n < 0 && (errno == EPIPE || errno == EINTR))
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            snprintf(span->cut_short, sizeof span->cut_short, "reading stopped: %s",
                     strerror(errno));
            ended = 1;
            break;
        }
        if (n <= 0) {
            ended = 1; /* EAGAIN: the newest record; 0: end of a captured file */
            break;
        }
        total += (size_t)n;
        size_t len = carry + (size_t)n, start = 0;
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '\n') {
                record(&c, buf + start, i - start);
                start = i + 1;
            }
        carry = len - start;
        if (carry == 65536) { /* a line longer than the buffer: judge what there is */
            record(&c, buf, carry);
            carry = 0;
        }
        memmove(buf, buf + start, carry);
    }
    if (buf && carry)
        record(&c, buf, carry);
    if (buf && !ended) /* /dev/zero, /dev/urandom: a log has an end; past the bound is unread */
        snprintf(span->cut_short, sizeof span->cut_short, "no end after %u MiB: the rest not read",
                 MAX_BYTES >> 20);
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

void gv_kmsg_scope(const gv_kmsg_span *span, char *out, size_t cap)
{
    if (span->first_seq <= 0) {
        snprintf(out, cap, "since boot");
        return;
    }
    double s = span->first_s;
    char when[32];
    if (s >= 7200)
        snprintf(when, sizeof when, "%.1f h", s / 3600);
    else if (s >= 120)
        snprintf(when, sizeof when, "%.0f min", s / 60);
    else
        snprintf(when, sizeof when, "%.0f s", s);
    snprintf(out, cap,
             "since %s after boot (the kernel log no longer reaches back to boot: its first %lld "
             "records were overwritten)",
             when, span->first_seq);
}
