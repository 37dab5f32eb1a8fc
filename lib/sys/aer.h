/* SPDX-License-Identifier: Apache-2.0 */
/* PCIe Advanced Error Reporting counters from sysfs (aer_dev_correctable, aer_dev_nonfatal,
 * aer_dev_fatal) of a device and every bridge above it up to the root port. */
#ifndef GV_SYS_AER_H
#define GV_SYS_AER_H

#include <stddef.h>

#include "core/errbuf.h"
#include "sys/pci.h"

#define GV_AER_MAX_HOPS 8

/* One function's totals; -1 where its file is absent (AER off, or a kernel without the
 * statistics); `first` names the first non-zero counter of the most severe kind with one
 * ("SDES 1" over "BadTLP 3"), "" when none; `first_severity` that kind: 0 none, 1 correctable,
 * 2 non-fatal, 3 fatal. */
typedef struct gv_aer_counts {
    char bdf[32];
    long long correctable, nonfatal, fatal;
    char first[64];
    int first_severity;
    char problem[256]; /* a file present but unreadable or malformed, "" */
} gv_aer_counts;

typedef struct gv_aer_chain {
    size_t n; /* [0] the device itself, then its bridges, the root port last */
    gv_aer_counts hop[GV_AER_MAX_HOPS];
} gv_aer_chain;

/* "RxErr 0\nBadTLP 3\n...TOTAL_ERR_COR 3": the TOTAL_ERR_* line; GV_ERR_PARSE without one. */
gv_status gv_aer_parse(const char *text, long long *total, char *first, size_t cap);
/* The chain of the function at addr (GV_ERR_NOT_FOUND when sysfs lacks it). */
gv_status gv_aer_read(const char *root, const gv_pci_addr *addr, gv_aer_chain *out, gv_errbuf *err);

#endif
