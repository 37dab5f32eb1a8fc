/* SPDX-License-Identifier: Apache-2.0 */
/* PCI functions from sysfs: /sys/bus/pci/devices/<bdf> and the link it points along. */
#ifndef GV_SYS_PCI_H
#define GV_SYS_PCI_H

#include <stddef.h>

#include "core/errbuf.h"
#include "core/parse.h"

#define GV_PCI_VENDOR_NVIDIA 0x10de
#define GV_PCI_MAX_PARENTS 8

typedef struct gv_pci_addr {
    unsigned domain, bus, device, function;
} gv_pci_addr;

typedef struct gv_pci_function {
    char bdf[32]; /* as named in sysfs */
    gv_pci_addr addr;
    int vendor, device, class_code; /* class_code: 0x030200 */
    int numa_node;                  /* -1 unknown */
    char local_cpus[128];
    double link_speed_current, link_speed_max; /* GT/s, -1 unknown */
    int link_width_current, link_width_max;    /* lanes, -1 unknown */
    double upstream_speed_max;                 /* the port above it, -1 unknown */
    int upstream_width_max;
    /* The PCI functions above it, nearest first: switch ports and bridges up to the root port
     * (the host bridge, /sys/devices/pciDDDD:BB, is none). Functions under one of them share
     * its link. */
    gv_pci_addr parents[GV_PCI_MAX_PARENTS];
    size_t parent_count;
    char driver[32];        /* the kernel driver bound to it ("nvidia"), "" when none or unknown */
    char problem[256];      /* a file of this function that could not be read or parsed, "" */
    char link_problem[256]; /* why its link is unknown (a link file out of range), "" */
    int addr_unknown;       /* listed under a name that is no address (a domain over 32 bits) */
} gv_pci_function;

/* Ranges of the values read (docs/inputs.md): link speeds gen 1 to gen 7, widths up to x32,
 * NUMA nodes up to the kernel's MAX_NUMNODES. */
#define GV_PCI_SPEED_MIN 2.5
#define GV_PCI_SPEED_MAX 128.0
#define GV_PCI_WIDTH_MAX 32
#define GV_PCI_NUMA_MAX 1023

/* "0000:18:00.0" or "00000000:18:00.0" or wide Hyper-V domains ("03f8cfdd:00:00.0"). */
int gv_pci_parse_addr(const char *text, gv_pci_addr *out);
/* NULL when text is an address (into *out when out is not NULL), else why not: "its PCI
 * domain is wider than 32 bits" or "not a PCI address". */
const char *gv_pci_addr_why(const char *text, gv_pci_addr *out);
/* A cpulist ("0-55,112-167"): GV_PARSE_OK or why not. */
enum gv_parse_result gv_pci_parse_cpulist(const char *text);
/* Binds the calling thread (and the threads it starts later) to a cpulist's CPUs: 0, or -1
 * when the list is not one or the kernel refused every CPU of it. */
int gv_pci_bind_to_cpus(const char *cpulist);
/* Canonical text: at least 4 hex digits of domain, all of them when wider. */
void gv_pci_format_addr(const gv_pci_addr *a, char *out, size_t cap);
/* Ordering by domain, bus, device, function. */
int gv_pci_addr_compare(const gv_pci_addr *a, const gv_pci_addr *b);
/* "32.0 GT/s PCIe", "8 GT/s", "2.5 GT/s" -> GT/s; "Unknown" -> -1; GV_ERR_PARSE otherwise. */
gv_status gv_pci_parse_speed(const char *text, double *gts);

/* NVIDIA display-class functions (vendor 0x10de, class 0x03xxxx): GPUs, not their audio or
 * NVSwitch functions. Sorted by address; *out is one allocation (free it). A function whose
 * optional files are bad is kept with its problem noted; no /sys/bus/pci at all is an error. */
gv_status gv_pci_nvidia_gpus(const char *root, gv_pci_function **out, size_t *count,
                             gv_errbuf *err);

/* NVIDIA functions whose class, masked by class_mask, is class_value (NVSwitches: 0x068000,
 * 0xffff00), as gv_pci_nvidia_gpus lists GPUs. */
gv_status gv_pci_nvidia_functions(const char *root, int class_value, int class_mask,
                                  gv_pci_function **out, size_t *count, gv_errbuf *err);

/* One function's attributes by address (any vendor); GV_ERR_NOT_FOUND when sysfs lacks it. */
gv_status gv_pci_read_function(const char *root, const gv_pci_addr *addr, gv_pci_function *out,
                               gv_errbuf *err);

#endif
