/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a worker's output: each whole line handed over as it arrives, until the output ends,
 * a line is not the worker's, or a deadline passes. */
#ifndef GV_WORKER_LINES_H
#define GV_WORKER_LINES_H

#include <stddef.h>

enum gv_read_end {
    GV_READ_EOF,      /* the worker closed its output */
    GV_READ_DEADLINE, /* the deadline passed first */
    GV_READ_GARBLED,  /* take() refused a line */
    GV_READ_TOO_LONG, /* a line longer than GV_READ_MAX_LINE */
    GV_READ_NO_MEMORY,
    GV_READ_MORE /* gv_line_reader_feed: lines taken, the output goes on */
};
#define GV_READ_MAX_LINE (4u << 20) /* a line longer than this is not the worker's */
/* How long a worker that gave its last word has to close its output. Past it the caller stops
 * reading: a process that inherited the pipe (one a wrapper script left in the background)
 * would otherwise keep the caller until the deadline. */
#define GV_WORKER_EXIT_GRACE_S 2.0

/* take(user, line): 0 when the line (its newline cut off) was the worker's, -1 when not.
 * deadline(user): the absolute time on gv_now_s()'s clock to stop at, asked again after every
 * line, so that it may move as the worker reports its progress. */
enum gv_read_end gv_worker_read_lines(int fd, double (*deadline)(void *user),
                                      int (*take)(void *user, char *line), void *user);

/* One worker's output among several read at once (poll), a read at a time. */
typedef struct gv_line_reader {
    char *buf;
    size_t len, cap;
} gv_line_reader;
/* One read(2) from fd (readable), every whole line handed to take(); GV_READ_MORE while the
 * output goes on. Free the buffer with gv_line_reader_free. */
enum gv_read_end gv_line_reader_feed(gv_line_reader *r, int fd, int (*take)(void *user, char *line),
                                     void *user);
void gv_line_reader_free(gv_line_reader *r);

/* Hands over the complete lines at the front of buf[0..*len) and keeps the unfinished rest
 * there; -1 at the first line take() refuses. */
int gv_worker_take_lines(char *buf, size_t *len, int (*take)(void *user, char *line), void *user);

#endif
