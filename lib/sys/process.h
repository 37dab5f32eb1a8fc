/* SPDX-License-Identifier: Apache-2.0 */
/* A process of the judged node found by name in <root>/proc: its comm as the kernel keeps it
 * (cut to 15 characters: "nv-fabricmanager" is "nv-fabricmanage") and when it started, the
 * 22nd field of /proc/<pid>/stat in clock ticks since boot. */
#ifndef GV_SYS_PROCESS_H
#define GV_SYS_PROCESS_H

#include <stddef.h>

#include "core/errbuf.h"

/* The fabric manager's daemon, /usr/bin/nv-fabricmanager, as its comm reads. */
#define GV_FABRIC_MANAGER_COMM "nv-fabricmanage"

typedef struct gv_process {
    int pid;
    double started_s; /* seconds after boot, -1 unknown */
} gv_process;

/* The earliest started process whose comm is `comm`: 1 found, 0 none (*out untouched), -1 when
 * <root>/proc cannot be listed (err says why). Processes that end while read are skipped. */
int gv_find_process(const char *root, const char *comm, gv_process *out, gv_errbuf *err);

/* The comm of PID `pid` of this machine's /proc (not the sysroot's: the PIDs NVML gives are the
 * running driver's) into out, "" when it cannot be read (gone, or in another PID namespace,
 * where the PID names nobody here). */
void gv_process_comm(unsigned pid, char *out, size_t cap);

/* The start time in a /proc/<pid>/stat line, seconds after boot; -1 when malformed. */
double gv_stat_started_s(const char *stat_line);

#endif
