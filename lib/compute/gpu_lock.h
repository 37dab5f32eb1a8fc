/* SPDX-License-Identifier: Apache-2.0 */
/* One gpuverify at a time on a GPU. Two runs that measure one GPU at once halve each other's
 * figures and each sees the other as a job on the GPU: two standard runs started together on an
 * H100 (two Slurm prologs of jobs starting together) read their gemm.* at 28-49% of the peak,
 * and under busy = fail each FAILed 6 to 8 checks of a healthy GPU. So every process that runs
 * work on a GPU holds that GPU's lock: flock(2) on a file named by the GPU's PCI bus id in
 * $GPUVERIFY_LOCK_DIR, else (root) /run/gpuverify, which only root enters, else /run/lock,
 * else /tmp. The kernel drops a lock with its process, so
 * a killed holder leaves none behind; the file says who holds it, for the waiting one's message.
 * The lock file is the process's; inside it one owner at a time (a context: its run and its
 * checks' threads) holds a GPU, counting its takes, and another owner waits as another process
 * does. A child whose parent holds a GPU works under its parent's hold (gv_run's worker
 * starting NCCL's). */
#ifndef GV_COMPUTE_GPU_LOCK_H
#define GV_COMPUTE_GPU_LOCK_H

#include <stddef.h>

typedef struct gv_gpu_holder {
    long pid, parent;         /* 0: unknown */
    char program[16], by[16]; /* their /proc/<pid>/comm as the holder wrote them, "" unknown */
    double held_s;            /* how long it has held the GPU, < 0 unknown */
    int until_exit;           /* it gives the GPU back when it exits (gv_gpu_lock_hold_to_exit) */
    char owner[32];           /* the context in it that holds it (core/hold_owner.h), "" unknown */
    /* The lock is held by a process that is not a gpuverify: the kernel names another process
     * than the note in the lock file (or the note's process is gone or too young for it). pid
     * and program are then the kernel's holder (0, "" when it cannot say), noted_pid the note's.
     * -2: the lock file is not a regular file (a link or a FIFO someone put there). */
    int foreign;
    long noted_pid;
} gv_gpu_holder;

/* Takes the GPU with PCI bus id `bus_id` (any domain width) for `owner` (a context), waiting
 * up to wait_s seconds for another process, or another owner in this one, to give it up (never
 * longer). 0: held, or nothing to coordinate through (no lock file can be opened here): give it
 * back with gv_gpu_lock_give. 1: another held it all along; `holder` (may be NULL) says who.
 * Every take that returned 0 needs one give, by the same owner. */
int gv_gpu_lock_take(const void *owner, const char *bus_id, double wait_s, gv_gpu_holder *holder);
void gv_gpu_lock_give(const char *bus_id);
/* From now on this process gives no GPU back before it exits: gpuverify-worker, whose NVIDIA
 * libraries keep its context on a GPU until the process ends (cuBLASLt's runtime retains the
 * primary context), so another gpuverify that took the GPU at the last give saw that context
 * as a job's (on an H100, a second standard run's cuda.copy and cuda.matmul "not judged"). */
void gv_gpu_lock_hold_to_exit(void);
/* The host's links for copies measured alone (cuda.copy): one GPU's copies at a time on the
 * node, whichever process measures them, as each GPU's lane measures its own at the same time
 * as the others'. The lock file is gpuverify-host-copies.lock beside the GPUs'; held for the
 * copies only, never to the exit. The locked descriptor (give it back with
 * gv_host_copies_give), -1 when there is nothing to lock through (copy unlocked), -2 when
 * another process held it all along (holder says who). */
int gv_host_copies_take(double wait_s, gv_gpu_holder *holder);
void gv_host_copies_give(int fd);
/* Several GPUs at once: one process on the node at a time may hold more than one GPU, or wait
 * for one while it holds another (a run's tests across GPUs, the GPUs its worker makes ready
 * ahead as its lanes end, in any order). A process that holds one GPU never waits while it
 * does, so GPU holds can then form no cycle: runs started together take turns instead of each
 * holding a GPU another waits for. The lock file is gpuverify-several-gpus.lock beside the
 * GPUs'. 0: held (counted; one give per take), 1: another process held it all along (holder
 * says who). A worker keeps it to its exit, as its GPUs. The note names `owner` (a context), as a
 * GPU's does, so that a process that context starts (NCCL's sweep) works under the hold. */
int gv_several_gpus_take(const void *owner, double wait_s, gv_gpu_holder *holder);
void gv_several_gpus_give(void);
/* "another gpuverify (PID 4121, gpuverify-worke, started by PID 4120, gv-check), which has held
 * it for 35 s" into out; for a foreign holder "a process that is not gpuverify (PID 777, flock;
 * the lock file's note names PID 1)". */
void gv_gpu_holder_text(const gv_gpu_holder *h, char *out, size_t cap);

#endif
