/* SPDX-License-Identifier: Apache-2.0 */
/* Facts gathered from the node (files, NVML, CUDA) before any verdict: checks judge these, and
 * a fixture sysroot plus a fake scenario make them deterministic. */
#ifndef GV_FACTS_FACTS_H
#define GV_FACTS_FACTS_H

#include <stddef.h>

#include "backends/loader.h"
#include "facts/health.h"
#include "sys/kconfig.h"
#include "sys/kmsg.h"
#include "sys/process.h"
#include "core/errbuf.h"
#include "gpuverify/gpuverify.h"
#include "sys/nvidia_proc.h"
#include "sys/os.h"
#include "sys/pci.h"

/* The stage NVML's queries of one GPU are in (gv_progress_stage), %u its NVML index: gv_run's
 * supervisor reads it back to leave a GPU whose queries hung or crashed out of the next worker's
 * (gv_run_plan.without_nvml_gpus). */
#define GV_FACTS_NVML_GPU_STAGE "nvmlDeviceGetHandleByIndex and queries of NVML GPU %u"
#define GV_NVLINK_MAX 18 /* links per GPU NVML reports (NVML_NVLINK_MAX_LINKS) */

/* One NVLink of a GPU as NVML reports it. */
typedef struct gv_nvlink {
    int active;
    int to_switch;      /* the far end is an NVSwitch */
    gv_pci_addr remote; /* the far end's PCI address */
    int remote_known;
    int remote_link; /* the far end's port (an NVSwitch's link number), -1 unknown */
} gv_nvlink;

/* One source's outcome: GV_OK, or the status and the text naming the file or call. */
typedef struct gv_source {
    gv_status status;
    gv_errbuf err;
} gv_source;

/* A GPU of the merged inventory with what only the checks need. */
typedef struct gv_gpu_record {
    gv_gpu gpu;
    int in_pci, in_proc;
    int excluded;              /* "GPU Excluded: Yes" in /proc/driver/nvidia/gpus */
    int minor;                 /* /dev/nvidia<minor>, from /proc/driver/nvidia/gpus; -1 unknown */
    char driver[32];           /* the kernel driver sysfs says is bound to it, "" none */
    char not_ours[192];        /* why this process may not use it (gv_facts.others), "" */
    char pci_problem[256];     /* a sysfs file of this GPU that could not be read or parsed, "" */
    char proc_problem[256];    /* its /proc/driver/nvidia/gpus information file's, "" */
    char link_problem[256];    /* why its PCIe link is unknown (a link file out of range), "" */
    char problem[256];         /* the first NVML query of this GPU that failed, "" */
    double upstream_speed_max; /* the PCIe port above the GPU (sysfs), -1 unknown */
    int upstream_width_max;
    int utilization;  /* NVML GPU utilization percent, -1 unknown */
    int dmabuf;       /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED: 1, 0, -1 unknown */
    int nvlink_count; /* links NVML reports (supported), 0 none or no NVLink query */
    gv_nvlink nvlinks[GV_NVLINK_MAX];
    gv_health health; /* error counters and health flags (health.h) */
} gv_gpu_record;

struct gv_policy;

/* What gv_facts_watch_xids saw: the Xid events NVML reported while the run waited (each with
 * watched_at_s set), the GPUs registered and those that cannot report, and whether the watch
 * could be made (status, err: no NVML, no event API, no GPU reporting). */
#define GV_XID_WATCH_MAX_GPUS 64
typedef struct gv_xid_watch {
    double watched_s; /* how long it waited, 0: no watch asked */
    int registered, unsupported;
    char unsupported_why[96]; /* the first GPU that cannot report: "<bus id>: <NVML error>" */
    gv_status status;
    gv_errbuf err;
    gv_xid_event *events;
    size_t count;
} gv_xid_watch;

typedef struct gv_facts {
    char sysroot[4096];
    char hostname[64];
    /* The policy of the gv_run judging these facts, NULL outside a run or when none is given:
     * an expectation, not a fact, kept here because every check receives the facts. */
    const struct gv_policy *policy;
    gv_source os_src, kernel_src, modules_src, version_src, sysfs_module_src, proc_gpus_src,
        pci_src;
    gv_os_release os;
    char kernel[64];
    int nvidia_loaded, nouveau_loaded; /* -1 unknown */
    int version_file_present;
    gv_nvidia_module module;
    char sysfs_version[32], sysfs_taint[16];

    int live; /* NVML and CUDA were queried */
    gv_lib_slot nvml_lib, cuda_lib;
    int nvml_init, cuda_init; /* result codes, -1 not called */
    char driver_version[32], nvml_version[32];
    int nvml_cuda_version, cuda_driver_version; /* -1 unknown */
    int pci_count, nvml_count, cuda_count;      /* -1 unknown */
    /* NVSwitch functions on this node's PCI bus (an HGX baseboard's, before NVSwitch gen4),
     * and the device ID of the first: what the baseboard holds (driver.gpu_count). -1 unknown. */
    int nvswitch_count, nvswitch_device;
    int cuda_visible_set;
    char cuda_visible[256];

    double uptime_s;      /* /proc/uptime, -1 unknown: turns counters since boot into rates */
    double fabric_wait_s; /* how long the facts waited for the NVSwitch fabric, 0 not at all */
    /* The host's own PID namespace (1), another (0), unknown (-1): where NVML lists every
     * process, so that memory no listed process holds was left behind (gpu.memory_unowned). */
    int host_pid_ns;
    int root_proc_hosts;   /* <root>/proc lists the host's processes: 1, 0, -1 unknown */
    double unowned_wait_s; /* how long the facts waited for such memory to be freed */
    /* The kernel log's Xid and SXid lines (GV_FACTS_KERNEL_LOG), read once for gpu.xid and
     * nvswitch.sxid: kmsg_status GV_OK, or why it could not be read in kmsg_err. */
    gv_status kmsg_status;
    gv_errbuf kmsg_err;
    gv_xid_event *kmsg_events;
    size_t kmsg_count;
    gv_kmsg_span kmsg_span;
    gv_xid_watch watch; /* gv_run_opts.watch_s's Xid events (gv_facts_watch_xids) */
    /* The kernel's CONFIG_PCI_P2PDMA (GV_FACTS_KERNEL_CONFIG), for gpudirect.p2pdma:
     * p2pdma_status GV_OK with its value, GV_ERR_NOT_FOUND when no configuration exists
     * (p2pdma_tried lists the files), else why it could not be read (p2pdma_err). */
    gv_status p2pdma_status;
    gv_kconfig_value p2pdma;
    char p2pdma_tried[1024];
    gv_errbuf p2pdma_err;
    /* The NVSwitch fabric manager's daemon in the node's /proc (GV_FACTS_HEALTH): fm_found 1
     * running (fm), 0 not, -1 /proc could not be listed (fm_err). */
    int fm_found;
    gv_process fm;
    gv_errbuf fm_err;

    unsigned optional;   /* enum gv_facts_optional: what was gathered beyond the rest */
    gv_gpu_record *gpus; /* the GPUs this process may use: every check judges these */
    size_t gpu_count;
    /* The node's GPUs this process was not given (a container's or a job's cgroup, a device
     * node's mode): on the bus and bound to the driver, set apart so that no check takes them
     * for GPUs that fell off the bus; only driver.gpu_count speaks of them (facts_reach.c). */
    gv_gpu_record *others;
    size_t other_count;
    double duration_s;
} gv_facts;

/* The facts gathered only when a selected check needs them. */
enum gv_facts_optional {
    GV_FACTS_CUDA = 1,   /* libcuda: cuInit costs ~0.2 s, more than all the rest together */
    GV_FACTS_HEALTH = 2, /* health counters: ~15 NVML calls per GPU and 5 per NVLink, AER files */
    GV_FACTS_KERNEL_LOG = 4,   /* the kernel log's Xid and SXid lines: up to 16 MiB read */
    GV_FACTS_KERNEL_CONFIG = 8 /* the kernel's build options: /proc/config.gz decompressed */
};

/* Gathers the facts, and the optional ones asked for (enum gv_facts_optional); GV_OK unless out
 * of memory (a source's failure is recorded in it). */
gv_status gv_facts_collect(gv_ctx *ctx, gv_facts *out, unsigned optional);
void gv_facts_free(gv_facts *facts);
/* Waits up to `seconds` for Xid events NVML reports on the facts' GPUs, into f->watch; returns
 * half a second after the first (events that come together are read together). Takes the
 * time asked even when nothing can be watched (f->watch.status says why). */
void gv_facts_watch_xids(gv_ctx *ctx, gv_facts *f, double seconds);
void gv_xid_watch_free(gv_xid_watch *w);
/* Frees the facts or GPUs kept on the context for gv_gpu_info; its drop_facts hook. */
void gv_ctx_drop_facts(gv_ctx *ctx);
/* Gathers the facts in this process (enum gv_facts_optional) and keeps them on the context
 * for gv_gpu_info, in place of any older inventory. */
gv_status gv_refresh_facts(gv_ctx *ctx, unsigned optional, gv_facts **out);
/* The public driver summary of the facts. */
void gv_facts_driver_info(const gv_facts *facts, gv_driver_info *out);
/* Whether the node has NVIDIA GPUs by any source (PCI, /proc, NVML). */
int gv_facts_has_gpus(const gv_facts *f);
/* Active NVLinks joining two GPUs: direct links, else through NVSwitch (each GPU's switch
 * links, the fewer of the two, as nvidia-smi counts them); 0 when either is NULL. */
int gv_nvlinks_between(const gv_gpu_record *a, const gv_gpu_record *b);
/* The nominal rate, one direction, of those NVLinks: their count times the lane rate of the
 * generation (NVLink 2 to 4, Volta to Hopper: 25 GB/s; NVLink 5, Blackwell: 50); 0 when no
 * NVLink joins them or the generation is unknown. */
double gv_nvlink_nominal_gbps(const gv_gpu_record *a, const gv_gpu_record *b);

#endif
