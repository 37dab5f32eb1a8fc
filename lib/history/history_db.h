/* SPDX-License-Identifier: Apache-2.0 */
/* Inside the history layer: the open database, shared by the store (history_store.c) and the
 * queries (history_query.c). */
#ifndef GV_HISTORY_HISTORY_DB_H
#define GV_HISTORY_HISTORY_DB_H

#include <limits.h>
#include <sqlite3.h>

#include "history/history.h"

struct gv_history {
    sqlite3 *db;
    char path[PATH_MAX];
    gv_history_limits limits;
    int pruned;     /* runs were deleted: their pages can go back to the file system */
    int wal_pages;  /* the WAL's pages after the last commit */
    double wait_s;  /* how long a statement waits for another's lock (set_wait) */
    char note[256]; /* what the last append left undone (gv_history_note) */
    /* Statements prepared once per connection (gv_history_statement): a run's judges ask the
     * same few questions of every GPU, and preparing one costs about as much as running it. */
    struct {
        const char *sql;
        sqlite3_stmt *st;
    } statements[24]; /* more than the layer has distinct statements */
};

/* The statement for `sql`, a string constant (kept by its address), prepared on first use and
 * reset with no bindings on each later one; NULL when SQLite refuses it. The caller resets it
 * when done, so that it holds no read snapshot, and never finalizes it (gv_history_close does). */
sqlite3_stmt *gv_history_statement(gv_history *h, const char *sql);

/* "history database <path>: <doing>: <SQLite's message>" into why; -1. */
int gv_history_fail(gv_history *h, char *why, size_t cap, const char *doing);

#endif
