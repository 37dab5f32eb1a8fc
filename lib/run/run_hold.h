/* SPDX-License-Identifier: Apache-2.0 */
/* The run's hold on its GPUs: gv_run takes every GPU it will run work on (compute/gpu_lock.h)
 * before the first check that does, in one order, under the several-GPUs lock when it takes
 * more than one (no two runs each holding a GPU the other waits for), and keeps them to its
 * end, so that another gpuverify neither measures them
 * meanwhile nor finds this run's contexts on them between two checks, where its busy rule
 * would take them for a job's. */
#ifndef GV_RUN_RUN_HOLD_H
#define GV_RUN_RUN_HOLD_H

#include <stddef.h>

#include "checks/active.h"

typedef struct gv_run_hold {
    int tried; /* taking was tried: not again */
    int held;  /* every GPU is the run's */
    size_t n;
    char bus_ids[GV_RUN_MAX_GPUS][32]; /* the GPUs taken, to give back */
    char why[512];                     /* when not held: which GPU, who holds it, how long waited */
    long holder_pid;                   /* when not held: the holder's PID, 0 unknown */
    double holder_held_s;              /* and how long it had held the GPU, < 0 unknown */
    int holder_foreign;                /* the holder is not a gpuverify (gv_gpu_holder.foreign) */
    int several;                       /* it holds the several-GPUs lock (compute/gpu_lock.h) */
} gv_run_hold;

/* Whether the group of catalog entry i, as chosen, runs work on the GPUs (a context,
 * kernels, memory). nccl.version alone only loads NCCL: its node's worker, which holds its own
 * lane's GPU to its exit, would otherwise wait for every other GPU out of order, and runs
 * started together waited for each other's until half their budgets. */
int gv_run_hold_needed(const int *chosen, size_t i);
/* Takes the run's GPUs, waiting until `until` (gv_now_s()) at most, once per run; 1 when they
 * are the run's, 0 when another gpuverify kept one all that time (h->why). `check` names the
 * check about to begin, for the deadline gv_run keeps from outside the worker. */
int gv_run_hold_take(gv_active_run *run, gv_run_hold *h, const char *check, double until);
void gv_run_hold_give(gv_run_hold *h);
/* In the worker of the tests across GPUs, while the lanes still test other GPUs: takes the
 * GPUs in gpu_chosen (by CUDA ordinal), whose lanes have finished, and makes their contexts
 * ahead of those tests, so that the driver's context creation, one GPU after another, does not
 * follow the last lane. Never waits: a GPU another process holds is left for the tests' own
 * hold to wait for, and while another process holds several GPUs (its tests across GPUs) none
 * is taken. Taken, a GPU stays the worker's to its exit, as the run's hold keeps it, and so
 * does the several-GPUs lock; made[] (by CUDA ordinal) is set for each GPU whose context was
 * made. */
void gv_run_hold_ahead(gv_ctx *ctx, const gv_facts *f, const int *gpu_chosen, int *made);

#endif
