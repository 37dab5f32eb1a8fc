/* SPDX-License-Identifier: Apache-2.0 */
/* history.xid (docs/history.md): the Xid faults NVML reported to earlier runs since the node
 * booted, for a run that cannot read the kernel log. Where the log is read, gpu.xid finds every
 * Xid since boot in it; where it is not (a pod without /dev/kmsg), gpu.xid sees only what NVML
 * reports while its own run watches (gv-check --watch), so a GPU that fell off the bus during
 * one pass would pass the next. The history keeps each pass's watched faults (gpu.xid's
 * watched_faults counter) and the node's boot time (boot_unix, on its "kernel log not read"
 * row): their sum since this boot is judged as gpu.xid judges the log. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/history_judge.h"
#include "core/util.h"

/* Why this run has nothing to recall; NULL when it has: the node's boot time into *boot. */
static const char *nothing_to_recall(const gv_history_judge *j, long long *boot)
{
    const gv_check_result *node = gv_history_row_now(j, gv_id_gpu_xid, "node", NULL);
    double b = gv_history_counter_now(j, gv_id_gpu_xid, "node", "boot_unix");
    for (size_t i = 0; !node && i < j->judged; i++)
        if (!strcmp(j->report->results[i].id, gv_id_gpu_xid))
            return "the kernel log was read (gpu.xid): it holds every Xid since boot";
    if (!node)
        return "gpu.xid did not run: no Xid was judged";
    if (!isfinite(b))
        return "the kernel log was not read and the node's boot time is unknown (/proc/uptime), "
               "or gpu.xid did not finish: earlier runs' Xids cannot be told from an earlier "
               "boot's";
    *boot = (long long)b;
    return NULL;
}

/* One GPU: the faults NVML reported to the runs since boot (`watched`: the node's runs that
 * watched without the log). 0 when it has nothing to say (no fault, no run that watched). */
static int recall(gv_history_judge *j, const char *subject, long long boot,
                  const gv_history_sum *watched)
{
    const char *id = gv_id_history_xid;
    char hs[160], why[512], booted[32], last[32];
    gv_history_subject(j->report, subject, hs, sizeof hs);
    gv_history_minute(boot, booted, sizeof booted);
    gv_history_sum faults;
    if (gv_history_counter_sum(j->db, hs, gv_id_gpu_xid, "watched_faults", boot,
                               j->run->started_unix, &faults, why, sizeof why)) {
        gv_history_query_failed(j, id, subject, why);
        return 1;
    }
    gv_check_result *c;
    if (!faults.runs) {
        if (!watched->runs)
            return 0;
        c = gv_report_add(j->report, id, subject, GV_PASS,
                          "no Xid fault reported by NVML to the %ld earlier run(s) that watched "
                          "since the node booted (%s; %.1f s watched); the kernel log, which "
                          "would hold every one, cannot be read",
                          watched->runs, booted, watched->total);
        gv_result_measured(c, 0, "Xids", "0 fault(s)");
        gv_result_expected(c, "default", "no Xid fault since boot");
        return 1;
    }
    gv_history_minute(faults.last_unix, last, sizeof last);
    const gv_check_result *now = gv_history_row_now(j, gv_id_gpu_recovery, subject, NULL);
    /* As gpu.xid judges a logged fault: the driver's recovery action says whether it is the
     * GPU's history (none pending: reset since) or its present. */
    int history = now && now->verdict == GV_PASS;
    int pending = now && now->verdict == GV_FAIL;
    int32_t action = pending ? now->action : GV_ACTION_REBOOT_NODE;
    c = gv_report_add(j->report, id, subject, history ? GV_WARN : GV_FAIL,
                      "%.0f Xid fault(s) reported by NVML to %ld earlier run(s) since the node "
                      "booted (%s), the kernel log not readable; the last at %s: %s; %s",
                      faults.total, faults.runs, booted, last, faults.last_message,
                      history   ? "the driver now reports no recovery action needed for this GPU "
                                  "(gpu.recovery): it was reset since, or the fault needed none"
                      : pending ? "the driver says the GPU still needs its recovery action "
                                  "(gpu.recovery)"
                      : now     ? "the driver cannot say what it needs (gpu.recovery)"
                                : "gpu.recovery, which reads whether the driver still needs a "
                                  "recovery action, did not run");
    gv_result_measured(c, faults.total, "Xids", "%.0f fault(s) in %ld run(s)", faults.total,
                       faults.runs);
    gv_result_expected(c, "default", "no Xid fault since boot");
    if (history) {
        gv_result_remedy(c, "look the Xid codes up in NVIDIA's Xid catalog; replace the hardware "
                            "if they return");
        gv_result_action(c, GV_ACTION_RERUN);
    } else {
        gv_result_remedy(c, "drain the node; look up the Xid codes in NVIDIA's Xid catalog, reset "
                            "the GPU (nvidia-smi -r) or reboot, and replace hardware if they "
                            "return");
        gv_result_action(c, action);
    }
    return 1;
}

void gv_check_history_xid(gv_history_judge *j)
{
    const char *id = gv_id_history_xid;
    long long boot = 0;
    const char *none = nothing_to_recall(j, &boot);
    if (none) {
        gv_report_add(j->report, id, "node", GV_SKIP, "%s", none);
        return;
    }
    char hs[160], why[512], booted[32];
    gv_history_subject(j->report, "node", hs, sizeof hs);
    gv_history_sum watched;
    if (gv_history_counter_sum(j->db, hs, gv_id_gpu_xid, "watched_s", boot, j->run->started_unix,
                               &watched, why, sizeof why)) {
        gv_history_query_failed(j, id, "node", why);
        return;
    }
    char subs[GV_RUN_MAX_GPUS + 1][48];
    size_t ns = gv_history_subjects(j->report, subs, sizeof subs / sizeof *subs);
    int said = 0;
    for (size_t s = 0; s + 1 < ns; s++) /* GPUs only */
        said |= recall(j, subs[s], boot, &watched);
    if (said)
        return;
    gv_history_minute(boot, booted, sizeof booted);
    gv_report_add(j->report, id, "node", GV_SKIP,
                  "no earlier run since the node booted (%s) watched NVML's Xid events "
                  "(gv-check --watch) while the kernel log could not be read: none to recall",
                  booted);
}
