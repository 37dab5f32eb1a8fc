/* SPDX-License-Identifier: Apache-2.0 */
/* Facts from files under the sysroot: OS, kernel, modules, the NVIDIA module's own files and
 * the GPUs' PCI functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/facts_internal.h"
#include "sys/modules.h"
#include "sys/sysroot.h"

static void modules(gv_facts *f)
{
    gv_modules mods;
    if (!gv_sys_exists(f->sysroot, "/proc/modules") && !gv_sys_exists(f->sysroot, "/sys/module")) {
        /* No node's tree at all: a --host-root mount at another path, a capture that failed. */
        f->nvidia_loaded = f->nouveau_loaded = -1;
        f->modules_src.status =
            gv_err(&f->modules_src.err, GV_ERR_IO,
                   "%s has neither /proc/modules nor /sys/module: not a running node's root (the "
                   "host's / mounted at another path?)",
                   gv_sys_shown(f->sysroot));
        return;
    }
    if (!gv_sys_exists(f->sysroot, "/proc/modules")) {
        /* A kernel without loadable modules: drivers are built in, seen in /sys/module. */
        f->nvidia_loaded = gv_module_present(f->sysroot, NULL, "nvidia");
        f->nouveau_loaded = gv_module_present(f->sysroot, NULL, "nouveau");
        return;
    }
    f->modules_src.status = gv_modules_read(f->sysroot, &mods, &f->modules_src.err);
    if (f->modules_src.status != GV_OK) {
        /* /sys/module still tells loaded (or built-in) modules apart. */
        f->nvidia_loaded = gv_module_present(f->sysroot, NULL, "nvidia") ? 1 : -1;
        f->nouveau_loaded = gv_module_present(f->sysroot, NULL, "nouveau") ? 1 : -1;
        return;
    }
    f->nvidia_loaded = gv_module_present(f->sysroot, &mods, "nvidia");
    f->nouveau_loaded = gv_module_present(f->sysroot, &mods, "nouveau");
    gv_modules_free(&mods);
}

/* The NVSwitches beside the GPUs (bridge class 0x0680): an HGX baseboard's, where the
 * switches are PCI functions of the host. */
static void pci_nvswitches(gv_facts *f)
{
    gv_pci_function *fns = NULL;
    size_t n = 0;
    gv_errbuf err;
    if (gv_pci_nvidia_functions(f->sysroot, 0x068000, 0xffff00, &fns, &n, &err) == GV_OK) {
        f->nvswitch_count = (int)n;
        f->nvswitch_device = n ? fns[0].device : -1;
    }
    free(fns);
}

static void pci_gpus(gv_facts *f)
{
    gv_pci_function *fns = NULL;
    size_t n = 0;
    f->pci_src.status = gv_pci_nvidia_gpus(f->sysroot, &fns, &n, &f->pci_src.err);
    if (f->pci_src.status != GV_OK)
        return;
    f->pci_count = (int)n;
    for (size_t i = 0; i < n; i++) {
        /* A GPU listed under no address is a GPU of its own, never matched by one. */
        gv_gpu_record *r =
            fns[i].addr_unknown ? gv_facts_gpu_add(f) : gv_facts_gpu_at(f, &fns[i].addr);
        if (!r)
            break;
        gv_gpu *g = &r->gpu;
        r->in_pci = 1;
        g->pci_vendor_id = fns[i].vendor;
        g->pci_device_id = fns[i].device;
        g->pci_class = fns[i].class_code;
        g->numa_node = fns[i].numa_node;
        snprintf(g->local_cpus, sizeof g->local_cpus, "%s", fns[i].local_cpus);
        g->link_speed_current_gts = fns[i].link_speed_current;
        g->link_speed_max_gts = fns[i].link_speed_max;
        g->link_width_current_sysfs = fns[i].link_width_current;
        g->link_width_max_sysfs = fns[i].link_width_max;
        r->upstream_speed_max = fns[i].upstream_speed_max;
        r->upstream_width_max = fns[i].upstream_width_max;
        snprintf(r->pci_problem, sizeof r->pci_problem, "%s", fns[i].problem);
        snprintf(r->link_problem, sizeof r->link_problem, "%s", fns[i].link_problem);
        snprintf(r->driver, sizeof r->driver, "%s", fns[i].driver);
        gv_errbuf err;
        if ((f->optional & GV_FACTS_HEALTH) && !fns[i].addr_unknown &&
            gv_aer_read(f->sysroot, &fns[i].addr, &r->health.aer, &err) != GV_OK)
            snprintf(r->health.aer_problem, sizeof r->health.aer_problem, "%s", err.text);
    }
    free(fns);
}

static int in_proc(const gv_gpu_record *r)
{
    return r->in_proc;
}

static void proc_gpus(gv_facts *f)
{
    gv_nvidia_gpu_info *info = NULL;
    size_t n = 0;
    f->proc_gpus_src.status = gv_read_nvidia_gpus(f->sysroot, &info, &n, &f->proc_gpus_src.err);
    /* Entries of a GPU's own address first, so that one whose domain the driver truncated
     * joins a GPU no entry names exactly. */
    for (size_t k = 0; k < 2 * n; k++) {
        size_t i = k % n;
        gv_pci_addr a;
        if (gv_pci_parse_addr(info[i].bus_id, &a) != 0 || (k < n) != !!gv_facts_gpu_find(f, &a))
            continue;
        gv_gpu_record *r = k < n ? gv_facts_gpu_find(f, &a) : gv_facts_gpu_join(f, &a, in_proc);
        if (!r)
            break;
        r->in_proc = 1;
        memcpy(r->proc_problem, info[i].problem, sizeof r->proc_problem);
        r->excluded = info[i].excluded;
        r->minor = info[i].minor;
        snprintf(r->gpu.name, sizeof r->gpu.name, "%s", info[i].model);
        snprintf(r->gpu.uuid, sizeof r->gpu.uuid, "%s", info[i].uuid);
        snprintf(r->gpu.vbios, sizeof r->gpu.vbios, "%s", info[i].vbios);
    }
    free(info);
}

void gv_facts_files(gv_facts *f)
{
    const char *root = f->sysroot;
    f->os_src.status = gv_read_os_release(root, &f->os, &f->os_src.err);
    f->kernel_src.status =
        gv_read_kernel_release(root, f->kernel, sizeof f->kernel, &f->kernel_src.err);
    gv_read_hostname(root, f->hostname, sizeof f->hostname);
    f->uptime_s = gv_read_uptime_s(root);
    f->host_pid_ns = gv_host_pid_namespace(root);
    f->root_proc_hosts = gv_root_proc_is_hosts(root);
    modules(f);
    f->version_file_present = gv_sys_exists(root, "/proc/driver/nvidia/version");
    if (f->version_file_present)
        f->version_src.status = gv_read_nvidia_version(root, &f->module, &f->version_src.err);
    f->sysfs_module_src.status =
        gv_read_nvidia_sysfs_module(root, f->sysfs_version, sizeof f->sysfs_version, f->sysfs_taint,
                                    sizeof f->sysfs_taint, &f->sysfs_module_src.err);
    pci_gpus(f);
    pci_nvswitches(f);
    proc_gpus(f);
}
