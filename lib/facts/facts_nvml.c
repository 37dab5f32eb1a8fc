/* SPDX-License-Identifier: Apache-2.0 */
/* Facts from NVML: driver and CUDA versions, and each GPU's inventory. */
#include <stdio.h>
#include <string.h>

#include "backends/nvml_backend.h"
#include "facts/facts_internal.h"
#include "core/context.h"
#include "core/progress.h"
#include "core/settle.h"

/* Records a failed query on the GPU (the first real failure wins); NOT_SUPPORTED and absent
 * optional entries only leave the field unknown. Returns 1 on success. */
static int took(gv_gpu_record *r, const char *what, gvnv_return rc)
{
    if (rc == GVNV_SUCCESS)
        return 1;
    if (rc != GVNV_ERROR_NOT_SUPPORTED && rc != GVNV_ERROR_FUNCTION_NOT_FOUND &&
        r->gpu.nvml_result == 0) {
        char buf[32];
        r->gpu.nvml_result = rc;
        snprintf(r->problem, sizeof r->problem, "NVML %s: %s", what,
                 gv_nvml_error_name(rc, buf, sizeof buf));
    }
    return 0;
}

#define NVML_QUERY(r, nv, fn, ...)                                                                 \
    took(r, #fn, (nv)->fn ? (nv)->fn(__VA_ARGS__) : GVNV_ERROR_FUNCTION_NOT_FOUND)

/* The far end's port of each NVLink to an NVSwitch (NVML's remote NVLink ID, one call for all):
 * the link an NVSwitch's SXid names leads back to this GPU. */
static void remote_links(const struct gv_nvml_api *nv, gvnv_device dev, gv_gpu_record *r)
{
    gvnv_field_value v[GV_NVLINK_MAX];
    int n = 0, at[GV_NVLINK_MAX];
    memset(v, 0, sizeof v);
    for (int i = 0; i < r->nvlink_count; i++)
        if (r->nvlinks[i].active && r->nvlinks[i].to_switch) {
            v[n].field_id = GVNV_FI_DEV_NVLINK_REMOTE_NVLINK_ID;
            v[n].scope_id = (unsigned)i;
            at[n++] = i;
        }
    if (!n || !nv->device_get_field_values ||
        nv->device_get_field_values(dev, n, v) != GVNV_SUCCESS)
        return;
    for (int k = 0; k < n; k++) {
        unsigned long long port = v[k].value_type == GVNV_VALUE_TYPE_UNSIGNED_INT ? v[k].value.ui
                                  : v[k].value_type == GVNV_VALUE_TYPE_UNSIGNED_LONG_LONG
                                      ? v[k].value.ull
                                      : ~0ull;
        if (v[k].nvml_return == GVNV_SUCCESS && port < 1024)
            r->nvlinks[at[k]].remote_link = (int)port;
    }
}

/* Each link NVML answers for: state and far end. NOT_SUPPORTED (or INVALID_ARGUMENT past the
 * GPU's last link) ends the list; a GPU without NVLink has none. */
static void nvlinks(const struct gv_nvml_api *nv, gvnv_device dev, gv_gpu_record *r)
{
    if (!nv->device_get_nvlink_state)
        return;
    for (unsigned link = 0; link < GV_NVLINK_MAX; link++) {
        gvnv_enable_state active;
        if (nv->device_get_nvlink_state(dev, link, &active) != GVNV_SUCCESS)
            continue;
        gv_nvlink *l = &r->nvlinks[r->nvlink_count++];
        l->active = active == GVNV_FEATURE_ENABLED;
        gvnv_pci_info pci;
        memset(&pci, 0, sizeof pci);
        if (l->active && nv->device_get_nvlink_remote_pci_info &&
            nv->device_get_nvlink_remote_pci_info(dev, link, &pci) == GVNV_SUCCESS)
            l->remote_known = gv_pci_parse_addr(pci.bus_id, &l->remote) == 0;
        gvnv_nvlink_device_type type;
        if (l->active && nv->device_get_nvlink_remote_device_type &&
            nv->device_get_nvlink_remote_device_type(dev, link, &type) == GVNV_SUCCESS)
            l->to_switch = type == GVNV_NVLINK_DEVICE_TYPE_SWITCH;
        l->remote_link = -1;
    }
    remote_links(nv, dev, r);
}

int gv_nvlinks_between(const gv_gpu_record *a, const gv_gpu_record *b)
{
    gv_pci_addr addr_b;
    if (!a || !b || gv_pci_parse_addr(b->gpu.pci_bus_id, &addr_b) != 0)
        return 0;
    int direct = 0, switch_a = 0, switch_b = 0;
    for (int i = 0; i < a->nvlink_count; i++) {
        const gv_nvlink *l = &a->nvlinks[i];
        switch_a += l->active && l->to_switch;
        direct += l->active && !l->to_switch && l->remote_known &&
                  gv_pci_addr_compare(&l->remote, &addr_b) == 0;
    }
    for (int i = 0; i < b->nvlink_count; i++)
        switch_b += b->nvlinks[i].active && b->nvlinks[i].to_switch;
    if (direct)
        return direct;
    return switch_a < switch_b ? switch_a : switch_b;
}

double gv_nvlink_nominal_gbps(const gv_gpu_record *a, const gv_gpu_record *b)
{
    int links = gv_nvlinks_between(a, b);
    int cc = a ? a->gpu.cc_major : 0;
    double lane = cc >= 10 ? 50.0 : cc >= 7 ? 25.0 : 0;
    return links * lane;
}

static void device(const struct gv_nvml_api *nv, gvnv_device dev, gv_gpu_record *r,
                   unsigned optional)
{
    gv_gpu *g = &r->gpu;
    char text[GVNV_DEVICE_UUID_V2_BUFFER_SIZE];
    if (NVML_QUERY(r, nv, device_get_name, dev, text, sizeof text))
        snprintf(g->name, sizeof g->name, "%s", text);
    if (NVML_QUERY(r, nv, device_get_uuid, dev, text, sizeof text))
        snprintf(g->uuid, sizeof g->uuid, "%s", text);
    if (NVML_QUERY(r, nv, device_get_serial, dev, text, sizeof text))
        snprintf(g->serial, sizeof g->serial, "%s", text);
    if (NVML_QUERY(r, nv, device_get_vbios_version, dev, text, sizeof text))
        snprintf(g->vbios, sizeof g->vbios, "%s", text);
    /* Firmware versions are facts for the fleet's majority, not judged on the node: a GPU
     * that does not answer keeps "" and no error. NVML's GSP buffer is 64 bytes. */
    char firmware[GVNV_GSP_FIRMWARE_VERSION_BUFFER_SIZE] = "";
    if (nv->device_get_inforom_image_version &&
        nv->device_get_inforom_image_version(dev, firmware, sizeof firmware) == GVNV_SUCCESS)
        snprintf(g->inforom_image, sizeof g->inforom_image, "%s", firmware);
    firmware[0] = '\0';
    if (nv->device_get_gsp_firmware_version &&
        nv->device_get_gsp_firmware_version(dev, firmware) == GVNV_SUCCESS)
        snprintf(g->gsp_firmware, sizeof g->gsp_firmware, "%s", firmware);
    firmware[0] = '\0';
    if (nv->device_get_board_part_number &&
        nv->device_get_board_part_number(dev, firmware, sizeof firmware) == GVNV_SUCCESS)
        snprintf(g->board_part_number, sizeof g->board_part_number, "%s", firmware);
    gvnv_memory mem;
    if (NVML_QUERY(r, nv, device_get_memory_info, dev, &mem)) {
        g->memory_total = (int64_t)mem.total;
        g->memory_used = (int64_t)mem.used;
        g->memory_free = (int64_t)mem.free;
    }
    int major, minor;
    if (NVML_QUERY(r, nv, device_get_cuda_compute_capability, dev, &major, &minor)) {
        g->cc_major = major;
        g->cc_minor = minor;
    }
    unsigned u, v;
    if (NVML_QUERY(r, nv, device_get_max_clock_info, dev, GVNV_CLOCK_SM, &u))
        g->max_sm_clock_mhz = (int32_t)u;
    gvnv_enable_state cur, pend;
    if (NVML_QUERY(r, nv, device_get_persistence_mode, dev, &cur))
        g->persistence_mode = cur;
    if (NVML_QUERY(r, nv, device_get_ecc_mode, dev, &cur, &pend)) {
        g->ecc_current = cur;
        g->ecc_pending = pend;
    }
    if (NVML_QUERY(r, nv, device_get_mig_mode, dev, &u, &v)) {
        g->mig_current = (int32_t)u;
        g->mig_pending = (int32_t)v;
    }
    gvnv_compute_mode mode;
    if (NVML_QUERY(r, nv, device_get_compute_mode, dev, &mode))
        g->compute_mode = mode;
    if (NVML_QUERY(r, nv, device_get_power_management_limit, dev, &u))
        g->power_limit_mw = (int32_t)u;
    if (NVML_QUERY(r, nv, device_get_temperature, dev, GVNV_TEMPERATURE_GPU, &u))
        g->temperature_c = (int32_t)u;
    if (NVML_QUERY(r, nv, device_get_curr_pcie_link_generation, dev, &u))
        g->pcie_gen_current = (int32_t)u;
    if (NVML_QUERY(r, nv, device_get_max_pcie_link_generation, dev, &u))
        g->pcie_gen_max = (int32_t)u;
    if (NVML_QUERY(r, nv, device_get_curr_pcie_link_width, dev, &u))
        g->pcie_width_current = (int32_t)u;
    if (NVML_QUERY(r, nv, device_get_max_pcie_link_width, dev, &u))
        g->pcie_width_max = (int32_t)u;
    gvnv_utilization use;
    if (NVML_QUERY(r, nv, device_get_utilization_rates, dev, &use))
        r->utilization = (int)use.gpu;
    nvlinks(nv, dev, r);
    if (optional & GV_FACTS_HEALTH)
        gv_health_from_nvml(nv, dev, r->nvlink_count, &r->health);
    else if (optional & GV_FACTS_CUDA)
        gv_health_read_fabric(nv, dev, &r->health); /* what cuInit waits for (below) */
}

/* An NVML device whose handle or address could not be read: NVML enumerates in PCI order, so
 * when NVML and PCI agree on the count, index i is the i-th PCI GPU. */
static gv_gpu_record *unaddressed(gv_facts *f, unsigned index)
{
    if (f->pci_count == f->nvml_count && index < f->gpu_count) {
        size_t seen = 0;
        for (size_t k = 0; k < f->gpu_count; k++) {
            if (!f->gpus[k].in_pci)
                continue;
            if (seen++ == index && f->gpus[k].gpu.nvml_index < 0)
                return &f->gpus[k];
        }
    }
    return gv_facts_gpu_add(f);
}

/* A state of some GPUs on its way (core/settle.h), read again until it settles: which GPUs, and
 * how each is read again. */
typedef struct {
    const struct gv_nvml_api *nv;
    gv_facts *f;
    int (*gpu_on_its_way)(const gv_facts *f, const gv_gpu_record *r);
    void (*read)(const struct gv_nvml_api *nv, gvnv_device dev, const gv_facts *f,
                 gv_gpu_record *r);
} nvml_wait;

static int on_its_way(void *user)
{
    const nvml_wait *w = user;
    for (size_t i = 0; i < w->f->gpu_count; i++)
        if (w->gpu_on_its_way(w->f, &w->f->gpus[i]))
            return 1;
    return 0;
}

static void read_again(void *user)
{
    const nvml_wait *w = user;
    for (size_t i = 0; i < w->f->gpu_count; i++) {
        gv_gpu_record *r = &w->f->gpus[i];
        gvnv_device dev = NULL;
        if (r->gpu.nvml_index >= 0 && w->gpu_on_its_way(w->f, r) &&
            w->nv->device_get_handle_by_index((unsigned)r->gpu.nvml_index, &dev) == GVNV_SUCCESS)
            w->read(w->nv, dev, w->f, r);
    }
}

/* The NVSwitch fabric on its way: the fabric manager registers the GPUs tens of seconds after
 * the driver loads (probe in progress), and at boot it may not have started yet; cuInit says
 * CUDA_ERROR_SYSTEM_NOT_READY until it is done. The GPUs' NVLinks train with it and are read
 * again once it completed. */
static int gpu_fabric_on_its_way(const gv_facts *f, const gv_gpu_record *r)
{
    int state = r->health.fabric_state;
    return r->gpu.nvml_index >= 0 &&
           (state == GVNV_FABRIC_STATE_IN_PROGRESS ||
            (state == GVNV_FABRIC_STATE_NOT_STARTED && gv_settle_booting(f->uptime_s)));
}

static void read_fabric(const struct gv_nvml_api *nv, gvnv_device dev, const gv_facts *f,
                        gv_gpu_record *r)
{
    gv_health_read_fabric(nv, dev, &r->health);
    if (!gpu_fabric_on_its_way(f, r)) {
        r->nvlink_count = 0;
        memset(r->nvlinks, 0, sizeof r->nvlinks);
        nvlinks(nv, dev, r);
    }
}

/* Memory no listed process holds, beyond what contexts keep out of their processes' figures
 * (facts/health.h: gv_unowned_allowance): a process that ended still giving it back. */
static int gpu_unowned_on_its_way(const gv_facts *f, const gv_gpu_record *r)
{
    (void)f;
    return gv_unowned_beyond_allowance(&r->health);
}

static void read_unowned(const struct gv_nvml_api *nv, gvnv_device dev, const gv_facts *f,
                         gv_gpu_record *r)
{
    (void)f;
    gv_health_read_unowned(nv, dev, &r->health);
}

static int named_by_nvml(const gv_gpu_record *r)
{
    return r->gpu.nvml_index >= 0;
}

void gv_facts_nvml(gv_ctx *ctx, gv_facts *f)
{
    gv_progress_begin(ctx, "driver.nvml", "node");
    gv_progress_stage(ctx, "loading NVML and nvmlInit_v2");
    const struct gv_nvml_api *nv = gv_nvml(ctx);
    f->nvml_lib = ctx->libs[GV_LIB_NVML];
    f->nvml_init = ctx->nvml_init_result;
    if (!nv)
        return;
    char text[GVNV_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    if (nv->system_get_driver_version(text, sizeof text) == GVNV_SUCCESS)
        snprintf(f->driver_version, sizeof f->driver_version, "%s", text);
    if (nv->system_get_nvml_version(text, sizeof text) == GVNV_SUCCESS)
        snprintf(f->nvml_version, sizeof f->nvml_version, "%s", text);
    int cv;
    if (nv->system_get_cuda_driver_version && nv->system_get_cuda_driver_version(&cv) == 0)
        f->nvml_cuda_version = cv;
    unsigned count = 0;
    gv_progress_stage(ctx, "nvmlDeviceGetCount");
    if (nv->device_get_count(&count) != GVNV_SUCCESS)
        return;
    f->nvml_count = (int)count;
    for (unsigned i = 0; i < count; i++) {
        gvnv_device dev = NULL;
        gvnv_pci_info pci;
        memset(&pci, 0, sizeof pci);
        if (i < GV_PROGRESS_MAX_GPUS && ctx->nvml_gpu_refused[i]) {
            gv_gpu_record *r = unaddressed(f, i);
            if (!r)
                return;
            r->gpu.nvml_index = (int32_t)i;
            r->gpu.nvml_result = GVNV_ERROR_UNKNOWN;
            snprintf(r->problem, sizeof r->problem,
                     "NVML's queries of this GPU hung or crashed gpuverify-worker earlier in this "
                     "run: not asked again");
            continue;
        }
        gv_progress_stage(ctx, GV_FACTS_NVML_GPU_STAGE, i);
        gvnv_return rc = nv->device_get_handle_by_index(i, &dev);
        const char *what = "nvmlDeviceGetHandleByIndex";
        if (rc == GVNV_SUCCESS) {
            rc = nv->device_get_pci_info(dev, &pci);
            what = "nvmlDeviceGetPciInfo";
        }
        gv_pci_addr addr;
        gv_gpu_record *r;
        if (rc == GVNV_SUCCESS && gv_pci_parse_addr(pci.bus_id, &addr) == 0)
            r = gv_facts_gpu_join(f, &addr, named_by_nvml);
        else
            r = unaddressed(f, i);
        if (!r)
            return;
        r->gpu.nvml_index = (int32_t)i;
        if (rc != GVNV_SUCCESS) {
            took(r, what, rc);
            continue;
        }
        if (r->gpu.pci_device_id < 0) {
            r->gpu.pci_vendor_id = (int32_t)(pci.pci_device_id & 0xffffu);
            r->gpu.pci_device_id = (int32_t)(pci.pci_device_id >> 16);
        }
        device(nv, dev, r, f->optional);
    }
    /* cuInit answers CUDA_ERROR_SYSTEM_NOT_READY until the fabric is up, so driver.cuda waits
     * for it too, health facts or not: checked alone on a node still booting it would FAIL
     * driver.cuda for what the node was about to become. */
    if (f->optional & (GV_FACTS_HEALTH | GV_FACTS_CUDA)) {
        nvml_wait w = {nv, f, gpu_fabric_on_its_way, read_fabric};
        f->fabric_wait_s = gv_settle(ctx, "waiting for the NVSwitch fabric (nvidia-fabricmanager)",
                                     on_its_way, read_again, &w);
    }
    /* A process that just ended is still giving its memory back: waited for, as a state on its
     * way, before memory no process holds is taken for memory left behind. */
    if (f->optional & GV_FACTS_HEALTH && f->host_pid_ns == 1) {
        nvml_wait w = {nv, f, gpu_unowned_on_its_way, read_unowned};
        f->unowned_wait_s = gv_settle(ctx, "waiting for the memory of processes that ended",
                                      on_its_way, read_again, &w);
    }
}
