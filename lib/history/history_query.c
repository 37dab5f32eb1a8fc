/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the history back: a figure's earlier values, a counter's, a subject's record of bad
 * runs, and the whole filtered as JSON for gv_history_json. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "history/history_db.h"

long gv_history_figures(gv_history *h, const char *subject, const char *check, const char *unit,
                        const char *comparable, gv_history_point *out, size_t max, char *why,
                        size_t cap)
{
    sqlite3_stmt *st = gv_history_statement(
        h, "SELECT runs.started_unix, results.value FROM results"
           " JOIN runs ON runs.id = results.run_id"
           " WHERE results.subject = ? AND results.check_id = ?"
           " AND results.unit = ? AND runs.comparable = ?"
           " AND results.unit IN ('TFLOPS', 'GB/s')" /* the figures index */
           " AND results.verdict IN ('PASS', 'WARN') AND results.value IS NOT NULL"
           " ORDER BY results.run_id DESC LIMIT ?");
    if (!st)
        return gv_history_fail(h, why, cap, "reading a figure's history");
    sqlite3_bind_text(st, 1, subject, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, check, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, unit, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, comparable, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, (long long)max);
    long n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && (size_t)n < max)
        out[n++] = (gv_history_point){sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1)};
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW
               ? n
               : gv_history_fail(h, why, cap, "reading a figure's history");
}

int gv_history_counter_end(gv_history *h, const char *subject, const char *check, const char *name,
                           long long since_unix, long long until_unix, int oldest,
                           gv_history_point *out, char *why, size_t cap)
{
    static const char *const oldest_sql =
        "SELECT started_unix, value FROM counters WHERE subject = ? AND check_id = ?"
        " AND name = ? AND started_unix BETWEEN ? AND ? ORDER BY started_unix LIMIT 1";
    static const char *const newest_sql =
        "SELECT started_unix, value FROM counters WHERE subject = ? AND check_id = ?"
        " AND name = ? AND started_unix BETWEEN ? AND ? ORDER BY started_unix DESC LIMIT 1";
    sqlite3_stmt *st = gv_history_statement(h, oldest ? oldest_sql : newest_sql);
    if (!st)
        return gv_history_fail(h, why, cap, "reading a counter's history");
    sqlite3_bind_text(st, 1, subject, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, check, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, since_unix);
    sqlite3_bind_int64(st, 5, until_unix);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = (gv_history_point){sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1)};
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gv_history_fail(h, why, cap, "reading a counter's history");
    return rc == SQLITE_ROW;
}

int gv_history_counter_sum(gv_history *h, const char *subject, const char *check, const char *name,
                           long long since_unix, long long until_unix, gv_history_sum *out,
                           char *why, size_t cap)
{
    sqlite3_stmt *st = gv_history_statement(
        h, "SELECT counters.started_unix, counters.value, results.message FROM counters"
           " JOIN results ON results.run_id = counters.run_id AND results.seq = counters.seq"
           " WHERE counters.subject = ? AND counters.check_id = ? AND counters.name = ?"
           " AND counters.started_unix BETWEEN ? AND ? AND counters.value > 0"
           " ORDER BY counters.started_unix DESC, counters.run_id DESC");
    if (!st)
        return gv_history_fail(h, why, cap, "reading a counter's history");
    sqlite3_bind_text(st, 1, subject, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, check, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, since_unix);
    sqlite3_bind_int64(st, 5, until_unix);
    memset(out, 0, sizeof *out);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!out->runs++) {
            const unsigned char *m = sqlite3_column_text(st, 2);
            out->last_unix = sqlite3_column_int64(st, 0);
            gv_copy_text(out->last_message, sizeof out->last_message, m ? (const char *)m : "");
        }
        out->total += sqlite3_column_double(st, 1);
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : gv_history_fail(h, why, cap, "reading a counter's history");
}

long gv_history_standing_of(gv_history *h, const char *subject, int hosts_of, long long since_unix,
                            gv_history_standing *out, size_t max, char *why, size_t cap)
{
    sqlite3_stmt *st = gv_history_statement(
        h, hosts_of
               ? "SELECT check_id, row_subject, action, level, message, subject, gpus,"
                 " started_unix FROM standing WHERE hostname = ?1 AND subject = hostname || '/' ||"
                 " row_subject AND started_unix >= ?2 ORDER BY started_unix DESC LIMIT ?3"
               : "SELECT check_id, row_subject, action, level, message, subject, gpus,"
                 " started_unix FROM standing WHERE subject = ?1 AND started_unix >= ?2"
                 " ORDER BY started_unix DESC LIMIT ?3");
    if (!st)
        return gv_history_fail(h, why, cap, "reading the FAILs that stand");
    sqlite3_bind_text(st, 1, subject, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, since_unix);
    sqlite3_bind_int64(st, 3, (long long)max);
    long n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && (size_t)n < max) {
        gv_history_standing *s = &out[n++];
        const char *text[7];
        for (int c = 0; c < 7; c++) {
            text[c] = (const char *)sqlite3_column_text(st, c);
            text[c] = text[c] ? text[c] : "";
        }
        snprintf(s->check, sizeof s->check, "%s", text[0]);
        snprintf(s->row_subject, sizeof s->row_subject, "%s", text[1]);
        snprintf(s->action, sizeof s->action, "%s", text[2]);
        snprintf(s->level, sizeof s->level, "%s", text[3]);
        gv_copy_text(s->message, sizeof s->message, text[4]);
        snprintf(s->subject, sizeof s->subject, "%s", text[5]);
        snprintf(s->gpus, sizeof s->gpus, "%s", text[6]);
        s->started_unix = sqlite3_column_int64(st, 7);
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW
               ? n
               : gv_history_fail(h, why, cap, "reading the FAILs that stand");
}

long gv_history_runs_of(gv_history *h, const char *uuid, long long since_unix, long at_most,
                        char *why, size_t cap)
{
    /* Stops at at_most: the caller asks whether there are enough, not how many. */
    sqlite3_stmt *st = gv_history_statement(h, "SELECT count(*) FROM (SELECT 1 FROM gpus"
                                               " WHERE uuid = ? AND started_unix >= ? LIMIT ?)");
    if (!st)
        return gv_history_fail(h, why, cap, "reading the record");
    sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, since_unix);
    sqlite3_bind_int64(st, 3, at_most);
    long n = -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        n = (long)sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return n >= 0 ? n : gv_history_fail(h, why, cap, "reading the record");
}

int gv_history_last_run(gv_history *h, const char *hostname, long long *started_unix, char *why,
                        size_t cap)
{
    sqlite3_stmt *st = gv_history_statement(
        h, "SELECT started_unix FROM runs WHERE hostname = ? ORDER BY id DESC LIMIT 1");
    if (!st)
        return gv_history_fail(h, why, cap, "reading the last run");
    sqlite3_bind_text(st, 1, hostname, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *started_unix = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gv_history_fail(h, why, cap, "reading the last run");
    return rc == SQLITE_ROW;
}

int gv_history_record_of(gv_history *h, const char *subject, long long since_unix,
                         gv_history_record *out, char *why, size_t cap)
{
    /* A node's subject ("host/node") counts its runs' verdicts, a GPU's (its UUID) its rows'.
     * The window's counts are the subject's tally now less the tally at the window's first run
     * (history_store.c, the schema): two seeks, and a third for the first bad run, however
     * long the window. SQLite's planner would take the covering index over the few bad runs'
     * partial one and scan the window: INDEXED BY names it. */
    const char *slash = strrchr(subject, '/');
    int node = slash && !strcmp(slash, "/node");
    static const char *const gpu_sql =
        "SELECT t.runs - f.n + 1, t.bad - f.bad_n + f.bad,"
        " (SELECT min(started_unix) FROM gpus INDEXED BY gpus_bad"
        "  WHERE uuid = ?1 AND started_unix >= ?3 AND bad)"
        " FROM tallies t, (SELECT n, bad_n, bad FROM gpus"
        "  WHERE uuid = ?1 AND started_unix >= ?3 ORDER BY started_unix, n LIMIT 1) f"
        " WHERE t.subject = ?2";
    static const char *const node_sql =
        "SELECT t.runs - f.n + 1, t.bad - f.bad_n + f.bad,"
        " (SELECT min(started_unix) FROM runs INDEXED BY runs_bad"
        "  WHERE hostname = ?1 AND started_unix >= ?3 AND bad)"
        " FROM tallies t, (SELECT n, bad_n, bad FROM runs"
        "  WHERE hostname = ?1 AND started_unix >= ?3 ORDER BY started_unix, n LIMIT 1) f"
        " WHERE t.subject = ?2";
    sqlite3_stmt *st = gv_history_statement(h, node ? node_sql : gpu_sql);
    if (!st)
        return gv_history_fail(h, why, cap, "reading the record");
    sqlite3_bind_text(st, 1, subject, node ? (int)(slash - subject) : -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, subject, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, since_unix);
    *out = (gv_history_record){0, 0, 0};
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) { /* no row: no run in the window */
        out->runs = (long)sqlite3_column_int64(st, 0);
        out->bad = (long)sqlite3_column_int64(st, 1);
        out->first_unix =
            sqlite3_column_type(st, 2) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 2);
        rc = SQLITE_DONE;
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : gv_history_fail(h, why, cap, "reading the record");
}

/* A column as a JSON value: text, number or null. */
static json_t *column(sqlite3_stmt *st, int col)
{
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_INTEGER:
        return json_integer(sqlite3_column_int64(st, col));
    case SQLITE_FLOAT:
        return json_real(sqlite3_column_double(st, col));
    case SQLITE_TEXT:
        return json_string((const char *)sqlite3_column_text(st, col));
    default:
        return json_null();
    }
}

/* Each result row of the statement as an object keyed by its column names. */
static json_t *objects(sqlite3_stmt *st, int *rc)
{
    json_t *a = json_array();
    while ((*rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_object();
        for (int c = 0; c < sqlite3_column_count(st); c++)
            json_object_set_new(o, sqlite3_column_name(st, c), column(st, c));
        json_array_append_new(a, o);
    }
    return a;
}

static void iso_time(long long unix_s, char *out, size_t cap)
{
    time_t t = (time_t)unix_s;
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        snprintf(out, cap, "%lld", unix_s);
}

/* Whether `list` selects check `id`, by gv-check's --checks rules: comma-separated IDs or
 * prefixes ending at a dot ("gemm" is gemm.*), ^ID leaving one out, a list of exclusions alone
 * starting from every check; NULL selects all. IDs are matched as recorded, so that a release's
 * checks read back whatever the catalog now holds. */
static int check_selected(const char *list, const char *id)
{
    if (!list)
        return 1;
    int any_positive = 0, in = 0;
    for (const char *p = list; *p;) {
        p += strspn(p, ", ");
        int out = *p == '^';
        const char *t = p + out;
        size_t len = strcspn(t, ",");
        p = t + len;
        while (len && t[len - 1] == ' ')
            len--;
        if (!len)
            continue;
        int match = strncmp(id, t, len) == 0 && (id[len] == '\0' || id[len] == '.');
        if (out && match)
            return 0;
        any_positive |= !out;
        in |= !out && match;
    }
    return in || !any_positive;
}

/* A run's GPUs and its rows (with their counters) matching the filter. */
static int run_details(gv_history *h, json_t *run, long long id, const char *subject,
                       const char *checks)
{
    int rc = SQLITE_ERROR;
    sqlite3_stmt *st =
        gv_history_statement(h, "SELECT subject, uuid, name, pci_bus_id, serial, verdict FROM gpus"
                                " WHERE run_id = ? AND (?2 IS NULL OR uuid = ?2) ORDER BY subject");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, subject, -1, SQLITE_STATIC);
    json_object_set_new(run, "gpus", objects(st, &rc));
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return -1;
    st = gv_history_statement(
        h, "SELECT seq, check_id AS id, row_subject AS subject, subject AS history_subject,"
           " verdict, action, value, unit, measured, message, held, fingerprint FROM results"
           " WHERE run_id = ?1 AND (?2 IS NULL OR subject = ?2"
           "  OR substr(subject, 1, length(?2) + 1) = ?2 || '/')"
           " ORDER BY seq");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, subject, -1, SQLITE_STATIC);
    json_t *rows = objects(st, &rc);
    sqlite3_reset(st);
    for (size_t i = 0; i < json_array_size(rows);) {
        const char *check = json_string_value(json_object_get(json_array_get(rows, i), "id"));
        if (check_selected(checks, check ? check : ""))
            i++;
        else
            json_array_remove(rows, i);
    }
    json_object_set_new(run, "checks", rows);
    if (rc != SQLITE_DONE || !(st = gv_history_statement(h, "SELECT name, value FROM counters"
                                                            " WHERE run_id = ? AND seq = ?")))
        return -1;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i), *counters = json_object();
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, json_integer_value(json_object_get(row, "seq")));
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            json_object_set_new(counters, (const char *)sqlite3_column_text(st, 0),
                                json_real(sqlite3_column_double(st, 1)));
        json_object_del(row, "seq");
        json_object_set_new(row, "held",
                            json_boolean(json_integer_value(json_object_get(row, "held"))));
        if (json_object_size(counters))
            json_object_set_new(row, "counters", counters);
        else
            json_decref(counters);
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int gv_history_export(gv_history *h, const char *subject, const char *checks, long long since_unix,
                      long max_runs, json_t **out, char *why, size_t cap)
{
    *out = NULL;
    sqlite3_stmt *st;
    /* A subject filter matches a GPU's UUID, a node's host name or "host/subject". */
    if (sqlite3_prepare_v2(
            h->db,
            "SELECT id, started_unix, hostname, level, gpuverify_version, driver_version,"
            " nvml_version, cuda_driver_version, verdict, action, duration_s FROM runs"
            " WHERE started_unix >= ?1 AND (?2 IS NULL OR hostname = ?2 OR EXISTS"
            " (SELECT 1 FROM results WHERE results.run_id = runs.id AND"
            "  (results.subject = ?2 OR substr(results.subject, 1, length(?2) + 1) = ?2 || '/')))"
            " ORDER BY id DESC LIMIT ?3",
            -1, &st, NULL) != SQLITE_OK)
        return gv_history_fail(h, why, cap, "reading its runs");
    sqlite3_bind_int64(st, 1, since_unix);
    sqlite3_bind_text(st, 2, subject, -1, SQLITE_STATIC);
    /* With a list of checks, a run counts toward max_runs only when one of its rows is left. */
    sqlite3_bind_int64(st, 3, max_runs > 0 && !checks ? max_runs : -1);
    int rc;
    json_t *runs = objects(st, &rc);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        json_decref(runs);
        return gv_history_fail(h, why, cap, "reading its runs");
    }
    json_t *kept = json_array();
    for (size_t i = 0; i < json_array_size(runs); i++) {
        if (max_runs > 0 && json_array_size(kept) == (size_t)max_runs)
            break;
        json_t *run = json_array_get(runs, i);
        long long id = json_integer_value(json_object_get(run, "id"));
        char when[32];
        iso_time(json_integer_value(json_object_get(run, "started_unix")), when, sizeof when);
        json_object_set_new(run, "started_at", json_string(when));
        /* A host name as the filter is the node: all its rows. */
        const char *host = json_string_value(json_object_get(run, "hostname"));
        const char *rows_of = subject && host && !strcmp(subject, host) ? NULL : subject;
        if (run_details(h, run, id, rows_of, checks)) {
            json_decref(runs);
            json_decref(kept);
            return gv_history_fail(h, why, cap, "reading a run's rows");
        }
        if (!checks || json_array_size(json_object_get(run, "checks")))
            json_array_append(kept, run);
    }
    json_decref(runs);
    runs = kept;
    json_t *root = json_object();
    json_object_set_new(root, "database", json_string(h->path));
    json_object_set_new(root, "runs", runs);
    *out = root;
    return 0;
}
