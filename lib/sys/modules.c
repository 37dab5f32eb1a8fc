/* SPDX-License-Identifier: Apache-2.0 */
#include "sys/modules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysroot.h"

gv_status gv_modules_read(const char *root, gv_modules *out, gv_errbuf *err)
{
    out->names = NULL;
    out->count = 0;
    size_t cap = 1 << 18;
    char *text = malloc(cap);
    if (!text)
        return gv_err(err, GV_ERR_NO_MEMORY, "reading /proc/modules: out of memory");
    gv_status s = gv_sys_read(root, "/proc/modules", text, cap, err);
    if (s != GV_OK) {
        free(text);
        return s;
    }
    size_t lines = 1;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    out->names = calloc(lines, sizeof *out->names);
    if (!out->names) {
        free(text);
        return gv_err(err, GV_ERR_NO_MEMORY, "reading /proc/modules: out of memory");
    }
    int lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char name[64], state[16];
        unsigned long size;
        /* name, size, refcount, deps, state: a line cut short lacks the state. */
        if (sscanf(line, "%63s %lu %*s %*s %15s", name, &size, state) != 3) {
            gv_err(err, GV_ERR_PARSE, "reading %s/proc/modules: line %d is malformed: '%.80s'",
                   gv_sys_shown(root), lineno, line);
            free(text);
            gv_modules_free(out);
            return GV_ERR_PARSE;
        }
        snprintf(out->names[out->count++], sizeof out->names[0], "%s", name);
    }
    free(text);
    return GV_OK;
}

int gv_module_present(const char *root, const gv_modules *mods, const char *name)
{
    for (size_t i = 0; mods && i < mods->count; i++)
        if (strcmp(mods->names[i], name) == 0)
            return 1;
    char rel[128];
    snprintf(rel, sizeof rel, "/sys/module/%s", name);
    return gv_sys_exists(root, rel);
}

void gv_modules_free(gv_modules *mods)
{
    free(mods->names);
    mods->names = NULL;
    mods->count = 0;
}
