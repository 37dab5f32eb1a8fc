/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run through gpuverify-worker, the caller's side: workers started before their work is
 * known (plan.standby), so that their start (the process, NVML, cuInit: 0.9 s on four H200s,
 * longer with more GPUs, and slower when several run it at once) overlaps what comes before
 * their work instead of following it. Each gathers the facts, then reads one line on its
 * stdin: "go GPUS CHECKS", what it tests (worker_args.h).
 *
 * Spares start with the node's worker, one for each GPU the node seems to have but the node
 * worker's own (PCI, or the GPUs asked for): each becomes a lane when the node's worker names
 * the lanes. Their cuInit waits for the node's worker's (gv_run_plan.await_cuda): they are
 * told "cuda" once its facts came (or it waits past them, for Xid events or a lock). Four
 * processes' cuInit at once on four H200s end together 1.2 s after they began (0.55 s alone);
 * once one process holds CUDA another's takes 0.06 s alone and 0.2-0.3 s three at once.
 *
 * The worker for the tests across GPUs starts with them (or as the lanes open when no spare
 * started), and its cuInit waits for the first lane to finish: NVML and cuInit in another
 * process stretch a lane's context, or its allocation for mem.test, from 0.09 to 0.30 s on four
 * H200s. As each lane finishes it is told "prepare GPU" and makes that GPU's context while the
 * others still run (the driver makes contexts one at a time: 0.12 s each on an H200), and it
 * is told the GPUs whose lanes did not hang once all have finished. A
 * worker that is gone by then is replaced by a fresh one; one stuck before it reads its line
 * (in cuInit, say) is the hang of what it was given, within that test's deadline. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "run/run_worker_lane.h"
#include "run/worker_args.h"
#include "sys/pci.h"

const gv_worker_proc gv_no_worker = {.pid = -1, .fd = -1, .in = -1};

static gv_worker_proc spawn_standby(client *c, gv_run_plan *plan, const int *checks)
{
    plan->lanes = 0;
    plan->standby = 1;
    gv_lane_plan_without(c, plan);
    double left = c->budget_end - gv_now_s();
    char **argv = gv_worker_argv(c->ctx, plan, checks, left > 0.001 ? left : 0.001, c->worker);
    gv_worker_proc p = gv_no_worker;
    char why[PATH_MAX + 128];
    if (!argv || gv_worker_spawn(c->worker, argv, 1, c->ctx, &p, why, sizeof why) != GV_OK)
        p = gv_no_worker;
    gv_worker_argv_free(argv);
    return p;
}

/* "go 2 cuda.init,mem.test": the GPUs, then the checks (those of `checks`) it runs, then the
 * lanes' copy figures when there are any ("copy-alone=0:54.9/55.2,..."). */
static int send_go(const client *c, gv_worker_proc *p, const char *gpus, const int *checks)
{
    char *line = malloc(GV_RUN_GO_MAX + 4);
    if (!line)
        return -1;
    snprintf(line, GV_RUN_GO_MAX, "go %s ", gpus);
    for (size_t i = 0; i < gv_check_count; i++)
        if (checks[i])
            gv_append(line, GV_RUN_GO_MAX, line[strlen(line) - 1] == ' ' ? "" : ",",
                      gv_checks[i].id);
    for (int g = 0, first = 1; g < GV_RUN_MAX_GPUS; g++)
        if (c->copy_h2d[g] > 0 && c->copy_d2h[g] > 0) {
            char one[48];
            snprintf(one, sizeof one, "%s%d:%.2f/%.2f", first ? " copy-alone=" : ",", g,
                     c->copy_h2d[g], c->copy_d2h[g]);
            gv_append(line, GV_RUN_GO_MAX, "", one);
            first = 0;
        }
    gv_append(line, GV_RUN_GO_MAX + 4, "", "\n");
    int rc = p->pid > 0 ? gv_worker_send(p, line) : -1;
    free(line);
    return rc;
}

/* How many GPUs the node's worker may name for lanes: those asked for, else the NVIDIA GPUs
 * on the PCI bus, no more than CUDA_VISIBLE_DEVICES lists. A guess: a spare too many is
 * stopped, one too few leaves a lane to start its worker then. */
static size_t gpus_expected(const client *c)
{
    if (c->plan->opts.gpus)
        return gv_list_count(c->plan->opts.gpus);
    size_t n = 0;
    gv_pci_function *gpus = NULL;
    gv_errbuf err;
    if (gv_pci_nvidia_gpus(c->ctx->sysroot, &gpus, &n, &err) != GV_OK)
        n = 0;
    free(gpus);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (visible && gv_list_count(visible) < n)
        n = gv_list_count(visible);
    return n;
}

void gv_spares_start(client *c)
{
    c->spares_tried = 1;
    int checks[GV_CATALOG_MAX] = {0}, any = 0;
    for (size_t i = 0; i < gv_check_count; i++)
        any |= checks[i] = c->plan->chosen[i] && gv_catalog_per_gpu(i);
    size_t want = gpus_expected(c);
    if (!any || want < 2)
        return;
    gv_run_plan plan = *c->plan;
    plan.opts.gpus = NULL; /* told on stdin */
    plan.await_cuda = 1;   /* told once the node's worker has CUDA up */
    for (size_t k = 0; k + 1 < want && k < GV_RUN_MAX_GPUS; k++) {
        gv_worker_proc p = spawn_standby(c, &plan, checks);
        if (p.pid <= 0)
            break;
        c->spares[c->spare_count++] = p;
    }
    /* The worker for the tests across GPUs too: its NVML now, its cuInit once a lane ends. */
    int across[GV_CATALOG_MAX] = {0}, any_across = 0;
    for (size_t i = 0; i < gv_check_count; i++) {
        int together = c->plan->chosen[i] && gv_catalog_across_gpus(i);
        any_across |= together;
        across[i] = together || checks[i]; /* gemm.* may come too, judged by the GPUs' peers */
    }
    if (c->spare_count && any_across)
        gv_standby_start(c, c->plan->opts.gpus, across);
}

void gv_spares_tell_cuda(client *c)
{
    if (c->spares_told_cuda)
        return;
    c->spares_told_cuda = 1;
    for (size_t k = 0; k < c->spare_count;) {
        if (gv_worker_tell(&c->spares[k], "cuda\n") == 0) {
            k++;
            continue;
        }
        gv_worker_stop(&c->spares[k], 1, 0, NULL); /* gone: a fresh worker for its lane */
        c->spares[k] = c->spares[--c->spare_count];
    }
}

int gv_spare_adopt(lane *l)
{
    client *c = l->c;
    gv_spares_tell_cuda(c);
    while (c->spare_count) {
        gv_worker_proc p = c->spares[--c->spare_count];
        if (send_go(c, &p, l->gpus, l->pending) == 0) {
            l->p = p;
            return 0;
        }
        gv_worker_stop(&p, 1, 0, NULL); /* gone: the next, or a fresh worker */
    }
    return -1;
}

void gv_spares_stop(client *c)
{
    /* Killed first, then reaped: several in cuInit cost the caller one wait, not one each. */
    for (size_t k = 0; k < c->spare_count; k++)
        kill(-c->spares[k].pid, SIGKILL);
    for (size_t k = 0; k < c->spare_count; k++)
        gv_worker_stop(&c->spares[k], 1, 0, NULL);
    c->spare_count = 0;
}

void gv_standby_start(client *c, const char *gpus, const int *checks)
{
    c->standby_tried = 1;
    gv_run_plan plan = *c->plan;
    plan.opts.gpus = gpus;
    plan.await_cuda = 1; /* told once a lane has ended */
    c->standby = spawn_standby(c, &plan, checks);
}

/* "cuda" before its first other line: its cuInit then comes while the lanes left run tests,
 * not while they make their contexts or allocate (the driver serves those one process at a
 * time). 0, or -1 when it is gone. */
static int standby_tell_cuda(client *c)
{
    if (c->standby_told_cuda)
        return 0;
    c->standby_told_cuda = 1;
    return gv_worker_tell(&c->standby, "cuda\n");
}

void gv_standby_prepare(client *c)
{
    if (c->standby.pid <= 0 || c->across_started)
        return;
    char line[sizeof c->node.gpus + 16] = "prepare ";
    size_t n = 0;
    for (size_t k = 0; k <= c->lane_count; k++) {
        lane *l = k == 0 ? &c->node : &c->lanes[k - 1];
        /* Its worker has exited; a GPU left out of the tests across GPUs is not made ready. */
        if (l->running || !l->finished || l->offered || gpu_left_out(l))
            continue;
        l->offered = 1;
        char one[16];
        snprintf(one, sizeof one, "%s%d", n++ ? "," : "", l->ordinal);
        gv_append(line, sizeof line, "", one);
    }
    gv_append(line, sizeof line, "", "\n");
    if (n && (standby_tell_cuda(c) != 0 || gv_worker_tell(&c->standby, line) != 0))
        gv_standby_stop(c);
}

void gv_standby_stop(client *c)
{
    if (c->standby.pid > 0)
        gv_worker_stop(&c->standby, 1, 0, NULL);
    c->standby = gv_no_worker;
}

int gv_standby_adopt(lane *l)
{
    client *c = l->c;
    if (c->standby.pid <= 0 || standby_tell_cuda(c) != 0 ||
        send_go(c, &c->standby, l->gpus, l->pending) != 0) {
        gv_standby_stop(c);
        return -1;
    }
    l->p = c->standby;
    c->standby = gv_no_worker;
    return 0;
}
