/* The checks: each judges the facts and appends results with its own stable ID. */
#ifndef GV_CHECKS_CHECKS_H
#define GV_CHECKS_CHECKS_H

#include "checks/active.h"
#include "facts/facts.h"
#include "report/report.h"

typedef void (*gv_check_fn)(const gv_facts *facts, gv_report *report);

/* What a check judges that a node may not have: where the node lacks it, the check SKIPs as
 * "not applicable" before it runs, so no check can FAIL a node for hardware it does not have
 * unless the policy requires that hardware (docs/checks.md, "Applicability"). */
enum gv_check_needs {
    GV_NEEDS_GPU = 1,      /* an NVIDIA GPU (PCI, /proc or NVML); driver.gpu_count judges none */
    GV_NEEDS_RDMA_NIC = 2, /* an RDMA device or Mellanox NIC, unless the policy's require_rdma */
};

typedef struct gv_check_def {
    const char *id;
    gv_check_fn run;     /* judges the facts; NULL for an active check */
    gv_active_fn active; /* runs work on the GPUs, once per group (checks/active.h) */
    int facts;           /* the optional facts it needs (enum gv_facts_optional) */
    int needs;           /* enum gv_check_needs */
    /* Its deadline per subject, in a worker, as a multiple of gv_ctx_opts.deadline_s (0 = 1):
     * the context's deadline is the unit, so a caller who shortens it shortens all. */
    double deadline_factor;
    int loads_for_duration; /* stress.*: runs the plan's stress time, added to its deadline */
} gv_check_def;

/* The catalog in run order (catalog.c; docs/checks.md describes each). */
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

/* system.c */
void gv_check_system_os(const gv_facts *f, gv_report *r);
void gv_check_system_kernel(const gv_facts *f, gv_report *r);
/* driver.c */
void gv_check_driver_module(const gv_facts *f, gv_report *r);
void gv_check_driver_nvml(const gv_facts *f, gv_report *r);
void gv_check_driver_version(const gv_facts *f, gv_report *r);
void gv_check_driver_cuda(const gv_facts *f, gv_report *r);
/* gpu_count.c */
void gv_check_driver_gpu_count(const gv_facts *f, gv_report *r);
/* gpu.c */
void gv_check_driver_persistence(const gv_facts *f, gv_report *r);
void gv_check_gpu_pci(const gv_facts *f, gv_report *r);
void gv_check_gpu_nvml(const gv_facts *f, gv_report *r);
void gv_check_gpu_ecc(const gv_facts *f, gv_report *r);
void gv_check_gpu_mig(const gv_facts *f, gv_report *r);
void gv_check_gpu_model(const gv_facts *f, gv_report *r); /* against the policy's gpu_model */
/* xid.c */
void gv_check_gpu_xid(const gv_facts *f, gv_report *r);
/* links.c */
void gv_check_gpu_pcie_link(const gv_facts *f, gv_report *r);
void gv_check_gpu_nvlink(const gv_facts *f, gv_report *r);

/* health.c: error counters and health flags */
void gv_check_gpu_ecc_errors(const gv_facts *f, gv_report *r);
void gv_check_gpu_row_remap(const gv_facts *f, gv_report *r);
void gv_check_gpu_retired_pages(const gv_facts *f, gv_report *r);
void gv_check_gpu_memory_repair(const gv_facts *f, gv_report *r);
void gv_check_gpu_recovery(const gv_facts *f, gv_report *r);
void gv_check_gpu_pcie_errors(const gv_facts *f, gv_report *r);
void gv_check_gpu_nvlink_errors(const gv_facts *f, gv_report *r);
void gv_check_gpu_clock_events(const gv_facts *f, gv_report *r);
void gv_check_gpu_temperature(const gv_facts *f, gv_report *r);
void gv_check_gpu_fabric(const gv_facts *f, gv_report *r);
void gv_check_gpu_memory_unowned(const gv_facts *f, gv_report *r);

/* NVML answered for this GPU: the per-GPU NVML checks have something to judge. */
int gv_gpu_nvml_ok(const gv_gpu_record *g);
/* "gpu3" for the record's inventory index. */
void gv_gpu_subject(const gv_gpu_record *g, char *out, size_t cap);
/* Whether the node has NVIDIA GPUs by any source (PCI, /proc, NVML). */
int gv_facts_has_gpus(const gv_facts *f);

#endif
