/* SPDX-License-Identifier: Apache-2.0 */
/* gpu.xid: the Xid events the NVIDIA driver logged for each GPU since boot, or since the oldest
 * record the kernel's log still holds, which the message then says. Xids that mean a
 * hardware or driver fault FAIL the GPU; those a program causes (13 graphics exception, 31 MMU
 * fault, 43 stopped channel, 45 preemptive cleanup...) are reported and not counted. The
 * policy's xids list replaces the fault set.
 *
 * The log is history: it keeps a fault until the next boot, after the reset that cleared it
 * too. The driver (R550 on) keeps the present: the recovery action a fault left pending
 * (NVML's GPU recovery action, logged as Xid 154), cleared by the reset or reboot it asks
 * for. Where the driver says none is pending, a logged fault is a WARN (the GPU's history,
 * not a reason to drain it); where it names one, or cannot say, a FAIL. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checks/checks.h"
#include "core/util.h"
#include "facts/health.h"
#include "gpuverify/gv_policy.h"
#include "sys/kmsg.h"

/* Hardware and driver faults (NVIDIA's Xid catalog): 48 double-bit ECC, 61/62 internal
 * micro-controller, 64 row remapping failure, 74 NVLink, 79 fell off the bus, 92 high
 * single-bit ECC rate, 94/95 contained/uncontained ECC, 119/120 GSP, 140 unrecovered ECC. Not
 * 63, a row marked for remapping: the memory's designed repair, which NVIDIA's memory error
 * guide says leaves running and new work unaffected; gpu.row_remap judges its live state
 * (pending: WARN "reset needed"; failed: FAIL), where a log line would FAIL the GPU until the
 * next boot, after the reset that applied the remap too. */
static const char default_xids[] = "48,61,62,64,74,79,92,94,95,119,120,140";

static int counts(const char *list, int xid)
{
    for (const char *p = list; *p;) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p)
            break;
        if (x == xid)
            return 1;
        p = end + strspn(end, ", ");
    }
    return 0;
}

/* The driver prints the function-less address, "0000:18:00" for GPU 0000:18:00.0. */
static int on_gpu(const gv_xid_event *e, const char *bus_id)
{
    size_t n = strlen(e->bus);
    return n && strncasecmp(e->bus, bus_id, n) == 0 && (bus_id[n] == '.' || !bus_id[n]);
}

/* One GPU's Xid events of one source (the log, or NVML's watch). */
typedef struct tally {
    size_t faults, others, remaps, bad;
    char seen[256], last[160], bad_text[160];
} tally;

static void count_events(const gv_xid_event *events, size_t count, const char *bus_id,
                         const char *list, tally *t)
{
    for (size_t k = 0; k < count; k++) {
        if (events[k].sxid || !on_gpu(&events[k], bus_id))
            continue;
        if (events[k].unreadable) {
            if (!t->bad++)
                snprintf(t->bad_text, sizeof t->bad_text, "%s", events[k].text);
            continue;
        }
        int fault = counts(list, events[k].xid);
        t->faults += fault;
        t->others += !fault;
        t->remaps += !fault && events[k].xid == 63;
        if (fault)
            snprintf(t->last, sizeof t->last, "%s", events[k].text);
        char one[16];
        snprintf(one, sizeof one, "%d", events[k].xid);
        if (!strstr(t->seen, one)) /* each code once, in the order first seen */
            snprintf(t->seen + strlen(t->seen), sizeof t->seen - strlen(t->seen), "%s%s",
                     t->seen[0] ? ", " : "", one);
    }
}

/* What the watch for NVML's Xid events (gv_run_opts.watch_s) adds to a message: "" when none
 * was asked. */
static void watch_note(const gv_xid_watch *w, size_t seen_here, char *out, size_t cap)
{
    out[0] = '\0';
    if (w->watched_s <= 0)
        return;
    char not_watched[300] = "";
    if (w->unsupported)
        snprintf(not_watched, sizeof not_watched, "; %d GPU(s) cannot report them (first: %s)",
                 w->unsupported, w->unsupported_why);
    if (w->status != GV_OK)
        snprintf(out, cap, "; NVML's Xid events not watched: %s", w->err.text);
    else
        snprintf(out, cap, "; %zu reported by NVML while it watched %d GPU(s) for %.1f s%s",
                 seen_here, w->registered, w->watched_s, not_watched);
}

void gv_check_gpu_xid(const gv_facts *f, gv_report *r)
{
    if (f->gpu_count == 0)
        return;
    const char *list = f->policy && f->policy->xids[0] ? f->policy->xids : default_xids;
    const char *source = f->policy && f->policy->xids[0] ? "policy" : "default";
    const gv_xid_event *events = f->kmsg_events;
    size_t count = f->kmsg_count;
    const gv_kmsg_span span = f->kmsg_span;
    const gv_xid_watch *w = &f->watch;
    int log_read = f->kmsg_status == GV_OK;
    if (!log_read) {
        /* Not a quiet SKIP: a container or a user that cannot read the log would otherwise
         * report a node whose GPU fell off the bus as healthy. What NVML reported while the
         * run watched is judged below, GPU by GPU. */
        char note[512];
        watch_note(w, w->count, note, sizeof note);
        gv_check_result *c =
            gv_report_add(r, gv_id_gpu_xid, "node", GV_WARN,
                          "kernel log not read, no Xid logged before this run judged: %s%s",
                          f->kmsg_err.text, note);
        if (c) {
            gv_result_remedy(c, "let gpuverify read /dev/kmsg: as root, or with CAP_SYSLOG where "
                                "kernel.dmesg_restrict is 1; a container needs the device too "
                                "(privileged, /dev/kmsg mounted, as node-problem-detector's)");
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
        }
        if (!w->count)
            return;
    }
    char scope[160];
    if (log_read)
        gv_kmsg_scope(&span, scope, sizeof scope);
    else
        snprintf(scope, sizeof scope, "while NVML was watched for %.1f s", w->watched_s);
    /* What of the log could not be read: any GPU's Xid may be in it. */
    char unread_log[448] = "";
    if (log_read && span.unreadable)
        snprintf(unread_log, sizeof unread_log, "%zu record(s) not read (first: %s)",
                 span.unreadable, span.why);
    if (log_read && span.cut_short[0])
        snprintf(unread_log + strlen(unread_log), sizeof unread_log - strlen(unread_log), "%s%s",
                 unread_log[0] ? "; " : "", span.cut_short);
    for (size_t i = 0; i < f->gpu_count; i++) {
        const gv_gpu_record *g = &f->gpus[i];
        char subject[48];
        gv_gpu_subject(g, subject, sizeof subject);
        tally t = {0}, watched = {0};
        if (log_read)
            count_events(events, count, g->gpu.pci_bus_id, list, &t);
        count_events(w->events, w->count, g->gpu.pci_bus_id, list, &watched);
        size_t by_nvml = watched.faults + watched.others + watched.bad;
        if (!log_read && !by_nvml)
            continue; /* the node's row says the log was not read */
        /* An event NVML reported is a fault as much as a logged one: one tally of both. */
        t.faults += watched.faults;
        t.others += watched.others;
        t.remaps += watched.remaps;
        if (watched.last[0])
            snprintf(t.last, sizeof t.last, "%s", watched.last);
        if (watched.bad && !t.bad++)
            snprintf(t.bad_text, sizeof t.bad_text, "%s", watched.bad_text);
        else if (watched.bad)
            t.bad += watched.bad - 1;
        for (char *p = watched.seen; *p;) {
            char one[16];
            size_t n = strcspn(p, ",");
            snprintf(one, sizeof one, "%.*s", (int)(n < 15 ? n : 15), p);
            if (!strstr(t.seen, one))
                snprintf(t.seen + strlen(t.seen), sizeof t.seen - strlen(t.seen), "%s%s",
                         t.seen[0] ? ", " : "", one);
            p += n;
            p += strspn(p, ", ");
        }
        size_t faults = t.faults, others = t.others, remaps = t.remaps, bad = t.bad;
        const char *verb = log_read ? "logged" : "reported";
        const char *where = log_read ? span.path : "NVML's events";
        size_t log_unread = log_read ? span.unreadable : 0;
        const char *seen = t.seen, *last = t.last, *bad_text = t.bad_text;
        char watch_text[384];
        watch_text[0] = '\0';
        if (log_read) /* else the scope says it */
            watch_note(w, by_nvml, watch_text, sizeof watch_text);
        /* The recovery action was read before the watch: a fault reported during it is newer
         * than what the driver said, so its action is unknown. */
        int action = watched.faults ? -1 : g->health.recovery_action;
        char buf[32], msg[512];
        enum gv_verdict verdict;
        if (faults && action == GVNV_RECOVERY_ACTION_NONE) {
            verdict = GV_WARN;
            snprintf(msg, sizeof msg,
                     "%zu Xid fault(s) %s %s (codes %s); last: %s; the driver now reports no "
                     "recovery action needed for this GPU (gpu.recovery): it was reset since, or "
                     "the fault needed none",
                     faults, verb, scope, seen, last);
        } else if (faults && action > 0) {
            verdict = GV_FAIL;
            snprintf(msg, sizeof msg,
                     "%zu Xid fault(s) %s %s (codes %s); last: %s; the driver says the GPU "
                     "needs %s (gpu.recovery)",
                     faults, verb, scope, seen, last,
                     gv_recovery_action_name(action, buf, sizeof buf));
        } else if (faults) {
            verdict = GV_FAIL;
            snprintf(msg, sizeof msg, "%zu Xid fault(s) %s %s (codes %s); last: %s", faults, verb,
                     scope, seen, last);
        } else if (others) {
            verdict = GV_PASS;
            snprintf(msg, sizeof msg, "%zu Xid event(s) %s (codes %s), none a hardware fault: %s",
                     others, scope, seen,
                     remaps ? "a row marked for remapping (63, judged by gpu.row_remap) or "
                              "programs' errors"
                            : "caused by programs");
        } else {
            verdict = GV_PASS;
            snprintf(msg, sizeof msg, "no Xid %s %s", verb, scope);
        }
        /* An Xid that could not be read may be a fault: the GPU cannot pass on the rest, and a
         * fault read beside it still FAILs. */
        char unread[512] = "";
        if (bad)
            snprintf(unread, sizeof unread, "%zu Xid line(s) of this GPU unreadable (%s)", bad,
                     bad_text);
        if (unread_log[0])
            snprintf(unread + strlen(unread), sizeof unread - strlen(unread), "%s%s",
                     unread[0] ? "; " : "", unread_log);
        gv_check_result *c;
        if (unread[0] && verdict != GV_FAIL) {
            verdict = GV_ERROR;
            c = gv_report_add(r, gv_id_gpu_xid, subject, GV_ERROR,
                              "kernel log %s not read whole: %s; of what was read: %s%s", where,
                              unread, msg, watch_text);
        } else if (unread[0]) {
            c = gv_report_add(r, gv_id_gpu_xid, subject, verdict, "%s; besides, in %s: %s%s", msg,
                              where, unread, watch_text);
        } else {
            c = gv_report_add(r, gv_id_gpu_xid, subject, verdict, "%s%s", msg, watch_text);
        }
        gv_result_measured(c, verdict == GV_ERROR ? NAN : (double)faults, "Xids",
                           "%zu fault(s), %zu other, %zu unreadable", faults, others,
                           bad + log_unread);
        gv_result_expected(c, source, "no Xid in %s", list);
        /* A log not read whole: where the log is read from. A fault the driver says needs
         * nothing now: the GPU's history, checked again by the next run (a fault that returns
         * FAILs). A fault with a recovery action pending: that action; where the driver cannot
         * say (before R550), a reboot, which clears whatever the fault left (NVIDIA's Xid
         * catalog asks a reset or a reboot of most of the fault set). */
        if (verdict == GV_ERROR) {
            gv_result_remedy(c, "read the kernel log (dmesg) for NVRM Xid lines; check that "
                                "/dev/kmsg is the kernel's log device");
            gv_result_action(c, GV_ACTION_FIX_CONFIG);
        } else if (faults && action == GVNV_RECOVERY_ACTION_NONE) {
            gv_result_remedy(c, "look the Xid codes up in NVIDIA's Xid catalog; replace the "
                                "hardware if they return");
            gv_result_action(c, GV_ACTION_RERUN);
        } else if (faults) {
            gv_result_remedy(c, "drain the node; look up the Xid codes in NVIDIA's Xid catalog, "
                                "reset the GPU (nvidia-smi -r) or reboot, and replace hardware "
                                "if they return");
            gv_result_action(c, action > 0 ? gv_action_of_recovery(action) : GV_ACTION_REBOOT_NODE);
        }
    }
}
