/* SPDX-License-Identifier: Apache-2.0 */
/* Loaded kernel modules: /proc/modules, plus /sys/module/<name> for built-in drivers. */
#ifndef GV_SYS_MODULES_H
#define GV_SYS_MODULES_H

#include <stddef.h>

#include "core/errbuf.h"

typedef struct gv_modules {
    char (*names)[64];
    size_t count;
} gv_modules;

/* Parses /proc/modules (`name size refcnt deps state addr [(taints)]`). */
gv_status gv_modules_read(const char *root, gv_modules *out, gv_errbuf *err);
/* 1 when listed in /proc/modules or present as /sys/module/<name> (built in). */
int gv_module_present(const char *root, const gv_modules *mods, const char *name);
void gv_modules_free(gv_modules *mods);

#endif
