/* SPDX-License-Identifier: Apache-2.0 */
/* A PCI bridge's ACS (Access Control Services) control, from its configuration space in sysfs
 * (/sys/bus/pci/devices/<bdf>/config): the extended capability 0x000d, found by walking the
 * extended capability list from offset 0x100. Enabled on a switch port, ACS sends peer-to-peer
 * requests and completions up to the root complex instead of across the switch, which breaks
 * or slows GPUDirect between a GPU and the NIC beside it. */
#ifndef GV_SYS_PCI_ACS_H
#define GV_SYS_PCI_ACS_H

#include <stddef.h>

#include "core/errbuf.h"

/* The ACS control register's bits that reroute or check peer traffic (PCIe base spec 7.7.8). */
#define GV_ACS_SOURCE_VALIDATION 0x0001
#define GV_ACS_REQUEST_REDIRECT 0x0004
#define GV_ACS_COMPLETION_REDIRECT 0x0008
#define GV_ACS_PEER_TRAFFIC                                                                        \
    (GV_ACS_SOURCE_VALIDATION | GV_ACS_REQUEST_REDIRECT | GV_ACS_COMPLETION_REDIRECT)

typedef struct gv_pci_acs {
    int present;          /* the function has the ACS capability */
    unsigned control;     /* its control register when present */
    unsigned config_size; /* bytes of configuration space read */
} gv_pci_acs;

/* The function's ACS state (none for a conventional PCI function, 256 bytes of space).
 * GV_ERR_UNSUPPORTED when sysfs gives only the first 64 bytes (the rest needs root,
 * CAP_SYS_ADMIN), GV_ERR_IO when it cannot be read,
 * GV_ERR_PARSE for a capability list that loops or points outside the space. */
gv_status gv_pci_acs_read(const char *root, const char *bdf, gv_pci_acs *out, gv_errbuf *err);

/* "SrcValid ReqRedir CmpltRedir" of the bits of control that reroute peer traffic. */
void gv_pci_acs_bits(unsigned control, char *out, size_t cap);

#endif
