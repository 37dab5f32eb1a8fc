/* SPDX-License-Identifier: Apache-2.0 */
/* gv_history_json: the history database read back for gv-history and other callers. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/c_locale.h"
#include "core/context.h"
#include "core/sizes.h"
#include "history/history.h"

gv_status gv_history_json(gv_ctx *ctx, const char *path, const gv_history_opts *opts, char **out)
{
    GV_IN_C_LOCALE();
    if (!ctx)
        return GV_ERR_INVALID_ARG;
    gv_clear_error(ctx);
    if (!out)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_history_json: out is NULL");
    *out = NULL;
    if (!path || !*path)
        return gv_fail(ctx, GV_ERR_INVALID_ARG, "gv_history_json: no database path");
    static const gv_history_opts defaults = GV_HISTORY_OPTS_INIT;
    gv_history_opts o;
    gv_status s =
        gv_opts_in(ctx, "gv_history_opts", &o, sizeof o, opts, GV_HISTORY_OPTS_SIZE_V1, &defaults);
    if (s != GV_OK)
        return s;
    if (o.flags || o.since_unix < 0)
        return gv_fail(ctx, GV_ERR_INVALID_ARG,
                       "gv_history_opts: flags 0x%x (none defined), since_unix %lld (>= 0)",
                       o.flags, (long long)o.since_unix);
    struct stat st;
    if (stat(path, &st) != 0)
        return gv_fail(ctx, errno == ENOENT ? GV_ERR_NOT_FOUND : GV_ERR_IO,
                       "history database %s: %s", path, strerror(errno));
    char why[1024];
    gv_history *h;
    if (gv_history_open_read(path, &h, why, sizeof why))
        return gv_fail(ctx, GV_ERR_IO, "%s", why);
    json_t *root;
    int rc = gv_history_export(h, o.subject && *o.subject ? o.subject : NULL,
                               o.checks && *o.checks ? o.checks : NULL, (long long)o.since_unix,
                               (long)o.max_runs, &root, why, sizeof why);
    gv_history_close(h);
    if (rc)
        return gv_fail(ctx, GV_ERR_IO, "%s", why);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII);
    json_decref(root);
    if (!text)
        return gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory rendering the history");
    *out = strdup(text); /* gv_free (plain free) releases it, whatever jansson's allocator */
    free(text);
    return *out ? GV_OK : gv_fail(ctx, GV_ERR_NO_MEMORY, "out of memory rendering the history");
}
