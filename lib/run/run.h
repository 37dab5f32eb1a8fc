/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run in two halves: the plan (options checked, checks and GPUs selected, the policy
 * copied to its full size) made in the caller's process, and the checks run in-process,
 * either in the caller (GV_ISOLATION_NONE) or in gpuverify-worker, which streams each row. */
#ifndef GV_RUN_RUN_H
#define GV_RUN_RUN_H

#include "checks/active.h"
#include "checks/checks.h"
#include "core/context.h"
#include "run/levels.h"
#include "gpuverify/gv_policy.h"
#include "gpuverify/gv_report.h"

typedef struct gv_run_plan {
    gv_run_opts opts; /* the caller's, at our size; policy points at `policy` or is NULL */
    gv_policy policy;
    const gv_level_def *level;
    double budget_s;            /* the level's or the caller's, grown to hold the stress */
    double stress_s;            /* how long stress.* loads the GPUs */
    double watch_s;             /* gpu.xid's wait for NVML's Xid events (gv_run_opts.watch_s) */
    int chosen[GV_CATALOG_MAX]; /* per catalog entry */
    /* The history checks selected, run by gv_run after the rest (run_history.h), never in a
     * worker: chosen[] never holds them. */
    int history[GV_CATALOG_MAX];
    int gpu_chosen[GV_RUN_MAX_GPUS];
    /* gpuverify-worker testing its GPUs in lanes (run_worker.c): of the tests of one GPU
     * (gv_catalog_per_gpu) it runs the first chosen GPU's and names the others, each tested by
     * a worker of its own at the same time; the tests across GPUs it leaves to a later worker. */
    int lanes;
    /* gpuverify-worker started before its work is known (a lane's, started with the node's
     * worker; the tests across GPUs, started with them): it gathers the facts, then
     * waits for stream->standby to name its GPUs and checks, so that its start overlaps what
     * comes before its work (run_worker_standby.c). */
    int standby;
    /* A worker on standby whose cuInit waits for the caller's "cuda" line: a lane's spare's,
     * sent once the node's worker has CUDA up; the worker across GPUs', once a lane ended. cuInit
     * in several processes at once costs each about what all of them would one after another (four
     * H200s: 1.2 s each against 0.55 s alone), and one made while another process holds CUDA is
     * quick (0.06 s). */
    int await_cuda;
    /* Libraries gpuverify-worker is not to load, each with why (NULL loads it): gv_run's
     * supervisor names one whose start (NVML's, libcuda's and cuInit, in the facts) hung or
     * crashed a worker, so that the workers after it judge everything else. */
    const char *without[GV_LIBRARY_KINDS];
    /* NVML GPUs gpuverify-worker is not to query ("3,5", NVML indices; NULL none): their
     * queries hung or crashed a worker (facts.h, GV_FACTS_NVML_GPU_STAGE). */
    const char *without_nvml_gpus;
    /* The facts alone, for gv_check_driver: a library's start that hangs or crashes is that
     * call's error (GV_ERR_TIMEOUT, GV_ERR_DRIVER), never gone without. */
    int inventory;
} gv_run_plan;

/* The longest work a worker on standby is given (gv_run_stream.standby). */
#define GV_RUN_GO_MAX (GV_CATALOG_MAX * 48 + GV_RUN_MAX_GPUS * 32)

/* A GPU a run tests in a lane of its own: CUDA ordinal and the subject of its rows. */
typedef struct gv_run_lane {
    int ordinal;
    char subject[48];
} gv_run_lane;

/* Checks the options and selects. GV_OK or an error recorded on the context. */
gv_status gv_run_plan_make(gv_ctx *ctx, const gv_run_opts *opts, gv_run_plan *plan);

/* What a worker hands on while it runs: the facts once gathered (the report has no row yet),
 * then each row as it becomes final. */
typedef struct gv_run_stream {
    void (*facts)(void *user, const gv_report *report);
    void (*row)(void *user, const gv_check_result *row);
    /* plan->lanes: the GPUs in lanes, this worker's first, before the first test on a GPU,
     * and the tests of one GPU that must run with the others all the same (together[] per
     * catalog entry: gemm.* judged by the node's other GPUs of a part with no datasheet). */
    void (*lanes)(void *user, const gv_run_lane *lanes, size_t n, const int *together);
    /* plan->standby: blocks until the work is known, then writes it (GV_RUN_GO_MAX bytes at
     * most): "0,2,3 cuda.copy_all,cuda.p2p copy-alone=0:54.9/55.2,2:...", the GPUs and the
     * checks of the plan's to run (as gv_run_opts.gpus and .checks say them), then what the
     * lanes measured that the checks use; 0, or -1 when it never will be (the run ends). 1
     * before that for GPUs whose lanes have finished, written as "2,3": the worker makes them
     * ready (run_hold.h, gv_run_hold_ahead), then asks again. */
    int (*standby)(void *user, char *work, size_t cap);
    void *user;
} gv_run_stream;

/* Keeps the GPUs of a report whose facts were gathered in gpuverify-worker for gv_gpu_info,
 * in place of any older facts (inventory.c). */
void gv_ctx_keep_inventory(gv_ctx *ctx, const gv_report *report);

/* Gathers the facts and runs the planned checks in this process; stream may be NULL. */
gv_status gv_run_in_process(gv_ctx *ctx, const gv_run_plan *plan, const gv_run_stream *stream,
                            gv_report **out);

/* A check's deadline in seconds: the catalog's factor of the context's deadline (1 when it
 * has none), plus the plan's stress time for stress.*; the context's for an index that is no
 * check. */
double gv_catalog_deadline(const gv_ctx *ctx, const gv_run_plan *plan, int index);

#endif
