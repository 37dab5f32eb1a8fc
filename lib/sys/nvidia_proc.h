/* SPDX-License-Identifier: Apache-2.0 */
/* What the NVIDIA kernel module says about itself: /proc/driver/nvidia/version,
 * /proc/driver/nvidia/gpus/<bdf>/information and /sys/module/nvidia/{version,taint}. */
#ifndef GV_SYS_NVIDIA_PROC_H
#define GV_SYS_NVIDIA_PROC_H

#include <stddef.h>

#include "core/errbuf.h"

typedef struct gv_nvidia_module {
    int kind;         /* enum gv_module_kind */
    char version[32]; /* "580.95.05" */
    char arch[16];    /* "x86_64", "aarch64" */
} gv_nvidia_module;

/* First line of /proc/driver/nvidia/version:
 *   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build ...
 *   NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ... */
gv_status gv_read_nvidia_version(const char *root, gv_nvidia_module *out, gv_errbuf *err);
/* Parses that line alone (exposed for tests). */
gv_status gv_parse_nvidia_version(const char *line, gv_nvidia_module *out);
/* Whether text is a driver version: 2 to 4 numbers of 0..99999 joined by dots ("580.95.05"). */
int gv_nvidia_version_ok(const char *text);

typedef struct gv_nvidia_gpu_info {
    char bus_id[32]; /* directory name, "0000:18:00.0" */
    char model[96];
    char uuid[96];
    char vbios[32];
    int excluded; /* "GPU Excluded: Yes" (older drivers: "Blacklisted") */
    int minor;    /* "Device Minor": its node is /dev/nvidia<minor>; -1 unknown */
    /* Why its information file could not be read ("" when it was): the fields above but
     * bus_id are then unknown. */
    char problem[256];
} gv_nvidia_gpu_info;

/* Every /proc/driver/nvidia/gpus/<bdf>/information; *out is one allocation (free it). An
 * absent directory is zero GPUs, not an error; a GPU whose file is bad is listed with its
 * problem, its siblings as they are. */
gv_status gv_read_nvidia_gpus(const char *root, gv_nvidia_gpu_info **out, size_t *count,
                              gv_errbuf *err);

/* /sys/module/nvidia/version and /sys/module/nvidia/taint ("P" proprietary, "O" out of tree).
 * Either may be absent: its buffer is then "". GV_OK unless a present file is unreadable or
 * its version is no driver version (the buffer then ""). */
gv_status gv_read_nvidia_sysfs_module(const char *root, char *version, size_t vcap, char *taint,
                                      size_t tcap, gv_errbuf *err);
#endif
