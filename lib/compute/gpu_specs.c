/* SPDX-License-Identifier: Apache-2.0 */
#include "compute/gpu_specs.h"

#include <stdio.h>

#include "gpuverify/gv_compute.h"

/* Datasheet figures of the whole part, dense (no sparsity: half of the figures NVIDIA marks
 * "with sparsity"), TFLOPS; 0 = not supported. PCI ids as pci.ids names them. Where NVIDIA's
 * sheets disagree (H100 NVL: 989 or 835 BF16 TFLOPS), the lower: a figure above what the part
 * can do would judge a healthy GPU slow, one below only judges more leniently. */
static const struct part {
    int pci_device_id;
    const char *name;
    double tflops[5]; /* fp32, tf32, fp16, bf16, fp8 */
    double memory_gbps;
    int sms; /* the part's SMs: a device with fewer (a MIG instance) has that share of it */
} parts[] = {
    {0x1eb8, "T4", {8.1, 0, 65, 0, 0}, 320, 40},
    {0x27b8, "L4", {30.3, 60, 121, 121, 242}, 300, 58},
    {0x2236, "A10", {31.2, 62.5, 125, 125, 0}, 600, 72},
    {0x20b0, "A100 SXM 40GB", {19.5, 156, 312, 312, 0}, 1555, 108},
    {0x20b1, "A100 PCIe 40GB", {19.5, 156, 312, 312, 0}, 1555, 108},
    {0x20f1, "A100 PCIe 40GB", {19.5, 156, 312, 312, 0}, 1555, 108},
    {0x20b2, "A100 SXM 80GB", {19.5, 156, 312, 312, 0}, 2039, 108},
    {0x20b5, "A100 PCIe 80GB", {19.5, 156, 312, 312, 0}, 1935, 108},
    {0x20f3, "A800 SXM 80GB", {19.5, 156, 312, 312, 0}, 2039, 108},
    {0x20f5, "A800 PCIe 80GB", {19.5, 156, 312, 312, 0}, 1935, 108},
    {0x20b7, "A30", {10.3, 82, 165, 165, 0}, 933, 56},
    {0x2235, "A40", {37.4, 74.8, 149.7, 149.7, 0}, 696, 84},
    {0x2330, "H100 SXM", {66.9, 494.7, 989.4, 989.4, 1978.9}, 3350, 132},
    {0x2331, "H100 PCIe", {51.2, 378, 756, 756, 1513}, 2000, 114},
    {0x2321, "H100 NVL", {60, 417.5, 835.5, 835.5, 1670.5}, 3900, 132},
    {0x2324, "H800 SXM", {66.9, 494.7, 989.4, 989.4, 1978.9}, 3350, 132},
    {0x2322, "H800 PCIe", {51.2, 378, 756, 756, 1513}, 2000, 114},
    {0x2335, "H200", {67, 494.5, 989, 989, 1979}, 4800, 132},
    {0x233b, "H200 NVL", {60, 417.5, 835.5, 835.5, 1670.5}, 4800, 132},
    {0x2342, "GH200 96GB", {67, 494.5, 989.5, 989.5, 1979}, 4000, 132},
    {0x2348, "GH200 144GB", {67, 494.5, 989.5, 989.5, 1979}, 4900, 132},
    {0x26b5, "L40", {90.5, 90.5, 181, 181, 362}, 864, 142},
    {0x26b9, "L40S", {91.6, 183, 362, 362, 733}, 864, 142},
    {0x2684, "RTX 4090", {82.6, 82.6, 165.2, 165.2, 330.3}, 1008, 128},
    {0x2901, "B200", {75, 1100, 2250, 2250, 4500}, 7700, 148},
};

static const struct part *part_of(int pci_device_id)
{
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (parts[i].pci_device_id == pci_device_id)
            return &parts[i];
    return NULL;
}

/* The share of the part a CUDA device is: a MIG instance has some of its SMs (16 of an H100's
 * 132 for 1g.10gb) and as many of its memory slices, and its datasheet figures are that
 * share of the whole GPU's (never more: 1 for the whole part or an unknown SM count). */
static double part_share(const struct part *p, int sm_count)
{
    return sm_count > 0 && sm_count < p->sms ? (double)sm_count / p->sms : 1;
}

double gv_flop_per_clock_per_sm(int cc_major, int cc_minor, int dtype)
{
    /* fp32, tf32, fp16, bf16, fp8 for the data-centre part of each architecture. */
    static const struct {
        int major, minor;
        double rate[5];
    } rates[] = {
        {7, 5, {128, 0, 1024, 0, 0}},          {8, 0, {128, 1024, 2048, 2048, 0}},
        {8, 6, {256, 512, 1024, 1024, 0}},     {8, 9, {256, 512, 1024, 1024, 2048}},
        {9, 0, {256, 2048, 4096, 4096, 8192}}, {10, 0, {256, 4096, 8192, 8192, 16384}},
    };
    if (dtype < GV_DTYPE_FP32 || dtype > GV_DTYPE_FP8_E4M3)
        return 0;
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++)
        if (rates[i].major == cc_major && rates[i].minor == cc_minor)
            return rates[i].rate[dtype];
    return 0;
}

double gv_peak_tflops(int pci_device_id, int cc_major, int cc_minor, int sm_count,
                      int max_sm_clock_mhz, int dtype, char *source, size_t cap, int *estimated)
{
    *estimated = 0;
    const struct part *p = part_of(pci_device_id);
    if (p && dtype >= GV_DTYPE_FP32 && dtype <= GV_DTYPE_FP8_E4M3) {
        int n =
            snprintf(source, cap, "datasheet %s (PCI id 0x%04x)", p->name, (unsigned)pci_device_id);
        double share = part_share(p, sm_count);
        if (share < 1 && n >= 0 && (size_t)n < cap)
            snprintf(source + n, cap - (size_t)n, " x %d/%d SMs: a part of the GPU (MIG instance)",
                     sm_count, p->sms);
        return p->tflops[dtype] * share;
    }
    double rate = gv_flop_per_clock_per_sm(cc_major, cc_minor, dtype);
    if (rate <= 0 || sm_count <= 0 || max_sm_clock_mhz <= 0) {
        snprintf(source, cap, "no datasheet or per-SM rate for cc %d.%d", cc_major, cc_minor);
        return 0;
    }
    snprintf(source, cap, "formula: %d SMs x %.0f FLOP/clk x %d MHz", sm_count, rate,
             max_sm_clock_mhz);
    *estimated = 1;
    return sm_count * rate * max_sm_clock_mhz * 1e6 / 1e12;
}

double gv_memory_bandwidth_gbps(int pci_device_id, int sm_count)
{
    const struct part *p = part_of(pci_device_id);
    return p ? p->memory_gbps * part_share(p, sm_count) : 0;
}

int gv_part_sms(int pci_device_id)
{
    const struct part *p = part_of(pci_device_id);
    return p ? p->sms : 0;
}
