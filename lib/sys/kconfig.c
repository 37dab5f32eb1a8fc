/* SPDX-License-Identifier: Apache-2.0 */
#include "sys/kconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "sys/sysroot.h"

/* Real configurations have about 12 000 lines: far more is not one (/dev/zero, say). */
#define MAX_LINES 200000

/* Scans one configuration file line by line; gzread also reads an uncompressed file as is.
 * Opened inside the sysroot, without blocking (a FIFO reads as empty). */
static gv_status scan(const char *root, const char *rel, const char *shown, const char *option,
                      gv_kconfig_value *out, gv_errbuf *err)
{
    int fd = gv_sys_open(root, rel, O_RDONLY | O_NONBLOCK);
    gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
    if (!gz) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return gv_err(err, GV_ERR_IO, "reading %s: %s", shown, e ? strerror(e) : "out of memory");
    }
    size_t len = strlen(option);
    char line[4096];
    int lines = 0;
    out->listed = 0;
    snprintf(out->value, sizeof out->value, "n");
    while (lines < MAX_LINES && gzgets(gz, line, sizeof line)) {
        lines++;
        char *p = gv_trim(line);
        if (strncmp(p, option, len) == 0 && p[len] == '=') {
            snprintf(out->value, sizeof out->value, "%s", p + len + 1);
            out->listed = 1;
        } else if (p[0] == '#' && strncmp(gv_trim(p + 1), option, len) == 0 &&
                   strcmp(gv_trim(p + 1) + len, " is not set") == 0) {
            out->listed = 1;
        }
    }
    int code = 0;
    char why[128];
    const char *text = gzerror(gz, &code); /* "<fd:N>: <reason>", freed with gz */
    const char *colon = strncmp(text, "<fd:", 4) == 0 ? strstr(text, ": ") : NULL;
    snprintf(why, sizeof why, "%s", colon ? colon + 2 : text);
    gzclose(gz);
    if (lines >= MAX_LINES)
        return gv_err(err, GV_ERR_PARSE, "reading %s: more than %d lines: not a configuration",
                      shown, MAX_LINES);
    if (code != Z_OK && code != Z_STREAM_END)
        return gv_err(err, GV_ERR_PARSE, "reading %s: %s (the file is damaged)", shown, why);
    if (lines == 0)
        return gv_err(err, GV_ERR_PARSE, "reading %s: the file is empty", shown);
    snprintf(out->source, sizeof out->source, "%s", shown);
    return GV_OK;
}

gv_status gv_kconfig_lookup(const char *root, const char *release, const char *option,
                            gv_kconfig_value *out, char *tried, size_t tried_cap, gv_errbuf *err)
{
    memset(out, 0, sizeof *out);
    if (tried_cap)
        tried[0] = '\0';
    char rels[3][320];
    size_t n = 0;
    if (release && *release)
        snprintf(rels[n++], sizeof rels[0], "/boot/config-%s", release);
    snprintf(rels[n++], sizeof rels[0], "/proc/config.gz");
    if (release && *release)
        snprintf(rels[n++], sizeof rels[0], "/lib/modules/%s/build/.config", release);
    for (size_t i = 0; i < n; i++) {
        char shown[4096];
        snprintf(shown, sizeof shown, "%s%s", gv_sys_shown(root), rels[i]);
        size_t used = strlen(tried);
        if (tried_cap > used)
            snprintf(tried + used, tried_cap - used, "%s%s", used ? ", " : "", shown);
        if (!gv_sys_exists(root, rels[i]))
            continue;
        return scan(root, rels[i], shown, option, out, err);
    }
    return gv_err(err, GV_ERR_NOT_FOUND, "no kernel configuration found (tried %s)", tried);
}
