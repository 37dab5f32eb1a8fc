/* SPDX-License-Identifier: Apache-2.0 */
/* GV_NCCL_PAIRS: every ordered pair of ranks in turn, the one slow or broken link among many. */
#include <stdio.h>

#include "core/util.h"
#include "gpuverify/gv_report.h"
#include "nccl/nccl_run.h"

/* Between two pairs of GV_NCCL_PAIRS over several processes: a one-element all-reduce on
 * every rank, so that no pair's timing includes a rank still busy with the one before. */
static gv_status barrier(nccl_run *n)
{
    const struct gv_nccl_api *nc = n->nc;
    int grouped = n->local > 1;
    int rc = grouped ? nc->ncclGroupStart() : GVNC_SUCCESS;
    for (uint32_t i = 0; i < n->local && (rc == GVNC_SUCCESS || rc == GVNC_IN_PROGRESS); i++) {
        nccl_gpu *g = &n->gpus[i];
        if (grouped)
            gv_nccl_use(n, i);
        void *flag = (void *)(uintptr_t)g->flag;
        rc = nc->ncclAllReduce(flag, flag, 1, GVNC_FLOAT32, GVNC_SUM, g->comm, g->s.stream);
    }
    if (grouped) {
        int end = nc->ncclGroupEnd();
        rc = rc == GVNC_SUCCESS || rc == GVNC_IN_PROGRESS ? end : rc;
    }
    if (rc == GVNC_IN_PROGRESS && gv_nccl_wait_comms(n) != GV_OK)
        return GV_ERR_TIMEOUT;
    if (rc != GVNC_SUCCESS && rc != GVNC_IN_PROGRESS)
        return gv_nccl_fail(n, "ncclAllReduce (between pairs)", rc, NULL);
    return gv_nccl_wait_streams(n);
}

/* Whether one of this call's GPUs is rank r. */
static int local_rank_of(const nccl_run *n, int r)
{
    for (uint32_t i = 0; i < n->local; i++)
        if (n->gpus[i].rank == r)
            return 1;
    return 0;
}

/* GV_NCCL_PAIRS: at min_bytes, then max_bytes, every ordered pair in turn; sizes[] gets the
 * median of the pairs this call took part in. */
gv_status gv_nccl_sweep_pairs(nccl_run *n)
{
    gv_nccl_result *r = n->r;
    uint64_t sizes[2] = {n->o.min_bytes, n->o.max_bytes};
    int nsizes = n->o.min_bytes == n->o.max_bytes ? 1 : 2;
    char stage[128];
    r->pair_count = 0;
    for (int a = 0; a < n->nranks; a++)
        for (int b = 0; b < n->nranks; b++)
            if (a != b && r->pair_count < GV_NCCL_MAX_PAIRS)
                r->pairs[r->pair_count++] = (gv_nccl_pair){.from = a, .to = b};
    double times[GV_NCCL_MAX_PAIRS];
    for (int z = 0; z < nsizes && r->size_count < GV_NCCL_MAX_SIZES; z++) {
        gv_nccl_size row = {0};
        row.count = gv_nccl_count_for(GV_NCCL_PAIRS, n->nranks, sizes[z], &row.bytes);
        size_t took = 0;
        for (uint32_t k = 0; k < r->pair_count; k++) {
            gv_nccl_pair *p = &r->pairs[k];
            n->from = p->from, n->to = p->to;
            snprintf(stage, sizeof stage, "running pairs: %d->%d at %llu bytes", p->from, p->to,
                     (unsigned long long)row.bytes);
            gv_nccl_stage(n, stage);
            gv_nccl_size one = row;
            gv_status st = gv_nccl_measure(n, row.count, 0, &one);
            if (st == GV_OK && n->local < (uint32_t)n->nranks)
                st = barrier(n);
            if (st != GV_OK)
                return st;
            if (!local_rank_of(n, p->from) && !local_rank_of(n, p->to))
                continue;
            times[took++] = one.time_us;
            p->wrong += one.wrong;
            row.wrong += one.wrong;
            if (z == 0)
                p->latency_us = one.time_us;
            if (z == nsizes - 1)
                p->busbw_gbps = one.busbw_gbps;
        }
        double median = took ? gv_median(times, took) : 0;
        row.time_us = median;
        row.algbw_gbps = row.busbw_gbps = median > 0 ? (double)row.bytes / (median * 1e3) : 0;
        gv_nccl_size none = {.bytes = row.bytes, .count = row.count};
        gv_nccl_add_size(n, &row, &none);
    }
    return GV_OK;
}

/* GV_NCCL_PAIRS: a pair at less than half the median pair's bandwidth, or more than twice its
 * latency (and 10 us more: a host's hiccup over a few microseconds is not a link), is the one
 * bad link (WARN: slow, not wrong). 1 when it judged so. */
int gv_nccl_judge_pairs(nccl_run *n)
{
    gv_nccl_result *r = n->r;
    double bw[GV_NCCL_MAX_PAIRS], lat[GV_NCCL_MAX_PAIRS];
    size_t m = 0;
    const gv_nccl_pair *slow = NULL, *late = NULL;
    for (uint32_t k = 0; k < r->pair_count; k++) {
        const gv_nccl_pair *p = &r->pairs[k];
        if (p->latency_us <= 0)
            continue; /* another process's pair */
        bw[m] = p->busbw_gbps, lat[m++] = p->latency_us;
        if (!slow || p->busbw_gbps < slow->busbw_gbps)
            slow = p;
        if (!late || p->latency_us > late->latency_us)
            late = p;
    }
    if (m < 2)
        return 0;
    double median_bw = gv_median(bw, m), median_lat = gv_median(lat, m);
    if (slow->busbw_gbps < 0.5 * median_bw)
        snprintf(r->message, sizeof r->message,
                 "pairs over %d ranks: %d->%d moves %.1f GB/s at %llu bytes, under half the "
                 "median pair's %.1f GB/s: a slow link or path; data exact",
                 n->nranks, slow->from, slow->to, slow->busbw_gbps,
                 (unsigned long long)n->o.max_bytes, median_bw);
    else if (late->latency_us > 2 * median_lat && late->latency_us > median_lat + 10)
        snprintf(r->message, sizeof r->message,
                 "pairs over %d ranks: %d->%d takes %.1f us at %llu bytes, over twice the median "
                 "pair's %.1f us: a slow link or path; data exact",
                 n->nranks, late->from, late->to, late->latency_us,
                 (unsigned long long)n->o.min_bytes, median_lat);
    else
        return 0;
    r->verdict = GV_WARN;
    return 1;
}
