/* SPDX-License-Identifier: Apache-2.0 */
/* The bench programs' view of their own process: fields of /proc/self/status. */
#ifndef GV_BENCH_PROC_H
#define GV_BENCH_PROC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One "Key:   123 kB" field of /proc/self/status, in MiB (-1 when absent). */
static inline double status_mib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    double mib = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            mib = strtod(line + n + 1, NULL) / 1024.0;
            break;
        }
    fclose(f);
    return mib;
}

#endif
