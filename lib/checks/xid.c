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
#include <time.h>

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

/* How the node's log was read: the same for every GPU's row. */
typedef struct xid_log {
    const char *list, *source; /* the fault set, and "policy" or "default" */
    int read;                  /* the kernel log was read; else only NVML's watch speaks */
    char scope[160];           /* "since boot", "while NVML was watched for 3.0 s" */
    char unread[448];          /* what of the log could not be read (any GPU's Xid may be in it) */
    const char *verb, *where;  /* "logged" in the log's path, or "reported" in NVML's events */
    size_t unreadable;         /* records of the log not read */
} xid_log;

static void how_read(const gv_facts *f, xid_log *log)
{
    memset(log, 0, sizeof *log);
    int by_policy = f->policy && f->policy->xids[0];
    log->list = by_policy ? f->policy->xids : default_xids;
    log->source = by_policy ? "policy" : "default";
    log->read = f->kmsg_status == GV_OK;
    log->verb = log->read ? "logged" : "reported";
    log->where = log->read ? f->kmsg_span.path : "NVML's events";
    if (!log->read) {
        snprintf(log->scope, sizeof log->scope, "while NVML was watched for %.1f s",
                 f->watch.watched_s);
        return;
    }
    const gv_kmsg_span *span = &f->kmsg_span;
    gv_kmsg_scope(span, log->scope, sizeof log->scope);
    log->unreadable = span->unreadable;
    if (span->unreadable)
        snprintf(log->unread, sizeof log->unread, "%zu record(s) not read (first: %s)",
                 span->unreadable, span->why);
    if (span->cut_short[0])
        gv_append(log->unread, sizeof log->unread, "; ", span->cut_short);
}

/* The node's row when the log could not be read. Not a quiet SKIP: a container or a user that
 * cannot read the log would otherwise report a node whose GPU fell off the bus as healthy.
 * What NVML reported while the run watched is judged GPU by GPU. */
static void log_not_read(const gv_facts *f, gv_report *r)
{
    char note[512];
    watch_note(&f->watch, f->watch.count, note, sizeof note);
    gv_check_result *c = gv_report_add(
        r, gv_id_gpu_xid, "node", GV_WARN,
        "kernel log not read, no Xid logged before this run judged: %s%s", f->kmsg_err.text, note);
    gv_result_remedy(c, "let gpuverify read /dev/kmsg: as root, or with CAP_SYSLOG where "
                        "kernel.dmesg_restrict is 1; a container needs the device too "
                        "(privileged, /dev/kmsg mounted, as node-problem-detector's)");
    gv_result_action(c, GV_ACTION_FIX_CONFIG);
    /* When the node booted, and how long this run watched: history.xid recalls the faults the
     * watches of the runs since then saw. */
    gv_counter k[2];
    uint32_t n = 0;
    if (f->uptime_s >= 0)
        gv_counter_set(k, &n, 2, "boot_unix", floor((double)time(NULL) - f->uptime_s));
    if (f->watch.watched_s > 0)
        gv_counter_set(k, &n, 2, "watched_s", f->watch.watched_s);
    gv_report_attach_counters(r, c, k, n);
}

/* An event NVML reported is a fault as much as a logged one: one tally of both. */
static void add_watched(tally *t, const tally *watched)
{
    t->faults += watched->faults;
    t->others += watched->others;
    t->remaps += watched->remaps;
    if (watched->last[0])
        snprintf(t->last, sizeof t->last, "%s", watched->last);
    if (watched->bad && !t->bad++)
        snprintf(t->bad_text, sizeof t->bad_text, "%s", watched->bad_text);
    else if (watched->bad)
        t->bad += watched->bad - 1;
    for (const char *p = watched->seen; *p;) {
        char one[16];
        size_t n = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(n < 15 ? n : 15), p);
        if (!strstr(t->seen, one))
            gv_append(t->seen, sizeof t->seen, ", ", one);
        p += n;
        p += strspn(p, ", ");
    }
}

/* What a GPU's Xids come to, decided once: xid_outcomes says the rest. */
enum xid_outcome {
    XID_NONE,     /* no Xid */
    XID_PROGRAMS, /* Xids, none of the fault set */
    XID_HISTORY,  /* faults the driver says need nothing now */
    XID_PENDING,  /* faults with the driver's recovery action pending */
    XID_FAULT,    /* faults, the driver unable to say what they need */
    XID_UNREAD,   /* nothing that FAILs, but Xids or log records that could not be read */
};

/* A log not read whole: where the log is read from. A fault the driver says needs nothing now:
 * the GPU's history, checked again by the next run (a fault that returns FAILs). A fault with
 * a recovery action pending: that action; where the driver cannot say (before R550), a reboot,
 * which clears whatever the fault left (NVIDIA's Xid catalog asks a reset or a reboot of most
 * of the fault set). */
#define XID_DRAIN                                                                                  \
    "drain the node; look up the Xid codes in NVIDIA's Xid catalog, reset the GPU (nvidia-smi "    \
    "-r) or reboot, and replace hardware if they return"
static const struct {
    int verdict;
    const char *remedy; /* NULL: none */
    int32_t action;     /* XID_PENDING: the recovery action's (gv_action_of_recovery) */
} xid_outcomes[] = {
    [XID_NONE] = {GV_PASS, NULL, GV_ACTION_NONE},
    [XID_PROGRAMS] = {GV_PASS, NULL, GV_ACTION_NONE},
    [XID_HISTORY] = {GV_WARN,
                     "look the Xid codes up in NVIDIA's Xid catalog; replace the hardware if they "
                     "return",
                     GV_ACTION_RERUN},
    [XID_PENDING] = {GV_FAIL, XID_DRAIN, GV_ACTION_NONE},
    [XID_FAULT] = {GV_FAIL, XID_DRAIN, GV_ACTION_REBOOT_NODE},
    [XID_UNREAD] = {GV_ERROR,
                    "read the kernel log (dmesg) for NVRM Xid lines; check that /dev/kmsg is the "
                    "kernel's log device",
                    GV_ACTION_FIX_CONFIG},
};

/* What was found, before what could not be read is weighed. */
static enum xid_outcome found(const tally *t, int recovery)
{
    if (!t->faults)
        return t->others ? XID_PROGRAMS : XID_NONE;
    if (recovery == GVNV_RECOVERY_ACTION_NONE)
        return XID_HISTORY;
    return recovery > 0 ? XID_PENDING : XID_FAULT;
}

/* The message of what was found (not XID_UNREAD). */
static void describe(enum xid_outcome o, const tally *t, const xid_log *log, int recovery,
                     char *msg, size_t cap)
{
    char buf[32];
    if (o == XID_NONE) {
        snprintf(msg, cap, "no Xid %s %s", log->verb, log->scope);
        return;
    }
    if (o == XID_PROGRAMS) {
        snprintf(msg, cap, "%zu Xid event(s) %s (codes %s), none a hardware fault: %s", t->others,
                 log->scope, t->seen,
                 t->remaps ? "a row marked for remapping (63, judged by gpu.row_remap) or "
                             "programs' errors"
                           : "caused by programs");
        return;
    }
    snprintf(msg, cap, "%zu Xid fault(s) %s %s (codes %s); last: %s", t->faults, log->verb,
             log->scope, t->seen, t->last);
    if (o == XID_HISTORY)
        gv_append(msg, cap, "; ",
                  "the driver now reports no recovery action needed for this GPU "
                  "(gpu.recovery): it was reset since, or the fault needed none");
    else if (o == XID_PENDING)
        snprintf(msg + strlen(msg), cap - strlen(msg),
                 "; the driver says the GPU needs %s (gpu.recovery)",
                 gv_recovery_action_name(recovery, buf, sizeof buf));
}

static void judge_gpu(const gv_facts *f, const xid_log *log, const gv_gpu_record *g, gv_report *r)
{
    const gv_xid_watch *w = &f->watch;
    tally t = {0}, watched = {0};
    if (log->read)
        count_events(f->kmsg_events, f->kmsg_count, g->gpu.pci_bus_id, log->list, &t);
    count_events(w->events, w->count, g->gpu.pci_bus_id, log->list, &watched);
    size_t by_nvml = watched.faults + watched.others + watched.bad;
    if (!log->read && !by_nvml)
        return; /* the node's row says the log was not read */
    add_watched(&t, &watched);
    char watch_text[384] = "";
    if (log->read) /* else the scope says it */
        watch_note(w, by_nvml, watch_text, sizeof watch_text);
    /* The recovery action was read before the watch: a fault reported during it is newer
     * than what the driver said, so its action is unknown. */
    int recovery = watched.faults ? -1 : g->health.recovery_action;
    /* An Xid that could not be read may be a fault: the GPU cannot pass on the rest, and a
     * fault read beside it still FAILs. */
    char unread[512] = "";
    if (t.bad)
        snprintf(unread, sizeof unread, "%zu Xid line(s) of this GPU unreadable (%s)", t.bad,
                 t.bad_text);
    if (log->unread[0])
        gv_append(unread, sizeof unread, "; ", log->unread);
    enum xid_outcome o = found(&t, recovery);
    char msg[512], subject[48];
    describe(o, &t, log, recovery, msg, sizeof msg);
    if (unread[0] && xid_outcomes[o].verdict != GV_FAIL)
        o = XID_UNREAD;
    gv_gpu_subject(g, subject, sizeof subject);
    gv_check_result *c;
    if (o == XID_UNREAD)
        c = gv_report_add(r, gv_id_gpu_xid, subject, GV_ERROR,
                          "kernel log %s not read whole: %s; of what was read: %s%s", log->where,
                          unread, msg, watch_text);
    else if (unread[0])
        c = gv_report_add(r, gv_id_gpu_xid, subject, xid_outcomes[o].verdict,
                          "%s; besides, in %s: %s%s", msg, log->where, unread, watch_text);
    else
        c = gv_report_add(r, gv_id_gpu_xid, subject, xid_outcomes[o].verdict, "%s%s", msg,
                          watch_text);
    gv_result_measured(c, o == XID_UNREAD ? NAN : (double)t.faults, "Xids",
                       "%zu fault(s), %zu other, %zu unreadable", t.faults, t.others,
                       t.bad + log->unreadable);
    gv_result_expected(c, log->source, "no Xid in %s", log->list);
    if (w->watched_s > 0) { /* kept by the history: history.xid recalls them */
        gv_counter faults;
        uint32_t n = 0;
        gv_counter_set(&faults, &n, 1, "watched_faults", (double)watched.faults);
        gv_report_attach_counters(r, c, &faults, n);
    }
    if (xid_outcomes[o].remedy)
        gv_result_remedy(c, "%s", xid_outcomes[o].remedy);
    if (o == XID_PENDING)
        gv_result_action(c, gv_action_of_recovery(recovery));
    else if (xid_outcomes[o].action != GV_ACTION_NONE)
        gv_result_action(c, xid_outcomes[o].action);
}

void gv_check_gpu_xid(const gv_facts *f, gv_report *r)
{
    if (f->gpu_count == 0)
        return;
    xid_log log;
    how_read(f, &log);
    if (!log.read) {
        log_not_read(f, r);
        if (!f->watch.count)
            return;
    }
    for (size_t i = 0; i < f->gpu_count; i++)
        judge_gpu(f, &log, &f->gpus[i], r);
}
