/* SPDX-License-Identifier: Apache-2.0 */
/* The history database's file: opened with a bounded wait for other writers, its schema
 * created and migrated, runs appended in one transaction each and pruned to the policy's
 * limits. SQLite (WAL journal) makes two runs writing at once safe; nothing here can block
 * longer than the wait the policy gives. */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "history/history_db.h"

#define GV_HISTORY_WAL_PAGES 256 /* 1 MB of 4 KiB pages */
/* 'GPUV': a SQLite file of another program is refused rather than written into. */
#define GV_HISTORY_APPLICATION_ID 0x47505556

/* Schema versions, one statement list each: migration N takes a database of version N to N+1.
 * A released step is never edited; a change of schema is a step added at the end. */
static const char *const migrations[] = {
    /* 0 -> 1. The indexes are what the history checks ask for, so that a run's judgement costs
     * index seeks, not scans, however long the record: a subject's last figures, its counters
     * at the start or end of a window, a GPU's or node's runs in one. Each is keyed by subject
     * and time only, so that a run's new entries land together on one page per subject: a
     * run writes a few pages, not one per counter.
     * A GPU's or node's record over a window (history.record) is two seeks however many runs
     * it spans: `tallies` counts each subject's runs and bad runs since the file began, and
     * each runs/gpus row keeps the tally its run brought it to (n, bad_n), so that a window's
     * counts are the tally now less the tally at its first run. */
    "CREATE TABLE runs("
    " id INTEGER PRIMARY KEY, started_unix INTEGER NOT NULL, hostname TEXT NOT NULL,"
    " level TEXT NOT NULL, gpuverify_version TEXT NOT NULL, driver_version TEXT NOT NULL,"
    " nvml_version TEXT NOT NULL, cuda_driver_version INTEGER, comparable TEXT NOT NULL,"
    " verdict TEXT NOT NULL, action TEXT NOT NULL, bad INTEGER NOT NULL, n INTEGER NOT NULL,"
    " bad_n INTEGER NOT NULL, duration_s REAL);"
    "CREATE INDEX runs_by_time ON runs(started_unix);"
    "CREATE INDEX runs_by_host ON runs(hostname, started_unix, n, bad_n, bad);"
    "CREATE INDEX runs_bad ON runs(hostname, started_unix) WHERE bad;"
    "CREATE TABLE gpus("
    " run_id INTEGER NOT NULL, subject TEXT NOT NULL, uuid TEXT NOT NULL, name TEXT NOT NULL,"
    " pci_bus_id TEXT NOT NULL, serial TEXT NOT NULL,"
    " verdict TEXT NOT NULL, bad INTEGER NOT NULL, n INTEGER NOT NULL, bad_n INTEGER NOT NULL,"
    " started_unix INTEGER NOT NULL, PRIMARY KEY(run_id, subject));"
    "CREATE INDEX gpus_by_uuid ON gpus(uuid, started_unix, n, bad_n, bad);"
    "CREATE INDEX gpus_bad ON gpus(uuid, started_unix) WHERE bad;"
    "CREATE TABLE tallies("
    " subject TEXT PRIMARY KEY, runs INTEGER NOT NULL, bad INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE results("
    " run_id INTEGER NOT NULL, seq INTEGER NOT NULL, check_id TEXT NOT NULL,"
    " subject TEXT NOT NULL, row_subject TEXT NOT NULL,"
    " verdict TEXT NOT NULL, action TEXT NOT NULL, held INTEGER NOT NULL, value REAL,"
    " unit TEXT NOT NULL, measured TEXT NOT NULL, message TEXT NOT NULL,"
    " fingerprint TEXT NOT NULL, PRIMARY KEY(run_id, seq));"
    "CREATE INDEX figures ON results(subject, run_id) WHERE unit IN ('TFLOPS', 'GB/s');"
    "CREATE TABLE counters("
    " run_id INTEGER NOT NULL, seq INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL,"
    " subject TEXT NOT NULL, check_id TEXT NOT NULL, started_unix INTEGER NOT NULL,"
    " PRIMARY KEY(run_id, seq, name));"
    "CREATE INDEX counters_by_subject ON counters(subject, started_unix);",
    /* 1 -> 2. When the file's upkeep last ran: its integrity check, once a day (check_file). */
    "CREATE TABLE upkeep(task TEXT PRIMARY KEY, done_unix INTEGER NOT NULL) WITHOUT ROWID;",
    /* 2 -> 3. The checks whose last judgement of a subject (PASS, WARN or FAIL; a SKIP or an
     * ERROR judged nothing) was a FAIL, with what the row said, kept as each run is recorded:
     * history.standing finds them in a seek or two however long the record, a run that PASSes
     * a check costs a seek that finds nothing, and pruning runs (keep_runs, keep_mb) does not
     * take a FAIL that stands with them; age does (keep_days). Not filled from the runs a
     * version-2 file holds: no release wrote one, and a scan of millions of rows under the
     * write lock would make every run beside it wait past its bound. */
    "CREATE TABLE standing("
    " subject TEXT NOT NULL, check_id TEXT NOT NULL, hostname TEXT NOT NULL,"
    " row_subject TEXT NOT NULL, action TEXT NOT NULL, level TEXT NOT NULL,"
    " message TEXT NOT NULL, started_unix INTEGER NOT NULL,"
    " PRIMARY KEY(subject, check_id)) WITHOUT ROWID;"
    "CREATE INDEX standing_by_host ON standing(hostname, check_id);",
    /* 3 -> 4. The GPUs a FAIL of the node's was judged over (the tests across GPUs name them):
     * a run over fewer GPUs (--gpus 0,1) does not end it. A FAIL of version 3 names none. */
    "ALTER TABLE standing ADD COLUMN gpus TEXT NOT NULL DEFAULT '';",
};
#define GV_HISTORY_SCHEMA (int)(sizeof migrations / sizeof *migrations)

int gv_history_fail(gv_history *h, char *why, size_t cap, const char *doing)
{
    /* SQLite says "unable to open database file" for a file or directory it may not write (a
     * WAL database needs its -wal and -shm files beside it): say which. */
    const char *read_only = "";
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", h->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    if (access(h->path, F_OK) == 0 &&
        (access(h->path, W_OK) != 0 || access(slash ? dir : ".", W_OK) != 0))
        read_only = " (the file or its directory is read-only)";
    snprintf(why, cap, "history database %s: %s: %s%s", h->path, doing,
             h->db ? sqlite3_errmsg(h->db) : "out of memory", read_only);
    return -1;
}

static int exec(gv_history *h, const char *sql, char *why, size_t cap, const char *doing)
{
    return sqlite3_exec(h->db, sql, NULL, NULL, NULL) == SQLITE_OK
               ? 0
               : gv_history_fail(h, why, cap, doing);
}

/* A PRAGMA's integer answer; -1 when it gives none. */
static long long pragma(gv_history *h, const char *sql)
{
    sqlite3_stmt *st;
    long long v = -1;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Why this file is not one to write into (another program's, or a newer schema), or NULL; a
 * failure to read its schema sets *unreadable. */
static const char *refusal(gv_history *h, char *text, size_t cap, int *unreadable)
{
    /* One statement, one snapshot: read one after another, the three could straddle another
     * run's creation of the file (its tables seen, its application_id not yet), and a new
     * database was taken for another program's (4 writers at once, under load). */
    sqlite3_stmt *st;
    long long version = -1, app = -1, tables = -1;
    if (sqlite3_prepare_v2(h->db,
                           "SELECT (SELECT user_version FROM pragma_user_version),"
                           " (SELECT application_id FROM pragma_application_id),"
                           " (SELECT count(*) FROM sqlite_master)",
                           -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            version = sqlite3_column_int64(st, 0);
            app = sqlite3_column_int64(st, 1);
            tables = sqlite3_column_int64(st, 2);
        }
        sqlite3_finalize(st);
    }
    *unreadable = version < 0 || app < 0 || tables < 0;
    if (*unreadable)
        return "reading its schema";
    if (tables > 0 && app != GV_HISTORY_APPLICATION_ID)
        return "not a gpuverify history database (another program's SQLite file)";
    if (version > GV_HISTORY_SCHEMA) {
        snprintf(text, cap,
                 "schema version %lld is newer than this gpuverify's (%d): written by a newer "
                 "release",
                 version, GV_HISTORY_SCHEMA);
        return text;
    }
    return NULL;
}

static int refuse(gv_history *h, const char *problem, int unreadable, char *why, size_t cap)
{
    if (unreadable)
        return gv_history_fail(h, why, cap, problem);
    snprintf(why, cap, "history database %s: %s", h->path, problem);
    return -1;
}

/* Creates the tables of a new file or brings an older one up to date, under the write lock so
 * that two runs opening a new file at once do it once. */
static int migrate(gv_history *h, char *why, size_t cap)
{
    /* The usual case, a database of this schema: read without taking the write lock. */
    if (pragma(h, "PRAGMA user_version") == GV_HISTORY_SCHEMA &&
        pragma(h, "PRAGMA application_id") == GV_HISTORY_APPLICATION_ID)
        return 0;
    /* Another program's file, or a newer release's, is refused before anything below could
     * change it (the journal mode is written into the file). */
    char text[160];
    int unreadable;
    const char *problem = refusal(h, text, sizeof text, &unreadable);
    if (problem)
        return refuse(h, problem, unreadable, why, cap);
    /* A new file: auto_vacuum takes effect only before its tables are made (so that pruning
     * can give space back, keep_mb); WAL, kept in the file, lets readers never wait for a
     * writer. Neither changes a file that has them. */
    sqlite3_stmt *st;
    const char *mode = NULL;
    int wal = 0;
    if (exec(h, "PRAGMA auto_vacuum = INCREMENTAL", why, cap, "reading it"))
        return -1;
    /* The switch needs the file to itself, and SQLite does not call the busy handler for it
     * while other runs read the new file: tried again within the run's wait, so that runs
     * opening a new file at once do not give up on each other. */
    double until = gv_now_s() + h->wait_s;
    if (sqlite3_prepare_v2(h->db, "PRAGMA journal_mode = WAL", -1, &st, NULL) == SQLITE_OK) {
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_BUSY || rc == SQLITE_LOCKED) {
            if (gv_now_s() >= until)
                break;
            sqlite3_reset(st);
            sqlite3_sleep(10 + (int)(gv_now_s() * 1e6) % 20); /* apart, not in step */
        }
        if (rc == SQLITE_ROW)
            mode = (const char *)sqlite3_column_text(st, 0);
        wal = mode && !strcmp(mode, "wal");
        sqlite3_finalize(st);
    }
    if (!wal)
        return gv_history_fail(h, why, cap, "switching to its WAL journal");
    if (exec(h, "BEGIN IMMEDIATE", why, cap, "waiting for another run's write"))
        return -1;
    /* Again under the lock: another process may have made the file meanwhile. */
    long long version = pragma(h, "PRAGMA user_version");
    if ((problem = refusal(h, text, sizeof text, &unreadable))) {
        refuse(h, problem, unreadable, why, cap);
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    for (long long v = version; v < GV_HISTORY_SCHEMA; v++)
        if (exec(h, migrations[v], why, cap, "creating its tables")) {
            sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
    char set[96];
    snprintf(set, sizeof set, "PRAGMA user_version = %d; PRAGMA application_id = %d",
             GV_HISTORY_SCHEMA, GV_HISTORY_APPLICATION_ID);
    if (version < GV_HISTORY_SCHEMA && exec(h, set, why, cap, "recording its schema version")) {
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return exec(h, "COMMIT", why, cap, "creating its tables");
}

/* The WAL's size after each commit (sqlite3_wal_hook). */
static int wal_pages(void *user, sqlite3 *db, const char *name, int pages)
{
    (void)db;
    (void)name;
    ((gv_history *)user)->wal_pages = pages;
    return SQLITE_OK;
}

/* One file of the database (the file, its -wal or -shm) as it is, links not followed: refused
 * when it is a link (one planted by another user would point a root run at any file), not a
 * regular file (a FIFO would block open() for ever), or, for the writer, another user's or
 * writable by everyone. 0 when absent or fine. */
static int refused_file(const char *path, int writing, char *why, size_t cap)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (S_ISLNK(st.st_mode))
        return snprintf(why, cap,
                        "history database %s: is a symbolic link: refused, name the file "
                        "itself",
                        path),
               -1;
    if (!S_ISREG(st.st_mode))
        return snprintf(why, cap, "history database %s: is %s, not a regular file", path,
                        S_ISDIR(st.st_mode)    ? "a directory"
                        : S_ISFIFO(st.st_mode) ? "a FIFO"
                        : S_ISSOCK(st.st_mode) ? "a socket"
                                               : "a device"),
               -1;
    if (writing && st.st_uid != geteuid())
        return snprintf(why, cap,
                        "history database %s: belongs to uid %u, not to this user "
                        "(uid %u): refused",
                        path, (unsigned)st.st_uid, (unsigned)geteuid()),
               -1;
    if (writing && (st.st_mode & S_IWOTH))
        return snprintf(why, cap,
                        "history database %s: anyone may write it (mode %03o): "
                        "refused",
                        path, (unsigned)(st.st_mode & 0777)),
               -1;
    return 0;
}

/* What SQLite would only call "unable to open database file", or open when it should not: a
 * directory that is not there, and refused_file() for the file, its -wal and its -shm. 0 when
 * none. */
static int unusable_path(const char *path, int writing, char *why, size_t cap)
{
    struct stat st;
    char dir[PATH_MAX], side[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    if (slash && stat(dir, &st) != 0)
        return snprintf(why, cap, "history database %s: its directory %s: %s", path, dir,
                        strerror(errno)),
               -1;
    if (refused_file(path, writing, why, cap))
        return -1;
    for (const char *const *end = (const char *const[]){"-wal", "-shm", NULL}; *end; end++) {
        snprintf(side, sizeof side, "%s%s", path, *end);
        if (refused_file(side, writing, why, cap))
            return -1;
    }
    return 0;
}

/* How long a statement waits for another's lock: at most a day, so that a policy's wait of
 * millions of seconds does not wrap into none. */
static void set_wait(gv_history *h, double wait_s)
{
    h->wait_s = wait_s > 86400 ? 86400 : wait_s < 0 ? 0 : wait_s;
    sqlite3_busy_timeout(h->db, (int)(h->wait_s * 1000));
}

/* The file opened with these SQLite flags and a wait of wait_s for another's lock, after the
 * checks SQLite words poorly; NULL with why. */
static gv_history *connect(const char *path, int flags, double wait_s, char *why, size_t cap)
{
    if (unusable_path(path, (flags & SQLITE_OPEN_READWRITE) != 0, why, cap))
        return NULL;
    gv_history *h = calloc(1, sizeof *h);
    if (!h)
        return snprintf(why, cap, "history database %s: out of memory", path), NULL;
    snprintf(h->path, sizeof h->path, "%s", path);
    /* NOFOLLOW as well: a link planted between the check above and the open is refused too. */
    if (sqlite3_open_v2(path, &h->db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, NULL) !=
        SQLITE_OK) {
        gv_history_fail(h, why, cap, "cannot open it");
        gv_history_close(h);
        return NULL;
    }
    set_wait(h, wait_s);
    return h;
}

/* SQLite's quick_check over the whole file (each page's structure, its records, NOT NULL; not
 * the indexes against their tables): its first complaint in `text`, 1 when it has one. A file
 * with flipped bytes would otherwise be read as far as SQLite can and judged on what it
 * reads ("4 earlier runs" of 9). A lock another process holds is no complaint. */
static int damaged(gv_history *h, char *text, size_t cap)
{
    sqlite3_stmt *st;
    text[0] = '\0';
    if (sqlite3_prepare_v2(h->db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK) {
        snprintf(text, cap, "%s", sqlite3_errmsg(h->db));
        return 1;
    }
    int rc = sqlite3_step(st);
    const char *answer = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (rc == SQLITE_ROW && (!answer || strcmp(answer, "ok"))) {
        /* One line: the database's name SQLite puts first is always ours. */
        static const char prefix[] = "*** in database main ***\n";
        if (answer && !strncmp(answer, prefix, sizeof prefix - 1))
            answer += sizeof prefix - 1;
        snprintf(text, cap, "%s", answer ? answer : "no answer");
        for (char *p = text; (p = strchr(p, '\n'));)
            *p = ';';
    } else if (rc != SQLITE_ROW && rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
        snprintf(text, cap, "%s", sqlite3_errmsg(h->db));
    sqlite3_finalize(st);
    return text[0] != '\0';
}

static int refuse_damaged(gv_history *h, const char *complaint, char *why, size_t cap)
{
    snprintf(why, cap,
             "history database %s: damaged (SQLite's quick_check: %s): move it aside (the next "
             "run starts a new one) or put back a copy",
             h->path, complaint);
    return -1;
}

/* The writer's integrity check: a quick_check reads the whole file (tens of ms for a year of
 * an 8-GPU node), too much for every run of a prolog, so once a day, and again whenever the
 * clock went back past the last one. -1 with why when the file is damaged. */
#define GV_HISTORY_CHECK_EVERY_S 86400
static int check_file(gv_history *h, char *why, size_t cap)
{
    long long now = (long long)time(NULL), done = -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, "SELECT done_unix FROM upkeep WHERE task = 'quick_check'", -1,
                           &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            done = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    if (done >= 0 && done <= now && now - done < GV_HISTORY_CHECK_EVERY_S)
        return 0;
    char complaint[512];
    if (damaged(h, complaint, sizeof complaint))
        return refuse_damaged(h, complaint, why, cap);
    /* Recorded when the lock is free; a busy file is checked again by the next run. */
    char sql[128];
    snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO upkeep VALUES ('quick_check', %lld)", now);
    sqlite3_exec(h->db, sql, NULL, NULL, NULL);
    return 0;
}

int gv_history_open(const char *path, const gv_history_limits *limits, gv_history **out, char *why,
                    size_t cap)
{
    *out = NULL;
    gv_history *h =
        connect(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, limits->wait_s, why, cap);
    if (!h)
        return -1;
    h->limits = *limits;
    /* The WAL is folded into the file by the append that takes it past GV_HISTORY_WAL_PAGES
     * (gv_history_append), not by each run's close: no run but that one waits for the disk,
     * and an open reads at most that much back. */
    sqlite3_db_config(h->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    sqlite3_wal_hook(h->db, wal_pages, h);
    if (migrate(h, why, cap) || check_file(h, why, cap)) {
        gv_history_close(h);
        return -1;
    }
    /* Synchronous NORMAL in WAL mode: no fsync per run (a crash loses at most the last runs,
     * never the file). */
    if (exec(h, "PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 1048576", why, cap,
             "reading it")) {
        gv_history_close(h);
        return -1;
    }
    *out = h;
    return 0;
}

int gv_history_open_read(const char *path, gv_history **out, char *why, size_t cap)
{
    *out = NULL;
    gv_history *h = connect(path, SQLITE_OPEN_READONLY, 10, why, cap);
    if (!h)
        return -1;
    char text[160];
    int unreadable;
    const char *problem = refusal(h, text, sizeof text, &unreadable);
    long long version = pragma(h, "PRAGMA user_version");
    if (!problem && pragma(h, "PRAGMA application_id") != GV_HISTORY_APPLICATION_ID)
        problem = "not a gpuverify history database (it has no tables)";
    else if (!problem && version != GV_HISTORY_SCHEMA) {
        snprintf(text, sizeof text,
                 "schema version %lld is older than this gpuverify's (%d): the next gv-check "
                 "--state run brings it up to date",
                 version, GV_HISTORY_SCHEMA);
        problem = text;
    }
    char complaint[512];
    if (!problem && damaged(h, complaint, sizeof complaint)) {
        refuse_damaged(h, complaint, why, cap);
        gv_history_close(h);
        return -1;
    }
    if (!problem) {
        *out = h;
        return 0;
    }
    refuse(h, problem, unreadable, why, cap);
    gv_history_close(h);
    return -1;
}

sqlite3_stmt *gv_history_statement(gv_history *h, const char *sql)
{
    size_t n = sizeof h->statements / sizeof *h->statements, i = 0;
    for (; i < n && h->statements[i].sql; i++)
        if (h->statements[i].sql == sql) {
            sqlite3_reset(h->statements[i].st);
            sqlite3_clear_bindings(h->statements[i].st);
            return h->statements[i].st;
        }
    /* Every slot taken: more distinct statements than this layer has (a slot a statement). */
    sqlite3_stmt *st;
    if (i == n ||
        sqlite3_prepare_v3(h->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
        return NULL;
    h->statements[i].sql = sql;
    h->statements[i].st = st;
    return st;
}

void gv_history_close(gv_history *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < sizeof h->statements / sizeof *h->statements; i++)
        sqlite3_finalize(h->statements[i].st);
    sqlite3_close(h->db);
    free(h);
}

void gv_history_subject(const gv_report *r, const char *subject, char *out, size_t cap)
{
    long gpu = gv_subject_gpu(subject);
    for (size_t i = 0; gpu >= 0 && i < r->gpu_count; i++)
        if ((long)r->gpus[i].index == gpu && r->gpus[i].uuid[0]) {
            snprintf(out, cap, "%s", r->gpus[i].uuid);
            return;
        }
    snprintf(out, cap, "%s/%s", r->hostname[0] ? r->hostname : "unknown", subject);
}

int gv_history_bad_row(const gv_check_result *c)
{
    return c->verdict == GV_FAIL ||
           (c->verdict == GV_ERROR && !c->held_by_other && c->action != GV_ACTION_NONE &&
            c->action != GV_ACTION_RERUN && c->action != GV_ACTION_WAIT);
}

static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
    sqlite3_bind_text(st, col, s ? s : "", -1, SQLITE_TRANSIENT);
}

/* Counts one more run of the subject (gv_history_subject), bad or not, into its tally; the
 * tally after it into tally[0] (runs) and tally[1] (bad runs). */
static int count_run(gv_history *h, const char *subject, int bad, long long tally[2])
{
    sqlite3_stmt *st = gv_history_statement(
        h, "INSERT INTO tallies(subject, runs, bad) VALUES(?1, 1, ?2)"
           " ON CONFLICT(subject) DO UPDATE SET runs = runs + 1, bad = bad + excluded.bad"
           " RETURNING runs, bad");
    if (!st)
        return -1;
    bind_text(st, 1, subject);
    sqlite3_bind_int(st, 2, bad);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        tally[0] = sqlite3_column_int64(st, 0);
        tally[1] = sqlite3_column_int64(st, 1);
        rc = sqlite3_step(st);
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int insert_run(gv_history *h, const gv_report *r, const gv_history_run *run)
{
    /* The run's own rows: the history checks' (the last history_rows) judge the record, and
     * one that recalls a FAIL on every pass must not make each pass a bad run. */
    int bad = 0;
    size_t rows = run->history_rows < r->count ? r->count - run->history_rows : 0;
    for (size_t i = 0; i < rows; i++)
        bad |= gv_history_bad_row(&r->results[i]);
    char node[160];
    long long tally[2];
    gv_history_subject(r, "node", node, sizeof node);
    if (count_run(h, node, bad, tally))
        return -1;
    sqlite3_stmt *st = gv_history_statement(
        h, "INSERT INTO runs(started_unix, hostname, level, gpuverify_version, driver_version,"
           " nvml_version, cuda_driver_version, comparable, verdict, action, bad, n, bad_n,"
           " duration_s) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run->started_unix);
    bind_text(st, 2, r->hostname[0] ? r->hostname : "unknown");
    bind_text(st, 3, r->level);
    bind_text(st, 4, gv_version_string());
    bind_text(st, 5, r->driver.driver_version);
    bind_text(st, 6, r->driver.nvml_version);
    if (r->driver.cuda_driver_version >= 0)
        sqlite3_bind_int(st, 7, r->driver.cuda_driver_version);
    bind_text(st, 8, run->comparable);
    bind_text(st, 9, gv_verdict_name(gv_report_verdict(r)));
    bind_text(st, 10, gv_action_name(gv_report_action(r)));
    sqlite3_bind_int(st, 11, bad);
    sqlite3_bind_int64(st, 12, tally[0]);
    sqlite3_bind_int64(st, 13, tally[1]);
    sqlite3_bind_double(st, 14, r->duration_s);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* A FAIL, or an ERROR not another gpuverify's hold, among the subject's rows of the run (the
 * history checks' left out: they judge the record, they are not part of it). */
static int subject_bad(const gv_report *r, size_t history_rows, const char *subject)
{
    size_t rows = history_rows < r->count ? r->count - history_rows : 0;
    for (size_t i = 0; i < rows; i++)
        if (!strcmp(r->results[i].subject, subject) && gv_history_bad_row(&r->results[i]))
            return 1;
    return 0;
}

static int insert_gpus(gv_history *h, const gv_report *r, long long run_id,
                       const gv_history_run *run)
{
    const char *sql = "INSERT INTO gpus(run_id, subject, uuid, name, pci_bus_id, serial, verdict,"
                      " bad, n, bad_n, started_unix) VALUES(?,?,?,?,?,?,?,?,?,?,?)";
    int rc = SQLITE_DONE;
    for (size_t i = 0; i < r->gpu_count && rc == SQLITE_DONE; i++) {
        const gv_gpu *g = &r->gpus[i];
        char subject[32], counted[160];
        snprintf(subject, sizeof subject, "gpu%u", (unsigned)g->index);
        int bad = subject_bad(r, run->history_rows, subject);
        long long tally[2];
        gv_history_subject(r, subject, counted, sizeof counted);
        sqlite3_stmt *st;
        if (count_run(h, counted, bad, tally) || !(st = gv_history_statement(h, sql)))
            return -1;
        sqlite3_bind_int64(st, 1, run_id);
        bind_text(st, 2, subject);
        bind_text(st, 3, g->uuid);
        bind_text(st, 4, g->name);
        bind_text(st, 5, g->pci_bus_id);
        bind_text(st, 6, g->serial);
        bind_text(st, 7, gv_verdict_name(gv_gpu_verdict_of(r, g->index)));
        sqlite3_bind_int(st, 8, bad);
        sqlite3_bind_int64(st, 9, tally[0]);
        sqlite3_bind_int64(st, 10, tally[1]);
        sqlite3_bind_int64(st, 11, run->started_unix);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Whether the report's row c, a PASS on the node, judged its check as a whole: none of the
 * check's rows FAILed (cuda.copy_all and nccl.* FAIL a GPU that hung or broke the test and
 * PASS the node over the others; nvswitch.sxid FAILs an NVSwitch and PASSes the node). */
static int passed_whole(const gv_report *r, const gv_check_result *c)
{
    if (c->verdict != GV_PASS || strcmp(c->subject, "node"))
        return 0;
    for (size_t i = 0; i < r->count; i++)
        if (r->results[i].verdict == GV_FAIL && !strcmp(r->results[i].id, c->id))
            return 0;
    return 1;
}

/* Whether the key of `len` bytes at `key` is one of the list's (gv_history_row_gpus's form). */
static int key_listed(const char *key, size_t len, const char *list)
{
    for (const char *p = list; *p; p += strcspn(p, " ") + 1)
        if (strcspn(p, " ") == len && !strncmp(p, key, len))
            return 1;
    return 0;
}

/* Whether every key of the list `need` is in `have`. */
static int keys_within(const char *need, const char *have)
{
    for (const char *p = need; *p; p += strcspn(p, " ") + 1)
        if (!key_listed(p, strcspn(p, " "), have))
            return 0;
    return 1;
}

/* Adds the key of `len` bytes at `key` to the list out unless listed; one past cap is left
 * out. */
static void key_add(char *out, size_t cap, const char *key, size_t len)
{
    size_t used = strlen(out);
    if (!key_listed(key, len, out) && used + len + 2 <= cap)
        snprintf(out + used, cap - used, "%.*s ", (int)len, key);
}

void gv_history_row_gpus(const gv_report *r, size_t row, char *out, size_t cap)
{
    out[0] = '\0';
    const gv_row_counters *k = gv_report_counters_of(r, row);
    for (uint32_t i = 0; k && i < k->count; i++) {
        if (gv_subject_gpu(k->items[i].name) < 0 || k->items[i].value != 1)
            continue;
        char key[160];
        gv_history_subject(r, k->items[i].name, key, sizeof key);
        key_add(out, cap, key, strlen(key));
    }
}

int gv_history_judged_again(const gv_report *r, size_t row, const gv_history_standing *s)
{
    const gv_check_result *c = &r->results[row];
    if (strcmp(c->id, s->check) ||
        (c->verdict != GV_PASS && c->verdict != GV_WARN && c->verdict != GV_FAIL))
        return 0;
    char over[GV_HISTORY_GPU_KEYS], key[160];
    gv_history_row_gpus(r, row, over, sizeof over);
    gv_history_subject(r, c->subject, key, sizeof key);
    if (!strcmp(key, s->subject))
        return keys_within(s->gpus, over);
    if (!passed_whole(r, c))
        return 0;
    if (gv_subject_gpu(s->row_subject) >= 0) /* a GPU's FAIL: the PASS names that GPU */
        return key_listed(s->subject, strlen(s->subject), over);
    gv_history_subject(r, s->row_subject, key, sizeof key); /* the node's own, this host's */
    return !strcmp(key, s->subject) && keys_within(s->gpus, over);
}

/* The FAILs of c's check that stand where the run's row `row` judged it again
 * (gv_history_judged_again) end: its subject's, and with a PASS of the whole node every one
 * of the check's it covers. An SQLite code. */
static int end_standing(gv_history *h, const gv_report *r, size_t row, const char *subject)
{
    const gv_check_result *c = &r->results[row];
    /* A PASS of the whole node may end any FAIL of the check (a few rows), others their own. */
    int whole = passed_whole(r, c);
    sqlite3_stmt *st = gv_history_statement(
        h, whole ? "SELECT subject, row_subject, gpus FROM standing WHERE check_id = ?1"
                 : "SELECT subject, row_subject, gpus FROM standing WHERE check_id = ?1"
                   " AND subject = ?2");
    sqlite3_stmt *end =
        st ? gv_history_statement(h, "DELETE FROM standing WHERE subject = ?1 AND check_id = ?2")
           : NULL;
    if (!end)
        return SQLITE_ERROR;
    gv_history_standing s; /* what gv_history_judged_again reads of it */
    snprintf(s.check, sizeof s.check, "%s", c->id);
    bind_text(st, 1, c->id);
    if (!whole)
        bind_text(st, 2, subject);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text[3];
        for (int k = 0; k < 3; k++)
            text[k] = (const char *)sqlite3_column_text(st, k);
        snprintf(s.subject, sizeof s.subject, "%s", text[0] ? text[0] : "");
        snprintf(s.row_subject, sizeof s.row_subject, "%s", text[1] ? text[1] : "");
        snprintf(s.gpus, sizeof s.gpus, "%s", text[2] ? text[2] : "");
        if (!gv_history_judged_again(r, row, &s))
            continue;
        bind_text(end, 1, s.subject);
        bind_text(end, 2, c->id);
        int done = sqlite3_step(end);
        sqlite3_reset(end);
        if (done != SQLITE_DONE) {
            rc = done;
            break;
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? SQLITE_DONE : rc;
}

/* A FAIL as its check's last judgement on the subject: it stands (table standing), over the
 * GPUs it names and those a FAIL before it there named, none of which a judgement since
 * covered. An SQLite code. */
static int stand_fail(gv_history *h, const gv_report *r, size_t row, const char *subject,
                      long long started)
{
    const gv_check_result *c = &r->results[row];
    char gpus[GV_HISTORY_GPU_KEYS];
    gv_history_row_gpus(r, row, gpus, sizeof gpus);
    sqlite3_stmt *before =
        gv_history_statement(h, "SELECT gpus FROM standing WHERE subject = ?1 AND check_id = ?2");
    if (!before)
        return SQLITE_ERROR;
    bind_text(before, 1, subject);
    bind_text(before, 2, c->id);
    int read = sqlite3_step(before);
    const char *stood = read == SQLITE_ROW ? (const char *)sqlite3_column_text(before, 0) : NULL;
    for (const char *p = stood ? stood : ""; *p; p += strcspn(p, " ") + 1)
        key_add(gpus, sizeof gpus, p, strcspn(p, " "));
    sqlite3_reset(before);
    if (read != SQLITE_ROW && read != SQLITE_DONE)
        return read; /* the run is not recorded, rather than the GPUs of what stood lost */
    const char *host = r->hostname[0] ? r->hostname : "unknown";
    sqlite3_stmt *st = gv_history_statement(
        h, "INSERT INTO standing(subject, check_id, hostname, row_subject, action, level,"
           " message, started_unix, gpus) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)"
           " ON CONFLICT(subject, check_id) DO UPDATE SET hostname = excluded.hostname,"
           " row_subject = excluded.row_subject, action = excluded.action,"
           " level = excluded.level, message = excluded.message,"
           " started_unix = excluded.started_unix, gpus = excluded.gpus");
    if (!st)
        return SQLITE_ERROR;
    bind_text(st, 1, subject);
    bind_text(st, 2, c->id);
    bind_text(st, 3, host);
    bind_text(st, 4, c->subject);
    bind_text(st, 5, gv_action_name(c->action));
    bind_text(st, 6, r->level);
    bind_text(st, 7, c->message);
    sqlite3_bind_int64(st, 8, started);
    bind_text(st, 9, gpus);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc;
}

/* Row `row` of the run, on the subject whose history key is `subject`, as its check's last
 * judgement there: a FAIL stands, a PASS or WARN ends what it judged again; a SKIP or an ERROR
 * judged nothing. An SQLite code. */
static int judgement(gv_history *h, const gv_report *r, size_t row, const char *subject,
                     long long started)
{
    int verdict = r->results[row].verdict;
    if (verdict == GV_FAIL)
        return stand_fail(h, r, row, subject, started);
    return verdict == GV_PASS || verdict == GV_WARN ? end_standing(h, r, row, subject)
                                                    : SQLITE_DONE;
}

/* The report's rows, their counters, and each judged row's mark on what stands (not the last
 * history_rows, the history checks' own). */
static int insert_rows(gv_history *h, const gv_report *r, size_t history_rows, long long run_id,
                       long long started)
{
    sqlite3_stmt *row = gv_history_statement(
        h, "INSERT INTO results(run_id, seq, check_id, subject, row_subject, verdict, action,"
           " held, value, unit, measured, message, fingerprint)"
           " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
    sqlite3_stmt *counter =
        row ? gv_history_statement(h, "INSERT INTO counters(run_id, seq, name, value, subject,"
                                      " check_id, started_unix) VALUES(?,?,?,?,?,?,?)")
            : NULL;
    if (!counter)
        return -1;
    size_t judged = history_rows < r->count ? r->count - history_rows : 0;
    int rc = SQLITE_DONE;
    for (size_t i = 0; i < r->count && rc == SQLITE_DONE; i++) {
        const gv_check_result *c = &r->results[i];
        char subject[160];
        gv_history_subject(r, c->subject, subject, sizeof subject);
        sqlite3_reset(row);
        sqlite3_bind_int64(row, 1, run_id);
        sqlite3_bind_int64(row, 2, (long long)i);
        bind_text(row, 3, c->id);
        bind_text(row, 4, subject);
        bind_text(row, 5, c->subject);
        bind_text(row, 6, gv_verdict_name(c->verdict));
        bind_text(row, 7, gv_action_name(c->action));
        sqlite3_bind_int(row, 8, c->held_by_other);
        if (isfinite(c->value))
            sqlite3_bind_double(row, 9, c->value);
        else
            sqlite3_bind_null(row, 9);
        bind_text(row, 10, c->unit);
        bind_text(row, 11, c->measured);
        /* A PASS row's message repeats its figures: kept for the rows worth reading back. */
        bind_text(row, 12, c->verdict == GV_PASS || c->verdict == GV_SKIP ? "" : c->message);
        bind_text(row, 13, c->fingerprint);
        rc = sqlite3_step(row);
        if (rc == SQLITE_DONE && i < judged)
            rc = judgement(h, r, i, subject, started);
        const gv_row_counters *rc_list = gv_report_counters_of(r, i);
        for (uint32_t k = 0; rc_list && k < rc_list->count && rc == SQLITE_DONE; k++) {
            sqlite3_reset(counter);
            sqlite3_bind_int64(counter, 1, run_id);
            sqlite3_bind_int64(counter, 2, (long long)i);
            bind_text(counter, 3, rc_list->items[k].name);
            sqlite3_bind_double(counter, 4, rc_list->items[k].value);
            bind_text(counter, 5, subject);
            bind_text(counter, 6, c->id);
            sqlite3_bind_int64(counter, 7, started);
            rc = sqlite3_step(counter);
        }
    }
    sqlite3_reset(row);
    sqlite3_reset(counter);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Deletes the runs `which` selects (a condition on runs) and everything of theirs. */
static int delete_runs(gv_history *h, const char *which)
{
    static const char *const tables[] = {"counters", "results", "gpus"};
    char sql[320];
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE run_id IN (SELECT id FROM runs WHERE %s)",
                 tables[i], which);
        if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK)
            return -1;
    }
    snprintf(sql, sizeof sql, "DELETE FROM runs WHERE %s", which);
    if (sqlite3_exec(h->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    h->pruned |= sqlite3_changes(h->db) > 0;
    return 0;
}

/* Runs that age never deletes, the newest by insertion: a clock gone wrong must not empty the
 * record. */
#define GV_HISTORY_KEEP_FLOOR 10

/* Deletes runs past the limits: older than keep_days, beyond keep_runs, then the oldest tenth
 * at a time while the file is larger than keep_mb. Age is counted back from the earlier of this
 * run's time and the run recorded before it, so that one run with its clock far ahead (a
 * wrong RTC, NTP not yet synced) deletes nothing; and never from the newest
 * GV_HISTORY_KEEP_FLOOR runs, however far the clock went. */
static int prune(gv_history *h, long long now)
{
    char which[256];
    /* Most runs delete nothing: one look at the oldest run, the count and the run before this
     * one says so. */
    sqlite3_stmt *st;
    long long oldest = 0, runs = 0, before = now;
    if (sqlite3_prepare_v2(h->db,
                           "SELECT min(started_unix), count(*),"
                           " (SELECT started_unix FROM runs ORDER BY id DESC LIMIT 1 OFFSET 1)"
                           " FROM runs",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        oldest = sqlite3_column_int64(st, 0);
        runs = sqlite3_column_int64(st, 1);
        if (sqlite3_column_type(st, 2) != SQLITE_NULL && sqlite3_column_int64(st, 2) < before)
            before = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    long long cutoff = before - (long long)(h->limits.keep_days * 86400);
    snprintf(which, sizeof which,
             "started_unix < %lld AND id <= (SELECT id FROM runs ORDER BY id DESC LIMIT 1 "
             "OFFSET %d)",
             cutoff, GV_HISTORY_KEEP_FLOOR);
    if (oldest < cutoff && runs > GV_HISTORY_KEEP_FLOOR && delete_runs(h, which))
        return -1;
    /* A FAIL that stands goes with age alone, not with the runs that count and size delete. */
    snprintf(which, sizeof which, "DELETE FROM standing WHERE started_unix < %lld", cutoff);
    if (sqlite3_exec(h->db, which, NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    snprintf(which, sizeof which,
             "id <= (SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET %lld)",
             (long long)h->limits.keep_runs);
    if (runs > h->limits.keep_runs && delete_runs(h, which))
        return -1;
    double limit = h->limits.keep_mb * 1048576.0;
    for (int round = 0; round < 10; round++) {
        long long pages = pragma(h, "PRAGMA page_count"), size = pragma(h, "PRAGMA page_size");
        long long free_pages = pragma(h, "PRAGMA freelist_count");
        if (pages < 0 || size < 0 ||
            (double)(pages - (free_pages > 0 ? free_pages : 0)) * size <= limit)
            return 0;
        runs = pragma(h, "SELECT count(*) FROM runs");
        if (runs <= 1)
            return 0;
        snprintf(which, sizeof which, "id IN (SELECT id FROM runs ORDER BY id LIMIT %lld)",
                 runs / 10 > 0 ? runs / 10 : 1);
        if (delete_runs(h, which))
            return -1;
    }
    return 0;
}

/* Folds the WAL into the file. Truncating waits for every reader to let go: at most a moment
 * (an idle reader, an open sqlite3 shell, would hold it for ever, and every run would wait its
 * whole busy timeout); what no reader needs is copied all the same, and the note says the WAL
 * is growing and why. */
#define FOLD_WAIT_MS 200
static void fold_wal(gv_history *h)
{
    sqlite3_busy_timeout(h->db, FOLD_WAIT_MS);
    int log = 0, done = 0;
    /* Busy: a reader kept it; SQLite copied what it could, as a passive checkpoint does. */
    int rc = sqlite3_wal_checkpoint_v2(h->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &log, &done);
    set_wait(h, h->limits.wait_s);
    if (rc == SQLITE_BUSY && log > 0)
        snprintf(h->note, sizeof h->note,
                 "the database's write-ahead log is %.1f MB and grows: another process keeps a "
                 "read open on %s (an open sqlite3?), so it cannot be folded into the file",
                 (double)log * 4096 / 1e6, h->path);
}

const char *gv_history_note(const gv_history *h)
{
    return h->note;
}

int gv_history_append(gv_history *h, const gv_report *r, const gv_history_run *run, char *why,
                      size_t cap)
{
    if (exec(h, "BEGIN IMMEDIATE", why, cap, "waiting for another run's write"))
        return -1;
    const char *doing = "recording the run";
    int failed = insert_run(h, r, run);
    long long run_id = sqlite3_last_insert_rowid(h->db);
    failed = failed || insert_gpus(h, r, run_id, run) ||
             insert_rows(h, r, run->history_rows, run_id, run->started_unix);
    if (!failed) {
        doing = "deleting runs past the policy's limits";
        failed = prune(h, run->started_unix);
    }
    if (failed) {
        gv_history_fail(h, why, cap, doing);
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    if (exec(h, "COMMIT", why, cap, "recording the run"))
        return sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL), -1;
    /* Truncate: the pages go into the file and the WAL starts again from nothing, so that the
     * next run's open reads none of it back (a passive checkpoint leaves the WAL to grow when
     * each run is a connection of its own). It waits for a reader at most the policy's wait;
     * an error costs only the WAL's size until the next run's. */
    h->note[0] = '\0';
    if (h->wal_pages >= GV_HISTORY_WAL_PAGES)
        fold_wal(h);
    /* Gives the pages of deleted runs back to the file system; an error costs only space. */
    if (h->pruned)
        sqlite3_exec(h->db, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
    return 0;
}
