/* SPDX-License-Identifier: Apache-2.0 */
/* driver.module, driver.nvml, driver.version, driver.cuda: is the NVIDIA driver stack there,
 * consistent, and usable from user space? */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/cuda_backend.h"
#include "backends/nvml_backend.h"
#include "checks/checks.h"
#include "gpuverify/gv_driver.h"

void gv_check_driver_module(const gv_facts *f, gv_report *r)
{
    const char *id = gv_id_driver_module;
    /* What the node's files say and the driver's settings: configuration, whatever the fix
     * takes (a reboot to load one module). */
    if (f->nvidia_loaded < 0) {
        gv_result_action(gv_report_add(r, id, "node", GV_ERROR, "%s", f->modules_src.err.text),
                         GV_ACTION_FIX_CONFIG);
        return;
    }
    if (f->nouveau_loaded == 1) {
        gv_check_result *c =
            gv_report_add(r, id, "node", GV_FAIL,
                          "the nouveau module is loaded: it claims NVIDIA GPUs before nvidia");
        gv_result_remedy(c, "blacklist nouveau (/etc/modprobe.d), rebuild the initramfs, reboot");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
        return;
    }
    if (!f->nvidia_loaded) {
        if (!gv_facts_has_gpus(f)) {
            gv_report_add(r, id, "node", GV_SKIP,
                          "no nvidia module and no NVIDIA GPU on the PCI bus: not applicable");
            return;
        }
        char seen[64] = "the NVIDIA libraries see GPUs (the PCI bus unread)";
        if (f->pci_count >= 0)
            snprintf(seen, sizeof seen, "PCI shows %d NVIDIA GPU(s)", f->pci_count);
        gv_check_result *c =
            gv_report_add(r, id, "node", GV_FAIL, "nvidia kernel module not loaded, but %s", seen);
        gv_result_remedy(c, "install the NVIDIA driver for kernel %s, then `modprobe nvidia`",
                         f->kernel[0] ? f->kernel : "(unknown)");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
        return;
    }
    if (f->version_file_present && f->version_src.status != GV_OK) {
        gv_result_action(gv_report_add(r, id, "node", GV_ERROR, "%s", f->version_src.err.text),
                         GV_ACTION_FIX_CONFIG);
        return;
    }
    if (f->sysfs_module_src.status != GV_OK) {
        gv_result_action(gv_report_add(r, id, "node", GV_ERROR, "%s", f->sysfs_module_src.err.text),
                         GV_ACTION_FIX_CONFIG);
        return;
    }
    const char *kind = f->module.kind == GV_MODULE_OPEN          ? "open kernel module"
                       : f->module.kind == GV_MODULE_PROPRIETARY ? "proprietary kernel module"
                                                                 : "kernel module";
    if (!f->version_file_present) {
        gv_report_add(r, id, "node", GV_PASS,
                      "nvidia module loaded; /proc/driver/nvidia/version absent, version unknown");
        return;
    }
    if (f->sysfs_version[0] && strcmp(f->sysfs_version, f->module.version) != 0) {
        gv_check_result *c =
            gv_report_add(r, id, "node", GV_WARN,
                          "/proc/driver/nvidia/version says %s but /sys/module/nvidia/version "
                          "says %s",
                          f->module.version, f->sysfs_version);
        gv_result_measured(c, NAN, "", "%s", f->sysfs_version);
        gv_result_expected(c, "/proc/driver/nvidia/version", "%s", f->module.version);
        gv_result_remedy(c, "reboot so one nvidia module version is loaded");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
        return;
    }
    gv_check_result *c =
        gv_report_add(r, id, "node", GV_PASS, "nvidia %s loaded (%s%s%s%s%s)", f->module.version,
                      kind, f->module.arch[0] ? ", " : "", f->module.arch,
                      f->sysfs_taint[0] ? ", taint " : "", f->sysfs_taint);
    gv_result_measured(c, NAN, "", "%s", f->module.version);
}

static gv_check_result *library_unusable(const gv_facts *f, gv_report *r, const char *id,
                                         const gv_lib_slot *lib, const char *what)
{
    if (lib->state == GV_LIBSTATE_NOT_QUERIED) {
        gv_report_add(r, id, "node", GV_SKIP, "%s", lib->detail);
        return NULL;
    }
    if (lib->state == GV_LIBSTATE_ABSENT && !gv_facts_has_gpus(f) && f->nvidia_loaded != 1) {
        gv_report_add(r, id, "node", GV_SKIP, "no NVIDIA GPU and no %s (tried: %s)", what,
                      lib->tried);
        return NULL;
    }
    if (lib->state == GV_LIBSTATE_ABSENT) {
        gv_check_result *c =
            gv_report_add(r, id, "node", GV_FAIL, "%s not found (tried: %s)%s%s", what, lib->tried,
                          lib->detail[0] ? ": " : "", lib->detail);
        gv_result_remedy(c,
                         "install the NVIDIA driver's user-space libraries matching the kernel "
                         "module, check ld.so.conf/LD_LIBRARY_PATH, or name the file with "
                         "GPUVERIFY_%s_LIBRARY",
                         strcmp(what, "NVML") == 0 ? "NVML" : "CUDA");
        gv_result_action(c, GV_ACTION_FIX_CONFIG); /* an installation to complete */
        return c;
    }
    if (lib->state == GV_LIBSTATE_BROKEN) {
        const char *file = lib->path[0] ? lib->path : lib->tried;
        gv_check_result *c =
            gv_report_add(r, id, "node", GV_FAIL, "%s unusable: %s%s%s%s", what, lib->detail,
                          file[0] ? " (" : "", file, file[0] ? ")" : "");
        gv_result_remedy(c, "reinstall the NVIDIA driver's user-space libraries");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
        return c;
    }
    return NULL;
}

void gv_check_driver_nvml(const gv_facts *f, gv_report *r)
{
    const char *id = gv_id_driver_nvml;
    if (f->nvml_lib.state != GV_LIBSTATE_LOADED) {
        library_unusable(f, r, id, &f->nvml_lib, "NVML");
        return;
    }
    char buf[32];
    if (f->nvml_init != 0) {
        const char *name = gv_nvml_error_name(f->nvml_init, buf, sizeof buf);
        gv_check_result *c;
        if (f->nvml_init == GVNV_ERROR_LIB_RM_VERSION_MISMATCH) {
            c = gv_report_add(r, id, "node", GV_FAIL,
                              "nvmlInit: %s: library %s%s does not match the kernel module %s",
                              name, f->nvml_lib.path,
                              f->nvml_lib.version[0] ? "" : " (version unknown)",
                              f->module.version[0] ? f->module.version : "(unknown)");
            gv_result_measured(c, NAN, "", "%s", f->nvml_lib.version);
            gv_result_expected(c, "kernel module", "%s", f->module.version);
            gv_result_remedy(c, "reboot, or unload and reload the nvidia modules, so the kernel "
                                "module matches the installed driver libraries");
        } else if (f->nvml_init == GVNV_ERROR_DRIVER_NOT_LOADED) {
            c = gv_report_add(r, id, "node", GV_FAIL, "nvmlInit: %s", name);
            gv_result_remedy(c, "load the nvidia kernel module (`modprobe nvidia`)");
        } else if (f->nvml_init == GVNV_ERROR_NO_PERMISSION) {
            c = gv_report_add(r, id, "node", GV_FAIL, "nvmlInit: %s", name);
            gv_result_remedy(c, "check permissions of /dev/nvidiactl and /dev/nvidia*");
        } else {
            c = gv_report_add(r, id, "node", GV_FAIL, "nvmlInit: %s", name);
            gv_result_remedy(c, "check `dmesg` for NVRM errors; reinstall the driver if needed");
        }
        /* A mismatch, a module not loaded, permissions: the installation. Any other error is
         * a loaded driver that will not start: a reboot loads it afresh. */
        gv_result_action(c, f->nvml_init == GVNV_ERROR_LIB_RM_VERSION_MISMATCH ||
                                    f->nvml_init == GVNV_ERROR_DRIVER_NOT_LOADED ||
                                    f->nvml_init == GVNV_ERROR_NO_PERMISSION
                                ? GV_ACTION_FIX_CONFIG
                                : GV_ACTION_REBOOT_NODE);
        return;
    }
    gv_check_result *c =
        gv_report_add(r, id, "node", GV_PASS, "NVML %s from %s",
                      f->nvml_version[0] ? f->nvml_version : "(version unknown)", f->nvml_lib.path);
    gv_result_measured(c, NAN, "", "%s", f->nvml_version);
}

void gv_check_driver_version(const gv_facts *f, gv_report *r)
{
    const char *id = gv_id_driver_version;
    const char *module = f->module.version;
    /* The user-space side: NVML's answer, else the library's file name (libnvidia-ml.so.X). */
    const char *user = f->driver_version[0] ? f->driver_version : f->nvml_lib.version;
    const char *user_src = f->driver_version[0] ? "NVML" : "libnvidia-ml file name";
    /* A version file that is there but holds no version: the version is unknown, not absent. */
    if (f->version_file_present && f->version_src.status != GV_OK) {
        gv_check_result *c = gv_report_add(r, id, "node", GV_ERROR, "%s", f->version_src.err.text);
        gv_result_remedy(c, "reload the nvidia module; a sysroot's copy of the file is damaged");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
        return;
    }
    if (!module[0] && !user[0]) {
        gv_report_add(r, id, "node", GV_SKIP,
                      "no driver version: no module version file and no NVML answer");
        return;
    }
    if (module[0] && user[0] && strcmp(module, user) != 0) {
        gv_check_result *c = gv_report_add(
            r, id, "node", GV_FAIL,
            "driver/library version mismatch: kernel module %s, user-space driver %s (%s)", module,
            user, user_src);
        gv_result_measured(c, NAN, "", "%s", user);
        gv_result_expected(c, "kernel module", "%s", module);
        gv_result_remedy(c, "reboot, or reload the nvidia modules, after a driver upgrade; make "
                            "sure one driver version is installed");
        gv_result_action(c, GV_ACTION_FIX_CONFIG);
        return;
    }
    gv_check_result *c =
        gv_report_add(r, id, "node", GV_PASS, "driver %s%s", module[0] ? module : user,
                      module[0] && user[0] ? " (kernel module and user space agree)"
                      : module[0]          ? " (kernel module)"
                                           : " (user space only)");
    gv_result_measured(c, NAN, "", "%s", module[0] ? module : user);
    if (module[0] && user[0])
        gv_result_expected(c, "kernel module", "%s", module);
}

/* What cuInit's error says to do, the action it asks for, and the check that judges its cause
 * and needs no facts beyond the basic ones (NULL: none), for gv_run to bring into the run. */
static const char *cuinit_remedy(int result, int32_t *action, const char **judged_by)
{
    *judged_by = NULL;
    *action = GV_ACTION_FIX_CONFIG;
    switch (result) {
    case GVCU_ERROR_SYSTEM_NOT_READY:
        /* NVSwitch systems: CUDA waits for the fabric manager to set the fabric up. Named,
         * not brought in: gpu.fabric reads facts a run of driver.cuda alone does not gather. */
        return "CUDA waits for a system daemon: on an NVSwitch node start nvidia-fabricmanager "
               "(systemctl status nvidia-fabricmanager) and read its log (gpu.fabric)";
    case GVCU_ERROR_SYSTEM_DRIVER_MISMATCH:
        *judged_by = gv_id_driver_version;
        return "libcuda and the kernel module are of different drivers: reboot after the driver "
               "upgrade, or reinstall one driver (driver.version names both)";
    case GVCU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        return "a CUDA forward-compatibility libcuda is loaded for GPUs that do not support it: "
               "take the cuda-compat directory out of the library path";
    case GVCU_ERROR_STUB_LIBRARY:
        return "the libcuda loaded is the toolkit's stub (lib64/stubs): take it out of the "
               "library path so the driver's libcuda.so.1 loads";
    default:
        /* No device beside GPUs on the bus: the device files or the container's share of
         * them. Anything else is a driver that loaded and will not start: a reboot. */
        *action = result == GVCU_ERROR_NO_DEVICE ? GV_ACTION_FIX_CONFIG : GV_ACTION_REBOOT_NODE;
        return "check `dmesg` for NVRM/Xid errors and that /dev/nvidia* exist; the driver may "
               "need a reload or the node a reboot";
    }
}

void gv_check_driver_cuda(const gv_facts *f, gv_report *r)
{
    const char *id = gv_id_driver_cuda;
    if (f->cuda_lib.state != GV_LIBSTATE_LOADED) {
        library_unusable(f, r, id, &f->cuda_lib, "libcuda");
        return;
    }
    char buf[48];
    int v = f->cuda_driver_version;
    if (f->cuda_init != 0) {
        const char *name = gv_cuda_error_name(f->cuda_init, buf, sizeof buf);
        if (f->cuda_init == GVCU_ERROR_NO_DEVICE && f->gpu_count == 0 && f->policy &&
            f->policy->gpu_count == 0) {
            /* A CPU node by the site's policy whose image ships the driver's libraries. */
            gv_report_add(r, id, "node", GV_SKIP,
                          "cuInit: %s: no GPU, as the policy expects (gpu_count = 0)", name);
            return;
        }
        if (f->cuda_init == GVCU_ERROR_NO_DEVICE && f->gpu_count == 0 && f->other_count) {
            /* None of the node's GPUs is this process's (facts_reach.c): no device is right. */
            gv_report_add(r, id, "node", GV_SKIP,
                          "cuInit: %s: none of the node's GPUs is this process's "
                          "(driver.gpu_count judges that)",
                          name);
            gv_report_delegate(r, gv_id_driver_gpu_count);
            return;
        }
        /* Hidden by CUDA_VISIBLE_DEVICES: no GPU is broken, but no CUDA test could run, and
         * a report of nothing tested is not a healthy node: an ERROR, as given none at all. */
        int hidden = f->cuda_visible_set && f->cuda_init == GVCU_ERROR_NO_DEVICE;
        gv_check_result *c =
            gv_report_add(r, id, "node", hidden ? GV_ERROR : GV_FAIL, "cuInit: %s (libcuda %s%s%s)",
                          name, f->cuda_lib.path, hidden ? "; CUDA_VISIBLE_DEVICES=" : "",
                          hidden ? f->cuda_visible : "");
        const char *judged_by = NULL;
        int32_t action;
        const char *remedy = cuinit_remedy(f->cuda_init, &action, &judged_by);
        gv_result_remedy(c, "%s",
                         hidden ? "CUDA_VISIBLE_DEVICES hides every GPU from this process: unset "
                                  "it, or name the GPUs to test"
                                : remedy);
        gv_result_action(c, hidden ? GV_ACTION_FIX_CONFIG : action);
        if (judged_by && !hidden)
            gv_report_delegate(r, judged_by);
        return;
    }
    gv_check_result *c =
        gv_report_add(r, id, "node", GV_PASS, "CUDA driver API %d.%d, cuInit OK (%s)", v / 1000,
                      (v % 1000) / 10, f->cuda_lib.path);
    gv_result_measured(c, v, "", "%d.%d", v / 1000, (v % 1000) / 10);
    if (c && f->nvml_cuda_version > 0 && f->nvml_cuda_version != v)
        snprintf(c->message + strlen(c->message), sizeof c->message - strlen(c->message),
                 "; NVML reports CUDA %d.%d (a forward-compatibility libcuda?)",
                 f->nvml_cuda_version / 1000, (f->nvml_cuda_version % 1000) / 10);
}
