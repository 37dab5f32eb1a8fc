/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: check results, the report that holds them, and running the checks.
 *
 * Check IDs ("driver.nvml", "gpu.ecc", ...) and JSON keys are stable: never renamed once
 * released (docs/checks.md). */
#ifndef GPUVERIFY_GV_REPORT_H
#define GPUVERIFY_GV_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "gv_common.h"
#include "gv_context.h"
#include "gv_driver.h"
#include "gv_policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Verdicts, in rising order of severity except SKIP, which means "not tested" and says why. */
enum gv_verdict { GV_PASS = 0, GV_WARN = 1, GV_FAIL = 2, GV_SKIP = 3, GV_ERROR = 4 };

/* "PASS", "WARN", ...; "UNKNOWN" for values outside the enum. Static, never NULL. */
GV_API const char *gv_verdict_name(int32_t verdict);

/* What a scheduler is to do about a row, in rising order of strength: a node's action is the
 * strongest of its rows' (gv_report_action). Every WARN, FAIL and ERROR row names one; PASS and
 * SKIP rows say GV_ACTION_NONE. docs/checks.md ("Actions") maps them to DCGM's failure classes
 * and gpud's repair actions. */
enum gv_action {
    GV_ACTION_NONE = 0,        /* nothing to do */
    GV_ACTION_RERUN = 1,       /* not judged or a transient result: run the check again */
    GV_ACTION_WAIT = 2,        /* the GPU is in use or being tested: run again once it is free */
    GV_ACTION_FIX_CONFIG = 3,  /* software or configuration: driver, module, settings, policy */
    GV_ACTION_RESET_GPU = 4,   /* the GPU needs a reset (nvidia-smi -r) before it is used */
    GV_ACTION_REBOOT_NODE = 5, /* the node needs a reboot */
    GV_ACTION_HW_INSPECT = 6   /* drain the node for hardware inspection or replacement */
};

/* "none", "rerun", "wait", "fix_config", "reset_gpu", "reboot_node", "hw_inspect"; "unknown"
 * for values outside the enum. Static, never NULL. */
GV_API const char *gv_action_name(int32_t action);

typedef struct gv_check_result {
    uint32_t struct_size;
    int32_t verdict;          /* enum gv_verdict */
    char id[48];              /* "driver.gpu_count" */
    char subject[48];         /* "node", "gpu0", "gpu3 (0000:9a:00.0)" */
    char message[512];        /* one line saying what was found */
    char measured[128];       /* the measured value as text, "" if none */
    char expected[128];       /* the expectation, "" if none */
    char expected_source[32]; /* where the expectation came from: "kernel module", "PCI", ... */
    char unit[16];
    char remediation[256]; /* what to do about a WARN/FAIL/ERROR, "" otherwise */
    double value;          /* measured value as a number, NaN when not numeric */
    /* This check's time on this subject, never longer than the run: a check that loads several
     * GPUs at once (stress.*) gives each of them the whole; a check that makes several rows
     * one after another, each its own. */
    double duration_s;
    /* 1 when this row is no judgement because another gpuverify held a GPU the check needed
     * for all of this run's wait (an ERROR "not run"): that process's PID (0 unknown) and how
     * long it had held the GPU, seconds (negative unknown). A caller tells "the node is being
     * tested" from "stuck" by held_s, never by the message. */
    int32_t held_by_other;
    int32_t held_by_pid;
    double held_s;
    /* Since ABI 1.1. What to do about this row (enum gv_action); GV_ACTION_NONE for PASS and
     * SKIP. */
    int32_t action;
    int32_t reserved3;
    /* gemm.* and stress.gemm: a hash of the result matrix of a product of fixed, seeded
     * inputs ("crc32:<8 hex digits>", zlib's CRC-32), and what makes two hashes comparable: GPU
     * model, driver, cuBLASLt version, data type, size and the algorithm named. Equal keys must
     * give equal hashes on healthy GPUs; a fleet compares them across nodes (docs/checks.md,
     * "Result fingerprints"). "" for other checks. */
    char fingerprint[32];
    char fingerprint_key[224];
} gv_check_result;

#define GV_CHECK_RESULT_INIT GV_STRUCT_INIT(gv_check_result)

/* An opaque report: results plus the facts they were judged from. */
typedef struct gv_report gv_report;

/* What gv_run says while it runs (gv_run_opts.on_event), on the thread that called gv_run:
 * a check starting on a subject, and each row as it becomes final. The pointers are valid
 * during the call only. The callback must not call into the library with the same context. */
enum gv_run_event_kind {
    GV_RUN_EVENT_STARTED = 0, /* a check starts on a subject ("gemm.fp16" on "gpu0") */
    GV_RUN_EVENT_FINISHED = 1 /* a row is final: `result` holds it */
};

typedef struct gv_run_event {
    uint32_t struct_size;
    int32_t kind;                  /* enum gv_run_event_kind */
    const char *check;             /* check ID */
    const char *subject;           /* "node", "gpu0" */
    const gv_check_result *result; /* FINISHED: the row; NULL otherwise */
    uint32_t checks_started;       /* selected checks started so far, this one included */
    uint32_t checks_selected;      /* checks the run selected */
    double elapsed_s;              /* since gv_run began */
    double budget_s;               /* the run's budget: elapsed_s / budget_s is the share spent */
} gv_run_event;

typedef void (*gv_run_event_fn)(const gv_run_event *event, void *user);

typedef struct gv_run_opts {
    uint32_t struct_size;
    uint32_t flags; /* reserved, must be 0 */
    /* Comma-separated check IDs or prefixes ("driver", "gpu.ecc"); NULL or "" = all; one
     * that names nothing ("," or a bare "^") is GV_ERR_INVALID_ARG. */
    const char *checks;
    /* Active tests in a run (the gv_cuda_check / gv_gemm_bench options for full control):
     * the GEMM's m = n = k (0: 8192, 4096 for FP32 and TF32) and the copy buffer (0: 64 MiB). */
    uint32_t gemm_size;
    uint32_t reserved0;
    uint64_t copy_bytes;
    /* topo.* checks: an `lstopo --of xml` file of the node; NULL = live hwloc (this machine). */
    const char *topology_xml;
    /* nccl.allreduce: the largest size of its sweep (0: the level's; from 1 MiB by four-fold
     * steps, or this alone when smaller). */
    uint64_t nccl_bytes;
    /* The level (enum gv_level): which checks run when `checks` names none (only exclusions or
     * NULL), how long the GPU tests take, and the budget. */
    int32_t level;
    uint32_t reserved1;
    /* Wall-clock budget of the run in seconds; 0 = the level's (docs/checks.md). Checks not
     * started when it is spent are ERROR rows saying so ("not run: ..."); NCCL's deadline is
     * what remains. */
    double budget_s;
    /* CUDA devices the GPU tests (cuda.*, gemm.*, cudnn.*, nccl.*) use, "0,2"; NULL = all. One
     * CUDA does not see is a FAIL row of driver.gpu_count ("GPU 9 was asked for ..."). */
    const char *gpus;
    /* Expectations of the site (gv_policy.h); NULL = the library's defaults. */
    const struct gv_policy *policy;
    /* Where the checks run (enum gv_isolation): in gpuverify-worker, which gv_run kills
     * at a check's deadline, or in the caller's process. */
    int32_t isolation;
    uint32_t reserved2;
    /* Progress: called as checks start and rows finish (gv_run_event); NULL = none. */
    gv_run_event_fn on_event;
    void *on_event_user;
    /* stress.* (extended level): how long the GPUs are loaded, seconds; 0 = 120. Hours for a
     * burn-in: the run's budget grows to hold it. */
    double duration_s;
    /* Since ABI 1.1. gpu.xid: before judging, wait up to this long (seconds, 0 = not at all)
     * for Xid events NVML reports, ending the wait half a second after the first. A loop of
     * passive passes that watches in place of sleeping sees every Xid as it happens, also where
     * the kernel log cannot be read (a container); the run's budget grows by it. */
    double watch_s;
} gv_run_opts;

#ifdef __cplusplus
#define GV_RUN_OPTS_INIT                                                                           \
    {                                                                                              \
        sizeof(gv_run_opts), 0, NULL, 0, 0, 0, NULL, 0, GV_LEVEL_STANDARD, 0, 0.0, NULL, NULL,     \
            GV_ISOLATION_AUTO, 0, NULL, NULL, 0.0, 0.0                                             \
    }
#else
#define GV_RUN_OPTS_INIT                                                                           \
    {                                                                                              \
        .struct_size = sizeof(gv_run_opts), .level = GV_LEVEL_STANDARD,                            \
        .isolation = GV_ISOLATION_AUTO                                                             \
    }
#endif

/* Where gv_run runs the checks. In a worker process, NVML, libcuda, cuBLASLt, cuDNN, NCCL and
 * libibverbs are loaded there, never in the caller; every check has a hard deadline; a crash
 * is a row, not the caller's crash. The report's "isolation" says which was used. */
enum gv_isolation {
    GV_ISOLATION_AUTO = 0,    /* the worker when one is found, else in the caller's process */
    GV_ISOLATION_PROCESS = 1, /* the worker or GV_ERR_LIBRARY naming where it was looked for */
    GV_ISOLATION_NONE = 2     /* in the caller's process: deadlines only where a library has an
                                 abort (NCCL) */
};

/* How much a run does. Zero is the standard level, the catalog as gv_run ran it before levels. */
enum gv_level {
    GV_LEVEL_STANDARD = 0, /* every check, short GPU tests: about a minute */
    GV_LEVEL_QUICK = 1,    /* files, libraries, a CUDA context and a small GEMM: a Slurm prolog */
    GV_LEVEL_EXTENDED = 2  /* every check at benchmark length (GEMM 8192^3, NCCL to 4 GiB) */
};

/* "standard", "quick", "extended"; "unknown" otherwise. Static, never NULL. */
GV_API const char *gv_level_name(int32_t level);

/* The check catalog (docs/checks.md): its size and the ID at an index, in run order; NULL past
 * the end. IDs are frozen once released. */
GV_API uint32_t gv_catalog_count(void);
GV_API const char *gv_catalog_id(uint32_t index);

/* Fills opts with GV_RUN_OPTS_INIT's defaults for callers that cannot use the macro; size as for
 * gv_ctx_opts_init, with the same statuses. */
GV_API gv_status gv_run_opts_init(gv_run_opts *opts, size_t size);
/* Runs the selected checks and returns a report (free with gv_report_free). opts may be NULL.
 * GV_OK whenever the checks ran, whatever their verdicts. */
GV_API gv_status gv_run(gv_ctx *ctx, const gv_run_opts *opts, gv_report **out);
GV_API void gv_report_free(gv_report *report); /* NULL-safe */

GV_API uint32_t gv_report_count(const gv_report *report); /* 0 for NULL */
GV_API gv_status gv_report_result(const gv_report *report, uint32_t index, gv_check_result *out);
/* Worst verdict among PASS/WARN/FAIL/ERROR (SKIP counts as PASS); GV_PASS for an empty report. */
GV_API int32_t gv_report_verdict(const gv_report *report);
/* The node's action: the strongest of its rows' (enum gv_action); GV_ACTION_NONE for an empty
 * or NULL report. */
GV_API int32_t gv_report_action(const gv_report *report);
/* The facts the checks were judged from. */
GV_API gv_status gv_report_driver(const gv_report *report, gv_driver_info *out);
GV_API uint32_t gv_report_gpu_count(const gv_report *report);
GV_API gv_status gv_report_gpu(const gv_report *report, uint32_t index, gv_gpu *out);

/* One GPU's verdict, so that a scheduler can take a bad GPU out of service alone (the JSON's
 * gpus[i].verdict, docs/outputs.md "Per-GPU verdicts"): the GPU gv_report_gpu(report, index)
 * gives, judged by the rows whose subject is "gpu<N>", N its gv_gpu.index. GV_FAIL when one of
 * them FAILed (unusable), else GV_ERROR when one ERRORed (not judged), else GV_WARN or GV_PASS
 * (usable), GV_SKIP when no row judged it (usable as far as the run knows; a GPU set apart,
 * gv_gpu.inaccessible, has no rows). The checks that made it so are the rows of that subject
 * and verdict (gv_report_result). A node's rows (subject "node") count for no GPU: the node's
 * verdict (gv_report_verdict) says them. -1 for NULL or an index past the inventory. */
GV_API int32_t gv_report_gpu_verdict(const gv_report *report, uint32_t index);

/* What a caller is to do with a report: the class of its one line (gv_report_line), and
 * gv-check's exit status for it. */
enum gv_outcome {
    GV_OUTCOME_HEALTHY = 0,  /* PASS, WARN and SKIP only */
    GV_OUTCOME_FAIL = 1,     /* a check FAILed: the node is unfit */
    GV_OUTCOME_UNJUDGED = 3, /* no FAIL, but a check could not do its work (ERROR) */
    GV_OUTCOME_HELD = 4      /* no FAIL; every ERROR a check another gpuverify's hold on a GPU
                                left unrun (held_by_other): run again once it has finished */
};

#define GV_REPORT_LINE_MAX 200

/* The report's verdict in one line of at most GV_REPORT_LINE_MAX bytes, no newline, into out
 * (cap > GV_REPORT_LINE_MAX): node-problem-detector's max_output_length, a Slurm drain reason.
 * The first word is the class and the grammar is stable (docs/outputs.md); the message is cut
 * at a word, never the counts nor the node's action (gv_report_action, when not none). <n>
 * and the verdicts' counts are of rows (a check has one per subject it judged, each GPU...),
 * <c> of checks:
 *   OK <c> checks, <n> rows: <p> PASS, <s> SKIP
 *   WARN <check> <subject>: <message> (<w> WARN of <n>) [<action>]
 *   FAIL <check> <subject>: <message> (<f> FAIL, <w> WARN, <e> ERROR of <n>) [<action>]
 *   ERROR <check> <subject>: <message> (<e> ERROR, <w> WARN of <n>) [<action>]
 *   HELD for <seconds|?> s by PID <pid|?>: <check> <subject>: <message> [<action>]
 * Returns the outcome (enum gv_outcome), or GV_ERR_INVALID_ARG for NULL or a small cap. */
GV_API int32_t gv_report_line(const gv_report *report, char *out, uint32_t cap);

/* JSON rendering flags. */
#define GV_JSON_COMPACT 0x1u

/* Renders the report as JSON (UTF-8, NUL-terminated); free *out with gv_free. The keys are
 * described by docs/report.schema.json (its version is the report's schema_version). */
GV_API gv_status gv_report_json(const gv_report *report, uint32_t flags, char **out);

/* Reads a report back from its JSON (schema_version 1 to 9), as rendered here or by another process
 * or node: the same accessors and renderers then work on it. GV_ERR_PARSE names the key that
 * is missing or of the wrong type. Free with gv_report_free. */
GV_API gv_status gv_report_from_json(gv_ctx *ctx, const char *json, gv_report **out);

/* Renders the report in Prometheus' text exposition format, for node_exporter's textfile
 * collector (write it to a *.prom file atomically); flags must be 0. Free *out with gv_free.
 * Metrics (docs/outputs.md, which lists them all and the series budget): gpuverify_info,
 * gpuverify_node_healthy, gpuverify_checks{verdict}, gpuverify_check_status{check,subject,
 * verdict} = 1 for each WARN, FAIL or ERROR row (none for PASS or SKIP), gpuverify_gpu_usable
 * (per GPU: 0 when gv_report_gpu_verdict is FAIL or ERROR, else 1), one metric per
 * measured quantity in base units (gpuverify_gpu_tlimit_margin_celsius,
 * gpuverify_gpu_pcie_replays_total, gpuverify_gpu_matmul_flops_per_second, ...),
 * gpuverify_run_duration_seconds and gpuverify_run_timestamp_seconds. A GPU's series carry
 * dcgm-exporter's labels gpu, UUID, pci_bus_id and Hostname (they join its series on(UUID)),
 * the node's Hostname. Names are stable: a rename keeps the old name for one release. */
GV_API gv_status gv_report_prometheus(const gv_report *report, uint32_t flags, char **out);

#ifdef __cplusplus
}
#endif
#endif
