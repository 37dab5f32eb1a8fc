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

enum gv_read_end gv_worker_read_lines(int fd, double (*deadline)(void *user),
                                      int (*take)(void *user, char *line), void *user)
{
    size_t len = 0, cap = 65536;
    char *buf = malloc(cap);
    enum gv_read_end end = GV_READ_NO_MEMORY;
    while (buf) {
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
        if (len + 4096 > cap) {
            if (cap >= GV_READ_MAX_LINE) {
                end = GV_READ_TOO_LONG;
                break;
            }
            char *grown = realloc(buf, cap * 2);
            if (!grown)
                break;
            buf = grown;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            end = GV_READ_EOF;
            break;
        }
        len += (size_t)got;
        buf[len] = '\0';
        if (gv_worker_take_lines(buf, &len, take, user) != 0) {
            end = GV_READ_GARBLED;
            break;
        }
    }
    free(buf);
    return end;
}
