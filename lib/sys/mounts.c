/* SPDX-License-Identifier: Apache-2.0 */
#include "sys/mounts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysroot.h"

gv_status gv_mount_fstype(const char *root, const char *mount_point, char *fstype, size_t cap,
                          gv_errbuf *err)
{
    const char *file = "/proc/self/mountinfo";
    size_t size = 1 << 20; /* thousands of mounts on a busy container host */
    char *text = malloc(size);
    if (!text)
        return gv_err(err, GV_ERR_NO_MEMORY, "reading %s: out of memory", file);
    gv_status s = gv_sys_read(root, file, text, size, err);
    if (s != GV_OK) {
        free(text);
        return s;
    }
    int found = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        /* id parent major:minor root mount-point options [optional...] - fstype source ... */
        char point[4096], type[64];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
            sscanf(dash + 3, "%63s", type) != 1 || strcmp(point, mount_point) != 0)
            continue;
        snprintf(fstype, cap, "%s", type);
        found = 1;
    }
    free(text);
    if (!found)
        return gv_err(err, GV_ERR_NOT_FOUND, "nothing is mounted at %s (%s%s)", mount_point,
                      gv_sys_shown(root), file);
    return GV_OK;
}
