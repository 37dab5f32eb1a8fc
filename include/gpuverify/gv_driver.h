/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: NVIDIA libraries, driver facts and the per-GPU inventory.
 *
 * Unknown values: -1 for signed integers, "" for text. A fact that could not be read is
 * unknown, never 0. */
#ifndef GPUVERIFY_GV_DRIVER_H
#define GPUVERIFY_GV_DRIVER_H

#include <stdint.h>

#include "gv_common.h"
#include "gv_context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The NVIDIA (and RDMA) libraries loaded at run time. */
enum gv_library {
    GV_LIB_CUDA = 0, /* libcuda.so.1, the CUDA driver API */
    GV_LIB_NVML = 1, /* libnvidia-ml.so.1 */
    GV_LIB_CUBLASLT = 2,
    GV_LIB_CUDNN = 3,
    GV_LIB_NCCL = 4,
    GV_LIB_IBVERBS = 5,
    /* not a library: the gpuverify-worker executable gv_run isolates the checks in.
     * gv_library_status says LOADED when it was found executable (path), ABSENT with the
     * places tried otherwise. */
    GV_LIB_WORKER = 6
};

/* What became of loading a library. */
enum gv_library_state {
    GV_LIBSTATE_LOADED = 0,     /* loaded and every required entry point resolved */
    GV_LIBSTATE_ABSENT = 1,     /* no candidate file could be loaded; see tried */
    GV_LIBSTATE_BROKEN = 2,     /* loaded, but unusable (missing entry points, init failed) */
    GV_LIBSTATE_NOT_QUERIED = 3 /* live libraries are off for this context */
};

typedef struct gv_library_info {
    uint32_t struct_size;
    int32_t library; /* enum gv_library */
    int32_t state;   /* enum gv_library_state */
    int32_t reserved;
    char name[32];    /* "libcuda" */
    char path[512];   /* file loaded (real path), "" if none */
    char version[64]; /* from the library when it says, else from the file name */
    char tried[1024]; /* candidates tried, in order, "; "-separated */
    char detail[256]; /* why absent or broken */
} gv_library_info;

#define GV_LIBRARY_INFO_INIT GV_STRUCT_INIT(gv_library_info)

/* Loads and describes a library, in gpuverify-worker when one is found (docs/ABI.md,
 * "Isolation": GV_ERR_TIMEOUT, out untouched, when the load did not return in time). GV_OK
 * also when it is absent: the state says so. */
GV_API gv_status gv_library_status(gv_ctx *ctx, int32_t library, gv_library_info *out);

/* Kernel module flavour. */
enum gv_module_kind { GV_MODULE_UNKNOWN = 0, GV_MODULE_OPEN = 1, GV_MODULE_PROPRIETARY = 2 };

typedef struct gv_driver_info {
    uint32_t struct_size;
    int32_t module_loaded; /* nvidia kernel module: 1, 0, or -1 unknown */
    int32_t module_kind;   /* enum gv_module_kind */
    int32_t nouveau_loaded;
    char module_version[32];     /* /proc/driver/nvidia/version */
    char kernel_release[64];     /* /proc/sys/kernel/osrelease */
    char os_name[128];           /* PRETTY_NAME of /etc/os-release */
    int32_t nvml_state;          /* enum gv_library_state */
    int32_t cuda_state;          /* enum gv_library_state */
    char driver_version[32];     /* NVML system driver version */
    char nvml_version[32];       /* NVML library version */
    int32_t cuda_driver_version; /* cuDriverGetVersion, 13000 = 13.0 */
    int32_t nvml_cuda_version;   /* "CUDA Version" nvidia-smi prints, same encoding */
    int32_t cuda_init_result;    /* cuInit's CUresult, -1 not called */
    int32_t nvml_init_result;    /* nvmlInit's nvmlReturn_t, -1 not called */
    int32_t gpu_count_pci;       /* NVIDIA display-class PCI functions in sysfs */
    int32_t gpu_count_nvml;      /* nvmlDeviceGetCount, -1 unknown */
    int32_t gpu_count_cuda;      /* cuDeviceGetCount (after CUDA_VISIBLE_DEVICES), -1 unknown */
    int32_t gpu_count;           /* GPUs in the merged inventory (gv_gpu_info indices) */
} gv_driver_info;

#define GV_DRIVER_INFO_INIT GV_STRUCT_INIT(gv_driver_info)

/* Driver facts: kernel module, NVML and CUDA state and versions, GPU counts per source. */
GV_API gv_status gv_check_driver(gv_ctx *ctx, gv_driver_info *out);

typedef struct gv_gpu {
    uint32_t struct_size;
    uint32_t index;     /* position in the inventory: GPUs in PCI bus id order */
    int32_t nvml_index; /* -1 when NVML does not see it */
    int32_t cuda_index; /* -1 when CUDA does not see it (hidden, MIG, lost) */
    char name[96];
    char uuid[96];
    char serial[32];
    char pci_bus_id[32]; /* "0000:18:00.0"; wide domains keep all their digits */
    int32_t pci_vendor_id;
    int32_t pci_device_id;
    int32_t pci_class; /* 0x030200 3D controller, 0x030000 VGA */
    int32_t numa_node; /* -1 unknown (never 0 by default) */
    char local_cpus[128];
    int64_t memory_total; /* bytes */
    int64_t memory_used;
    int64_t memory_free;
    int32_t cc_major;
    int32_t cc_minor;
    int32_t sm_count;
    int32_t max_sm_clock_mhz;
    char vbios[32];
    int32_t persistence_mode; /* 1 on, 0 off */
    int32_t ecc_current;
    int32_t ecc_pending;
    int32_t mig_current;
    int32_t mig_pending;
    int32_t compute_mode; /* NVML compute mode: 0 default, 2 prohibited, 3 exclusive process */
    int32_t power_limit_mw;
    int32_t temperature_c;
    int32_t pcie_gen_current; /* NVML */
    int32_t pcie_gen_max;
    int32_t pcie_width_current;
    int32_t pcie_width_max;
    double link_speed_current_gts; /* sysfs, GT/s; -1 unknown */
    double link_speed_max_gts;
    int32_t link_width_current_sysfs;
    int32_t link_width_max_sysfs;
    int32_t nvml_result; /* first failing nvmlReturn_t for this GPU, 0 when all went well */
    /* 1: on the node (PCI, bound to the nvidia driver) but not this process's to use: its
     * container or job was given other GPUs, or its device node's mode refuses this user. No
     * check tests it; driver.gpu_count says why. 0 otherwise. */
    int32_t inaccessible;
    /* Since ABI 1.1. Firmware versions, "" when NVML does not say: the InfoROM image
     * (nvmlDeviceGetInforomImageVersion, "G520.0200.00.05") and the GSP firmware
     * (nvmlDeviceGetGspFirmwareVersion; "" where the GPU runs without GSP). */
    char inforom_image[16];
    char gsp_firmware[64];
    /* Since ABI 1.1. The board's part number (nvmlDeviceGetBoardPartNumber,
     * "692-2G520-0282-001": the board and its revision), "" when NVML does not say. */
    char board_part_number[32];
} gv_gpu;

#define GV_GPU_INIT GV_STRUCT_INIT(gv_gpu)

/* Inventory of one GPU, index 0 .. gpu_count-1 (see gv_driver_info.gpu_count). */
GV_API gv_status gv_gpu_info(gv_ctx *ctx, uint32_t index, gv_gpu *out);

#ifdef __cplusplus
}
#endif
#endif
