/* SPDX-License-Identifier: Apache-2.0 */
/* Checks that run work on the GPUs (cuda.*, gemm.*, cudnn.*, nccl.*, driver.compat) or need more
 * than the facts (topo.*): each catalog group runs once per gv_run and adds a row for every
 * selected ID of the group. */
#ifndef GV_CHECKS_ACTIVE_H
#define GV_CHECKS_ACTIVE_H

#include "facts/facts.h"
#include "gpuverify/gv_report.h"
#include "report/report.h"

struct gv_busy;

#define GV_RUN_MAX_GPUS 64

typedef struct gv_active_run {
    gv_ctx *ctx;
    const gv_facts *facts;
    gv_report *report;
    uint32_t gemm_size; /* 0: the defaults */
    uint64_t copy_bytes;
    uint64_t nccl_bytes;            /* 0: the level's */
    double stress_s;                /* how long stress.* loads the GPUs */
    int benchmark;                  /* extended level: GPU tests at benchmark length */
    double budget_end;              /* gv_now_s() by which the run's budget is spent */
    const struct gv_policy *policy; /* NULL: defaults */
    const int *gpu_chosen;          /* per CUDA ordinal < GV_RUN_MAX_GPUS; NULL = all */
    const char *topology_xml;       /* NULL: live hwloc */
    const int *chosen;              /* per catalog entry */
    struct gv_rdma_report *rdma;    /* read once per run for rdma.* and gpudirect.* */
    gv_status rdma_status;
    struct gv_topo *topo; /* built once per run for topo.* and gpudirect.nic_locality */
    gv_status topo_status;
    char topo_error[512];
    /* Each GPU's host copies alone as cuda.copy measured them in this process (GB/s, 0: not
     * measured, or not a figure to reuse): cuda.copy_all's figures alone, the same copies at
     * the same sizes, not measured a second time. */
    double copy_alone_h2d[GV_RUN_MAX_GPUS], copy_alone_d2h[GV_RUN_MAX_GPUS];
} gv_active_run;

typedef void (*gv_active_fn)(gv_active_run *run);

/* Whether the run's GPU selection includes this CUDA ordinal. */
int gv_active_gpu_chosen(const gv_active_run *run, int ordinal);

/* Whether the run selected this check ID. */
int gv_active_selected(const gv_active_run *run, const char *id);
/* The inventory record of a CUDA ordinal; NULL when the inventory lacks it. */
const gv_gpu_record *gv_active_gpu_record(const gv_facts *f, int ordinal);
/* "gpu0 (0000:18:00.0)", or "cuda3" for an ordinal the inventory lacks. */
void gv_active_subject(const gv_facts *f, int ordinal, char *out, size_t cap);
/* Other processes on the GPU of this ordinal now, added to b. */
void gv_active_sample_busy(gv_active_run *run, int ordinal, struct gv_busy *b);
/* Names on a row of the node the GPUs (CUDA ordinals) its test ran over, as counters "gpuN" = 1
 * (the subjects of their own rows): the GPUs a PASS there judged, whose FAILs it ends in the
 * history (history.standing); a GPU the test left out (hung, held) is not judged by it. At most
 * GV_ROW_COUNTERS_MAX: a GPU past them keeps what stands. */
void gv_active_row_covers(gv_active_run *run, const gv_check_result *c, const int *ordinals,
                          size_t n);
/* Checks of one active group, as its catalog lines say (checks.def): the entries first to end
 * (exclusive) of the catalog, adjacent there. */
typedef struct gv_active_members {
    size_t first, end;
} gv_active_members;
/* Every line of group gv_active_<group> (catalog.c). */
gv_active_members gv_active_group(gv_active_fn group);
/* The lines from check `first` through check `last`, both of one group, in catalog order. */
gv_active_members gv_active_span(const char *first, const char *last);
/* The first of the members the run selected; NULL when it selected none. */
const char *gv_active_first_selected(const gv_active_run *run, gv_active_members m);
/* When CUDA has no device, each selected member gets one row saying why; 1 then. */
int gv_active_no_devices(gv_active_run *run, gv_active_members m);
/* One row per selected member of a group that could not run, all with the same verdict and
 * text; with an action (enum gv_action) for WARN, FAIL and ERROR rows. */
void gv_active_rows(gv_active_run *run, gv_active_members m, const char *subject, int verdict,
                    const char *why);
void gv_active_rows_action(gv_active_run *run, gv_active_members m, const char *subject,
                           int verdict, int32_t action, const char *why);

/* The active tests, one per group of checks.def (which checks each runs is written there
 * alone), each in the checks/ file of its name (compat: driver_compat.c). The helpers above
 * are in active_run.c. */
void gv_active_compat(gv_active_run *run); /* driver_compat.c */
void gv_active_cuda(gv_active_run *run);
void gv_active_gemm(gv_active_run *run);
void gv_active_cudnn(gv_active_run *run);
void gv_active_copy_all(gv_active_run *run);
void gv_active_p2p(gv_active_run *run);
void gv_active_memtest(gv_active_run *run); /* mem.c */
void gv_active_stress(gv_active_run *run);
void gv_active_nccl(gv_active_run *run);
/* In the worker of the tests across GPUs, as GPUs are made ready (made[], by CUDA ordinal)
 * while other lanes run: each joins NCCL's communicator of the sweep to come, when chosen[]
 * (by catalog entry) holds nccl.allreduce or nccl.transport (nccl/nccl_ahead.h). gpu_chosen
 * as the run's (NULL: every GPU). */
void gv_active_nccl_ahead(gv_ctx *ctx, const gv_facts *f, const int *chosen, const int *gpu_chosen,
                          const int *made);
/* Then, once the worker is told its work (chosen[] and gpu_chosen as the run's) and its GPUs
 * joined: that communicator completed before the tests across GPUs measure; given up when the
 * work has no sweep, or its GPUs are not those joined (nccl/nccl_ahead.h). */
void gv_active_nccl_settle(gv_ctx *ctx, const gv_facts *f, const int *chosen,
                           const int *gpu_chosen);
void gv_active_topo(gv_active_run *run);
void gv_active_rdma(gv_active_run *run);
/* rdma_errors.c: rdma.port_errors, judged by gv_active_rdma on its report. */
struct gv_rdma_report;
void gv_rdma_judge_port_errors(gv_active_run *run, const struct gv_rdma_report *r);
void gv_active_gpudirect(gv_active_run *run);
/* Whether a chosen GPU (gpu_chosen per CUDA ordinal, NULL all) is a part whose GEMM peak is an
 * estimate: its gemm.* rows are judged against the node's other GPUs of the part, so those
 * GPUs must be measured in one process. */
int gv_gemm_needs_peers(const gv_facts *f, const int *gpu_chosen);

/* The run's RDMA report, read on first use; NULL when it could not be built (then
 * run->rdma_status and the context's last error say why). */
const struct gv_rdma_report *gv_active_rdma_report(gv_active_run *run);
/* The run's topology, built on first use at NCCL's GPUDirect RDMA level as NCCL would see it
 * (environment and configuration files, from the RDMA report); NULL when it could not be
 * built (run->topo_error says why). */
const struct gv_topo *gv_active_topology(gv_active_run *run);
/* Whether live hwloc describes the run's node: the sysroot is "/", a topology XML is given, or
 * HWLOC_FSROOT replays the sysroot. Otherwise why_not says why the topo rows are skipped. */
int gv_active_topology_usable(const gv_active_run *run, char *why_not, size_t cap);

#endif
