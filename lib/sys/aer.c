/* SPDX-License-Identifier: Apache-2.0 */
#include "sys/aer.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysroot.h"

/* The line after this one, NULL after the last (no arithmetic on a NULL strchr: UB that
 * tests/fuzz's sysroot target found). */
static const char *next_line(const char *line)
{
    const char *end = strchr(line, '\n');
    return end ? end + 1 : NULL;
}

gv_status gv_aer_parse(const char *text, long long *total, char *first, size_t cap)
{
    *total = -1;
    if (first && cap)
        first[0] = '\0';
    for (const char *line = text; line && *line; line = next_line(line)) {
        char name[48];
        long long value;
        char tail;
        int fields = sscanf(line, "%47s %lld%c", name, &value, &tail);
        if (fields < 2 || (fields == 3 && tail != '\n') || value < 0)
            return GV_ERR_PARSE;
        if (!strncmp(name, "TOTAL_ERR_", 10))
            *total = value;
        else if (value > 0 && first && cap && !first[0])
            snprintf(first, cap, "%s %lld", name, value);
    }
    return *total < 0 ? GV_ERR_PARSE : GV_OK;
}

/* One counter file of the directory (severity: 1 correctable, 2 non-fatal, 3 fatal): its
 * total, -1 when absent, the problem when bad. */
static void read_one(const char *root, const char *dir, const char *file, int severity,
                     long long *total, gv_aer_counts *c)
{
    char rel[PATH_MAX], text[4096], first[64];
    gv_errbuf err;
    *total = -1;
    snprintf(rel, sizeof rel, "%s/%s", dir, file);
    if (!gv_sys_exists(root, rel))
        return;
    if (gv_sys_read(root, rel, text, sizeof text, &err) != GV_OK) {
        snprintf(c->problem, sizeof c->problem, "%s", err.text);
        return;
    }
    if (gv_aer_parse(text, total, first, sizeof first) != GV_OK) {
        snprintf(c->problem, sizeof c->problem, "%s of %s: malformed (no TOTAL_ERR_ line)", file,
                 c->bdf);
        *total = -1;
        return;
    }
    if (first[0] && severity > c->first_severity) {
        snprintf(c->first, sizeof c->first, "%s", first);
        c->first_severity = severity;
    }
}

gv_status gv_aer_read(const char *root, const gv_pci_addr *addr, gv_aer_chain *out, gv_errbuf *err)
{
    memset(out, 0, sizeof *out);
    char bdf[32], link[PATH_MAX], dir[PATH_MAX];
    gv_pci_format_addr(addr, bdf, sizeof bdf);
    snprintf(link, sizeof link, "/sys/bus/pci/devices/%s", bdf);
    if (!gv_sys_exists(root, link))
        return gv_err(err, GV_ERR_NOT_FOUND, "%s%s: no such device", gv_sys_shown(root), link);
    if (gv_sys_resolve(root, link, dir, sizeof dir, err) != GV_OK)
        snprintf(dir, sizeof dir, "%s", link);
    /* The device's directory, then each parent that is a PCI function (a bridge or the root
     * port); /sys/devices/pci0000:00 is the host bridge and ends the walk. */
    while (out->n < GV_AER_MAX_HOPS) {
        char *name = strrchr(dir, '/');
        gv_pci_addr a;
        if (!name || gv_pci_parse_addr(name + 1, &a) != 0)
            break;
        gv_aer_counts *c = &out->hop[out->n++];
        snprintf(c->bdf, sizeof c->bdf, "%s", name + 1); /* before the reads: they name it */
        read_one(root, dir, "aer_dev_correctable", 1, &c->correctable, c);
        read_one(root, dir, "aer_dev_nonfatal", 2, &c->nonfatal, c);
        read_one(root, dir, "aer_dev_fatal", 3, &c->fatal, c);
        *name = '\0';
    }
    return GV_OK;
}
