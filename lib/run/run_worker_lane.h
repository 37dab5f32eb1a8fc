/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run through gpuverify-worker, the caller's side, as its three files share it: a lane (a
 * sequence of workers testing one GPU, or the node) and the client that holds the lanes.
 * run_worker.c supervises the workers (starts them, their deadlines, the loop reading them),
 * run_worker_events.c takes each line a worker sends, run_worker_rows.c makes the rows of a
 * worker that stopped and says whether a fresh one follows. Private to those three. */
#ifndef GV_RUN_RUN_WORKER_LANE_H
#define GV_RUN_RUN_WORKER_LANE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "checks/checks.h"
#include "run/run.h"
#include "run/run_events.h"
#include "worker/lines.h"
#include "worker/spawn.h"

#define MAX_WORKERS 4 /* per lane: the first and three fresh ones after crashes */
/* Workers of a run that may stop in a library's start (run_worker_start.c), beyond those. */
#define MAX_START_STOPS 8
/* What of the run's budget a library's start in the node's worker leaves, at most a quarter of
 * it, for a fresh worker to judge the rest without that library (the inventory, the kernel
 * log, the NICs: about a second on an eight-GPU node), where the start's own deadline would
 * come after the budget's end: a hung cuInit at the quick level (30 s, against its 120 s). */
#define START_RESERVE_S 5.0

/* How one worker's run ended. */
enum outcome { ENDED, TIMED_OUT, DIED, GARBLED, FAILED };

struct client;

/* A sequence of workers testing one GPU (or the node), one worker at a time. */
typedef struct lane {
    struct client *c;
    int ordinal;          /* the CUDA ordinal this lane tests; the node's: its own GPU's */
    char gpu_subject[48]; /* its rows' subject: "gpu3"; "node" for the node's lane */
    char gpus[GV_RUN_MAX_GPUS * 4]; /* its workers' --gpus; "" the plan's */
    int lanes_mode;                 /* its workers may open lanes (gv_run_plan.lanes) */
    int pending[GV_CATALOG_MAX];    /* chosen entries this lane has yet to finish */
    int assigned[GV_CATALOG_MAX];   /* what the current worker was given */
    int rows[GV_CATALOG_MAX];       /* rows received per entry */
    int accept_any;                 /* the node's first worker: its delegated judges count too */
    int workers;                    /* started so far */
    int running, finished, timed_out, starting;
    gv_worker_proc p;
    gv_line_reader reader;
    /* Where the current worker is. */
    char check[48], subject[48], stage[256];
    double began;
    double waiting_s; /* > 0: what began is a wait of this long before `check` (GV_PROGRESS_WAIT) */
    double last_beat; /* > 0: the check has sent heartbeats, the last at this time */
    double beat_gap;  /* the longest wait for its next beat so far (still_going) */
    /* The GPUs the check watches now (core/progress.h), by CUDA ordinal: when each last showed
     * it was alive (its beat, or the watch); those that left the watch since the last GPU
     * joined it have finished their part. */
    int watched[GV_RUN_MAX_GPUS], finished_part[GV_RUN_MAX_GPUS];
    double gpu_alive[GV_RUN_MAX_GPUS];
    double gpu_gap[GV_RUN_MAX_GPUS]; /* each GPU's longest wait for its next beat so far */
    double watch_allow_s;            /* the watch's allowance on top of the deadline */
    int watching;                    /* the check has watched GPUs: the context's rule is theirs */
    int late_gpu;                    /* the watched GPU whose deadline is the lane's; -1 none */
    /* The pace of GPUs whose beats say how far they are (> 0: the fraction of their fixed
     * work done, at gpu_done_at; the first such beat since the check began, gpu_first_*). */
    double gpu_done[GV_RUN_MAX_GPUS], gpu_done_at[GV_RUN_MAX_GPUS];
    double gpu_first_done[GV_RUN_MAX_GPUS], gpu_first_at[GV_RUN_MAX_GPUS];
    int slow_gpu;              /* the GPU whose pace set the lane's deadline; -1 none */
    int hung[GV_RUN_MAX_GPUS]; /* after a hang or a stall: the GPUs named, by ordinal */
    size_t hung_count;
    char error[512]; /* an "error" event's message */
    int errored;     /* the worker sent an "error" event */
    gv_status error_status;
    char garbage[80];
    int ended; /* the worker said "end" or "error" */
    double ended_at;
    int adopted; /* the worker was started on standby (run_worker_standby.c) */
    int offered; /* finished, its GPU was offered to the worker on standby */
    int heard;   /* the worker has sent an event */
    int by_budget, by_liveness, by_pace;
    int by_reserve; /* stopped in a library's start to leave START_RESERVE_S of the budget */
    /* The node's worker is starting a library in its facts (NVML's start and queries,
     * libcuda's load and cuInit: GV_LIB_NVML, GV_LIB_CUDA) or for the RDMA checks (libibverbs'
     * stages: GV_LIB_IBVERBS); -1 when not. */
    int starting_library;
    double start_began; /* when that start began */
    int drained;        /* its pipe was read once after its deadline passed */
    int gave_up;        /* its workers died MAX_WORKERS times in a row in its GPU's tests */
    int start_stops;    /* its workers stopped in a library's start (run_worker_start.c) */
} lane;

typedef struct client {
    gv_ctx *ctx;
    const gv_run_plan *plan;
    const char *worker;
    gv_report *report;
    int have_facts;
    double budget_end;
    gv_run_observer observer; /* the caller's progress callback, as the rows and begins come */
    lane node;
    lane *lanes; /* the other GPUs' lanes */
    size_t lane_count;
    int lanes_opened;
    char own_subject[48];       /* the GPU the node's worker tests itself, once lanes are open */
    int own_gpu_hung;           /* the node's worker hung in a test of that GPU */
    int own_gpu_gave_up;        /* ... or died MAX_WORKERS times in a row in them */
    int across[GV_CATALOG_MAX]; /* tests across GPUs, run once every lane has finished */
    int across_started;
    /* Each GPU's cuda.copy figures, by CUDA ordinal, as its lane measured them (0: none). */
    double copy_h2d[GV_RUN_MAX_GPUS], copy_d2h[GV_RUN_MAX_GPUS];
    /* Workers started on standby (run_worker_standby.c): spares for the lanes, started with
     * the node's worker; the one for the tests across GPUs, started with them or as the lanes open
     * (pid -1 when none). */
    gv_worker_proc spares[GV_RUN_MAX_GPUS];
    size_t spare_count;
    int spares_tried;
    int spares_told_cuda; /* "cuda" was written to them (gv_run_plan.await_cuda) */
    gv_worker_proc standby;
    int standby_tried;
    int standby_told_cuda; /* "cuda" was written to it (gv_run_plan.await_cuda) */
    gv_status failed;      /* the run could not be made: the caller gets this error */
    /* Libraries the workers started from now on do without, and why ("": none); see
     * gv_run_plan.without. */
    char without[GV_LIBRARY_KINDS][200];
    char without_nvml_gpus[GV_RUN_MAX_GPUS * 4]; /* gv_run_plan.without_nvml_gpus: "3,5" */
    /* How a worker died in a library's start the last time, and where (its stage): a fresh
     * worker tries it again; "": none did, or that was judged. */
    char start_crash[GV_LIBRARY_KINDS][400], start_crash_at[GV_LIBRARY_KINDS][256];
    int reserve_taken; /* a start was stopped for START_RESERVE_S: the rest is what it left */
} client;

static inline int lane_index(const lane *l, const char *id)
{
    (void)l;
    return id ? gv_catalog_index(id) : -1;
}

static inline int is_node(const lane *l)
{
    return l == &l->c->node;
}

/* The lane's own GPU tests hung: its GPU is left out of the tests across GPUs. The node's
 * worker may hang at a node check (a file, a NIC), which costs its GPU nothing. */
static inline int gpu_hung(const lane *l)
{
    return is_node(l) ? l->c->own_gpu_hung : l->timed_out;
}

/* The lane's own GPU tests hung, or crashed every worker the lane may start: its GPU is left
 * out of the tests across GPUs (where it would crash their worker, or hang it, once more). */
static inline int gpu_left_out(const lane *l)
{
    return gpu_hung(l) || (is_node(l) ? l->c->own_gpu_gave_up : l->gave_up);
}

/* Whether a fresh worker may follow the lane's last: MAX_WORKERS, not counting those stopped in a
 * library's start. */
static inline int gv_lane_may_restart(const lane *l)
{
    return l->workers < MAX_WORKERS + l->start_stops;
}

/* What of the budget a library's start leaves (START_RESERVE_S, at most a quarter of it). */
static inline double start_reserve_s(const client *c)
{
    return fmin(START_RESERVE_S, c->plan->budget_s / 4);
}

/* Whether the report has a row for check `id` on `subject`. */
static inline int report_has(const gv_report *r, const char *id, const char *subject)
{
    for (size_t k = 0; k < r->count; k++)
        if (!strcmp(r->results[k].id, id) && !strcmp(r->results[k].subject, subject))
            return 1;
    return 0;
}

static inline int any_pending(const int *pending)
{
    for (size_t i = 0; i < gv_check_count; i++)
        if (pending[i])
            return 1;
    return 0;
}

/* run_worker_events.c: one event line of the lane's worker; 0 when it is one, -1 when it is
 * not the worker's (the `take` of gv_line_reader_feed and gv_worker_take_lines). */
int gv_lane_take_line(void *user, char *line);
/* The lane's check watches no GPU (a check began, or a group). */
void gv_lane_watch_clear(lane *l);
/* Marks the entries of groups before `group` as done. */
void gv_lane_groups_done_before(lane *l, int group);

/* run_worker_rows.c: one row per pending entry of the lane, all with this verdict, action and
 * text. */
void gv_lane_close_pending(lane *l, int verdict, int32_t action, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A SKIP with why on `subject`, a GPU left out of the tests across GPUs, for each of `checks`
 * that makes a row per GPU and has none there yet. */
void gv_lane_skip_left_out(client *c, const int *checks, const char *subject, const char *why);
/* After one worker of the lane: rows for what stopped it, and whether a fresh one follows. */
void gv_lane_conclude(lane *l, enum outcome how, int reaped, int status, double spent);
/* run_worker_start.c: a node's worker stopped in a library's start (NVML's, libcuda's and
 * cuInit, in the facts). The library, when a fresh worker may follow within the run's budget,
 * else -1. */
int gv_lane_stopped_in_start(const lane *l);
/* The library whose start check `check` is (driver.nvml: NVML, driver.cuda: libcuda), -1 none. */
int gv_lane_start_library(const char *check);
/* It hung there, or was stopped there for the budget: the start's check gets the verdict
 * (FAIL, or ERROR when its own deadline had not passed) with why, action and remedy, and the
 * workers after it do without what hung. */
void gv_lane_hung_in_start(lane *l, int verdict, const char *why, int32_t action,
                           const char *remedy, double spent);
/* It died there (`ended`: "died with signal 11 ..."): a fresh worker tries it again; at the
 * second death at the same place, the check FAILs and the workers after it do without. */
void gv_lane_died_in_start(lane *l, const char *why, const char *ended, double spent);
/* The facts came: a start that crashed a worker once whose check the run did not choose gets
 * that ERROR row here (a chosen one's row comes, gv_lane_start_crashed). */
void gv_lane_start_passed(client *c);
/* The row of the check whose start crashed a worker once (driver.cuda's after a crash in
 * cuInit): it says so, and is an ERROR to rerun where it would have passed. */
void gv_lane_start_crashed(client *c, gv_check_result *row);

/* run_worker_standby.c: workers started before their work is known. A worker that is none. */
extern const gv_worker_proc gv_no_worker;
/* Starts the lanes' spares, as many as the node seems to have GPUs but one, and with them the
 * worker for the tests across GPUs when the plan has any. */
void gv_spares_start(client *c);
/* Tells the spares the node's worker is past its cuInit: theirs may start. Once. */
void gv_spares_tell_cuda(client *c);
/* The lane's worker is a spare, told its GPU and checks: 0, or -1 when none is left (or
 * every one left is gone). */
int gv_spare_adopt(lane *l);
/* Stops the spares no lane took. */
void gv_spares_stop(client *c);
/* Starts the worker for the tests across GPUs on `gpus` (NULL: every GPU it sees), for
 * `checks`. */
void gv_standby_start(client *c, const char *gpus, const int *checks);
void gv_standby_stop(client *c);
/* Tells it to make ready the GPUs of the lanes that have finished since (and did not hang). */
void gv_standby_prepare(client *c);
/* The node lane's worker for the tests across GPUs is the standby one, told its GPUs and
 * checks: 0, or -1 when it is gone (stopped: a fresh worker starts). */
int gv_standby_adopt(lane *l);

/* run_worker.c: the libraries the run's workers now do without, into a plan of theirs. */
void gv_lane_plan_without(const client *c, gv_run_plan *plan);
/* run_worker.c: when GPU g's work would end, from the check's start, at its pace so far; 0
 * when it has no pace yet (fewer than two pieces done). */
double gv_lane_paced_total(const lane *l, int g);

#endif
