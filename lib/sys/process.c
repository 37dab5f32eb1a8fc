/* SPDX-License-Identifier: Apache-2.0 */
#include "sys/process.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysroot.h"

/* USER_HZ: the unit of /proc's tick counts, 100 on every Linux architecture's ABI. */
#define GV_USER_HZ 100.0

double gv_stat_started_s(const char *line)
{
    /* comm, field 2, is in parentheses and may hold spaces and ')': the fields resume after
     * the last ')'. starttime is field 22, the 20th after it. */
    const char *p = line ? strrchr(line, ')') : NULL;
    if (!p)
        return -1;
    p++;
    for (int field = 3; field < 22; field++) {
        p += strspn(p, " ");
        if (!*p)
            return -1;
        p += strcspn(p, " ");
    }
    char *end;
    p += strspn(p, " ");
    unsigned long long ticks = strtoull(p, &end, 10);
    if (end == p || (*end && *end != ' ' && *end != '\n'))
        return -1;
    return (double)ticks / GV_USER_HZ;
}

int gv_find_process(const char *root, const char *comm, gv_process *out, gv_errbuf *err)
{
    char(*names)[256] = NULL;
    size_t count = 0;
    if (gv_sys_list(root, "/proc", &names, &count, err) != GV_OK)
        return -1;
    int found = 0;
    for (size_t i = 0; i < count; i++) {
        char *end;
        long pid = strtol(names[i], &end, 10);
        if (end == names[i] || *end || pid <= 0)
            continue;
        char rel[64], name[64], stat[1024];
        snprintf(rel, sizeof rel, "/proc/%ld/comm", pid);
        if (gv_sys_read_line(root, rel, name, sizeof name, NULL) != GV_OK || strcmp(name, comm))
            continue;
        snprintf(rel, sizeof rel, "/proc/%ld/stat", pid);
        double started =
            gv_sys_read(root, rel, stat, sizeof stat, NULL) == GV_OK ? gv_stat_started_s(stat) : -1;
        if (!found || (started >= 0 && (out->started_s < 0 || started < out->started_s))) {
            out->pid = (int)pid;
            out->started_s = started;
        }
        found = 1;
    }
    free(names);
    return found;
}

void gv_process_comm(unsigned pid, char *out, size_t cap)
{
    out[0] = '\0';
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/comm", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    if (fgets(out, (int)cap, f))
        out[strcspn(out, "\n")] = '\0';
    else
        out[0] = '\0';
    fclose(f);
}
