/* SPDX-License-Identifier: Apache-2.0 */
/* The operating system and kernel: /etc/os-release, /proc/sys/kernel/osrelease, /proc/uptime. */
#ifndef GV_SYS_OS_H
#define GV_SYS_OS_H

#include <stddef.h>

#include "core/errbuf.h"

typedef struct gv_os_release {
    char pretty_name[128];
    char id[32];
    char version_id[32];
} gv_os_release;

/* /etc/os-release, else /usr/lib/os-release (os-release(5)). GV_ERR_PARSE names the line. */
gv_status gv_read_os_release(const char *root, gv_os_release *out, gv_errbuf *err);
/* "6.8.0-45-generic". GV_ERR_PARSE when the text is not one release token. */
gv_status gv_read_kernel_release(const char *root, char *out, size_t cap, gv_errbuf *err);
/* Seconds since boot from /proc/uptime; -1 when unreadable or malformed. */
double gv_read_uptime_s(const char *root);
/* Whether the reading process lives in the host's own PID namespace (/proc/self/ns/pid names
 * PROC_PID_INIT_INO), where NVML lists every process on a GPU: 1 yes, 0 another (a container's),
 * -1 unknown. */
int gv_host_pid_namespace(const char *root);
/* Whether <root>/proc lists the host's own processes (its PID 1 is in the host's PID
 * namespace): a host's procfs mounted into a container lists them whatever the reader's own
 * namespace. 1 yes, 0 no, -1 unknown. */
int gv_root_proc_is_hosts(const char *root);
/* The node's host name into out (empty when unknown). /proc/sys/kernel/hostname is the
 * reader's own UTS namespace's: seen from a container through a host root mounted at `root`
 * (--host-root), the pod's name. So where the reader's UTS namespace is not known to be the
 * host's init's (<root>/proc/self/ns/uts against <root>/proc/1/ns/uts), the host's
 * /etc/hostname names it, when there is one other than "localhost...". */
void gv_read_hostname(const char *root, char *out, size_t cap);
/* Major and minor of a kernel release ("6.8.0-45" -> 6, 8); -1 when not parseable. */
int gv_kernel_version(const char *release, int *major, int *minor);

#endif
