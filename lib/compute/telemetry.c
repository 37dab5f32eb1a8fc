/* SPDX-License-Identifier: Apache-2.0 */
#include "compute/telemetry.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backends/nvml_backend.h"
#include "core/c_locale.h"
#include "core/context.h"
#include "core/util.h"

static gvnv_device device_of(gv_ctx *ctx, const char *bus_id, const struct gv_nvml_api **nv_out)
{
    const struct gv_nvml_api *nv = gv_nvml(ctx);
    gvnv_device dev = NULL;
    if (!nv || !nv->device_get_handle_by_pci_bus_id ||
        nv->device_get_handle_by_pci_bus_id(bus_id, &dev) != GVNV_SUCCESS)
        return NULL;
    *nv_out = nv;
    return dev;
}

void gv_telemetry_driver_version(gv_ctx *ctx, char *out, size_t cap)
{
    const struct gv_nvml_api *nv = gv_nvml(ctx);
    char text[GVNV_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    if (cap)
        out[0] = '\0';
    if (nv && nv->system_get_driver_version &&
        nv->system_get_driver_version(text, sizeof text) == GVNV_SUCCESS)
        snprintf(out, cap, "%.*s", (int)sizeof text, text);
}

int gv_telemetry_link(gv_ctx *ctx, const char *bus_id, gv_link_state *out)
{
    memset(out, 0, sizeof *out);
    const struct gv_nvml_api *nv = NULL;
    gvnv_device dev = device_of(ctx, bus_id, &nv);
    if (!dev)
        return -1;
    unsigned v;
    if (nv->device_get_curr_pcie_link_generation &&
        nv->device_get_curr_pcie_link_generation(dev, &v) == GVNV_SUCCESS)
        out->gen_current = (int)v;
    if (nv->device_get_curr_pcie_link_width &&
        nv->device_get_curr_pcie_link_width(dev, &v) == GVNV_SUCCESS)
        out->width_current = (int)v;
    if (nv->device_get_max_pcie_link_generation &&
        nv->device_get_max_pcie_link_generation(dev, &v) == GVNV_SUCCESS)
        out->gen_max = (int)v;
    if (nv->device_get_max_pcie_link_width &&
        nv->device_get_max_pcie_link_width(dev, &v) == GVNV_SUCCESS)
        out->width_max = (int)v;
    return 0;
}

void gv_telemetry_dram_ecc(gv_ctx *ctx, const char *bus_id, long long *corrected,
                           long long *uncorrected)
{
    *corrected = *uncorrected = -1;
    const struct gv_nvml_api *nv = NULL;
    gvnv_device dev = device_of(ctx, bus_id, &nv);
    if (!dev || !nv->device_get_memory_error_counter)
        return;
    unsigned long long n;
    if (nv->device_get_memory_error_counter(dev, GVNV_MEMORY_ERROR_CORRECTED, GVNV_VOLATILE_ECC,
                                            GVNV_MEMORY_LOCATION_DRAM, &n) == GVNV_SUCCESS)
        *corrected = (long long)n;
    if (nv->device_get_memory_error_counter(dev, GVNV_MEMORY_ERROR_UNCORRECTED, GVNV_VOLATILE_ECC,
                                            GVNV_MEMORY_LOCATION_DRAM, &n) == GVNV_SUCCESS)
        *uncorrected = (long long)n;
}

double gv_pcie_raw_gbps(int gen, int width)
{
    /* GB/s per lane after line coding: 8b/10b to Gen2, 128b/130b Gen3-5, FLIT Gen6. */
    static const double lane[] = {0, 0.25, 0.5, 0.984615, 1.969231, 3.938462, 7.5625};
    if (gen < 1 || gen > 6 || width <= 0)
        return 0;
    return lane[gen] * width;
}

int gv_pcie_gen_of_speed(double gts)
{
    static const double speeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    for (int i = 0; i < 6; i++)
        if (gts > speeds[i] * 0.95 && gts < speeds[i] * 1.05)
            return i + 1;
    return 0;
}

static void *sample_loop(void *arg)
{
    GV_IN_C_LOCALE();
    gv_sampler *s = arg;
    const struct gv_nvml_api *nv = s->ctx->nvml;
    gvnv_device dev = s->device;
    struct timespec nap = {0, 20 * 1000 * 1000};
    for (;;) {
        unsigned clock = 0, power = 0, temp = 0;
        unsigned long long reasons = 0;
        int have_clock = nv->device_get_clock_info &&
                         nv->device_get_clock_info(dev, GVNV_CLOCK_SM, &clock) == GVNV_SUCCESS;
        int have_power =
            nv->device_get_power_usage && nv->device_get_power_usage(dev, &power) == GVNV_SUCCESS;
        int have_temp =
            nv->device_get_temperature &&
            nv->device_get_temperature(dev, GVNV_TEMPERATURE_GPU, &temp) == GVNV_SUCCESS;
        int have_reasons = nv->device_get_clocks_event_reasons &&
                           nv->device_get_clocks_event_reasons(dev, &reasons) == GVNV_SUCCESS;
        pthread_mutex_lock(&s->lock);
        if (have_clock) {
            s->iv_clock_sum += clock;
            s->iv_samples++;
            s->clock_sum += clock;
            if (s->samples == 0 || clock < s->clock_min)
                s->clock_min = clock;
            s->samples++;
        }
        if (have_power) {
            s->iv_power_sum += power / 1000.0;
            s->iv_power_samples++;
            s->power_sum += power / 1000.0;
            if (power / 1000.0 > s->power_max)
                s->power_max = power / 1000.0;
            s->power_samples++;
        }
        if (have_temp && temp > s->temp_max)
            s->temp_max = temp;
        if (have_temp && temp > s->iv_temp_max)
            s->iv_temp_max = temp;
        if (have_reasons) {
            s->reasons |= reasons;
            s->iv_reasons |= reasons;
        }
        int stop = s->stop;
        pthread_mutex_unlock(&s->lock);
        if (stop)
            return NULL;
        nanosleep(&nap, NULL);
    }
}

void gv_sampler_start(gv_sampler *s, gv_ctx *ctx, const char *bus_id)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    const struct gv_nvml_api *nv = NULL;
    s->device = device_of(ctx, bus_id, &nv);
    if (!s->device)
        return;
    pthread_mutex_init(&s->lock, NULL);
    s->running = pthread_create(&s->thread, NULL, sample_loop, s) == 0;
    if (!s->running)
        pthread_mutex_destroy(&s->lock);
}

void gv_sampler_totals(const gv_sampler *s, gv_sample_totals *out)
{
    memset(out, 0, sizeof *out);
    if (s->samples) {
        out->clock_mean_mhz = s->clock_sum / s->samples;
        out->clock_min_mhz = s->clock_min;
    }
    if (s->power_samples) {
        out->power_mean_w = s->power_sum / s->power_samples;
        out->power_max_w = s->power_max;
    }
    out->temperature_max_c = s->temp_max;
    out->reasons = s->reasons;
}

void gv_sampler_take(gv_sampler *s, gv_sample_interval *out)
{
    memset(out, 0, sizeof *out);
    if (!s->running)
        return;
    pthread_mutex_lock(&s->lock);
    if (s->iv_samples)
        out->clock_mhz = s->iv_clock_sum / s->iv_samples;
    if (s->iv_power_samples)
        out->power_w = s->iv_power_sum / s->iv_power_samples;
    out->temperature_c = s->iv_temp_max;
    out->reasons = s->iv_reasons;
    s->iv_samples = s->iv_power_samples = 0;
    s->iv_clock_sum = s->iv_power_sum = s->iv_temp_max = 0;
    s->iv_reasons = 0;
    pthread_mutex_unlock(&s->lock);
}

void gv_clock_events_text(uint64_t reasons, char *out, size_t cap)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } names[] = {{0x4, "power cap"},
                 {0x8, "hardware slowdown"},
                 {0x20, "thermal (software)"},
                 {0x40, "thermal (hardware)"},
                 {0x80, "power brake"}};
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (reasons & names[i].bit)
            gv_append(out, cap, ", ", names[i].name);
}

/* A power limit NVML gives in milliwatts, in watts; 0 unknown. */
static double watts(gv_ctx *ctx, const char *bus_id, int is_default)
{
    const struct gv_nvml_api *nv = NULL;
    gvnv_device dev = device_of(ctx, bus_id, &nv);
    gvnv_return (*query)(gvnv_device, unsigned int *) =
        !dev         ? NULL
        : is_default ? nv->device_get_power_management_default_limit
                     : nv->device_get_power_management_limit;
    unsigned mw = 0;
    return query && query(dev, &mw) == GVNV_SUCCESS ? mw / 1000.0 : 0;
}

double gv_telemetry_power_limit_w(gv_ctx *ctx, const char *bus_id)
{
    return watts(ctx, bus_id, 0);
}

double gv_telemetry_power_default_w(gv_ctx *ctx, const char *bus_id)
{
    return watts(ctx, bus_id, 1);
}

int gv_power_limit_lowered(double limit_w, double default_w)
{
    return limit_w > 0 && default_w > 0 && limit_w < default_w - 0.5; /* NVML's mW rounding */
}

void gv_sampler_stop(gv_sampler *s)
{
    if (!s->running)
        return;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->lock);
    s->running = 0;
}
