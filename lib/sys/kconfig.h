/* SPDX-License-Identifier: Apache-2.0 */
/* The running kernel's build configuration: /boot/config-<release>, else /proc/config.gz
 * (gzip, through zlib), else /lib/modules/<release>/build/.config, all under the sysroot. */
#ifndef GV_SYS_KCONFIG_H
#define GV_SYS_KCONFIG_H

#include <stddef.h>

#include "core/errbuf.h"

typedef struct gv_kconfig_value {
    char value[64];   /* "y", "m", a string; "n" for "# CONFIG_X is not set" or an absent line */
    int listed;       /* 0: the option is not in the file at all */
    char source[256]; /* the file it came from, as shown to people */
} gv_kconfig_value;

/* Looks one option up ("CONFIG_PCI_P2PDMA") in the first configuration that exists.
 * GV_ERR_NOT_FOUND when none does (tried lists the paths); GV_ERR_IO / GV_ERR_PARSE name a
 * file that exists but cannot be read or decompressed. */
gv_status gv_kconfig_lookup(const char *root, const char *release, const char *option,
                            gv_kconfig_value *out, char *tried, size_t tried_cap, gv_errbuf *err);

#endif
