/* SPDX-License-Identifier: Apache-2.0 */
/* Which of the node's GPUs this process may use. A container or a batch job is given some of
 * the node's GPUs: the others stay on the PCI bus, bound to the nvidia driver, but this process
 * may not open their device nodes, so NVML leaves them out of its count (or answers
 * NVML_ERROR_NO_PERMISSION) and CUDA does not enumerate them. Measured on an H100 whose
 * /dev/nvidia0 this process could not open: NVML counted 0 GPUs, cuInit said no device, and
 * every GPU check took the GPU for one that fell off the bus (FAIL). Such a GPU is set apart
 * here, out of every check's reach; driver.gpu_count counts it and says why it was not tested.
 * A GPU this process may open but NVML does not list stays, and is judged as before; so does
 * one whose node is absent from a host's /dev. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/nvabi/nvml_abi.h"
#include "facts/facts_internal.h"
#include "sys/mounts.h"
#include "sys/sysroot.h"

/* Whether this process's /dev is one a container runtime made (a tmpfs of the nodes it gives),
 * read once per gathering: 1 yes, 0 a host's devtmpfs or unknown, -1 not read yet. */
static int dev_made_by_runtime(const gv_facts *f, int *known)
{
    if (*known < 0) {
        char fstype[64];
        gv_errbuf ignored;
        *known = gv_mount_fstype(f->sysroot, "/dev", fstype, sizeof fstype, &ignored) == GV_OK &&
                 strcmp(fstype, "devtmpfs") != 0;
    }
    return *known;
}

/* The reason this process may not use the GPU, into why; 0 when it may (or it is broken). */
static int not_ours(const gv_facts *f, const gv_gpu_record *r, int *dev_by_runtime, char *why,
                    size_t cap)
{
    if (r->gpu.nvml_index >= 0) {
        if (r->gpu.nvml_result != GVNV_ERROR_NO_PERMISSION)
            return 0;
        snprintf(why, cap,
                 "NVML may not open it (NVML_ERROR_NO_PERMISSION): this process's "
                 "cgroup or the device node's mode");
        return 1;
    }
    /* Not in NVML: only a GPU the driver has, and NVML would list if it could open it. */
    if (!f->live || f->nvml_init != 0 || !r->in_pci || r->excluded ||
        strcmp(r->driver, "nvidia") != 0)
        return 0;
    if (!r->in_proc) {
        /* The driver gives every GPU it binds an entry; a container runtime mounts only its
         * own GPUs' entries over /proc/driver/nvidia (libnvidia-container). */
        if (f->proc_gpus_src.status != GV_OK || !f->version_file_present)
            return 0;
        snprintf(why, cap,
                 "bound to the nvidia driver but not in this process's "
                 "/proc/driver/nvidia/gpus: a container given other GPUs");
        return 1;
    }
    if (r->minor < 0 || !gv_sys_exists(f->sysroot, "/dev/nvidiactl"))
        return 0;
    char node[32];
    snprintf(node, sizeof node, "/dev/nvidia%d", r->minor);
    int fd = gv_sys_open(f->sysroot, node, O_RDWR | O_NONBLOCK);
    int refused = fd < 0 ? errno : 0;
    if (fd >= 0) {
        close(fd); /* it may: NVML leaving it out is the GPU's fault, judged by gpu.nvml */
        return 0;
    }
    if (refused != ENOENT && refused != EACCES && refused != EPERM)
        return 0; /* the driver refused it (ENXIO, EIO): the GPU's fault */
    /* Absent from a host's /dev (devtmpfs) is the node's fault: no job could open it either.
     * From a /dev a container runtime made, it was not given. */
    if (refused == ENOENT && !dev_made_by_runtime(f, dev_by_runtime))
        return 0;
    const char *by = refused == ENOENT  ? "absent (its container was not given it)"
                     : refused == EPERM ? "refused by this process's cgroup"
                                        : "its mode refuses this user";
    snprintf(why, cap, "%s: %s", node, by);
    return 1;
}

void gv_facts_set_apart(gv_facts *f)
{
    size_t kept = 0, apart = 0;
    int dev_by_runtime = -1;
    gv_gpu_record *others = f->gpu_count ? malloc(f->gpu_count * sizeof *others) : NULL;
    for (size_t i = 0; i < f->gpu_count && others; i++) {
        gv_gpu_record *r = &f->gpus[i];
        if (not_ours(f, r, &dev_by_runtime, r->not_ours, sizeof r->not_ours)) {
            others[apart++] = *r;
            continue;
        }
        if (kept != i)
            f->gpus[kept] = *r;
        kept++;
    }
    if (!apart) { /* none set apart, or out of memory: every GPU judged as before */
        free(others);
        return;
    }
    f->gpu_count = kept;
    f->others = others;
    f->other_count = apart;
}
