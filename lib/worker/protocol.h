/* What passes between gv_run and gpuverify-worker: the worker's command line (a context and a
 * plan) and its output, one compact JSON object per line:
 *   {"event":"facts","report":<the report JSON without rows>}
 *   {"event":"group","check":"gemm.fp32"}              a catalog group starts
 *   {"event":"begin","check":"gemm.bf16","subject":"gpu0"}   deadline clock restarts
 *   {"event":"stage","stage":"cuStreamSynchronize"}
 *   {"event":"row","result":<one check result as in the report's "checks">}
 *   {"event":"error","status":-5,"message":"..."}       the run could not be made
 *   {"event":"end"}
 * Rows and facts are the report's own JSON (report_json.c and report_json_read.c). */
#ifndef GV_WORKER_PROTOCOL_H
#define GV_WORKER_PROTOCOL_H

#include <jansson.h>

#include "checks/run.h"
#include "core/context.h"
#include "worker/call.h"

/* The worker's argv (NULL-terminated, argv[0] = path) for the checks in `pending` with
 * `budget_s` left; free with gv_worker_argv_free. NULL when out of memory. */
char **gv_worker_argv(const gv_ctx *ctx, const gv_run_plan *plan, const int *pending,
                      double budget_s, const char *path);
void gv_worker_argv_free(char **argv);

/* The worker's argv for one call (worker/call.h): the context, then "--call <kind's name>
 * --args <the arguments' bytes in hex>" (the worker and the library of one build go
 * together). */
char **gv_worker_call_argv(const gv_ctx *ctx, const gv_call_kind *kind, const void *args,
                           const char *path);

/* An event's text field into dst ("" when absent), and its "status" (GV_ERR_INTERNAL when
 * absent): what the clients of gv_run's and of the NCCL sweep's workers read alike. */
void gv_worker_event_text(json_t *ev, const char *key, char *dst, size_t cap);
gv_status gv_worker_event_status(json_t *ev);

/* n bytes as 2n lowercase hex digits and a terminator; and back (-1 unless exactly 2n hex
 * digits). Structs cross the pipe this way between a worker and its library of one build. */
void gv_worker_hex_put(const void *data, size_t n, char *out);
int gv_worker_hex_get(const char *text, void *data, size_t n);

/* The worker's side: its argv back into options. Strings point into argv or into `policy`'s
 * text buffer; a call's arguments are allocated (free call_args). GV_ERR_INVALID_ARG with the
 * reason in why. */
typedef struct gv_worker_args {
    gv_ctx_opts ctx;
    gv_run_opts run;
    gv_policy policy;
    int has_policy;
    int lanes; /* --lanes 1: gv_run_plan.lanes */
    const char *policy_text;
    const gv_call_kind *call; /* --call: one call instead of checks */
    void *call_args;          /* its arguments, from --args */
} gv_worker_args;
gv_status gv_worker_args_parse(int argc, char **argv, gv_worker_args *out, char *why, size_t cap);

#endif
