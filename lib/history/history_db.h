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
    int pruned;    /* runs were deleted: their pages can go back to the file system */
    int wal_pages; /* the WAL's pages after the last commit */
};

/* "history database <path>: <doing>: <SQLite's message>" into why; -1. */
int gv_history_fail(gv_history *h, char *why, size_t cap, const char *doing);

#endif
