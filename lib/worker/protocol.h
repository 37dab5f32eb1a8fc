/* SPDX-License-Identifier: Apache-2.0 */
/* What every client of gpuverify-worker writes and reads alike: the worker's command line, whose
 * first flags recreate the caller's context there, and the fields of its events (one compact
 * JSON object per line; call.h lists a call's, run/worker_args.h a run's). */
#ifndef GV_WORKER_PROTOCOL_H
#define GV_WORKER_PROTOCOL_H

#include <jansson.h>

#include "core/context.h"
#include "worker/call.h"

/* The flags that name the context's library paths, by enum gv_library. */
extern const char *const gv_worker_library_flags[GV_LIBRARY_KINDS];

/* A worker's argv as it is built: NULL-terminated after every addition. */
typedef struct gv_argv {
    char **v;
    size_t n, cap;
    int failed; /* out of memory: gv_argv_finish gives NULL */
} gv_argv;
/* "flag value", or the flag alone for a NULL value. */
void gv_argv_add(gv_argv *a, const char *flag, const char *value);
/* "flag <v as fmt>". */
void gv_argv_add_number(gv_argv *a, const char *flag, const char *fmt, double v);
/* The executable (path, as argv[0]) and what recreates ctx in the worker. */
void gv_argv_add_context(gv_argv *a, const gv_ctx *ctx, const char *path);
/* The argv built, NULL (everything freed) when anything ran out of memory. */
char **gv_argv_finish(gv_argv *a);
void gv_worker_argv_free(char **argv);

/* The worker's argv for one call (call.h): the context, then "--call <kind's name>
 * --args <the arguments' bytes in hex>" (the worker and the library of one build go
 * together). */
char **gv_worker_call_argv(const gv_ctx *ctx, const gv_call_kind *kind, const void *args,
                           const char *path);

/* An event's text field into dst ("" when absent), and its "status" (GV_ERR_INTERNAL when
 * absent): what the clients of gv_run's and of the NCCL sweep's workers read alike. */
void gv_worker_event_text(json_t *ev, const char *key, char *dst, size_t cap);
gv_status gv_worker_event_status(json_t *ev);

/* Whether a progress kind is one of gv_run's signs of life (a beat, with or without a pace, a
 * watch, a part done), which a worker passes on as an event of its own. */
int gv_worker_is_liveness(int kind);
/* A heartbeat, a watch or a GPU's part done (core/progress.h, `text` as the progress callback
 * gets it) as an event: {"event":"beat","gpu":3} ("gpu" left out for a beat of no GPU; with
 * "done":0.25, the fraction of its fixed work, for a beat with a pace),
 * {"event":"watch","gpus":[0,3]} (with "allow_s":1.5 when allowed more),
 * {"event":"done_part","gpu":3}; NULL when out of memory. */
json_t *gv_worker_progress_event(int kind, const char *text);
/* A "beat", "watch" or "done_part" event passed on to ctx's own progress (a worker's call relaying
 * the sweep's heartbeats to gv_run); 1 when ev was one of them. */
int gv_worker_relay_progress(gv_ctx *ctx, const char *kind, json_t *ev);
/* An event's "gpu" (-1 when absent or out of range) and its "gpus" (at most cap of them, those
 * in range; the count). */
int gv_worker_event_gpu(json_t *ev);
/* A beat's "done" (0..1; -1 when absent or out of range). */
double gv_worker_event_done(json_t *ev);
/* A watch's "allow_s" (0 when absent or absurd). */
double gv_worker_event_allow(json_t *ev);
size_t gv_worker_event_gpus(json_t *ev, int *gpus, size_t cap);

/* n bytes as 2n lowercase hex digits and a terminator; and back (-1 unless exactly 2n hex
 * digits). Structs cross the pipe this way between a worker and its library of one build. */
void gv_worker_hex_put(const void *data, size_t n, char *out);
int gv_worker_hex_get(const char *text, void *data, size_t n);

#endif
