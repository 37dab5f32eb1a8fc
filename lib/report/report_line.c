/* SPDX-License-Identifier: Apache-2.0 */
/* gv_report_line: the run's verdict in one line, for programs that read one line (gv-check
 * --quiet and --npd, the Slurm and NHC scripts' drain reasons, the Python binding). A line
 * that is not OK ends with the node's action in brackets ("[reset_gpu]"), after the counts:
 * a drain reason says what to do as well as what was found. The counts in it are of rows (a
 * check has one per subject it judged); the OK line counts the checks too. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/c_locale.h"
#include "report/report.h"

/* "<head><message><tail>" in at most GV_REPORT_LINE_MAX bytes: the message cut at the last
 * space that leaves room for "..." and the tail; control characters become spaces. */
static void fit(char *out, size_t cap, const char *head, const char *message, const char *tail)
{
    size_t max = cap - 1 < GV_REPORT_LINE_MAX ? cap - 1 : GV_REPORT_LINE_MAX;
    size_t fixed = strlen(head) + strlen(tail), room = fixed < max ? max - fixed : 0;
    char msg[sizeof((gv_check_result *)0)->message];
    snprintf(msg, sizeof msg, "%s", message);
    for (char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    if (strlen(msg) > room) {
        size_t keep = room > 3 ? room - 3 : 0;
        while (keep > 0 && ((unsigned char)msg[keep] & 0xC0) == 0x80) /* not inside a character */
            keep--;
        msg[keep] = '\0';
        char *space = strrchr(msg, ' ');
        if (space && space > msg + keep / 2) /* a word boundary not far back */
            *space = '\0';
        snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s", keep ? "..." : "");
    }
    snprintf(out, max + 1, "%s%s%s", head, msg, tail);
}

/* The smallest N above `after` of a FAIL row whose subject is "gpuN"; -1 for none. */
static long next_failed_gpu(const gv_report *r, long after)
{
    long next = -1;
    for (size_t i = 0; i < r->count; i++) {
        long n = r->results[i].verdict == GV_FAIL ? gv_subject_gpu(r->results[i].subject) : -1;
        if (n > after && (next < 0 || n < next))
            next = n;
    }
    return next;
}

/* "gpus 3,5: ", "gpus 0-3,6: " (ranges as Slurm writes GRES indices) naming the GPUs with a
 * FAIL row, "" when only the node's rows FAILed; a list longer than out holds ends after a
 * whole GPU with "...". */
static void failed_gpus(const gv_report *r, char *out, size_t cap)
{
    char list[64] = "";
    size_t len = 0, room = cap - strlen("gpus : ") - 1;
    if (room > sizeof list - 1)
        room = sizeof list - 1;
    out[0] = '\0';
    long n = next_failed_gpu(r, -1);
    if (n < 0)
        return;
    while (n >= 0) {
        long last = n, next;
        while ((next = next_failed_gpu(r, last)) == last + 1)
            last = next;
        char item[48];
        int k = snprintf(item, sizeof item, "%s%ld", len ? "," : "", n);
        if (last > n)
            snprintf(item + k, sizeof item - (size_t)k, "%c%ld", last == n + 1 ? ',' : '-', last);
        /* room for "..." after it unless it is the last */
        if (len + strlen(item) + (next >= 0 ? 3 : 0) > room) {
            memcpy(list + len, "...", 4);
            break;
        }
        memcpy(list + len, item, strlen(item) + 1);
        len += strlen(item);
        n = next;
    }
    snprintf(out, cap, "gpus %s: ", list);
}

/* How many checks made the rows: distinct IDs, wherever their rows are. */
static size_t distinct_checks(const gv_report *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->count; i++) {
        size_t k = 0;
        while (k < i && strcmp(r->results[k].id, r->results[i].id) != 0)
            k++;
        n += k == i;
    }
    return n;
}

int32_t gv_report_line(const gv_report *r, char *out, uint32_t cap)
{
    GV_IN_C_LOCALE();
    if (!r || !out || cap <= GV_REPORT_LINE_MAX)
        return GV_ERR_INVALID_ARG;
    uint32_t n = 0, count[5] = {0}, held = 0;
    const gv_check_result *first[5] = {NULL}, *first_unheld_error = NULL, *longest = NULL;
    for (size_t i = 0; i < r->count; i++) {
        const gv_check_result *c = &r->results[i];
        n++;
        if (c->verdict < GV_PASS || c->verdict > GV_ERROR)
            continue;
        if (count[c->verdict]++ == 0)
            first[c->verdict] = c;
        if (c->verdict != GV_ERROR)
            continue;
        if (c->held_by_other) {
            held++;
            if (!longest || c->held_s > longest->held_s)
                longest = c; /* the holder that has held a GPU longest: stuck, if any is */
        } else if (!first_unheld_error) {
            first_unheld_error = c;
        }
    }
    char head[160], tail[96], action[24] = "";
    int32_t a = gv_report_action(r);
    if (a != GV_ACTION_NONE)
        snprintf(action, sizeof action, " [%s]", gv_action_name(a));
    if (count[GV_FAIL]) {
        const gv_check_result *c = first[GV_FAIL];
        char gpus[48];
        failed_gpus(r, gpus, sizeof gpus);
        snprintf(head, sizeof head, "FAIL %s%s %s: ", gpus, c->id, c->subject);
        snprintf(tail, sizeof tail, " (%u FAIL, %u WARN, %u ERROR of %u)%s", count[GV_FAIL],
                 count[GV_WARN], count[GV_ERROR], n, action);
        fit(out, cap, head, c->message, tail);
        return GV_OUTCOME_FAIL;
    }
    if (count[GV_ERROR] && held == count[GV_ERROR]) {
        const gv_check_result *c = longest;
        char secs[32] = "?", pid[32] = "?";
        if (c->held_s >= 0)
            snprintf(secs, sizeof secs, "%.0f", floor(c->held_s));
        if (c->held_by_pid > 0)
            snprintf(pid, sizeof pid, "%d", (int)c->held_by_pid);
        snprintf(head, sizeof head, "HELD for %s s by PID %s: %s %s: ", secs, pid, c->id,
                 c->subject);
        fit(out, cap, head, c->message, action);
        return GV_OUTCOME_HELD;
    }
    if (count[GV_ERROR]) {
        const gv_check_result *c = first_unheld_error;
        snprintf(head, sizeof head, "ERROR %s %s: ", c->id, c->subject);
        snprintf(tail, sizeof tail, " (%u ERROR, %u WARN of %u)%s", count[GV_ERROR], count[GV_WARN],
                 n, action);
        fit(out, cap, head, c->message, tail);
        return GV_OUTCOME_UNJUDGED;
    }
    if (count[GV_WARN]) {
        const gv_check_result *c = first[GV_WARN];
        snprintf(head, sizeof head, "WARN %s %s: ", c->id, c->subject);
        snprintf(tail, sizeof tail, " (%u WARN of %u)%s", count[GV_WARN], n, action);
        fit(out, cap, head, c->message, tail);
        return GV_OUTCOME_HEALTHY;
    }
    /* A check has a row per subject it judged (each GPU, library, port): "OK 284 checks" for
     * 67 checks misled, so the checks and the rows are counted apart. */
    snprintf(out, cap, "OK %zu checks, %u rows: %u PASS, %u SKIP", distinct_checks(r), n,
             count[GV_PASS], count[GV_SKIP]);
    return GV_OUTCOME_HEALTHY;
}
