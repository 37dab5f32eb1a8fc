/* SPDX-License-Identifier: Apache-2.0 */
/* cuda.p2p: copy bandwidth and latency between every ordered pair of the chosen GPUs
 * (gv_p2p_matrix), one row per source GPU. Judged against the node itself, each pair against
 * the others of its route (NVLink, one PCIe switch, through the CPU, across NUMA nodes): a pair
 * far below the others of its route is the one bad link, and a pair without peer access where
 * the others of its route have it is a route through the CPU. A route the node's design makes
 * slower, or leaves without peer access (PCIe peers across NUMA nodes, on most hosts), is
 * judged against its own kind and passes. NVLink has a design to hold every pair to besides:
 * peer access, and half of its links' nominal rate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/active.h"
#include "checks/check_ids.h"
#include "checks/busy.h"
#include "compute/p2p_bw.h"
#include "compute/telemetry.h"
#include "core/progress.h"
#include "core/util.h"
#include "sys/pci_share.h"

#define SLOW_PAIR 0.5 /* of the median of the node's pairs of the same route and access */
/* Of the NVLinks' nominal rate: a healthy NVSwitch or bridge pair copies at 85-90% of it
 * (H200 NV18: 394 of 450 GB/s), so every pair at half or less is NVLink not carrying the
 * copies, which the pairs' median alone cannot see when all of them are alike. */
#define SLOW_NVLINK 0.5

/* The way two GPUs are joined, nearest first: NVLink when NVML says so, else the PCIe path
 * sysfs places them on; PCIe when sysfs cannot say. */
enum route { ROUTE_NVLINK, ROUTE_SWITCH, ROUTE_CPU, ROUTE_NUMA, ROUTE_PCIE, ROUTES };
static const char *const route_names[ROUTES] = {
    "over NVLink", "under one PCIe switch", "through the CPU", "across NUMA nodes", "over PCIe"};

typedef struct p2p_node {
    size_t n;
    char (*subject)[48];
    const gv_gpu_record **gpu;   /* the inventory record of each, NULL unknown */
    const gv_pci_function **pci; /* its place in sysfs, NULL unknown */
    gv_p2p_pair *m;
    unsigned char *route;     /* enum route of each ordered pair */
    double median[ROUTES][2]; /* [route][peer access] */
    size_t count[ROUTES][2];
} p2p_node;

static enum route route_of(const p2p_node *p, size_t i, size_t j)
{
    if (gv_nvlinks_between(p->gpu[i], p->gpu[j]) > 0)
        return ROUTE_NVLINK;
    const gv_pci_function *a = p->pci[i], *b = p->pci[j];
    if (!a || !b)
        return ROUTE_PCIE;
    if (gv_pci_share_a_port(a, b))
        return ROUTE_SWITCH;
    if (a->numa_node < 0 || b->numa_node < 0)
        return ROUTE_PCIE;
    return a->numa_node == b->numa_node ? ROUTE_CPU : ROUTE_NUMA;
}

/* Each pair's route, and the median rate of every route with and without peer access. */
static int medians(p2p_node *p)
{
    p->route = calloc(p->n * p->n, 1);
    double *v = calloc(p->n * p->n + 1, sizeof *v);
    if (!p->route || !v) {
        free(v);
        return -1;
    }
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < p->n; j++)
            p->route[i * p->n + j] = i == j ? ROUTE_PCIE : (unsigned char)route_of(p, i, j);
    for (int r = 0; r < ROUTES; r++)
        for (int direct = 0; direct < 2; direct++) {
            size_t k = 0;
            for (size_t i = 0; i < p->n; i++)
                for (size_t j = 0; j < p->n; j++)
                    if (i != j && p->route[i * p->n + j] == r &&
                        p->m[i * p->n + j].direct == direct)
                        v[k++] = p->m[i * p->n + j].gbps;
            p->count[r][direct] = k;
            p->median[r][direct] = k ? gv_median(v, k) : 0;
        }
    free(v);
    return 0;
}

/* The nominal rate of the route a copy took, one direction: with peer access, the active
 * NVLinks joining the two GPUs times the lane rate; otherwise, or without NVLink, the narrower
 * PCIe link's raw rate; 0 unknown. `how` names it. */
static double nominal(const gv_gpu_record *a, const gv_gpu_record *b, int direct, char *how,
                      size_t cap)
{
    if (!a || !b)
        return 0;
    int links = gv_nvlinks_between(a, b);
    double nvlink = gv_nvlink_nominal_gbps(a, b);
    if (direct && nvlink > 0) {
        snprintf(how, cap, "NVLink %d x %.0f", links, nvlink / links);
        return nvlink;
    }
    double pa = gv_pcie_raw_gbps(a->gpu.pcie_gen_max, a->gpu.pcie_width_max);
    double pb = gv_pcie_raw_gbps(b->gpu.pcie_gen_max, b->gpu.pcie_width_max);
    double pcie = pa < pb ? pa : pb;
    snprintf(how, cap, "PCIe");
    return pcie;
}

static void gpu_row(gv_active_run *run, const p2p_node *p, size_t i, const gv_busy *busy)
{
    char all[320] = "", slow[320] = "", host[160] = "", designed[ROUTES][160] = {{0}};
    double lo = 0, latency = 0, lo_nominal = 0, lo_median = 0;
    char lo_how[32] = "";
    size_t direct = 0;
    for (size_t j = 0; j < p->n; j++) {
        if (j == i)
            continue;
        const gv_p2p_pair *q = &p->m[i * p->n + j];
        int r = p->route[i * p->n + j];
        double median = p->median[r][q->direct];
        char one[96], how[32] = "";
        snprintf(one, sizeof one, "%s %.1f", p->subject[j], q->gbps);
        gv_append(all, sizeof all, ", ", one);
        if (lo == 0 || q->gbps < lo) {
            lo = q->gbps;
            lo_median = median;
            lo_nominal = nominal(p->gpu[i], p->gpu[j], q->direct, how, sizeof how);
            snprintf(lo_how, sizeof lo_how, "%s", how);
        }
        latency += q->latency_us / (double)(p->n - 1);
        direct += q->direct != 0;
        double nvlink_gbps =
            r == ROUTE_NVLINK && q->direct ? nominal(p->gpu[i], p->gpu[j], 1, how, sizeof how) : 0;
        if (median > 0 && q->gbps < SLOW_PAIR * median) {
            snprintf(one, sizeof one, "%s %.1f GB/s (%.0f%% of the node's %.1f %s)", p->subject[j],
                     q->gbps, 100 * q->gbps / median, median, route_names[r]);
            gv_append(slow, sizeof slow, ", ", one);
        } else if (nvlink_gbps > 0 && q->gbps < SLOW_NVLINK * nvlink_gbps) {
            snprintf(one, sizeof one, "%s %.1f GB/s (%.0f%% of its %s = %.0f GB/s nominal)",
                     p->subject[j], q->gbps, 100 * q->gbps / nvlink_gbps, how, nvlink_gbps);
            gv_append(slow, sizeof slow, ", ", one);
        }
        /* GPUs NVLink joins have peer access by design: without it, never the node's design. */
        if (!q->direct && (p->count[r][1] > 0 || r == ROUTE_NVLINK))
            gv_append(host, sizeof host, ", ", p->subject[j]);
        else if (!q->direct) /* no pair of this route has peer access: the node's design */
            gv_append(designed[r], sizeof designed[r], ", ", p->subject[j]);
    }
    gv_check_result *c;
    if (slow[0] || host[0]) {
        c = gv_report_add(run->report, gv_id_cuda_p2p, p->subject[i], GV_WARN, "%s%s%s%s%s",
                          slow[0] ? "slow copies to " : "", slow, slow[0] && host[0] ? "; " : "",
                          host[0] ? "no peer access (through the host) to " : "", host);
        gv_result_remedy(c, "check the NVLinks and NVSwitches of these GPUs (nvidia-smi nvlink "
                            "-s, -e), the fabric manager, and ACS/IOMMU settings for PCIe peers");
        /* A pair slow against its route's others is a link; peer access missing where the
         * route's other pairs have it is ACS, the IOMMU or the fabric manager: settings. */
        gv_result_action(c, slow[0] ? GV_ACTION_HW_INSPECT : GV_ACTION_FIX_CONFIG);
    } else {
        c = gv_report_add(run->report, gv_id_cuda_p2p, p->subject[i], GV_PASS,
                          "copies to %s GB/s (%s), %.1f us per small copy", all,
                          direct ? "peer access on" : "through the host", latency);
    }
    for (int r = 0; c && direct && r < ROUTES; r++) /* no peer access by the node's design */
        if (designed[r][0]) {
            size_t len = strlen(c->message);
            snprintf(c->message + len, sizeof c->message - len,
                     "; through the host, as every pair %s on this node: %s", route_names[r],
                     designed[r]);
        }
    if (c && lo_nominal > 0) { /* the fraction of the route's nominal rate, for the record */
        size_t len = strlen(c->message);
        snprintf(c->message + len, sizeof c->message - len,
                 "; the slowest is %.0f%% of its %s = %.0f GB/s nominal", 100 * lo / lo_nominal,
                 lo_how, lo_nominal);
    }
    gv_result_measured(c, lo, "GB/s", "%.1f GB/s to the slowest peer", lo);
    if (lo_median > 0)
        gv_result_expected(c, "same-route pairs", ">= %.0f%% of their median (%.1f GB/s)",
                           100 * SLOW_PAIR, lo_median);
    gv_busy_apply(busy, run->policy, c, 0);
}

void gv_active_p2p(gv_active_run *run)
{
    const gv_active_members members = gv_active_group(gv_active_p2p);
    if (gv_active_no_devices(run, members))
        return;
    gv_session *s = calloc(GV_RUN_MAX_GPUS, sizeof *s);
    gv_session **open = calloc(GV_RUN_MAX_GPUS, sizeof *open);
    p2p_node p = {.subject = calloc(GV_RUN_MAX_GPUS, sizeof *p.subject),
                  .gpu = calloc(GV_RUN_MAX_GPUS, sizeof *p.gpu),
                  .pci = calloc(GV_RUN_MAX_GPUS, sizeof *p.pci)};
    int *ordinal = calloc(GV_RUN_MAX_GPUS, sizeof *ordinal);
    if (!s || !open || !p.subject || !p.gpu || !p.pci || !ordinal) {
        gv_active_rows_action(run, members, "node", GV_ERROR, GV_ACTION_RERUN, "out of memory");
        goto done;
    }
    gv_progress_begin(run->ctx, gv_id_cuda_p2p, "node");
    gv_busy busy = {0};
    for (int o = 0; o < run->facts->cuda_count && p.n < GV_RUN_MAX_GPUS; o++) {
        if (!gv_active_gpu_chosen(run, o))
            continue;
        gv_active_subject(run->facts, o, p.subject[p.n], sizeof p.subject[p.n]);
        gv_errbuf err;
        gv_status st = gv_session_open(run->ctx, (uint32_t)o, &s[p.n], &err);
        if (st != GV_OK) {
            gv_session_close(&s[p.n]);
            gv_result_action(gv_report_add(run->report, gv_id_cuda_p2p, p.subject[p.n],
                                           st == GV_ERR_BUSY ? GV_ERROR : GV_FAIL, "%s", err.text),
                             st == GV_ERR_BUSY ? GV_ACTION_WAIT : GV_ACTION_RESET_GPU);
            continue;
        }
        gv_active_sample_busy(run, o, &busy);
        ordinal[p.n] = o;
        p.gpu[p.n] = gv_active_gpu_record(run->facts, o);
        p.pci[p.n] = s[p.n].have_pci ? &s[p.n].pci : NULL;
        open[p.n] = &s[p.n];
        p.n++;
    }
    if (p.n == 1)
        gv_report_add(run->report, gv_id_cuda_p2p, "node", GV_SKIP,
                      "one GPU: no pair to copy between");
    if (p.n >= 2 && (p.m = calloc(p.n * p.n, sizeof *p.m)) != NULL) {
        /* Three samples of four copies: 256 MiB each at benchmark length, 64 MiB otherwise
         * (56 pairs of PCIe GPUs through the host: about 17 s and 4 s). */
        uint64_t bytes = run->copy_bytes  ? run->copy_bytes
                         : run->benchmark ? 256ull << 20
                                          : 64ull << 20;
        /* GPUs joined pair by pair by NVLink (NVSwitch) copy in rounds, every GPU at once:
         * each copy on its own links, as alone. Over PCIe copies at once share switches and
         * root ports, and would judge the sharing: one pair at a time there. */
        int rounds = 1;
        for (size_t i = 0; i < p.n; i++)
            for (size_t j = 0; j < p.n; j++)
                if (i != j && gv_nvlinks_between(p.gpu[i], p.gpu[j]) <= 0)
                    rounds = 0;
        gv_errbuf err;
        if (gv_p2p_matrix(open, p.n, bytes, 3, 4, rounds, p.m, &err) != GV_OK) {
            /* A copy between GPUs failed: which GPU is not known, so the node's. */
            gv_result_action(
                gv_report_add(run->report, gv_id_cuda_p2p, "node", GV_FAIL, "%s", err.text),
                GV_ACTION_REBOOT_NODE);
        } else {
            for (size_t i = 0; i < p.n; i++)
                gv_active_sample_busy(run, ordinal[i], &busy);
            if (medians(&p) != 0)
                gv_result_action(
                    gv_report_add(run->report, gv_id_cuda_p2p, "node", GV_ERROR, "out of memory"),
                    GV_ACTION_RERUN);
            else
                for (size_t i = 0; i < p.n; i++)
                    gpu_row(run, &p, i, &busy);
        }
    }
    for (size_t i = p.n; i-- > 0;) { /* pushed in order: popped in reverse, each made current */
        gv_progress_watch(run->ctx, &s[i].cuda_index, 1);
        s[i].cu->cuCtxSetCurrent(s[i].context);
        gv_session_close(&s[i]);
    }
    gv_progress_watch(run->ctx, NULL, 0);
done:
    free(p.m);
    free(p.route);
    free(p.subject);
    free(p.gpu);
    free(p.pci);
    free(ordinal);
    free(open);
    free(s);
}
