/* SPDX-License-Identifier: Apache-2.0 */
/* Starting and stopping one gpuverify-worker process. */
#ifndef GV_WORKER_SPAWN_H
#define GV_WORKER_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#include "gpuverify/gv_common.h"

typedef struct gv_worker_proc {
    pid_t pid; /* also its process group */
    int fd;    /* the read end of its stdout */
    int in;    /* with_input: a socket that is its stdin (gv_worker_send); -1 none */
} gv_worker_proc;

/* Starts path with argv; GV_ERR_LIBRARY / GV_ERR_IO with the reason in why. Its stdin is
 * /dev/null, or with_input a socket the caller writes with gv_worker_send. It works under the
 * GPU holds of hold_owner (the caller's context; NULL: none), no other (core/hold_owner.h). */
gv_status gv_worker_spawn(const char *path, char *const argv[], int with_input,
                          const void *hold_owner, gv_worker_proc *out, char *why, size_t cap);
/* Writes text whole to the worker's stdin, then closes it: 0, or -1 when the worker is gone
 * (never SIGPIPE: the caller's process is not ours to kill) or has no input. */
int gv_worker_send(gv_worker_proc *p, const char *text);
/* Writes text whole to the worker's stdin and keeps it open for more: 0, or -1 as above. */
int gv_worker_tell(gv_worker_proc *p, const char *text);
/* The wait status of a worker that ended where the caller reaps its children itself (SIGCHLD
 * ignored, or a handler of its own that waits for any child): how it ended is not known. A
 * stopped child's status, which a reaped one never has. */
#define GV_WORKER_STATUS_UNKNOWN 0x7f

/* Closes its pipes and ends the worker: waits up to grace_s for it to exit (0 when kill_now),
 * then kills its process group. 1 when it was reaped (status is its wait status, or
 * GV_WORKER_STATUS_UNKNOWN), 0 when it could not be (stuck in the kernel: it is left behind
 * rather than waited for). */
int gv_worker_stop(gv_worker_proc *p, int kill_now, double grace_s, int *status);
/* The same, never waiting past `until` (gv_now_s()) for the worker to exit or, once killed,
 * to be reaped: the run's budget bounds the caller's wait however many workers are stopped. */
int gv_worker_stop_by(gv_worker_proc *p, int kill_now, double grace_s, double until, int *status);

/* How a reaped worker ended, from its wait status: "died with signal 11 (Segmentation fault)",
 * "exited with status 2", or that the caller's own reaping took that. */
void gv_worker_end_text(int status, char *out, size_t cap);

#endif
