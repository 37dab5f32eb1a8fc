/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify-worker: runs the checks gv_run hands it in this process and writes each event
 * as one JSON line on stdout (worker_args.h). Started by the library only; it closes every
 * descriptor but its three, prints nothing else, and exits 0 after "end". */
#define _GNU_SOURCE /* close_range */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/run.h"
#include "compute/gpu_lock.h"
#include "core/context.h"
#include "core/progress.h"
#include "report/report.h"
#include "nccl/nccl_log.h"
#include "worker/call.h"
#include "run/worker_args.h"
#include "worker/protocol.h"
#include "worker/worker.h"

/* The pipe to the caller. Not stdout: that is /dev/null, so that whatever a library prints
 * there (NCCL_DEBUG=WARN sends NCCL's warnings to stdout) cannot garble the events. */
static int events_fd = -1;

static void write_all(const char *text, size_t n)
{
    while (n) {
        ssize_t w = write(events_fd, text, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(3); /* the caller is gone */
        text += w;
        n -= (size_t)w;
    }
}

/* Writes the event and frees it. */
static void emit(json_t *ev)
{
    char *text = ev ? json_dumps(ev, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(ev);
    if (!text)
        _exit(4);
    size_t n = strlen(text);
    text[n] = '\n'; /* json_dumps' terminator becomes the line end */
    write_all(text, n + 1);
    free(text);
}

/* The report being streamed (its facts event comes first): rows are sent with their series. */
static const gv_report *streaming;

static void on_facts(void *user, const gv_report *r)
{
    (void)user;
    streaming = r;
    emit(json_pack("{s:s, s:o}", "event", "facts", "report", gv_report_to_json(r)));
}

static void on_row(void *user, const gv_check_result *row)
{
    (void)user;
    json_t *o =
        streaming && row >= streaming->results && row < streaming->results + streaming->count
            ? gv_report_row_to_json(streaming, (size_t)(row - streaming->results))
            : gv_result_to_json(row);
    emit(json_pack("{s:s, s:o}", "event", "row", "result", o));
}

static void on_progress(void *user, int kind, const char *check, const char *text)
{
    (void)user;
    if (kind == GV_PROGRESS_GROUP)
        emit(json_pack("{s:s, s:s}", "event", "group", "check", check));
    else if (kind == GV_PROGRESS_BEGIN)
        emit(json_pack("{s:s, s:s, s:s}", "event", "begin", "check", check, "subject", text));
    else if (gv_worker_is_liveness(kind))
        emit(gv_worker_progress_event(kind, text));
    else if (kind == GV_PROGRESS_WAIT)
        emit(json_pack("{s:s, s:s, s:f, s:s}", "event", "wait", "check", check, "seconds",
                       atof(text), "for", strchr(text, ' ') ? strchr(text, ' ') + 1 : ""));
    else
        emit(json_pack("{s:s, s:s%}", "event", "stage", "stage", text, strlen(text)));
}

static void on_lanes(void *user, const gv_run_lane *lanes, size_t n, const int *together)
{
    (void)user;
    json_t *list = json_array(), *ids = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(
            list, json_pack("{s:i, s:s}", "cuda", lanes[i].ordinal, "subject", lanes[i].subject));
    for (uint32_t i = 0; i < gv_catalog_count(); i++)
        if (together[i])
            json_array_append_new(ids, json_string(gv_catalog_id(i)));
    emit(json_pack("{s:s, s:o, s:o}", "event", "lanes", "gpus", list, "together", ids));
}

/* Loads a topology XML the caller is about to load: a crash here spares the caller. Exits 0
 * when hwloc loaded it, GV_WORKER_PROBE_REFUSED when it refused it (the caller then gets the
 * same refusal); anything else means it did not survive. */
static int probe_topology(const char *xml)
{
    gv_ctx *ctx = NULL;
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    co.live_libraries = 0;
    if (gv_ctx_create(&co, &ctx) != GV_OK)
        return 2;
    ctx->in_worker = 1;
    gv_topo_opts o = GV_TOPO_OPTS_INIT;
    o.xml_path = xml;
    gv_topo *t = NULL;
    int rc = gv_topology(ctx, &o, &t) == GV_OK ? 0 : GV_WORKER_PROBE_REFUSED;
    gv_topo_free(t);
    gv_ctx_destroy(ctx);
    return rc;
}

static int fail(gv_status s, const char *message)
{
    emit(json_pack("{s:s, s:i, s:s%}", "event", "error", "status", (int)s, "message", message,
                   strlen(message)));
    return 2;
}

/* One line of the caller's on stdin, without its end; "" when it closed the pipe. */
static void read_line(char *line, size_t cap)
{
    size_t n = 0;
    for (;;) {
        ssize_t got = read(0, line + n, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || line[n] == '\n' || ++n == cap - 1)
            break;
    }
    line[n] = '\0';
}

/* --standby: the caller's "go WORK" on stdin, one line (worker_args.h); WORK into work. 1, the
 * GPUs into work, for a "prepare GPUS" line. */
static int read_go(void *user, char *work, size_t cap)
{
    (void)user;
    char line[GV_RUN_GO_MAX + 4];
    read_line(line, sizeof line);
    int prepare = !strncmp(line, "prepare ", 8);
    const char *told = line + (prepare ? 8 : 3);
    if ((!prepare && strncmp(line, "go ", 3) != 0) || strlen(told) >= cap)
        return -1;
    snprintf(work, cap, "%s", told);
    return prepare;
}

/* --await-cuda: cuInit once the caller says "cuda" (gv_run_plan.await_cuda). Whatever else
 * comes, or none, cuInit goes ahead: the work that follows says what was wrong. */
static void await_cuda_word(gv_ctx *ctx)
{
    char line[16];
    gv_progress_stage(ctx, "waiting for the caller's word to make cuInit");
    read_line(line, sizeof line);
}

/* An offline capture (a sysroot, no live libraries) is a node's topology only if hwloc reads
 * it too, and hwloc's Linux backend takes another root from HWLOC_FSROOT alone, process-wide:
 * this process is ours to set it in, before anything loads hwloc. A capture without the CPU
 * tree hwloc needs is left to the live reading (its devices unknown there); a caller's own
 * HWLOC_FSROOT stands. */
static void replay_captured_topology(const gv_ctx *ctx)
{
    char cpus[PATH_MAX];
    struct stat st;
    if (ctx->live || strcmp(ctx->sysroot, "/") == 0 || getenv("HWLOC_FSROOT"))
        return;
    snprintf(cpus, sizeof cpus, "%s/sys/devices/system/cpu", ctx->sysroot);
    if (stat(cpus, &st) == 0 && S_ISDIR(st.st_mode))
        setenv("HWLOC_FSROOT", ctx->sysroot, 1);
}

/* The run the caller asked for, in this process. */
static int serve(gv_worker_args *a, const char *nccl_log)
{
    gv_ctx *ctx = NULL;
    gv_status s = gv_ctx_create(&a->ctx, &ctx);
    if (s != GV_OK)
        return fail(s, "gpuverify-worker: the context options were refused");
    replay_captured_topology(ctx);
    snprintf(ctx->nccl_log, sizeof ctx->nccl_log, "%s", nccl_log);
    for (int k = 0; k < GV_LIBRARY_KINDS; k++)
        if (a->without[k])
            snprintf(ctx->library_refused[k], sizeof ctx->library_refused[k], "%s", a->without[k]);
    for (const char *p = a->without_nvml_gpus; p && *p;) {
        char *end = NULL;
        unsigned long i = strtoul(p, &end, 10);
        if (end == p)
            break;
        if (i < GV_PROGRESS_MAX_GPUS)
            ctx->nvml_gpu_refused[i] = 1;
        p = *end == ',' ? end + 1 : end;
    }
    if (a->call) {
        ctx->in_worker = ctx->exit_follows = 1;
        gv_call_serve(ctx, a->call, a->call_args, emit);
        if (ctx->left_to_exit) {
            fflush(stdout);
            _exit(0);
        }
        gv_ctx_destroy(ctx);
        return 0;
    }
    if (a->has_policy) {
        s = gv_policy_parse(ctx, a->policy_text, &a->policy);
        a->run.policy = &a->policy;
    }
    gv_run_plan plan;
    if (s == GV_OK)
        s = gv_run_plan_make(ctx, &a->run, &plan);
    plan.lanes = a->lanes;
    plan.standby = a->standby;
    plan.await_cuda = a->await_cuda;
    if (plan.await_cuda)
        ctx->before_cuinit = await_cuda_word;
    if (s != GV_OK) {
        int rc = fail(s, gv_ctx_last_error(ctx));
        gv_ctx_destroy(ctx);
        return rc;
    }
    ctx->progress = on_progress;
    ctx->in_worker = 1;
    gv_run_stream stream = {
        .facts = on_facts, .row = on_row, .lanes = on_lanes, .standby = read_go, .user = NULL};
    gv_report *report = NULL;
    s = gv_run_in_process(ctx, &plan, &stream, &report);
    if (s != GV_OK) {
        int rc = fail(s, gv_ctx_last_error(ctx));
        gv_ctx_destroy(ctx);
        return rc;
    }
    emit(json_pack("{s:s}", "event", "end"));
    if (ctx->left_to_exit) {
        fflush(stdout);
        _exit(0);
    }
    gv_report_free(report);
    gv_ctx_destroy(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    /* A caller that dies takes its worker with it, even one stuck where it never writes. */
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        return 5;
        /* No descriptor of the caller's but the pipe (posix_spawn closed them where glibc can). */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    if (close_range(3, ~0u, 0) != 0)
#endif
        for (int fd = 3; fd < 4096; fd++)
            close(fd);
    events_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (events_fd < 0 || null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0)
        return 6;
    close(null_fd);
    if (argc == 3 && strcmp(argv[1], "--probe-topology-xml") == 0)
        return probe_topology(argv[2]);
    gv_worker_args a;
    char why[512];
    if (gv_worker_args_parse(argc, argv, &a, why, sizeof why) != GV_OK)
        return fail(GV_ERR_INVALID_ARG, why);
    /* NCCL's INIT log into a file of ours, to say what NCCL chose; this process's environment
     * is ours to set, and nothing has loaded NCCL yet. */
    char nccl_log[PATH_MAX];
    if (gv_nccl_log_capture(nccl_log, sizeof nccl_log) != 0)
        nccl_log[0] = '\0';
    /* The exit gives the GPUs back, once the process's contexts are gone with it. */
    gv_gpu_lock_hold_to_exit();
    int rc = serve(&a, nccl_log);
    free(a.call_args);
    return rc;
}
