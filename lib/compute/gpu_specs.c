#include "compute/gpu_specs.h"

#include <stdio.h>

#include "gpuverify/gv_compute.h"

/* Datasheet figures, dense (no sparsity), TFLOPS; 0 = not supported. */
static const struct part {
    int pci_device_id;
    const char *name;
    double tflops[5]; /* fp32, tf32, fp16, bf16, fp8 */
    double memory_gbps;
} parts[] = {
    {0x1eb8, "T4", {8.1, 0, 65, 0, 0}, 320},
    {0x27b8, "L4", {30.3, 60, 121, 121, 242}, 300},
    {0x2236, "A10", {31.2, 62.5, 125, 125, 0}, 600},
    {0x20b2, "A100 SXM 80GB", {19.5, 156, 312, 312, 0}, 2039},
    {0x2330, "H100 SXM", {66.9, 494.7, 989.4, 989.4, 1978.9}, 3350},
    {0x2331, "H100 PCIe", {51.2, 378, 756, 756, 1513}, 2000},
    {0x2335, "H200", {67, 494.5, 989, 989, 1979}, 4800},
    {0x26b9, "L40S", {91.6, 183, 362, 362, 733}, 864},
    {0x2684, "RTX 4090", {82.6, 82.6, 165.2, 165.2, 330.3}, 1008},
    {0x2901, "B200", {75, 1100, 2250, 2250, 4500}, 7700},
};

static const struct part *part_of(int pci_device_id)
{
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (parts[i].pci_device_id == pci_device_id)
            return &parts[i];
    return NULL;
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
                      int max_sm_clock_mhz, int dtype, char *source, size_t cap)
{
    const struct part *p = part_of(pci_device_id);
    if (p && dtype >= GV_DTYPE_FP32 && dtype <= GV_DTYPE_FP8_E4M3) {
        snprintf(source, cap, "datasheet %s (PCI id 0x%04x)", p->name, (unsigned)pci_device_id);
        return p->tflops[dtype];
    }
    double rate = gv_flop_per_clock_per_sm(cc_major, cc_minor, dtype);
    if (rate <= 0 || sm_count <= 0 || max_sm_clock_mhz <= 0) {
        snprintf(source, cap, "no datasheet or per-SM rate for cc %d.%d", cc_major, cc_minor);
        return 0;
    }
    snprintf(source, cap, "formula: %d SMs x %.0f FLOP/clk x %d MHz", sm_count, rate,
             max_sm_clock_mhz);
    return sm_count * rate * max_sm_clock_mhz * 1e6 / 1e12;
}

double gv_memory_bandwidth_gbps(int pci_device_id)
{
    const struct part *p = part_of(pci_device_id);
    return p ? p->memory_gbps : 0;
}
