/* libFuzzer: every reader of a node's files at once. The input is up to N records separated
 * by 0x1e, written to the files below in a scratch sysroot (a missing record removes the
 * file); then the checks that judge files, and gv_rdma_status, run over it offline. Covers
 * /proc/modules, /proc/driver/nvidia (version, gpus/<bdf>/information), PCI and RDMA sysfs
 * attributes, os-release, the kernel release, /dev/kmsg Xid lines, the kernel configuration
 * (plain and gzip), nccl.conf, the AER statistics of the GPU and its port, and /proc/uptime. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuverify/gpuverify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define GPU "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
#define IB "/sys/class/infiniband/mlx5_0"

static const char *const files[] = {
    "/proc/modules",
    "/proc/driver/nvidia/version",
    "/proc/driver/nvidia/gpus/0000:01:00.0/information",
    "/etc/os-release",
    "/proc/sys/kernel/osrelease",
    GPU "/vendor",
    GPU "/device",
    GPU "/class",
    GPU "/current_link_speed",
    GPU "/current_link_width",
    GPU "/max_link_speed",
    GPU "/max_link_width",
    GPU "/numa_node",
    GPU "/local_cpulist",
    "/sys/devices/pci0000:00/0000:00:01.0/max_link_speed",
    IB "/ports/1/state",
    IB "/ports/1/phys_state",
    IB "/ports/1/rate",
    IB "/ports/1/link_layer",
    IB "/ports/1/gid_attrs/types/0",
    IB "/ports/1/gids/0",
    "/dev/kmsg",
    "/proc/config.gz",
    "/etc/nccl.conf",
    "/sys/module/nvidia/version",
    GPU "/aer_dev_correctable",
    "/sys/devices/pci0000:00/0000:00:01.0/aer_dev_fatal",
    "/proc/uptime",
};
#define NFILES (sizeof files / sizeof *files)

static char root[64];

static void mkdirs(char *path)
{
    for (char *p = path + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
}

static void scaffold(void)
{
    snprintf(root, sizeof root, "/tmp/gv-fuzz-root-%d", (int)getpid());
    char path[512];
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/x", root);
    mkdirs(path);
    snprintf(path, sizeof path, "%s" GPU "/x", root);
    mkdirs(path);
    snprintf(path, sizeof path, "%s/sys/bus/pci/devices/0000:01:00.0", root);
    symlink("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0", path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gv_ctx *ctx;
    if (!ctx) {
        scaffold();
        gv_ctx_opts o = GV_CTX_OPTS_INIT;
        o.sysroot = root;
        o.live_libraries = 0;
        if (gv_ctx_create(&o, &ctx) != GV_OK)
            abort();
    }
    size_t at = 0;
    for (size_t i = 0; i < NFILES; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", root, files[i]);
        if (at > size) {
            unlink(path);
            continue;
        }
        const uint8_t *end = memchr(data + at, 0x1e, size - at);
        size_t n = end ? (size_t)(end - (data + at)) : size - at;
        mkdirs(path);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(data + at, 1, n, f);
            fclose(f);
        }
        at += n + 1;
    }
    gv_policy p = GV_POLICY_INIT;
    p.require_rdma = 1;
    gv_run_opts ro = GV_RUN_OPTS_INIT;
    ro.checks = "system,driver,gpu,rdma,gpudirect";
    ro.isolation = GV_ISOLATION_NONE;
    ro.policy = &p;
    gv_report *r = NULL;
    if (gv_run(ctx, &ro, &r) == GV_OK) {
        char *json = NULL;
        if (gv_report_json(r, 0, &json) != GV_OK)
            abort();
        gv_free(json);
        gv_report_free(r);
    }
    gv_rdma_opts rdma = GV_RDMA_OPTS_INIT;
    rdma.flags = GV_RDMA_IGNORE_ENVIRONMENT;
    gv_rdma_report *rr = NULL;
    if (gv_rdma_status(ctx, &rdma, &rr) == GV_OK)
        gv_rdma_free(rr);
    return 0;
}
