/* SPDX-License-Identifier: Apache-2.0 */
/* Reading files relative to the context's sysroot. Links are resolved inside the root, never
 * with an absolute realpath() that would escape it. */
#ifndef GV_SYS_SYSROOT_H
#define GV_SYS_SYSROOT_H

#include <stddef.h>

#include "core/errbuf.h"

/* The root as it prefixes a path in messages: "" for "/", else the root itself. */
const char *gv_sys_shown(const char *root);
/* <root><rel> into out; rel starts with '/'. GV_ERR_INVALID_ARG when it does not fit. */
gv_status gv_sys_path(const char *root, const char *rel, char *out, size_t cap);
/* 1 when <root><rel> exists (any type, links followed inside the root or not). */
int gv_sys_exists(const char *root, const char *rel);
/* open(2) of root + rel that never leaves root: links resolve inside it (openat2's
 * RESOLVE_IN_ROOT; where the kernel refuses openat2, a file found outside is refused with
 * EXDEV). O_CLOEXEC is added. -1 with errno on failure. */
int gv_sys_open(const char *root, const char *rel, int flags);
/* open(2) of a file the caller named (a policy, a topology XML), for reading: without
 * blocking on a FIFO or a device, and only when it is a regular file (errno EINVAL otherwise).
 * -1 with errno on failure. */
int gv_open_regular(const char *path);
/* fd when it is a regular file; else closes it and gives -1, errno EINVAL (and -1 for -1). */
int gv_regular_or_close(int fd);
/* Whole file, NUL-terminated. GV_ERR_IO when it cannot be read (the text names the file and
 * the reason), GV_ERR_PARSE when it is empty or does not fit in cap. */
gv_status gv_sys_read(const char *root, const char *rel, char *buf, size_t cap, gv_errbuf *err);
/* First line, whitespace trimmed. */
gv_status gv_sys_read_line(const char *root, const char *rel, char *buf, size_t cap,
                           gv_errbuf *err);
/* A number in the file: base 0 (0x.. hex, decimal, negative allowed). */
gv_status gv_sys_read_long(const char *root, const char *rel, long *out, gv_errbuf *err);
/* Follows a symbolic link at rel (repeatedly) inside the root; out is root-relative. */
gv_status gv_sys_resolve(const char *root, const char *rel, char *out, size_t cap, gv_errbuf *err);
/* Entry names of a directory, sorted, "." and ".." left out. *names is one allocation
 * (free it); GV_ERR_IO when the directory cannot be opened. */
gv_status gv_sys_list(const char *root, const char *rel, char (**names)[256], size_t *count,
                      gv_errbuf *err);

/* Trims leading and trailing whitespace in place; returns s. */
char *gv_trim(char *s);

#endif
