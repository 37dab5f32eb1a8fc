/* SPDX-License-Identifier: Apache-2.0 */
/* nccl.version, nccl.allreduce and nccl.transport: NCCL loads and says its version, an
 * all-reduce over the run's GPUs from one process returns exact sums, and the connections NCCL
 * made for it go where the hardware says they should (its log, read in gpuverify-worker).
 * gv_run keeps the sweep short (1 to 256 MiB, four-fold steps; to 4 GiB at the extended level;
 * one size when only the transport is asked for); gv_nccl_bench gives full control. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backends/libraries.h"
#include "checks/active.h"
#include "checks/busy.h"
#include "checks/checks.h"
#include "compute/compute.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"
#include "gpuverify/gv_policy.h"
#include "gpuverify/gv_nccl.h"
#include "nccl/nccl_ahead.h"
#include "rdma/rdma.h"

static void version_row(gv_active_run *run)
{
    gv_compat c;
    gv_compat_check(run->ctx, GV_LIB_NCCL, &c);
    if (c.verdict == GV_SKIP && c.version[0])
        c.verdict = GV_PASS; /* it loads; only its CUDA version is unknown */
    gv_check_result *res =
        gv_report_add(run->report, gv_id_nccl_version, "node", c.verdict, "%s", c.message);
    if (c.version[0])
        gv_result_measured(res, NAN, "", "%s", c.version);
    if (c.verdict == GV_FAIL)
        gv_result_remedy(res,
                         "install a driver that supports CUDA %d.%d, or an NCCL built for "
                         "CUDA %d.%d",
                         c.library_cuda / 1000, c.library_cuda % 1000 / 10, c.driver_cuda / 1000,
                         c.driver_cuda % 1000 / 10);
    gv_result_action(res, GV_ACTION_FIX_CONFIG);
}

/* The checks one all-reduce sweep answers: the group's but nccl.version. */
static gv_active_members sweep(void)
{
    return gv_active_span(gv_id_nccl_allreduce, gv_id_nccl_transport);
}

/* Adds a row for each selected check of the sweep with the same verdict and text. */
static void rows(gv_active_run *run, int verdict, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void rows(gv_active_run *run, int verdict, const char *fmt, ...)
{
    char why[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    gv_active_rows(run, sweep(), "node", verdict, why);
}

/* Whether NVLink joins the GPUs of ranks a and b (rank i is o->gpus[i]: one process). */
static int joined(const gv_active_run *run, const gv_nccl_opts *o, int a, int b)
{
    if (a < 0 || b < 0 || a >= (int)o->gpu_count || b >= (int)o->gpu_count)
        return 0;
    return gv_nvlinks_between(gv_active_gpu_record(run->facts, (int)o->gpus[a]),
                              gv_active_gpu_record(run->facts, (int)o->gpus[b])) > 0;
}

/* Whether NVLink joins every pair of the run's GPUs (NVSwitch, or two bridged GPUs). */
static int all_joined(const gv_active_run *run, const gv_nccl_opts *o)
{
    for (int a = 0; a < (int)o->gpu_count; a++)
        for (int b = a + 1; b < (int)o->gpu_count; b++)
            if (!joined(run, o, a, b))
                return 0;
    return 1;
}

/* The connections in transports ("0->1 SHM/direct/direct; 1->2 P2P/CUMEM/read; ...", those off
 * P2P listed first) through SHM or the network between GPUs NVLink joins: how many are
 * listed, and the first in `first`. A node whose design joins only some pairs (NVLink bridges
 * between two GPUs) has others on SHM by design: only a joined pair off P2P is a fault. */
static unsigned joined_off_p2p(const gv_active_run *run, const gv_nccl_opts *o,
                               const char *transports, char *first, size_t cap)
{
    unsigned n = 0;
    first[0] = '\0';
    for (const char *at = transports; *at;) {
        size_t len = strcspn(at, ";");
        int from, to;
        char via[48] = "";
        if (sscanf(at, " %d->%d %47[^;]", &from, &to, via) == 3 &&
            (!strncmp(via, "SHM", 3) || !strncmp(via, "NET/", 4)) && joined(run, o, from, to)) {
            if (!n++)
                snprintf(first, cap, "%d->%d %s", from, to, via);
        }
        at += len;
        at += *at == ';';
    }
    return n;
}

/* The first connection of transports ("0->1 SHM/direct/direct; ...") through `kind`. */
static void first_through(const char *transports, const char *kind, char *out, size_t cap)
{
    const char *at = strstr(transports, kind);
    out[0] = '\0';
    if (!at)
        return;
    const char *start = at;
    while (start > transports && start[-1] != ';')
        start--;
    while (*start == ' ')
        start++;
    size_t n = strcspn(start, ";");
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), start);
}

/* An RDMA port in state ACTIVE ("mlx5_0 port 1"), "" when none. */
static void active_rdma_port(gv_active_run *run, char *out, size_t cap)
{
    const gv_rdma_report *r = gv_active_rdma_report(run);
    out[0] = '\0';
    for (size_t i = 0; r && i < r->port_count && !out[0]; i++)
        if (r->ports[i].state == GV_PORT_ACTIVE)
            snprintf(out, cap, "%s port %u", r->ports[i].device, (unsigned)r->ports[i].port);
}

/* The sweep's ranks' GPUs named on its row of the node (gv_active_row_covers). */
static void covers(gv_active_run *run, const gv_check_result *c, const gv_nccl_opts *o)
{
    int ordinals[GV_NCCL_MAX_GPUS];
    uint32_t n = o->gpu_count < GV_NCCL_MAX_GPUS ? o->gpu_count : GV_NCCL_MAX_GPUS;
    for (uint32_t i = 0; i < n; i++)
        ordinals[i] = (int)o->gpus[i];
    gv_active_row_covers(run, c, ordinals, n);
}

/* nccl.transport: NVLink-joined GPUs must talk P2P, and NCCL must not use sockets while an
 * RDMA port is ACTIVE; either is a setting or a fault that costs most of the fabric's speed
 * without failing a single operation. */
static void transport_row(gv_active_run *run, const gv_nccl_opts *o, const gv_nccl_result *r)
{
    if (!r->transport_known) {
        gv_report_add(run->report, gv_id_nccl_transport, "node", GV_SKIP,
                      "NCCL's connections are read from its log, which only gpuverify-worker "
                      "captures; this run is in the caller's process");
        return;
    }
    unsigned total = r->via_p2p + r->via_shm + r->via_net + r->via_collnet;
    if (total == 0) {
        gv_report_add(run->report, gv_id_nccl_transport, "node", GV_SKIP,
                      "NCCL's log names no connection between the %d ranks (NCCL %s writes "
                      "lines this library does not know)",
                      (int)r->nranks, r->version);
        return;
    }
    char first[96], port[96];
    unsigned off = joined_off_p2p(run, o, r->transports, first, sizeof first);
    /* Every pair joined: every connection off P2P is one of them, listed or not. */
    if (off && all_joined(run, o))
        off = r->via_shm + r->via_net;
    active_rdma_port(run, port, sizeof port);
    gv_check_result *c;
    if (off) {
        c = gv_report_add(run->report, gv_id_nccl_transport, "node", GV_FAIL,
                          "%u of %u connections between GPUs joined by NVLink go through %s, not "
                          "P2P (%s); NCCL settings: %s",
                          off, total, strstr(first, " SHM") ? "host memory (SHM)" : "the network",
                          first, r->settings);
        gv_result_remedy(c, "remove the setting that turns P2P off (NCCL_P2P_DISABLE, "
                            "NCCL_P2P_LEVEL); with none set, check peer access (cuda.p2p), "
                            "ACS/IOMMU and the container's IPC namespace");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else if (r->via_socket && port[0]) {
        first_through(r->transports, "NET/Socket", first, sizeof first);
        c = gv_report_add(run->report, gv_id_nccl_transport, "node", GV_FAIL,
                          "NCCL connects through sockets (%s) while %s is ACTIVE; NCCL settings: "
                          "%s",
                          first, port, r->settings);
        gv_result_remedy(c, "remove NCCL_IB_DISABLE / NCCL_NET=Socket, or make NCCL_IB_HCA "
                            "match the ACTIVE port (rdma.nccl_env)");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
    } else {
        c = gv_report_add(run->report, gv_id_nccl_transport, "node", GV_PASS,
                          "%u connections: %u P2P, %u SHM, %u NET (%u sockets), %u CollNet; "
                          "network %s%s; %s",
                          total, r->via_p2p, r->via_shm, r->via_net, r->via_socket, r->via_collnet,
                          r->network[0] ? r->network : "not named",
                          r->nvls ? "; NVLS multicast available" : "", r->transports);
    }
    gv_result_measured(c, (double)r->via_p2p, "P2P connections", "%u of %u P2P", r->via_p2p, total);
    covers(run, c, o);
}

/* Where NVLink joins every pair of the run's GPUs, a bus bandwidth from 64 MiB up below a
 * quarter of the slowest pair's NVLink nominal rate is NVLink not carrying the collective
 * (NCCL's settings, a transport through the host): healthy nodes reach 60-90% of it there (two
 * H200s, NV18: 265 GB/s at 64 MiB, 299 at 256 MiB, of 450). Judged only without a policy
 * floor, and only where the sweep reached 64 MiB. */
#define NVLINK_BUSBW_SHARE 0.25

static void below_nvlink_design(gv_active_run *run, const gv_nccl_opts *o, const gv_nccl_result *r,
                                gv_check_result *c)
{
    double best = 0; /* from 64 MiB up, where a healthy NVLink is past its latency */
    for (uint32_t k = 0; k < r->size_count; k++)
        if (r->sizes[k].bytes >= (64ull << 20) && r->sizes[k].busbw_gbps > best)
            best = r->sizes[k].busbw_gbps;
    if (best <= 0 || !all_joined(run, o))
        return;
    double nominal = 0;
    for (uint32_t a = 0; a < o->gpu_count; a++)
        for (uint32_t b = a + 1; b < o->gpu_count; b++) {
            double x = gv_nvlink_nominal_gbps(gv_active_gpu_record(run->facts, (int)o->gpus[a]),
                                              gv_active_gpu_record(run->facts, (int)o->gpus[b]));
            nominal = nominal == 0 || (x > 0 && x < nominal) ? x : nominal;
        }
    if (nominal <= 0 || best >= NVLINK_BUSBW_SHARE * nominal)
        return;
    c->verdict = GV_WARN;
    size_t len = strlen(c->message);
    snprintf(c->message + len, sizeof c->message - len,
             "; busbw %.1f GB/s from 64 MiB up, below a quarter of the %.0f GB/s the NVLinks "
             "joining every pair carry: NVLink is not carrying the collective",
             best, nominal);
    gv_result_expected(c, "NVLink design", ">= %.0f GB/s busbw (%.0f%% of %.0f)",
                       NVLINK_BUSBW_SHARE * nominal, 100 * NVLINK_BUSBW_SHARE, nominal);
    gv_result_remedy(c, "look for NCCL settings that keep it off NVLink or narrow it "
                        "(NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, NCCL_MAX_NCHANNELS, NCCL_ALGO), and "
                        "at nccl.transport and cuda.p2p");
    gv_result_action(c, GV_ACTION_FIX_CONFIG);
}

/* On a GPU another process uses, under busy = skip (whose figures there are not judged), the
 * sweep stops here: it holds twice its largest size on every GPU (8 GiB at the extended level's
 * 4 GiB), which a job whose allocator grows meanwhile may need; what the row still judges there,
 * the data and the transport, shows at this size. As mem.test and cuda.alloc (gv_busy_spares). */
#define BUSY_SWEEP_MAX (64ull << 20)

/* The sweep's sizes, deadline, process and floor. */
static void sweep_opts(const gv_active_run *run, int timed, gv_nccl_opts *o)
{
    /* Short: 1 to 256 MiB by four-fold steps; extended: to 4 GiB doubling, where peaks are;
     * for the transport alone, 1 MiB (a connection for every ring and tree is made there). */
    o->max_bytes = run->nccl_bytes ? run->nccl_bytes : run->benchmark ? 4ull << 30 : 256ull << 20;
    if (!timed)
        o->max_bytes = 1ull << 20;
    o->min_bytes = o->max_bytes < (1ull << 20) ? o->max_bytes : 1ull << 20;
    o->step_factor = run->benchmark ? 2 : 4;
    /* The deadline is what remains of the run's budget, less a second for the sweep's own
     * worker to be stopped and the row written before gv_run stops this one (at least a
     * second). */
    double left = run->budget_end - gv_now_s() - 1.0;
    o->deadline_s = left > 1 ? left : 1;
    /* In the process of the run: the caller's (GV_ISOLATION_NONE, or no worker found), or
     * gv_run's worker, whose caller holds it to this check's deadline and its GPUs' beats.
     * There its contexts are made already: a worker of the sweep's own would make them again
     * after its own start and cuInit (the sweep 1.98 s there, 1.05 s here on 4 x H200). */
    o->flags |= GV_NCCL_IN_PROCESS;
    if (run->policy && run->policy->nccl_min_busbw_gbps > 0)
        o->min_busbw_gbps = run->policy->nccl_min_busbw_gbps;
}

/* nccl.allreduce's row from the sweep that ended with st; busy what was seen on its GPUs, and
 * asked_bytes the largest size before the busy rule lowered it. */
static void allreduce_row(gv_active_run *run, const gv_nccl_opts *o, const gv_nccl_result *r,
                          gv_status st, const gv_busy *busy, uint64_t asked_bytes)
{
    gv_check_result *c =
        gv_report_add(run->report, gv_id_nccl_allreduce, "node", r->verdict, "%s", r->message);
    if (c && r->verdict == GV_PASS && o->min_busbw_gbps <= 0)
        below_nvlink_design(run, o, r, c);
    covers(run, c, o);
    if (r->size_count)
        gv_result_measured(c, r->peak_busbw_gbps, "GB/s", "busbw %.1f GB/s at %llu MiB",
                           r->peak_busbw_gbps, (unsigned long long)(r->peak_bytes >> 20));
    if (o->min_busbw_gbps > 0)
        gv_result_expected(c, "policy", ">= %.1f GB/s busbw", o->min_busbw_gbps);
    if (r->wrong_elements)
        gv_result_remedy(c, "drain the node: a GPU or NVLink/PCIe path corrupts data; run "
                            "nccl-tests per GPU pair and the vendor diagnostics to find it");
    else if (st == GV_ERR_TIMEOUT)
        gv_result_remedy(c, "check NVLink/NVSwitch state (nvidia-smi nvlink -s, fabric manager) "
                            "and NCCL_DEBUG=INFO output for the transport that hangs");
    /* Wrong sums, a pair or a bus bandwidth below its floor: the GPUs or their links. A
     * collective that did not finish: the GPUs it hung on are reset (which of them is not
     * known: every one of the run). An NCCL error: run it again. */
    if (c && c->action == GV_ACTION_NONE)
        gv_result_action(c, r->verdict == GV_ERROR ? GV_ACTION_RERUN
                            : st == GV_ERR_TIMEOUT ? GV_ACTION_RESET_GPU
                                                   : GV_ACTION_HW_INSPECT);
    if (st == GV_OK)
        gv_busy_apply(busy, run->policy, c, r->wrong_elements != 0);
    if (c && o->max_bytes < asked_bytes) {
        size_t len = strlen(c->message);
        snprintf(c->message + len, sizeof c->message - len,
                 "; sizes above %llu MiB not run: holding twice the largest (%llu MiB) on each GPU "
                 "would take what that process may need next",
                 (unsigned long long)(o->max_bytes >> 20),
                 (unsigned long long)(2 * asked_bytes >> 20));
    }
}

/* Whether the run has a test on the GPUs after the sweep's. */
static int gpu_tests_after(const gv_active_run *run)
{
    for (size_t i = sweep().end; i < gv_check_count; i++)
        if (run->chosen[i] && gv_checks[i].active)
            return 1;
    return 0;
}

/* How long the tests across GPUs wait for the communicator made ahead before they measure;
 * past it, the sweep makes its own within its deadline. Its creation takes 0.1-0.8 s. */
#define SETTLE_MAX_S 5.0

/* The sweep's GPUs, its ranks in that order: those chosen (gpu_chosen by CUDA ordinal, NULL
 * for all) that CUDA sees. */
static uint32_t sweep_gpus(const gv_facts *f, const int *gpu_chosen, uint32_t *out)
{
    uint32_t count = 0;
    for (int gpu = 0; gpu < f->cuda_count && gpu < GV_NCCL_MAX_GPUS; gpu++)
        if (!gpu_chosen || (gpu < GV_RUN_MAX_GPUS && gpu_chosen[gpu]))
            out[count++] = (uint32_t)gpu;
    return count;
}

/* Whether chosen[] (by catalog entry) holds the sweep: nccl.allreduce or nccl.transport. */
static int sweep_chosen(const int *chosen)
{
    int a = gv_catalog_index(gv_id_nccl_allreduce), t = gv_catalog_index(gv_id_nccl_transport);
    return (a >= 0 && chosen[a]) || (t >= 0 && chosen[t]);
}

void gv_active_nccl_ahead(gv_ctx *ctx, const gv_facts *f, const int *chosen, const int *gpu_chosen,
                          const int *made)
{
    if (!sweep_chosen(chosen))
        return;
    uint32_t gpus[GV_NCCL_MAX_GPUS];
    uint32_t count = sweep_gpus(f, gpu_chosen, gpus);
    for (uint32_t i = 0; count >= 2 && i < count; i++)
        if (gpus[i] < GV_RUN_MAX_GPUS && made[gpus[i]])
            gv_nccl_ahead_join(ctx, gpus[i], (int)i, (int)count);
}

void gv_active_nccl_settle(gv_ctx *ctx, const gv_facts *f, const int *chosen, const int *gpu_chosen)
{
    if (!ctx->nccl_ahead)
        return;
    /* Nothing to wait for without the sweep: an empty list fits no rank, which gives them up. */
    uint32_t gpus[GV_NCCL_MAX_GPUS];
    uint32_t count = sweep_chosen(chosen) ? sweep_gpus(f, gpu_chosen, gpus) : 0;
    gv_progress_stage(ctx, "NCCL: the last ranks of the sweep's communicator, made ahead");
    gv_nccl_ahead_settle(ctx, gpus, count, gv_now_s() + SETTLE_MAX_S);
}

/* nccl.allreduce and nccl.transport from one sweep. */
static void sweep_rows(gv_active_run *run)
{
    const gv_facts *f = run->facts;
    /* CUDA unusable is driver.cuda's to judge, as for every CUDA test ("CUDA sees -1" said
     * nothing). */
    if (gv_active_no_devices(run, sweep()))
        return;
    gv_nccl_opts o = GV_NCCL_OPTS_INIT;
    o.gpu_count = sweep_gpus(f, run->gpu_chosen, o.gpus);
    if (o.gpu_count < 2) {
        rows(run, GV_SKIP,
             "%u GPU(s) to test (CUDA sees %d): an all-reduce inside the node needs two or more",
             (unsigned)o.gpu_count, f->cuda_count);
        return;
    }
    int timed = gv_active_selected(run, gv_id_nccl_allreduce);
    sweep_opts(run, timed, &o);
    const gv_policy *p = run->policy;
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    gv_status st = GV_OK;
    gv_progress_begin(run->ctx, timed ? gv_id_nccl_allreduce : gv_id_nccl_transport, "node");
    gv_busy busy = {0};
    uint64_t asked_bytes = o.max_bytes;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < o.gpu_count; i++)
            for (size_t k = 0; k < f->gpu_count; k++)
                if (f->gpus[k].gpu.cuda_index == (int32_t)o.gpus[i])
                    gv_busy_sample(run->ctx, &f->gpus[k], &busy);
        if (pass > 0)
            break;
        char spared[512];
        if (o.max_bytes > BUSY_SWEEP_MAX &&
            gv_busy_spares(&busy, p, "the sweep's largest sizes", spared, sizeof spared)) {
            o.max_bytes = BUSY_SWEEP_MAX;
            o.min_bytes = o.min_bytes < o.max_bytes ? o.min_bytes : o.max_bytes;
        }
        /* The worker's last test on the GPUs leaves NCCL's teardown to its exit. */
        run->ctx->exit_follows = run->ctx->in_worker && !gpu_tests_after(run);
        st = gv_nccl_bench(run->ctx, &o, &r); /* it watches its GPUs (core/progress.h) */
        run->ctx->exit_follows = 0;
        gv_progress_watch(run->ctx, NULL, 0);
    }
    if (st != GV_OK && st != GV_ERR_TIMEOUT) {
        /* Without NCCL there is nothing to judge; any other error is the check failing. */
        if (st == GV_ERR_LIBRARY) {
            rows(run, GV_SKIP, "%s", gv_ctx_last_error(run->ctx));
            return;
        }
        const gv_active_members m = sweep();
        for (size_t i = m.first; i < m.end; i++)
            if (run->chosen[i]) {
                gv_check_result *c = gv_report_add(run->report, gv_checks[i].id, "node", GV_ERROR,
                                                   "%s", gv_ctx_last_error(run->ctx));
                gv_result_remedy(c, "run gv-nccl with NCCL_DEBUG=WARN to see where it stops; look "
                                    "at driver.cuda, gpu.nvml and gpu.xid for the GPU named");
                gv_result_action(c, GV_ACTION_RERUN);
            }
        return;
    }
    if (gv_active_selected(run, gv_id_nccl_transport))
        transport_row(run, &o, &r);
    if (timed)
        allreduce_row(run, &o, &r, st, &busy, asked_bytes);
}

void gv_active_nccl(gv_active_run *run)
{
    if (gv_active_selected(run, gv_id_nccl_version))
        version_row(run);
    if (gv_active_selected(run, gv_id_nccl_allreduce) ||
        gv_active_selected(run, gv_id_nccl_transport))
        sweep_rows(run);
}
