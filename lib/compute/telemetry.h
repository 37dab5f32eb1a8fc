/* SPDX-License-Identifier: Apache-2.0 */
/* NVML telemetry of a GPU under test: its PCIe link state, and clocks, power, temperature and
 * clock-event reasons sampled on a thread while a benchmark runs. Everything is optional: with
 * no NVML the figures stay 0 (unknown). */
#ifndef GV_COMPUTE_TELEMETRY_H
#define GV_COMPUTE_TELEMETRY_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuverify/gv_context.h"

typedef struct gv_link_state {
    int gen_current, width_current; /* 0 unknown */
    int gen_max, width_max;
} gv_link_state;

/* NVML's view of the link of the GPU at bus_id; 0 when NVML answered. */
int gv_telemetry_link(gv_ctx *ctx, const char *bus_id, gv_link_state *out);
/* The GPU's DRAM ECC counters since the last reset (NVML volatile): corrected and uncorrected,
 * -1 each when NVML cannot give it. */
void gv_telemetry_dram_ecc(gv_ctx *ctx, const char *bus_id, long long *corrected,
                           long long *uncorrected);
/* The clock-event reasons by what NVML documents them to mean. The GPU keeping itself within
 * its limits by design (SW power cap, SW thermal slowdown: clocks "optimized" to stay under the
 * max operating temperatures, sync boost) is what a healthy GPU does under full load: a finding
 * only through what it costs, a figure that fell. The hardware stepping in because a limit was
 * crossed (HW thermal slowdown, HW power brake: clocks cut by half or more, "an indicator of
 * temperature being too high" or of the power supply braking) is a finding by itself. The
 * generic HW slowdown bit is neither alone: NVML also sets it on P-state changes. */
#define GV_CLOCK_EVENTS_PROTECTIVE 0xC0ull /* HwThermalSlowdown | HwPowerBrakeSlowdown */
#define GV_CLOCK_EVENT_POWER_CAP 0x4ull    /* SwPowerCap: the GPU held at its power limit */

/* The clock-event reasons that mean the GPU was held back (nvmlClocksEventReason*), as text:
 * "power cap, thermal (hardware)"; "" when none. */
void gv_clock_events_text(uint64_t reasons, char *out, size_t cap);
/* The power limit NVML enforces on the GPU, and the default it ships with (the board's
 * design: `nvidia-smi -pl` lowers the first only), in watts; 0 unknown. */
double gv_telemetry_power_limit_w(gv_ctx *ctx, const char *bus_id);
double gv_telemetry_power_default_w(gv_ctx *ctx, const char *bus_id);
/* Whether a limit was lowered below the board's default (both known): a setting, not the
 * design, which gemm.* and stress.power judge and name as such. */
int gv_power_limit_lowered(double limit_w, double default_w);
/* The driver's version as NVML gives it ("580.95.05"); "" when NVML cannot. */
void gv_telemetry_driver_version(gv_ctx *ctx, char *out, size_t cap);
/* PCIe raw rate per direction, GB/s, of gen x width (Gen5 x16 = 63.0); 0 unknown. */
double gv_pcie_raw_gbps(int gen, int width);
/* PCIe generation of a link speed in GT/s (32.0 -> 5); 0 unknown. */
int gv_pcie_gen_of_speed(double gts);

typedef struct gv_sampler {
    gv_ctx *ctx;
    void *device; /* gvnv_device */
    pthread_t thread;
    int running;
    pthread_mutex_t lock;
    int stop;
    /* results */
    unsigned samples;
    double clock_sum, clock_min, power_sum, power_max, temp_max;
    unsigned power_samples;
    uint64_t reasons;
    /* since the last gv_sampler_take */
    unsigned iv_samples, iv_power_samples;
    double iv_clock_sum, iv_power_sum, iv_temp_max;
    uint64_t iv_reasons;
} gv_sampler;

/* One interval of a time series: mean SM clock and power, highest temperature, and the
 * clock-event reasons seen (NVML nvmlClocksEventReason*); 0 where NVML could not say. */
typedef struct gv_sample_interval {
    double clock_mhz, power_w, temperature_c;
    uint64_t reasons;
} gv_sample_interval;

/* Starts sampling every ~20 ms; does nothing (and stays harmless) without NVML. */
void gv_sampler_start(gv_sampler *s, gv_ctx *ctx, const char *bus_id);
/* What a stopped sampler saw over the whole run: mean and lowest SM clock, mean and highest
 * power, highest temperature, the clock-event reasons OR'd; 0 where NVML could not say. */
typedef struct gv_sample_totals {
    double clock_mean_mhz, clock_min_mhz, power_mean_w, power_max_w, temperature_max_c;
    uint64_t reasons;
} gv_sample_totals;

void gv_sampler_totals(const gv_sampler *s, gv_sample_totals *out);
/* The interval since the last take (or the start), and a new one begins. */
void gv_sampler_take(gv_sampler *s, gv_sample_interval *out);
/* Stops the thread; the figures are then final. */
void gv_sampler_stop(gv_sampler *s);

#endif
