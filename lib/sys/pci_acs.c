/* SPDX-License-Identifier: Apache-2.0 */
#include "sys/pci_acs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "sys/sysroot.h"

#define CONFIG_SIZE 4096
#define EXTENDED_START 0x100
#define ACS_ID 0x000d

static unsigned le32(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
}

gv_status gv_pci_acs_read(const char *root, const char *bdf, gv_pci_acs *out, gv_errbuf *err)
{
    memset(out, 0, sizeof *out);
    char rel[128];
    snprintf(rel, sizeof rel, "/sys/bus/pci/devices/%s/config", bdf);
    int fd = gv_sys_open(root, rel, O_RDONLY);
    if (fd < 0)
        return gv_err(err, GV_ERR_IO, "%s: %s", rel, strerror(errno));
    unsigned char config[CONFIG_SIZE];
    size_t got = 0;
    while (got < sizeof config) {
        ssize_t n = read(fd, config + got, sizeof config - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    out->config_size = (unsigned)got;
    if (got == 256)
        return GV_OK; /* conventional PCI: no extended space, no ACS */
    /* Without CAP_SYS_ADMIN the kernel returns the standard header only. */
    if (got < CONFIG_SIZE)
        return gv_err(err, GV_ERR_UNSUPPORTED,
                      "%s: %zu bytes of configuration space, not the extended 4096 (reading it "
                      "needs root)",
                      rel, got);
    unsigned at = EXTENDED_START;
    for (int hops = 0; at; hops++) {
        if (hops >= (CONFIG_SIZE - EXTENDED_START) / 4 || at < EXTENDED_START ||
            at > CONFIG_SIZE - 8 || at % 4)
            return gv_err(err, GV_ERR_PARSE,
                          "%s: the extended capability list loops or leaves the space (at 0x%x)",
                          rel, at);
        unsigned header = le32(config + at);
        if (header == 0 || header == 0xffffffffu)
            break; /* no extended capabilities */
        if ((header & 0xffff) == ACS_ID) {
            out->present = 1;
            out->control = (unsigned)config[at + 6] | (unsigned)config[at + 7] << 8;
            break;
        }
        at = header >> 20;
    }
    return GV_OK;
}

void gv_pci_acs_bits(unsigned control, char *out, size_t cap)
{
    static const struct {
        unsigned bit;
        const char *name;
    } bits[] = {{GV_ACS_SOURCE_VALIDATION, "SrcValid"},
                {GV_ACS_REQUEST_REDIRECT, "ReqRedir"},
                {GV_ACS_COMPLETION_REDIRECT, "CmpltRedir"}};
    if (cap)
        out[0] = '\0';
    for (size_t i = 0; i < sizeof bits / sizeof *bits; i++)
        if (control & bits[i].bit)
            gv_append(out, cap, " ", bits[i].name);
}
