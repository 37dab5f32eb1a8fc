/* SPDX-License-Identifier: Apache-2.0 */
/* What the PCIe links GPUs share leave each of them when all move data at once. A root port's
 * or switch port's link carries every function under it: GPUs under one switch split its
 * uplink by design, and only a share below what that split leaves is a fault. */
#ifndef GV_SYS_PCI_SHARE_H
#define GV_SYS_PCI_SHARE_H

#include <stddef.h>

#include "sys/pci.h"

/* Whether two functions have a port above them in common: the traffic of both crosses its
 * link. */
int gv_pci_share_a_port(const gv_pci_function *a, const gv_pci_function *b);

/* The fraction (at most 1) of gpus[i]'s own link rate that is left to it while all n GPUs use
 * their links at once: over the functions above it, the narrowest ratio of that function's
 * link rate to the sum of the link rates of the GPUs under it (rate: the link's design, the
 * narrower of its two ends' maximum GT/s x lanes, not what it trained at; a rate sysfs does
 * not give counts as one GPU's). gpus[j] may be NULL (place unknown: shares
 * nothing). `why` names the function that sets it ("gpu2, gpu3 under 0000:38:00.0"), with
 * names[j] for the GPUs; "" when nothing is shared. */
double gv_pci_link_share(const char *root, const gv_pci_function *const *gpus,
                         const char *const *names, size_t n, size_t i, char *why, size_t cap);

#endif
