/* SPDX-License-Identifier: Apache-2.0 */
/* What a GPU should reach: datasheet dense peaks and DRAM bandwidth by PCI device id, and the
 * per-SM tensor rate by compute capability for the formula used when the datasheet is not
 * known (docs/checks.md, the gemm.* rows). */
#ifndef GV_COMPUTE_GPU_SPECS_H
#define GV_COMPUTE_GPU_SPECS_H

#include <stddef.h>

/* Dense peak TFLOPS of dtype (enum gv_dtype) on this GPU, with where it came from; 0 with the
 * reason in `source` when the data type is not supported or nothing is known. A device with
 * fewer SMs than its part (a MIG instance) gets its share of the datasheet's figure. A part
 * the table does not know gets the formula's figure and *estimated = 1: the architecture's
 * data-centre rate, which parts built slower (NVIDIA H20: 148 of the formula's 632 FP16
 * TFLOPS; GeForce cards at half the tensor rate) never reach. */
double gv_peak_tflops(int pci_device_id, int cc_major, int cc_minor, int sm_count,
                      int max_sm_clock_mhz, int dtype, char *source, size_t cap, int *estimated);
/* Dense FLOP per clock per SM of dtype for this compute capability; 0 unknown. Consumer parts
 * of cc 8.6/8.9 run FP16/TF32 at half the data-centre rate: the datasheet table covers them. */
double gv_flop_per_clock_per_sm(int cc_major, int cc_minor, int dtype);
/* Datasheet DRAM bandwidth in GB/s, the device's share of it as above; 0 unknown. */
double gv_memory_bandwidth_gbps(int pci_device_id, int sm_count);
/* The whole part's SMs by the datasheet; 0 unknown. */
int gv_part_sms(int pci_device_id);

#endif
