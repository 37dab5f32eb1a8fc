/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the fact gatherers (facts*.c) only. */
#ifndef GV_FACTS_FACTS_INTERNAL_H
#define GV_FACTS_FACTS_INTERNAL_H

#include "facts/facts.h"
#include "sys/pci.h"

/* The record of the GPU at addr, added (all fields unknown) when new; NULL when out of memory. */
gv_gpu_record *gv_facts_gpu_at(gv_facts *f, const gv_pci_addr *addr);
/* The record a source's GPU at addr joins: the one of that address, else the one sysfs GPU of
 * the same bus, device and function that the source has not named yet (taken says which it
 * has), else a new one. The NVIDIA driver truncates a Hyper-V VM's 32-bit PCI domain (sysfs
 * 47d9:00:00.0, /proc/driver/nvidia/gpus/0001:00:00.0): one GPU is one record however its
 * domain is written. Several such candidates are not told apart: each stays its own. */
gv_gpu_record *gv_facts_gpu_join(gv_facts *f, const gv_pci_addr *addr,
                                 int (*taken)(const gv_gpu_record *));
/* The record of exactly that address, NULL when none. */
gv_gpu_record *gv_facts_gpu_find(gv_facts *f, const gv_pci_addr *addr);
/* Appends a GPU without a known address (an NVML device whose handle failed). */
gv_gpu_record *gv_facts_gpu_add(gv_facts *f);

void gv_facts_files(gv_facts *f);             /* facts_files.c */
void gv_facts_nvml(gv_ctx *ctx, gv_facts *f); /* facts_nvml.c */
void gv_facts_cuda(gv_ctx *ctx, gv_facts *f); /* facts_cuda.c */
/* Moves the GPUs this process was not given into f->others (facts_reach.c). */
void gv_facts_set_apart(gv_facts *f);

#endif
