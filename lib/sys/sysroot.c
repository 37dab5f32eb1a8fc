/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* O_PATH, fdopendir */
#include "sys/sysroot.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *gv_sys_shown(const char *root)
{
    return strcmp(root, "/") == 0 ? "" : root;
}

gv_status gv_sys_path(const char *root, const char *rel, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s%s", gv_sys_shown(root), rel);
    return n < 0 || (size_t)n >= cap ? GV_ERR_INVALID_ARG : GV_OK;
}

/* Whether the descriptor names a file under root (the fallback where openat2 is refused). */
static int inside(int fd, const char *root)
{
    char link[64], real_root[PATH_MAX], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 0 || !realpath(root, real_root))
        return 0;
    target[n] = '\0';
    size_t len = strlen(real_root);
    return strncmp(target, real_root, len) == 0 && (target[len] == '/' || target[len] == '\0');
}

/* Whether openat2 answers at all: a seccomp filter refuses the call with EPERM (Docker's
 * default profile) as a file the caller may not open does (/dev/kmsg without CAP_SYSLOG, a
 * device the container's cgroup denies). The root itself always opens. */
static int openat2_answers(int dir)
{
    struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT};
    int fd = (int)syscall(SYS_openat2, dir, ".", &how, sizeof how);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

int gv_sys_open(const char *root, const char *rel, int flags)
{
    flags |= O_CLOEXEC;
    if (strcmp(root, "/") == 0)
        return open(rel, flags);
    /* Every link is resolved as if root were "/": an absolute link or ".." cannot leave it. */
    int dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return -1;
    struct open_how how = {.flags = (unsigned long long)flags,
                           .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
    while (*rel == '/')
        rel++;
    /* Once refused, always refused: an old kernel, a seccomp filter, valgrind. Asking once per
     * process spares a failing syscall per file (a benign race: both answers are right). */
    static int refused;
    int syscall_refused = __atomic_load_n(&refused, __ATOMIC_RELAXED);
    int fd = -1, e = ENOSYS;
    /* EAGAIN: a rename or mount anywhere on the system while a ".." was resolved (a sysfs link,
     * "../../devices/..."), which the kernel cannot prove stayed inside the root; openat2(2)
     * has the caller try again. Opening a fixture's /sys/class/net/<if>/carrier_changes while
     * another process renamed a file in a loop: 128 of 200000 opens failed so, each a counter
     * read as absent. */
    for (int tries = 0; !syscall_refused && tries < 64; tries++) {
        fd = (int)syscall(SYS_openat2, dir, *rel ? rel : ".", &how, sizeof how);
        e = errno;
        if (fd < 0 && (e == ENOSYS || (e == EPERM && !openat2_answers(dir)))) {
            syscall_refused = 1;
            __atomic_store_n(&refused, 1, __ATOMIC_RELAXED);
        }
        if (fd >= 0 || e != EAGAIN)
            break;
    }
    if (syscall_refused) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", root, rel);
        fd = open(path, flags);
        e = errno;
        if (fd >= 0 && !inside(fd, root)) {
            close(fd);
            fd = -1;
            e = EXDEV;
        }
    }
    close(dir);
    errno = e;
    return fd;
}

int gv_regular_or_close(int fd)
{
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

int gv_open_regular(const char *path)
{
    return gv_regular_or_close(open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
}

int gv_sys_exists(const char *root, const char *rel)
{
    int fd = gv_sys_open(root, rel, O_PATH | O_NOFOLLOW);
    if (fd >= 0)
        close(fd);
    return fd >= 0;
}

char *gv_trim(char *s)
{
    char *b = s;
    while (*b && isspace((unsigned char)*b))
        b++;
    size_t n = strlen(b);
    while (n > 0 && isspace((unsigned char)b[n - 1]))
        b[--n] = '\0';
    memmove(s, b, n + 1);
    return s;
}

gv_status gv_sys_read(const char *root, const char *rel, char *buf, size_t cap, gv_errbuf *err)
{
    char path[PATH_MAX];
    buf[0] = '\0';
    if (gv_sys_path(root, rel, path, sizeof path) != GV_OK)
        return gv_err(err, GV_ERR_INVALID_ARG, "path too long: %s%s", root, rel);
    /* O_NONBLOCK: a FIFO planted in a fixture must not hang us. */
    int fd = gv_sys_open(root, rel, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return gv_err(err, GV_ERR_IO, "reading %s: %s", path, strerror(errno));
    size_t used = 0;
    for (;;) {
        ssize_t r = read(fd, buf + used, cap - 1 - used);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            return gv_err(err, GV_ERR_IO, "reading %s: %s", path, strerror(e));
        }
        if (r == 0)
            break;
        used += (size_t)r;
        if (used == cap - 1) {
            char extra;
            ssize_t more = read(fd, &extra, 1);
            close(fd);
            buf[used] = '\0';
            if (more > 0)
                return gv_err(err, GV_ERR_PARSE, "reading %s: larger than %zu bytes", path,
                              cap - 1);
            return GV_OK;
        }
    }
    close(fd);
    buf[used] = '\0';
    if (used == 0)
        return gv_err(err, GV_ERR_PARSE, "reading %s: empty file", path);
    if (memchr(buf, '\0', used))
        return gv_err(err, GV_ERR_PARSE, "reading %s: binary data (NUL byte)", path);
    return GV_OK;
}

gv_status gv_sys_read_line(const char *root, const char *rel, char *buf, size_t cap, gv_errbuf *err)
{
    gv_status s = gv_sys_read(root, rel, buf, cap, err);
    if (s != GV_OK)
        return s;
    buf[strcspn(buf, "\n")] = '\0';
    gv_trim(buf);
    if (!buf[0])
        return gv_err(err, GV_ERR_PARSE, "reading %s%s: empty first line", gv_sys_shown(root), rel);
    return GV_OK;
}

gv_status gv_sys_read_long(const char *root, const char *rel, long *out, gv_errbuf *err)
{
    char buf[64];
    gv_status s = gv_sys_read_line(root, rel, buf, sizeof buf, err);
    if (s != GV_OK)
        return s;
    char *end = NULL;
    errno = 0;
    long v = strtol(buf, &end, 0);
    if (errno || end == buf || *end)
        return gv_err(err, GV_ERR_PARSE, "reading %s%s: '%s' is not a number", gv_sys_shown(root),
                      rel, buf);
    *out = v;
    return GV_OK;
}

/* Lexically normalises an absolute root-relative path: collapses "//", "." and "..", never
 * climbing above "/". */
static void normalise(char *path)
{
    char out[PATH_MAX] = "";
    size_t len = 0;
    char *save = NULL;
    for (char *tok = strtok_r(path, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (strcmp(tok, ".") == 0)
            continue;
        if (strcmp(tok, "..") == 0) {
            char *slash = strrchr(out, '/');
            len = slash ? (size_t)(slash - out) : 0;
            out[len] = '\0';
            continue;
        }
        len += (size_t)snprintf(out + len, sizeof out - len, "/%s", tok);
        if (len >= sizeof out)
            len = sizeof out - 1;
    }
    snprintf(path, PATH_MAX, "%s", len ? out : "/");
}

gv_status gv_sys_resolve(const char *root, const char *rel, char *out, size_t cap, gv_errbuf *err)
{
    char cur[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", rel);
    for (int hops = 0; hops < 16; hops++) {
        char path[PATH_MAX], target[PATH_MAX];
        if (gv_sys_path(root, cur, path, sizeof path) != GV_OK)
            return gv_err(err, GV_ERR_INVALID_ARG, "path too long: %s", cur);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n < 0) {
            if (errno == EINVAL) { /* not a link: done */
                normalise(cur);
                if (strlen(cur) >= cap)
                    return gv_err(err, GV_ERR_INVALID_ARG, "path too long: %s", cur);
                snprintf(out, cap, "%s", cur);
                return GV_OK;
            }
            return gv_err(err, GV_ERR_IO, "resolving %s: %s", path, strerror(errno));
        }
        target[n] = '\0';
        char next[PATH_MAX * 2];
        if (target[0] == '/') {
            snprintf(next, sizeof next, "%s", target); /* absolute: re-rooted under root */
        } else {
            char *slash = strrchr(cur, '/');
            int dirlen = slash ? (int)(slash - cur) : 0;
            snprintf(next, sizeof next, "%.*s/%s", dirlen, cur, target);
        }
        if (strlen(next) >= sizeof cur)
            return gv_err(err, GV_ERR_INVALID_ARG, "link target too long at %s", path);
        snprintf(cur, sizeof cur, "%s", next);
        normalise(cur);
    }
    return gv_err(err, GV_ERR_PARSE, "resolving %s%s: too many levels of links", gv_sys_shown(root),
                  rel);
}

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

gv_status gv_sys_list(const char *root, const char *rel, char (**names)[256], size_t *count,
                      gv_errbuf *err)
{
    char path[PATH_MAX];
    *names = NULL;
    *count = 0;
    if (gv_sys_path(root, rel, path, sizeof path) != GV_OK)
        return gv_err(err, GV_ERR_INVALID_ARG, "path too long: %s%s", root, rel);
    int fd = gv_sys_open(root, rel, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return gv_err(err, GV_ERR_IO, "listing %s: %s", path, strerror(e));
    }
    size_t n = 0, cap = 0;
    char(*list)[256] = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char(*grown)[256] = realloc(list, cap * sizeof *list);
            if (!grown) {
                free(list);
                closedir(d);
                return gv_err(err, GV_ERR_NO_MEMORY, "listing %s: out of memory", path);
            }
            list = grown;
        }
        snprintf(list[n++], sizeof list[0], "%s", e->d_name);
    }
    closedir(d);
    if (n)
        qsort(list, n, sizeof *list, by_name);
    *names = list;
    *count = n;
    return GV_OK;
}
