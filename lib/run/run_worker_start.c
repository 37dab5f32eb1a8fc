/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run through gpuverify-worker, the caller's side: a node's worker that stopped in a
 * library's start, as it gathered the facts (NVML's start or its queries of one GPU, libcuda's
 * load and cuInit) or as the RDMA checks began (libibverbs' load and its devices). A hang
 * there, or a crash there twice at the same place, makes that start's check FAIL and the
 * workers after it do without what stopped it (gv_run_plan.without and without_nvml_gpus), so
 * that a broken driver costs the checks that need it and not the whole report (the inventory,
 * the kernel log, the NICs, the GPUs). A crash once in NVML or libcuda is tried again: it may be
 * a one-off, or a signal from outside. */
#include <stdio.h>
#include <string.h>

#include "backends/loader.h"
#include "core/util.h"
#include "facts/facts.h"
#include "report/report.h"
#include "run/run_worker_lane.h"

/* The check a library's start belongs to: libibverbs' is the RDMA devices'. */
static const char *start_check(int k)
{
    return k == GV_LIB_NVML      ? gv_id_driver_nvml
           : k == GV_LIB_IBVERBS ? gv_id_rdma_devices
                                 : gv_id_driver_cuda;
}

int gv_lane_start_library(const char *check)
{
    for (int k = GV_LIB_CUDA; k <= GV_LIB_NVML; k++)
        if (!strcmp(check, start_check(k)))
            return k;
    return -1;
}

int gv_lane_stopped_in_start(const lane *l)
{
    const client *c = l->c;
    int k = is_node(l) ? l->starting_library : -1;
    if (k < 0 || k >= GV_LIBRARY_KINDS || l->start_stops >= MAX_START_STOPS ||
        gv_now_s() >= c->budget_end)
        return -1;
    /* NVML's and libcuda's start are the facts' (gv_check_driver's own contract aside);
     * libibverbs' comes with the RDMA checks, whichever began it. */
    if (k != GV_LIB_IBVERBS &&
        (c->have_facts || c->plan->inventory || strcmp(l->check, start_check(k)) != 0))
        return -1;
    return k;
}

/* The workers after this one do without what it stopped in the start of (library k, or NVML's
 * queries of the one GPU it was at): `what` names it ("libcuda", "NVML's queries of NVML GPU
 * 3"). 1 when it is one GPU's queries. */
static int leave_out(lane *l, int k, const char *why, char *what, size_t cap)
{
    client *c = l->c;
    unsigned gpu;
    int one_gpu = k == GV_LIB_NVML && sscanf(l->stage, GV_FACTS_NVML_GPU_STAGE, &gpu) == 1 &&
                  gpu < GV_RUN_MAX_GPUS;
    if (one_gpu) {
        char one[16];
        snprintf(one, sizeof one, "%u", gpu);
        gv_append(c->without_nvml_gpus, sizeof c->without_nvml_gpus, ",", one);
        snprintf(what, cap, "NVML's queries of NVML GPU %u", gpu);
    } else {
        snprintf(c->without[k], sizeof c->without[k], "%s", why);
        snprintf(what, cap, "%s", k == GV_LIB_NVML ? "NVML" : gv_lib_spec_of(k)->name);
    }
    /* The spares and the worker across GPUs started with it in theirs (NCCL's checks ask
     * libibverbs which port NCCL would use); the spares test one GPU each, without it. */
    if (k != GV_LIB_IBVERBS)
        gv_spares_stop(c);
    gv_standby_stop(c);
    return one_gpu;
}

/* The start's check's row, on the node, chosen or not (a start that crashes or hangs is judged
 * whatever the selection); none when it has one (a second GPU's NVML queries left out: gpu.nvml
 * names each). The fresh worker does not start it again as a check. */
static void start_row(lane *l, int k, int verdict, int32_t action, const char *why,
                      const char *remedy, double spent)
{
    client *c = l->c;
    int index = gv_catalog_index(start_check(k));
    /* rdma.devices still lists the devices from sysfs, under this row. */
    if (index >= 0 && k != GV_LIB_IBVERBS)
        l->pending[index] = 0;
    if (report_has(c->report, start_check(k), "node"))
        return;
    gv_check_result *res = gv_report_add(c->report, start_check(k), "node", verdict, "%s", why);
    if (res)
        res->duration_s = spent;
    gv_result_remedy(res, "%s", remedy);
    gv_result_action(res, action);
}

/* A stop in a start costs no worker of the lane's MAX_WORKERS (gv_lane_may_restart): each is
 * bounded by itself (a place is left out after its second crash or its hang), all of them by
 * MAX_START_STOPS. */
static void count_stop(lane *l)
{
    l->start_stops++;
}

void gv_lane_hung_in_start(lane *l, int verdict, const char *why, int32_t action,
                           const char *remedy, double spent)
{
    client *c = l->c;
    int k = l->starting_library;
    char what[64];
    count_stop(l);
    c->start_crash[k][0] = c->start_crash_at[k][0] = '\0';
    leave_out(l, k,
              "its start did not return in gpuverify-worker earlier in this run: not tried "
              "again",
              what, sizeof what);
    start_row(l, k, verdict, action, why, remedy, spent);
    gv_report_settle(c->report);
}

void gv_lane_died_in_start(lane *l, const char *why, const char *ended, double spent)
{
    client *c = l->c;
    int k = l->starting_library;
    /* The RDMA checks do without libibverbs at its first crash (sysfs judges most of them): an
     * ERROR to rerun, where NVML or libcuda get a second try and a FAIL. */
    int once = k == GV_LIB_IBVERBS;
    count_stop(l);
    if (!once && strcmp(c->start_crash_at[k], l->stage) != 0) {
        snprintf(c->start_crash[k], sizeof c->start_crash[k], "%s", why);
        snprintf(c->start_crash_at[k], sizeof c->start_crash_at[k], "%s", l->stage);
        return;
    }
    c->start_crash[k][0] = c->start_crash_at[k][0] = '\0';
    const char *twice = once ? "" : ", twice in this run";
    char because[200], what[64], row[900], remedy[400];
    snprintf(because, sizeof because, "gpuverify-worker %s in its start%s: not tried again", ended,
             twice);
    int one_gpu = leave_out(l, k, because, what, sizeof what);
    snprintf(row, sizeof row, "%s%s; the other checks ran without %s", why, twice, what);
    if (once)
        snprintf(remedy, sizeof remedy,
                 "libibverbs crashes the process that opens the RDMA devices: check that "
                 "rdma-core matches the NICs' driver (inbox or MLNX_OFED), that no other copy is "
                 "in the way (GPUVERIFY_IBVERBS_LIBRARY), and dmesg for mlx5 errors");
    else if (one_gpu)
        snprintf(remedy, sizeof remedy,
                 "NVML crashes the process that queries this GPU: check dmesg for Xid errors on "
                 "it (gpu.nvml names it), then reset it or reboot");
    else
        snprintf(remedy, sizeof remedy,
                 "%s crashes the process that starts it: check that it matches the kernel "
                 "module (/proc/driver/nvidia/version), that no LD_PRELOAD or other copy is in "
                 "the way (GPUVERIFY_%s_LIBRARY), and dmesg for Xids; reinstall the driver",
                 k == GV_LIB_NVML ? "NVML" : "libcuda", k == GV_LIB_NVML ? "NVML" : "CUDA");
    start_row(l, k, once ? GV_ERROR : GV_FAIL,
              once      ? GV_ACTION_RERUN
              : one_gpu ? GV_ACTION_RESET_GPU
                        : GV_ACTION_FIX_CONFIG,
              row, remedy, spent);
}

void gv_lane_start_passed(client *c)
{
    for (int k = GV_LIB_CUDA; k <= GV_LIB_NVML; k++) {
        int index = gv_catalog_index(start_check(k));
        if (!c->start_crash[k][0] || (index >= 0 && c->plan->chosen[index]))
            continue;
        gv_result_action(gv_report_add(c->report, start_check(k), "node", GV_ERROR,
                                       "%s, and a fresh worker got past it", c->start_crash[k]),
                         GV_ACTION_RERUN);
        c->start_crash[k][0] = '\0';
    }
}

void gv_lane_start_crashed(client *c, gv_check_result *row)
{
    int k = gv_lane_start_library(row->id);
    if (k < 0 || !c->start_crash[k][0] || strcmp(row->subject, "node") != 0)
        return;
    char message[sizeof row->message];
    snprintf(message, sizeof message, "%s, and a fresh worker got past it: %s", c->start_crash[k],
             row->message);
    memcpy(row->message, message, sizeof message);
    if (row->verdict == GV_PASS || row->verdict == GV_WARN || row->verdict == GV_SKIP) {
        row->verdict = GV_ERROR;
        row->action = GV_ACTION_RERUN;
    }
    c->start_crash[k][0] = '\0';
}
