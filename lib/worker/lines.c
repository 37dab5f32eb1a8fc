/* SPDX-License-Identifier: Apache-2.0 */
#include "worker/lines.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

int gv_worker_take_lines(char *buf, size_t *len, int (*take)(void *, char *), void *user)
{
    char *line = buf, *nl;
    while ((nl = memchr(line, '\n', *len - (size_t)(line - buf)))) {
        *nl = '\0';
        if (take(user, line) != 0)
            return -1;
        line = nl + 1;
    }
    *len -= (size_t)(line - buf);
    memmove(buf, line, *len);
    return 0;
}

enum gv_read_end gv_line_reader_feed(gv_line_reader *r, int fd, int (*take)(void *, char *),
                                     void *user)
{
    if (!r->buf) {
        r->cap = 65536;
        r->len = 0;
        if (!(r->buf = malloc(r->cap)))
            return GV_READ_NO_MEMORY;
    }
    if (r->len + 4096 > r->cap) {
        if (r->cap >= GV_READ_MAX_LINE)
            return GV_READ_TOO_LONG;
        char *grown = realloc(r->buf, r->cap * 2);
        if (!grown)
            return GV_READ_NO_MEMORY;
        r->buf = grown;
        r->cap *= 2;
    }
    ssize_t got = read(fd, r->buf + r->len, r->cap - r->len - 1);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
        return GV_READ_MORE;
    if (got <= 0)
        return GV_READ_EOF;
    r->len += (size_t)got;
    r->buf[r->len] = '\0';
    return gv_worker_take_lines(r->buf, &r->len, take, user) != 0 ? GV_READ_GARBLED : GV_READ_MORE;
}

void gv_line_reader_free(gv_line_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->len = r->cap = 0;
}

enum gv_read_end gv_worker_read_lines(int fd, double (*deadline)(void *user),
                                      int (*take)(void *user, char *line), void *user)
{
    gv_line_reader reader = {0};
    enum gv_read_end end = GV_READ_MORE;
    while (end == GV_READ_MORE) {
        double limit = deadline(user), now = gv_now_s();
        if (now >= limit) {
            end = GV_READ_DEADLINE;
            break;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        double wait_ms = ceil((limit - now) * 1000.0);
        int n = poll(&pfd, 1, wait_ms > 60000 ? 60000 : (int)wait_ms);
        if (n <= 0)
            continue; /* EINTR or no data yet: the loop's head decides about the deadline */
        end = gv_line_reader_feed(&reader, fd, take, user);
    }
    gv_line_reader_free(&reader);
    return end;
}
