/* SPDX-License-Identifier: Apache-2.0 */
/* gv_run (the suite): facts gathered once per call, judged by the selected checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks/busy.h"
#include "checks/checks.h"
#include "checks/policy.h"
#include "core/c_locale.h"
#include "run/levels.h"
#include "run/run.h"
#include "run/run_events.h"
#include "run/run_history.h"
#include "run/run_hold.h"
#include "core/context.h"
#include "core/parse.h"
#include "core/progress.h"
#include "core/sizes.h"
#include "core/util.h"
#include "rdma/rdma.h"
#include "sys/pci.h"
#include "run/run_worker.h"
#include "worker/worker.h"

double gv_catalog_deadline(const gv_ctx *ctx, const gv_run_plan *plan, int index)
{
    if (index < 0 || (size_t)index >= gv_check_count)
        return ctx->deadline_s;
    const gv_check_def *d = &gv_checks[index];
    double own = d->deadline_factor > 0 ? ctx->deadline_s * d->deadline_factor : ctx->deadline_s;
    return own + (d->loads_for_duration && plan ? plan->stress_s : 0);
}

/* "driver" selects driver.*, "gpu.ecc" selects itself. */
static int selects(const char *token, size_t len, const char *id)
{
    return strncmp(id, token, len) == 0 && (id[len] == '\0' || id[len] == '.');
}

/* Marks the entries a comma-separated list selects; GV_ERR_INVALID_ARG names a token matching
 * nothing. "^id" excludes; a list of exclusions alone starts from `base` (the level's checks). */
static gv_status select_checks(gv_ctx *ctx, const char *list, const int *base, int *chosen)
{
    int only_exclusions = 1;
    for (const char *p = list; p && *p; p += strcspn(p, ",")) {
        p += strspn(p, ", ");
        if (*p && *p != '^')
            only_exclusions = 0;
    }
    for (size_t i = 0; i < gv_check_count; i++)
        chosen[i] = only_exclusions && (!base || base[i]);
    if (!list || !*list)
        return GV_OK;
    int named = 0;
    for (const char *p = list; *p;) {
        int exclude = *p == '^';
        p += exclude;
        size_t len = strcspn(p, ",");
        while (len && p[len - 1] == ' ')
            len--;
        if (exclude && !len)
            return gv_fail(ctx, GV_ERR_INVALID_ARG,
                           "'^' in '%s' leaves out nothing: a check ID or prefix follows it", list);
        named += len > 0;
        int any = 0;
        for (size_t i = 0; len && i < gv_check_count; i++)
            if (selects(p, len, gv_checks[i].id)) {
                chosen[i] = exclude ? 0 : 1;
                any = 1;
            }
        if (len && !any)
            return gv_fail(ctx, GV_ERR_INVALID_ARG, "no check matches '%.*s' (see docs/checks.md)",
                           (int)len, p);
        p += strcspn(p, ",");
        while (*p == ',' || *p == ' ')
            p++;
    }
    /* "," or " ": a list that names nothing is a mistake, not the whole catalog ("" is). */
    if (!named)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "the checks '%s' name no check", list);
    return GV_OK;
}

/* "0,2,5" into flags per CUDA ordinal. */
static gv_status select_gpus(gv_ctx *ctx, const char *list, int *chosen)
{
    memset(chosen, 0, GV_RUN_MAX_GPUS * sizeof *chosen);
    for (const char *p = list;;) {
        uint64_t v;
        /* A digit first: no blank, sign or empty entry ("0,", " 1", "+1"). */
        if (!(*p >= '0' && *p <= '9') ||
            gv_parse_u64_at(&p, 10, 0, GV_RUN_MAX_GPUS - 1, &v) != GV_PARSE_OK || (*p && *p != ','))
            return gv_fail(ctx, GV_ERR_INVALID_ARG,
                           "gv_run_opts.gpus '%s': CUDA ordinals 0..%d, comma-separated", list,
                           GV_RUN_MAX_GPUS - 1);
        if (chosen[v]) /* as gv_nccl_opts.gpus: a GPU twice is a typo for another */
            return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_run_opts.gpus '%s' lists GPU %d twice",
                           list, (int)v);
        chosen[v] = 1;
        if (!*p++)
            return GV_OK;
    }
}

/* How many CUDA ordinals this process could have by any account of the node's GPUs: PCI,
 * NVML, CUDA itself (MIG instances), the GPUs set apart, the policy's gpu_count, the NVSwitch
 * baseboard; no more than CUDA_VISIBLE_DEVICES lists. -1 when nothing counted them. */
static int ordinals_possible(const gv_facts *f, const gv_policy *policy)
{
    const char *switch_name = NULL;
    int counts[] = {f->pci_count,
                    f->nvml_count,
                    f->cuda_count,
                    (int)(f->gpu_count + f->other_count),
                    policy ? policy->gpu_count : -1,
                    gv_check_baseboard_gpus(f, &switch_name)};
    int most = -1;
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        most = counts[i] > most ? counts[i] : most;
    if (most >= 0 && f->cuda_visible_set) {
        int listed = (int)gv_list_count(f->cuda_visible);
        most = listed < most ? listed : most;
    }
    return most;
}

/* A GPU asked for that the node could never show this process ("--gpus 9" on a node of eight)
 * is the caller's mistake: GV_ERR_INVALID_ARG, not a FAIL row that reads as broken hardware and
 * drains a healthy node. One the node has but CUDA does not see is judge_asked_gpus's FAIL. */
static gv_status refuse_absent_gpus(gv_ctx *ctx, const gv_facts *f, const gv_run_opts *o,
                                    const int *asked)
{
    const char *list = o->gpus;
    int possible = list ? ordinals_possible(f, o->policy) : -1;
    /* None at all is driver.gpu_count's FAIL: a node whose GPUs all fell off the bus looks
     * the same. */
    if (possible <= 0)
        return GV_OK;
    for (int v = possible; v < GV_RUN_MAX_GPUS; v++) {
        if (!asked[v])
            continue;
        char ordinals[32] = "0";
        if (possible > 1)
            snprintf(ordinals, sizeof ordinals, "0-%d", possible - 1);
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_run_opts.gpus \"%s\": there is no GPU %d: this process can have %d "
                       "GPU(s) on this node (CUDA ordinals %s%s)",
                       list, v, possible, ordinals,
                       f->cuda_visible_set ? ", as CUDA_VISIBLE_DEVICES lists them" : "");
    }
    return GV_OK;
}

/* A GPU the caller asked for that the node has but CUDA does not see FAILs: the GPU tests would
 * only pass it over, and a run that tested nothing of what was asked must not pass (a GPU that
 * fell off the bus moved CUDA's ordinals). Judged when the run counted CUDA's devices (it does
 * for every GPU test). A node's row: which GPU went is driver.gpu_count's to say, and "gpuN"
 * names the inventory's GPU N, not CUDA's ordinal. */
static void judge_asked_gpus(const gv_facts *f, const char *list, const int *asked, gv_report *r)
{
    if (!list || f->cuda_count < 0)
        return;
    for (int v = f->cuda_count; v < GV_RUN_MAX_GPUS; v++) {
        if (!asked[v])
            continue;
        char seen[32] = "none";
        if (f->cuda_count == 1)
            snprintf(seen, sizeof seen, "0");
        else if (f->cuda_count > 1)
            snprintf(seen, sizeof seen, "0-%d", f->cuda_count - 1);
        gv_check_result *c =
            gv_report_add(r, gv_id_driver_gpu_count, "node", GV_FAIL,
                          "CUDA GPU %d was asked for (gpus \"%s\") but CUDA sees %d GPU(s) (%s) "
                          "of the node's %d: nothing tested it",
                          v, list, f->cuda_count, seen, ordinals_possible(f, f->policy));
        gv_result_remedy(c, "compare the GPU list with nvidia-smi -L: a GPU that fell off the "
                            "bus (Xid 79) leaves fewer and moves CUDA's ordinals");
        /* The node has the GPU but CUDA lost it: hardware, as driver.gpu_count's own row. */
        gv_result_action(c, GV_ACTION_HW_INSPECT);
    }
}

/* One unrun row of entry k on `subject` (see unrun_group). */
static void unrun_row(gv_report *r, size_t k, const char *subject, const char *why,
                      const char *remedy, const gv_run_hold *hold)
{
    gv_check_result *row = gv_report_add(r, gv_checks[k].id, subject, GV_ERROR, "%s", why);
    gv_result_remedy(row, "%s", remedy);
    gv_result_action(row, hold && hold->holder_foreign ? GV_ACTION_FIX_CONFIG
                          : hold                       ? GV_ACTION_WAIT
                                                       : GV_ACTION_RERUN);
    if (row && hold && !hold->holder_foreign) {
        row->held_by_other = 1;
        row->held_by_pid =
            hold->holder_pid > 0 && hold->holder_pid <= INT32_MAX ? (int32_t)hold->holder_pid : 0;
        row->held_s = hold->holder_held_s;
    }
}

/* An ERROR row per selected ID of catalog group i (its entries from i on) the run could not
 * run, each with this text and remedy: run again (for want of budget), or wait for the other
 * gpuverify holding the GPUs (hold). A test with a row per GPU gets one on each GPU the run
 * tests, as it would have made: on "node" it left every GPU's verdict PASS, none tested (and
 * each lane's worker made the node's row again). */
static void unrun_group(const gv_active_run *run, size_t i, const char *why, const char *remedy,
                        const gv_run_hold *hold)
{
    const gv_facts *f = run->facts;
    for (size_t k = i; k < gv_check_count; k++) {
        int same = k == i || (gv_checks[i].active && gv_checks[k].active == gv_checks[i].active);
        if (!run->chosen[k] || !same || (k != i && gv_checks[k].run))
            continue;
        int rows = 0;
        for (size_t g = 0; gv_catalog_row_per_gpu(k) && g < f->gpu_count; g++) {
            int o = f->gpus[g].gpu.cuda_index;
            if (o < 0 || !gv_active_gpu_chosen(run, o))
                continue;
            char subject[48];
            gv_gpu_subject(&f->gpus[g], subject, sizeof subject);
            unrun_row(run->report, k, subject, why, remedy, hold);
            rows++;
        }
        if (!rows)
            unrun_row(run->report, k, "node", why, remedy, hold);
    }
}

/* The budget left no time for group i. Not a SKIP: a healthy node finishes a level far inside
 * its budget (the standard level in 4-6 s of 180 on one GPU), so a node still busy when it is
 * spent is slow or hung, nobody can tell which, and the checks it never reached must not let
 * it pass. */
static void unrun_for_budget(const gv_active_run *run, size_t i, const char *level, double budget_s,
                             double spent, int in_worker)
{
    char why[160];
    /* A worker's budget is what the run had left when it started, not the level's. */
    if (in_worker)
        snprintf(why, sizeof why,
                 "not run: the run's budget was spent (%.1f s of it left to this worker, spent "
                 "after %.1f s)",
                 budget_s, spent);
    else
        snprintf(why, sizeof why, "not run: the %s level's budget of %g s was spent after %.1f s",
                 level, budget_s, spent);
    unrun_group(run, i, why,
                "find what took the time (the rows' duration_s); raise the run's budget "
                "(gv_run_opts.budget_s, --budget) or select fewer checks",
                NULL);
}

/* Another gpuverify's hold on a GPU left group i unrun. Not a SKIP: a gpuverify holds a GPU for
 * its level's active checks (seconds on one GPU at the standard level), so one holding it past
 * half this run's budget is at a long benchmark or stuck on the GPU, and a node whose GPUs
 * nobody here could test must not pass. */
static void unrun_for_hold(const gv_active_run *run, size_t i, const gv_run_hold *h)
{
    unrun_group(run, i, h->why,
                h->holder_foreign
                    ? "find the process holding the lock file (fuser, or /proc/locks) and stop "
                      "it: only gpuverify should hold a GPU's lock; for root's runs the lock "
                      "directory is /run/gpuverify, which only root enters"
                    : "run again once the other gpuverify has finished; one holding a GPU far "
                      "longer than its level takes is stuck: look at that process and at gpu.xid",
                h);
}

/* An active group runs at its first selected entry only. */
static int first_of_group(const int *chosen, size_t i)
{
    if (!gv_checks[i].active)
        return 1;
    for (size_t k = 0; k < i; k++)
        if (chosen[k] && gv_checks[k].active == gv_checks[i].active)
            return 0;
    return 1;
}

gv_status gv_run_plan_make(gv_ctx *ctx, const gv_run_opts *opts, gv_run_plan *plan)
{
    static const gv_run_opts defaults = GV_RUN_OPTS_INIT;
    memset(plan, 0, sizeof *plan);
    gv_run_opts *o = &plan->opts;
    *o = defaults;
    if (opts) {
        gv_status s = gv_copy_in(o, sizeof *o, opts, GV_RUN_OPTS_SIZE_V1, &defaults);
        if (s != GV_OK)
            return gv_fail(ctx, s, "gv_run_opts.struct_size %u is not a valid layout",
                           (unsigned)opts->struct_size);
        if (o->flags)
            return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_run_opts.flags 0x%x: none are defined",
                           o->flags);
        if (o->gemm_size > 65536 || o->copy_bytes > (1ull << 40) ||
            (o->copy_bytes && o->copy_bytes < 4096) || o->nccl_bytes > (64ull << 30) ||
            (o->nccl_bytes && o->nccl_bytes < 1024))
            return gv_fail(ctx, GV_ERR_INVALID_ARG,
                           "gv_run_opts: gemm_size %u (0..65536), copy_bytes %llu (0, 4 KiB..1 "
                           "TiB), nccl_bytes %llu (0, 1 KiB..64 GiB)",
                           o->gemm_size, (unsigned long long)o->copy_bytes,
                           (unsigned long long)o->nccl_bytes);
    }
    if (o->isolation < GV_ISOLATION_AUTO || o->isolation > GV_ISOLATION_NONE)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_run_opts.isolation %d is not a gv_isolation",
                       (int)o->isolation);
    plan->level = gv_level_def_of(o->level);
    if (!plan->level)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_run_opts.level %d is not a level",
                       (int)o->level);
    if (!(o->budget_s >= 0 && o->budget_s <= 86400))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_run_opts.budget_s %g (0..86400)", o->budget_s);
    if (!(o->watch_s >= 0 && o->watch_s <= 86400.0))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_run_opts.watch_s %g (0 .. 1 day)", o->watch_s);
    /* A file named and unreadable is the caller's mistake, whichever checks would read it. */
    if (o->topology_xml && access(o->topology_xml, R_OK) != 0)
        return gv_fail(ctx, GV_ERR_IO, "topology XML %s: %s", o->topology_xml, strerror(errno));
    if (!(o->duration_s >= 0 && o->duration_s <= 7 * 86400.0))
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_run_opts.duration_s %g (0 .. 7 days)",
                       o->duration_s);
    if (o->policy) {
        /* At our size: fields the caller's older layout lacks keep their defaults. */
        static const gv_policy policy_defaults = GV_POLICY_INIT;
        if (gv_copy_in(&plan->policy, sizeof plan->policy, o->policy, GV_POLICY_SIZE_V1,
                       &policy_defaults) != GV_OK)
            return gv_fail(ctx, GV_ERR_VERSION, "gv_policy.struct_size %u < %zu",
                           (unsigned)o->policy->struct_size, (size_t)GV_POLICY_SIZE_V1);
        if (plan->policy.busy < GV_BUSY_SKIP || plan->policy.busy > GV_BUSY_IGNORE)
            return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_policy.busy %d is not a gv_busy_rule",
                           (int)plan->policy.busy);
        gv_status checked = gv_policy_check(ctx, &plan->policy);
        if (checked != GV_OK)
            return checked;
        o->policy = &plan->policy;
    }
    int base[GV_CATALOG_MAX];
    for (size_t i = 0; i < gv_check_count; i++)
        base[i] = gv_checks[i].level <= plan->level->runs_from;
    gv_status s = select_checks(ctx, o->checks, base, plan->chosen);
    if (s == GV_OK && o->gpus)
        s = select_gpus(ctx, o->gpus, plan->gpu_chosen);
    if (s != GV_OK)
        return s;
    int any = gv_run_history_select(ctx, o->checks, plan);
    for (size_t i = 0; i < gv_check_count; i++)
        any |= plan->chosen[i];
    if (!any) /* a run that checks nothing would pass: "PASS: 0" drained no broken node */
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_run_opts.checks \"%s\" leaves none of the %s level's checks to run",
                       o->checks ? o->checks : "", plan->level->name);
    o->checks = NULL; /* chosen[] holds the selection; the caller's strings are not kept */
    plan->budget_s = o->budget_s > 0 ? o->budget_s : plan->level->budget_s;
    plan->stress_s = o->duration_s > 0 ? o->duration_s : GV_STRESS_DEFAULT_S;
    /* The stress runs as long as the caller asked (hours for a burn-in): the level's budget
     * is for the rest of the run. */
    int stressing = 0;
    for (size_t i = 0; i < gv_check_count; i++)
        stressing |= plan->chosen[i] && gv_checks[i].loads_for_duration;
    if (stressing && o->budget_s <= 0)
        plan->budget_s += plan->stress_s;
    /* The watch for Xids comes before the checks: it is the pass's pause, not its work. */
    int xid = gv_catalog_index(gv_id_gpu_xid);
    plan->watch_s = xid >= 0 && plan->chosen[xid] ? o->watch_s : 0;
    plan->budget_s += plan->watch_s;
    return GV_OK;
}

/* No GPU for this process to test: none on the node, or none it was given (facts_reach.c).
 * driver.gpu_count judges either. */
static const char *no_gpu_to_test(const gv_facts *f)
{
    if (!gv_facts_has_gpus(f))
        return "not applicable: no NVIDIA GPU on this node (driver.gpu_count judges that)";
    if (f->gpu_count == 0 && f->other_count)
        return "not applicable: none of the node's GPUs is this process's to test "
               "(driver.gpu_count judges that)";
    return NULL;
}

/* Why a check cannot apply to this node, NULL when it can (enum gv_check_needs). */
static const char *not_applicable(gv_active_run *run, int needs)
{
    const char *no_gpu = (needs & GV_NEEDS_GPU) ? no_gpu_to_test(run->facts) : NULL;
    if (no_gpu)
        return no_gpu;
    if ((needs & GV_NEEDS_RDMA_NIC) && !(run->policy && run->policy->require_rdma)) {
        const gv_rdma_report *rdma = gv_active_rdma_report(run);
        if (rdma && !gv_rdma_has_hardware(rdma))
            return "not applicable: no RDMA NIC (no RDMA device, no Mellanox/ConnectX function); "
                   "the policy's require_rdma = 1 requires one";
    }
    return NULL;
}

/* SKIPs the entries of the group starting at i that the node cannot have; 1 when some are
 * left to run. A check not applicable for want of a GPU leaves the judgment of that to
 * driver.gpu_count (run_delegated brings it in). */
static int drop_inapplicable(gv_active_run *run, int *chosen, size_t i)
{
    int left = 0;
    for (size_t k = i;
         k < gv_check_count &&
         (k == i || (gv_checks[i].active && gv_checks[k].active == gv_checks[i].active));
         k++) {
        if (!chosen[k])
            continue;
        const char *why = not_applicable(run, gv_checks[k].needs);
        if (why && (gv_checks[k].needs & GV_NEEDS_GPU) && no_gpu_to_test(run->facts))
            gv_report_delegate(run->report, gv_id_driver_gpu_count);
        if (why) {
            gv_report_add(run->report, gv_checks[k].id, "node", GV_SKIP, "%s", why);
            chosen[k] = 0;
        } else {
            left = 1;
        }
    }
    return left;
}

/* The judges that rows left their judgment to (gv_report_delegate) and the run has not run:
 * each joins the run now, so that no selection of checks makes a node pass on SKIPs whose
 * cause nobody judged ("--checks gpu.ecc_errors" with NVML broken: every row "NVML has no
 * answer" and no driver.nvml row to FAIL). Judges are passive checks; a judge may leave its
 * own judgment to another (gpu.nvml to driver.nvml), hence the loop. */
static void run_delegated(const gv_facts *f, gv_report *r, int *ran)
{
    for (int more = 1; more;) {
        more = 0;
        for (size_t d = 0; d < r->delegated_count; d++) {
            int k = gv_catalog_index(r->delegated[d]);
            if (k < 0 || ran[k] || !gv_checks[k].run)
                continue;
            ran[k] = more = 1;
            gv_report_begin_rows(r);
            gv_checks[k].run(f, r);
            gv_report_flush(r);
        }
    }
}

/* Every chosen entry of group i has a row once the group ran: a GPU test with none of the
 * chosen GPUs to run on (gpus "12" on a node of eight) says so rather than vanish from the
 * report. */
static void no_row_left(gv_report *r, const int *chosen, size_t i, const char *gpus)
{
    for (size_t k = i; k < gv_check_count; k++) {
        if (k != i && !(gv_checks[i].active && gv_checks[k].active == gv_checks[i].active))
            break;
        if (!chosen[k])
            continue;
        int has = 0;
        for (size_t n = 0; n < r->count && !has; n++)
            has = !strcmp(r->results[n].id, gv_checks[k].id);
        if (has)
            continue;
        if (gpus)
            gv_report_add(r, gv_checks[k].id, "node", GV_SKIP,
                          "not run: none of the GPUs asked for (gpus \"%s\") is one CUDA sees "
                          "(driver.gpu_count judges that)",
                          gpus);
        else
            gv_report_add(r, gv_checks[k].id, "node", GV_SKIP, "not run: nothing to test it on");
    }
}

/* The run's last word on every row as it becomes final, whichever check made it: the busy
 * rule, then the row's action (a rule that named none gets its default). */
static void finalize_row(void *user, gv_check_result *row)
{
    const gv_active_run *run = user;
    gv_busy_judge_refusal(run->ctx, run->facts, run->policy, row);
    gv_action_settle(row);
}

/* Rows are final once the next check begins: sent then, so that a hang in the next one
 * (gemm.bf16 on gpu3) cannot take the rows before it (gpu2's) with it. */
typedef struct flush_on_begin {
    gv_report *report;
    void (*progress)(void *user, int kind, const char *check, const char *text);
    void *progress_user;
} flush_on_begin;

static void flush_then_progress(void *user, int kind, const char *check, const char *text)
{
    flush_on_begin *f = user;
    if (kind == GV_PROGRESS_BEGIN || kind == GV_PROGRESS_GROUP)
        gv_report_flush(f->report);
    f->progress(f->progress_user, kind, check, text);
}

/* plan->lanes: this worker tests the first chosen GPU; the others are named to the caller,
 * which tests each in a worker of its own. 0 when there are fewer than two GPUs to test:
 * then this worker runs everything, as without lanes. */
static int open_lanes(gv_active_run *run, const gv_run_stream *stream, int *chosen, int *own_only,
                      int *together)
{
    gv_run_lane lanes[GV_RUN_MAX_GPUS];
    size_t n = 0;
    for (int o = 0; o < run->facts->cuda_count && o < GV_RUN_MAX_GPUS; o++)
        if (gv_active_gpu_chosen(run, o)) {
            lanes[n].ordinal = o;
            gv_active_subject(run->facts, o, lanes[n].subject, sizeof lanes[n].subject);
            n++;
        }
    if (n < 2 || !stream || !stream->lanes)
        return 0;
    /* GEMMs judged by the node's other GPUs run with them. Each lane measures its GPU's
     * cuda.copy with the host's links to itself (checks/cuda.c). */
    int peers = gv_gemm_needs_peers(run->facts, run->gpu_chosen);
    for (size_t i = 0; i < gv_check_count; i++) {
        together[i] = chosen[i] && peers && gv_checks[i].active == gv_active_gemm;
        if (together[i])
            chosen[i] = 0; /* not this worker's: its group runs without it */
    }
    stream->lanes(stream->user, lanes, n, together);
    memset(own_only, 0, GV_RUN_MAX_GPUS * sizeof *own_only);
    own_only[lanes[0].ordinal] = 1;
    run->gpu_chosen = own_only;
    return 1;
}

/* A worker testing one GPU (a lane) runs on that GPU's CPUs, as a job placed next to it would:
 * its host copies and launches do not cross the socket, and eight lanes of eight GPUs do not
 * crowd one socket. Never the caller's process: its affinity is its own. */
static void bind_to_the_gpu(const gv_ctx *ctx, const gv_run_plan *plan, const gv_facts *f,
                            const char *gpus, const int *gpu_chosen)
{
    if (!ctx->in_worker || plan->lanes || !gpus)
        return;
    const gv_gpu_record *only = NULL;
    for (size_t i = 0; i < f->gpu_count; i++) {
        int o = f->gpus[i].gpu.cuda_index;
        if (o < 0 || o >= GV_RUN_MAX_GPUS || !gpu_chosen[o])
            continue;
        if (only)
            return; /* several GPUs: no one place */
        only = &f->gpus[i];
    }
    if (only && only->gpu.local_cpus[0])
        gv_pci_bind_to_cpus(only->gpu.local_cpus);
}

/* Runs each chosen entry of the catalog in its order, an active group once for all its chosen
 * entries: the lanes opened before the first test on a GPU, an entry past the budget or
 * refused the GPUs' hold given rows that say so, the checks others delegated to run. */
static void run_chosen(gv_active_run *active, const gv_run_plan *plan, const gv_run_stream *stream,
                       int *chosen, const char *gpus, double t0)
{
    gv_ctx *ctx = active->ctx;
    gv_report *r = active->report;
    const gv_facts *f = active->facts;
    /* Lanes open before the first test on a GPU, so that the GPUs this worker holds are only
     * its own lane's. */
    int per_gpu = 0, lanes_open = 0, own_only[GV_RUN_MAX_GPUS], together[GV_CATALOG_MAX] = {0};
    for (size_t i = 0; plan->lanes && i < gv_check_count; i++)
        per_gpu |= chosen[i] && gv_catalog_per_gpu(i);
    int ran[GV_CATALOG_MAX] = {0};
    gv_run_hold hold = {0};
    for (size_t i = 0; i < gv_check_count; i++) {
        if (!chosen[i] || ran[i] || !first_of_group(chosen, i))
            continue;
        if (per_gpu && gv_run_hold_needed(chosen, i)) {
            lanes_open = open_lanes(active, stream, chosen, own_only, together);
            per_gpu = 0;
        }
        if (lanes_open && (gv_catalog_across_gpus(i) || together[i]))
            continue; /* the caller runs these once every lane has finished */
        if (gv_now_s() > active->budget_end) {
            unrun_for_budget(active, i, plan->level->name, plan->budget_s, gv_now_s() - t0,
                             ctx->in_worker);
            continue;
        }
        gv_progress_group(ctx, gv_checks[i].id);
        gv_progress_begin(ctx, gv_checks[i].id, "node");
        gv_report_begin_rows(r);
        ran[i] = 1;
        if (drop_inapplicable(active, chosen, i)) {
            if (gv_checks[i].run)
                gv_checks[i].run(f, r);
            else if (gv_run_hold_needed(chosen, i) &&
                     !gv_run_hold_take(active, &hold, gv_checks[i].id, t0 + plan->budget_s / 2))
                unrun_for_hold(active, i, &hold);
            else
                gv_checks[i].active(active);
            no_row_left(r, chosen, i, gpus);
        }
        gv_report_flush(r);
        run_delegated(f, r, ran);
    }
    run_delegated(f, r, ran);
    gv_report_flush(r);
    gv_run_hold_give(&hold);
}

/* What a worker on standby is told (gv_run_stream.standby). */
typedef struct standby_work {
    char gpus[GV_RUN_MAX_GPUS * 4];
    int gpu_chosen[GV_RUN_MAX_GPUS];
    int checks[GV_CATALOG_MAX];
    /* Each GPU's cuda.copy figures as its lane measured them (0: none), for cuda.copy_all. */
    double copy_h2d[GV_RUN_MAX_GPUS], copy_d2h[GV_RUN_MAX_GPUS];
} standby_work;

/* "0:54.9/55.2,2:55.0/55.1": GPU, then H2D / D2H GB/s; what does not parse is left out. */
static void take_copy_alone(char *list, standby_work *w)
{
    char *save = NULL;
    for (char *one = strtok_r(list, ",", &save); one; one = strtok_r(NULL, ",", &save)) {
        int gpu;
        double h2d, d2h;
        if (sscanf(one, "%d:%lf/%lf", &gpu, &h2d, &d2h) == 3 && gpu >= 0 && gpu < GV_RUN_MAX_GPUS &&
            h2d > 0 && d2h > 0)
            w->copy_h2d[gpu] = h2d, w->copy_d2h[gpu] = d2h;
    }
}

/* Waits for the work and reads it: "GPUS CHECKS [copy-alone=...]"; meanwhile makes the GPUs
 * of the plan's it is told are free ready. */
static gv_status told_the_work(gv_ctx *ctx, const gv_run_plan *plan, const gv_facts *f,
                               const gv_run_stream *stream, standby_work *w)
{
    char *line = malloc(GV_RUN_GO_MAX);
    if (!line)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory");
    gv_status s = GV_OK;
    int told;
    /* Tests that only load a library (nccl.version) need no GPU made ready, nor held. */
    int on_gpus = 0;
    for (size_t i = 0; i < gv_check_count; i++)
        on_gpus |= plan->chosen[i] && gv_run_hold_needed(plan->chosen, i);
    while ((told = stream && stream->standby ? stream->standby(stream->user, line, GV_RUN_GO_MAX)
                                             : -1) == 1) {
        int ready[GV_RUN_MAX_GPUS], made[GV_RUN_MAX_GPUS] = {0};
        if (!on_gpus || select_gpus(ctx, line, ready) != GV_OK)
            continue;
        for (int g = 0; plan->opts.gpus && g < GV_RUN_MAX_GPUS; g++)
            ready[g] &= plan->gpu_chosen[g];
        gv_run_hold_ahead(ctx, f, ready, made);
        gv_active_nccl_ahead(ctx, f, plan->chosen, plan->opts.gpus ? plan->gpu_chosen : NULL, made);
    }
    if (told != 0)
        s = gv_fail(ctx, GV_ERR_IO, "gpuverify-worker on standby was never told its work");
    char *save = NULL, *gpus = s == GV_OK ? strtok_r(line, " ", &save) : NULL;
    char *checks = gpus ? strtok_r(NULL, " ", &save) : NULL;
    if (s == GV_OK && (!checks || strlen(gpus) >= sizeof w->gpus))
        s = gv_fail(ctx, GV_ERR_INVALID_ARG,
                    "gpuverify-worker on standby: its work names no GPUs and checks");
    if (s == GV_OK) {
        snprintf(w->gpus, sizeof w->gpus, "%s", gpus);
        s = select_gpus(ctx, gpus, w->gpu_chosen);
    }
    if (s == GV_OK)
        s = select_checks(ctx, checks, NULL, w->checks);
    for (char *more; s == GV_OK && (more = strtok_r(NULL, " ", &save));)
        if (!strncmp(more, "copy-alone=", 11))
            take_copy_alone(more + 11, w);
    free(line);
    return s;
}

/* In the worker across GPUs, once told its work, when it began the NCCL sweep's ranks as the
 * lanes finished: the last lane's GPU made ready too and its rank begun, if this worker can take
 * it, and the communicator completed before the tests measure (checks/active.h). */
static void complete_ranks_ahead(gv_ctx *ctx, const gv_facts *f, const int *chosen,
                                 const int *gpu_chosen)
{
    if (!ctx->nccl_ahead)
        return;
    int made[GV_RUN_MAX_GPUS] = {0};
    gv_run_hold_ahead(ctx, f, gpu_chosen, made);
    gv_active_nccl_ahead(ctx, f, chosen, gpu_chosen, made);
    gv_active_nccl_settle(ctx, f, chosen, gpu_chosen);
}

gv_status gv_run_in_process(gv_ctx *ctx, const gv_run_plan *plan, const gv_run_stream *stream,
                            gv_report **out)
{
    *out = NULL;
    const gv_run_opts *o = &plan->opts;
    double t0 = gv_now_s();
    time_t wall = time(NULL);
    int chosen[GV_CATALOG_MAX];
    memcpy(chosen, plan->chosen, sizeof chosen);
    unsigned optional = 0;
    for (size_t i = 0; i < gv_check_count; i++)
        optional |= chosen[i] ? (unsigned)gv_checks[i].facts : 0;
    gv_facts *f;
    gv_status s = gv_refresh_facts(ctx, optional, &f);
    if (s == GV_OK)
        s = refuse_absent_gpus(ctx, f, o, plan->gpu_chosen);
    if (s != GV_OK)
        return s;
    /* The GPUs to test and the checks: the plan's, or those the caller names once a standby
     * may start. */
    standby_work work = {0};
    const int *gpu_chosen = plan->gpu_chosen;
    const char *gpus = o->gpus;
    if (plan->standby) {
        if ((s = told_the_work(ctx, plan, f, stream, &work)) != GV_OK)
            return s;
        gpus = work.gpus;
        gpu_chosen = work.gpu_chosen;
        for (size_t i = 0; i < gv_check_count; i++)
            chosen[i] &= work.checks[i];
        complete_ranks_ahead(ctx, f, chosen, gpu_chosen);
    }
    bind_to_the_gpu(ctx, plan, f, gpus, gpu_chosen);
    if (plan->watch_s > 0) {
        /* The worker's supervisor allows the wait and a unit after it (run_worker.c). */
        gv_progress_wait(ctx, gv_id_gpu_xid, plan->watch_s, "the GPUs' Xid events");
        gv_facts_watch_xids(ctx, f, plan->watch_s);
    }
    gv_report *r = gv_report_new(f);
    if (!r)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory creating the report");
    gv_report_stamp(r, plan->level->name, plan->budget_s, (long long)wall);
    snprintf(r->isolation, sizeof r->isolation, "none");
    if (stream) {
        r->sink = stream->row;
        r->sink_user = stream->user;
        if (stream->facts)
            stream->facts(stream->user, r);
    }
    gv_active_run active = {.ctx = ctx,
                            .facts = f,
                            .report = r,
                            .gemm_size = o->gemm_size,
                            .copy_bytes = o->copy_bytes,
                            .nccl_bytes = o->nccl_bytes,
                            .stress_s = plan->stress_s,
                            .benchmark = plan->level->benchmark,
                            .budget_end = t0 + plan->budget_s,
                            .policy = o->policy,
                            .gpu_chosen = gpus ? gpu_chosen : NULL,
                            .topology_xml = o->topology_xml,
                            .chosen = chosen};
    memcpy(active.copy_alone_h2d, work.copy_h2d, sizeof work.copy_h2d);
    memcpy(active.copy_alone_d2h, work.copy_d2h, sizeof work.copy_d2h);
    f->policy = o->policy;
    r->finalize = finalize_row;
    r->finalize_user = &active;
    judge_asked_gpus(f, gpus, gpu_chosen, r);
    /* A node with no GPU for this process is judged by driver.gpu_count whatever the
     * selection: no choice of checks (system, rdma or topo alone) makes it a report that
     * passes. A CPU node checked on purpose says gpu_count = 0 in its policy. */
    if (no_gpu_to_test(f))
        gv_report_delegate(r, gv_id_driver_gpu_count);
    flush_on_begin flushing = {r, ctx->progress, ctx->progress_user};
    if (ctx->progress) {
        ctx->progress = flush_then_progress;
        ctx->progress_user = &flushing;
    }
    run_chosen(&active, plan, stream, chosen, gpus, t0);
    ctx->progress = flushing.progress;
    ctx->progress_user = flushing.progress_user;
    gv_rdma_free(active.rdma);
    gv_topo_free(active.topo);
    f->policy = NULL;
    r->sink = NULL;
    r->finalize = NULL;
    r->duration_s = gv_now_s() - t0;
    if (r->out_of_memory) {
        gv_report_free(r);
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory adding results");
    }
    *out = r;
    return GV_OK;
}

gv_status gv_run_opts_init(gv_run_opts *opts, size_t size)
{
    static const gv_run_opts defaults = GV_RUN_OPTS_INIT;
    return gv_opts_fill(opts, size, &defaults, sizeof defaults, GV_RUN_OPTS_SIZE_V1);
}

gv_status gv_run(gv_ctx *ctx, const gv_run_opts *opts, gv_report **out)
{
    GV_IN_C_LOCALE();
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_run: out is NULL");
    *out = NULL;
    gv_run_plan *plan = malloc(sizeof *plan);
    if (!plan)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory planning the run");
    gv_status s = gv_run_plan_make(ctx, opts, plan);
    if (s != GV_OK) {
        free(plan);
        return s;
    }
    gv_worker_place where;
    int found = plan->opts.isolation != GV_ISOLATION_NONE && gv_worker_find(ctx, &where);
    if (found) {
        s = gv_worker_run(ctx, plan, where.path, out);
        if (s == GV_OK && (*out)->facts_known) /* for gv_gpu_info, gathered in the worker too */
            gv_ctx_keep_inventory(ctx, *out);
    } else if (plan->opts.isolation == GV_ISOLATION_PROCESS) {
        s = gv_fail(ctx, GV_ERR_LIBRARY,
                    "gv_run_opts.isolation is GV_ISOLATION_PROCESS but no gpuverify-worker was "
                    "found (tried: %s)",
                    where.tried);
    } else if (plan->opts.isolation == GV_ISOLATION_AUTO && ctx->worker_path[0]) {
        /* A worker named on purpose that cannot run is a broken installation: running the
         * checks here instead would drop every deadline without a word. */
        s = gv_fail(ctx, GV_ERR_LIBRARY,
                    "the gpuverify-worker named by gv_ctx_opts.worker_path or $GPUVERIFY_WORKER "
                    "cannot run (%s); unset it to use the one beside the library, or ask for "
                    "GV_ISOLATION_NONE to run in this process without deadlines",
                    where.tried);
    } else {
        /* The caller's callback sees this process's progress hooks and final rows. */
        gv_run_observer observer;
        gv_run_observer_init(&observer, plan, gv_now_s());
        gv_run_stream stream = {.row = gv_run_observer_row, .user = &observer};
        void (*hook)(void *, int, const char *, const char *) = ctx->progress;
        void *hook_user = ctx->progress_user;
        if (observer.fn) {
            ctx->progress = gv_run_observer_progress;
            ctx->progress_user = &observer;
        }
        /* The run is in this process by choice or for want of a worker: so are its calls. */
        int calls_here = ctx->calls_here;
        ctx->calls_here = 1;
        s = gv_run_in_process(ctx, plan, observer.fn ? &stream : NULL, out);
        ctx->calls_here = calls_here;
        ctx->progress = hook;
        ctx->progress_user = hook_user;
        if (s == GV_OK)
            snprintf((*out)->isolation_detail, sizeof(*out)->isolation_detail, "%s",
                     plan->opts.isolation == GV_ISOLATION_NONE
                         ? "GV_ISOLATION_NONE: in the caller's process, no hard deadlines"
                     : where.tried[0] ? where.tried
                                      : "no gpuverify-worker");
    }
    if (s == GV_OK)
        gv_run_history(ctx, plan, *out);
    free(plan);
    return s;
}
