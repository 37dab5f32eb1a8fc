/* SPDX-License-Identifier: Apache-2.0 */
/* This process's mounts, from /proc/self/mountinfo. */
#ifndef GV_SYS_MOUNTS_H
#define GV_SYS_MOUNTS_H

#include <stddef.h>

#include "core/errbuf.h"

/* The filesystem type of what is mounted at mount_point ("/dev": "devtmpfs" on a host, "tmpfs"
 * where a container runtime made it), the last mount there winning. GV_ERR_NOT_FOUND when
 * nothing is mounted there, GV_ERR_IO when the file cannot be read. */
gv_status gv_mount_fstype(const char *root, const char *mount_point, char *fstype, size_t cap,
                          gv_errbuf *err);

#endif
