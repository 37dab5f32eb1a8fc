/* SPDX-License-Identifier: Apache-2.0 */
/* history.standing (docs/history.md): a check whose last judgement of a GPU or of the node was a
 * FAIL, and which this run did not judge again, still FAILs. A site that runs the passive checks
 * often and the active ones now and then (the DaemonSet's active pass, an Epilog at the standard
 * level) would otherwise publish a node healthy a minute after its GEMM gave wrong products,
 * because the next run did not look. The history keeps the checks whose last judgement of a
 * subject was a FAIL (table standing); a SKIP or an ERROR, which judged nothing (a GPU busy with
 * a job), leaves the FAIL standing. It stands until a run judges that check again, or for the
 * policy's window (history_window_days). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/history_judge.h"
#include "core/util.h"

#define MAX_STANDING 256 /* per GPU, and for the node's own subjects (every port of 32 NICs) */

/* Whether a gpu.xid FAIL that stands is this run's to leave alone: the kernel log not read
 * (gpu.xid's node row gives the boot), so that a fault from before this boot is gone with it,
 * and one NVML reported to a watch is history.xid's, which recalls it by boot and recovery
 * action (its row on the GPU says so). A fault read from the log of this boot stands. */
static int xid_left_to_recall(const gv_history_judge *j, const gv_history_standing *s,
                              const char *subject)
{
    double boot = gv_history_counter_now(j, gv_id_gpu_xid, "node", "boot_unix");
    if (strcmp(s->check, gv_id_gpu_xid) || !isfinite(boot))
        return 0;
    if ((double)s->started_unix < boot)
        return 1;
    /* history.xid's rows are this run's history rows, after the judged ones. */
    for (size_t i = 0; subject && i < j->report->count; i++) {
        const gv_check_result *c = &j->report->results[i];
        if (!strcmp(c->id, gv_id_history_xid) && !strcmp(c->subject, subject) &&
            (c->verdict == GV_FAIL || c->verdict == GV_WARN))
            return 1;
    }
    return 0;
}

/* Whether this run judged s's check again where s stands (gv_history_judged_again). */
static int judged_now(const gv_history_judge *j, const gv_history_standing *s)
{
    for (size_t i = 0; i < j->judged; i++)
        if (gv_history_judged_again(j->report, i, s))
            return 1;
    return 0;
}

/* The FAILs standing among `list` into rows on `subject` (a GPU's "gpuN" now; NULL: the row's
 * own subject, the node's or a port's); how many. */
static int stand(gv_history_judge *j, const gv_history_standing *list, long n, const char *subject)
{
    int said = 0;
    for (long k = 0; k < n; k++) {
        const gv_history_standing *s = &list[k];
        if (judged_now(j, s) || xid_left_to_recall(j, s, subject))
            continue;
        char when[32];
        gv_history_minute(s->started_unix, when, sizeof when);
        gv_check_result *c = gv_report_add(
            j->report, gv_id_history_standing, subject ? subject : s->row_subject, GV_FAIL,
            "%s FAILed when last judged here, %s (level %s), and this run did not "
            "judge it again: %s",
            s->check, when, s->level, s->message);
        gv_result_remedy(c,
                         "the last verdict stands until a run judges the check again: fix what "
                         "it found, then gv-check --checks %s with the same --state",
                         s->check);
        int32_t action = gv_action_named(s->action);
        gv_result_action(c, action >= 0 ? action : GV_ACTION_RERUN);
        gv_result_measured(c, NAN, "", "%s FAIL at %s", s->check, when);
        said++;
    }
    return said;
}

void gv_check_history_standing(gv_history_judge *j)
{
    const char *id = gv_id_history_standing;
    gv_history_policy pol;
    gv_history_policy_of(j->policy, &pol);
    long long since = j->run->started_unix - (long long)(pol.window_days * 86400);
    /* Not zeroed: 1.2 MB, and gv_history_standing_of sets all of each entry it returns. */
    gv_history_standing *list = malloc(MAX_STANDING * sizeof *list);
    char why[512], subs[GV_RUN_MAX_GPUS + 1][48];
    if (!list) {
        gv_history_query_failed(j, id, "node", "out of memory reading the last judgements");
        return;
    }
    size_t ns = gv_history_subjects(j->report, subs, sizeof subs / sizeof *subs);
    int said = 0;
    for (size_t s = 0; s < ns; s++) {
        char hs[160];
        gv_history_subject(j->report, subs[s], hs, sizeof hs);
        int node = s + 1 == ns;
        if (node) /* every subject of the host: "<host>/node", "<host>/mlx5_0/1"... */
            hs[strlen(hs) - strlen("/node")] = '\0';
        long n =
            gv_history_standing_of(j->db, hs, node, since, list, MAX_STANDING, why, sizeof why);
        if (n < 0) {
            gv_history_query_failed(j, id, subs[s], why);
            free(list);
            return;
        }
        said += stand(j, list, n, node ? NULL : subs[s]);
    }
    free(list);
    if (!said)
        gv_report_add(j->report, id, "node", GV_PASS,
                      "no check FAILed when last judged in the last %g days without this run "
                      "judging it again",
                      pol.window_days);
}
