/* SPDX-License-Identifier: Apache-2.0 */
/* The checks: each judges the facts and appends results with its own stable ID. */
#ifndef GV_CHECKS_CHECKS_H
#define GV_CHECKS_CHECKS_H

#include "checks/actions.h"
#include "checks/active.h"
#include "checks/check_ids.h"
#include "facts/facts.h"
#include "report/report.h"

typedef void (*gv_check_fn)(const gv_facts *facts, gv_report *report);
struct gv_history_judge; /* checks/history_judge.h */

/* What a check judges that a node may not have: where the node lacks it, the check SKIPs as
 * "not applicable" before it runs, so no check can FAIL a node for hardware it does not have
 * unless the policy requires that hardware (docs/checks.md, "Applicability"). */
enum gv_check_needs {
    GV_NEEDS_GPU = 1,      /* an NVIDIA GPU (PCI, /proc or NVML); driver.gpu_count judges none */
    GV_NEEDS_RDMA_NIC = 2, /* an RDMA device or Mellanox NIC, unless the policy's require_rdma */
    GV_NEEDS_GPUDIRECT = GV_NEEDS_GPU | GV_NEEDS_RDMA_NIC, /* a GPU talking to an RDMA NIC */
};

/* The lowest level that runs a check: each level runs the checks from its own and below. */
enum gv_check_level { GV_FROM_QUICK = 0, GV_FROM_STANDARD = 1, GV_FROM_EXTENDED = 2 };

/* One catalog entry, made from a line of checks.def. */
typedef struct gv_check_def {
    const char *id;
    int level;           /* enum gv_check_level */
    gv_check_fn run;     /* judges the facts; NULL for an active check */
    gv_active_fn active; /* runs work on the GPUs, once per group (checks/active.h) */
    /* judges the run against the history database, in the caller (checks/history_judge.h) */
    void (*history)(struct gv_history_judge *judge);
    int facts; /* the optional facts it needs (enum gv_facts_optional) */
    int needs; /* enum gv_check_needs */
    /* Its deadline per subject, in a worker, as a multiple of gv_ctx_opts.deadline_s (0 = 1):
     * the context's deadline is the unit, so a caller who shortens it shortens all. */
    double deadline_factor;
    int loads_for_duration; /* stress.*: runs the plan's stress time, added to its deadline */
    /* The action of a WARN and of a FAIL row whose rule named none (enum gv_action, never
     * none: catalog.c does not compile a line without them). */
    int32_t warn_action, fail_action;
    int metric; /* the Prometheus metric its rows feed (enum gv_metric), GV_METRIC_none */
} gv_check_def;

/* The catalog in run order (checks.def, through catalog.c; docs/checks.md describes each). */
extern const gv_check_def gv_checks[];
extern const size_t gv_check_count;
#define GV_CATALOG_MAX 96 /* entries gv_checks may hold (checked in catalog.c) */

/* The catalog index of a check ID, -1 when it is not one; and its group (the index its catalog
 * group starts at: the entries of one active group are adjacent). */
int gv_catalog_index(const char *id);
int gv_catalog_group(int index);
/* Whether entry i tests each GPU on its own (a figure inside one GPU: cuda.*, mem.test,
 * gemm.*), and whether it measures the GPUs together (copies of all at once, pairs, NCCL,
 * stress: its figures depend on what the others do). */
int gv_catalog_per_gpu(size_t i);
int gv_catalog_across_gpus(size_t i);
/* Whether entry i makes a row on each GPU it tests: those tested on their own, and cuda.p2p's
 * and stress.*'s of those tested together. A GPU left out of it gets its row from the run. */
int gv_catalog_row_per_gpu(size_t i);

/* Each passive check's judge, gv_check_<name>, defined in the checks/ file of its family. */
#define GV_PASSIVE(nm, ...) void gv_check_##nm(const gv_facts *facts, gv_report *report);
#define GV_ACTIVE(...)
#define GV_HISTORY(...)
#include "checks/checks.def"
#undef GV_PASSIVE
#undef GV_ACTIVE
#undef GV_HISTORY

/* NVML answered for this GPU: the per-GPU NVML checks have something to judge. */
int gv_gpu_nvml_ok(const gv_gpu_record *g);
/* "gpu3" for the record's inventory index. */
void gv_gpu_subject(const gv_gpu_record *g, char *out, size_t cap);
/* The GPUs the node's HGX baseboard connects, by its NVSwitch functions on the PCI bus (the
 * switches' name into *switch_name); 0 when the node has none of those switches. */
int gv_check_baseboard_gpus(const gv_facts *f, const char **switch_name);

#endif
