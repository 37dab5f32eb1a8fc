/* SPDX-License-Identifier: Apache-2.0 */
/* Our own minimal declarations of the NVML ABI (see cuda_abi.h for why). tests/unit/test_nvabi.c
 * checks them against nvml.h when the toolkit ships it. */
#ifndef GV_NVABI_NVML_ABI_H
#define GV_NVABI_NVML_ABI_H

typedef int gvnv_return;                    /* nvmlReturn_t */
typedef struct gvnv_device_st *gvnv_device; /* nvmlDevice_t */
typedef int gvnv_enable_state;              /* nvmlEnableState_t */
typedef int gvnv_compute_mode;              /* nvmlComputeMode_t */
typedef int gvnv_clock_type;                /* nvmlClockType_t */
typedef int gvnv_temperature_sensor;        /* nvmlTemperatureSensors_t */

typedef struct gvnv_pci_info { /* nvmlPciInfo_t */
    char bus_id_legacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pci_device_id; /* device id << 16 | vendor id */
    unsigned int pci_subsystem_id;
    char bus_id[32];
} gvnv_pci_info;

typedef struct gvnv_utilization { /* nvmlUtilization_t */
    unsigned int gpu;             /* percent of time a kernel ran, last sample period */
    unsigned int memory;          /* percent of time device memory was read or written */
} gvnv_utilization;

typedef int gvnv_nvlink_device_type; /* nvmlIntNvLinkDeviceType_t */

typedef struct gvnv_process_info { /* nvmlProcessInfo_t, as the _v3 process queries fill it */
    unsigned int pid;
    unsigned long long used_gpu_memory; /* bytes; NVML_VALUE_NOT_AVAILABLE when unknown */
    unsigned int gpu_instance_id, compute_instance_id;
} gvnv_process_info;

typedef struct gvnv_memory { /* nvmlMemory_t */
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} gvnv_memory;

typedef struct gvnv_memory_v2 { /* nvmlMemory_v2_t: used is what the processes hold, without
                                 * the driver's reserve */
    unsigned int version;       /* GVNV_STRUCT_VERSION(gvnv_memory_v2, 2) */
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} gvnv_memory_v2;

/* Health counters (facts/facts_health.c). Versioned structs carry sizeof | version << 24. */
#define GVNV_STRUCT_VERSION(type, ver) ((unsigned int)(sizeof(type) | ((unsigned)(ver) << 24)))

typedef struct gvnv_sram_ecc_status { /* nvmlEccSramErrorStatus_v1_t */
    unsigned int version;
    unsigned long long aggregate_unc_parity, aggregate_unc_secded, aggregate_cor;
    unsigned long long volatile_unc_parity, volatile_unc_secded, volatile_cor;
    unsigned long long aggregate_unc_l2, aggregate_unc_sm, aggregate_unc_pcie, aggregate_unc_mcu,
        aggregate_unc_other;
    unsigned int threshold_exceeded;
} gvnv_sram_ecc_status;

typedef struct gvnv_remapped_rows_v2 { /* nvmlRemappedRowsInfo_v2_t (no version field) */
    unsigned int corr_active, corr_inactive, unc_active, unc_inactive;
    unsigned int pending, failure_occurred;
} gvnv_remapped_rows_v2;

typedef struct gvnv_remap_histogram { /* nvmlRowRemapperHistogramValues_t: banks by spare rows */
    unsigned int max, high, partial, low, none;
} gvnv_remap_histogram;

typedef struct gvnv_repair_status { /* nvmlRepairStatus_v1_t */
    unsigned int version;
    unsigned int channel_repair_pending, tpc_repair_pending;
} gvnv_repair_status;

typedef struct gvnv_unrepairable_memory { /* nvmlUnrepairableMemoryStatus_v1_t (no version) */
    unsigned int unrepairable;
} gvnv_unrepairable_memory;

typedef struct gvnv_margin_temperature { /* nvmlMarginTemperature_v1_t */
    unsigned int version;
    int margin_c; /* degrees below T.Limit; negative above it */
} gvnv_margin_temperature;

typedef struct gvnv_fabric_info { /* nvmlGpuFabricInfo_v3_t */
    unsigned int version;
    unsigned char cluster_uuid[16];
    gvnv_return status; /* the probe's error, meaningful once state is COMPLETED */
    unsigned int clique_id;
    unsigned char state; /* GVNV_FABRIC_STATE_* */
    unsigned int health_mask;
    unsigned char health_summary;
} gvnv_fabric_info;

typedef struct gvnv_field_value { /* nvmlFieldValue_t */
    unsigned int field_id;
    unsigned int scope_id;
    long long timestamp;
    long long latency_usec;
    int value_type; /* GVNV_VALUE_TYPE_* */
    gvnv_return nvml_return;
    union {
        double d;
        int si;
        unsigned int ui;
        unsigned long ul;
        unsigned long long ull;
        signed long long sll;
        unsigned short us;
    } value;
} gvnv_field_value;

typedef struct gvnv_event_set_st *gvnv_event_set; /* nvmlEventSet_t */

typedef struct gvnv_event_data { /* nvmlEventData_t: the _v2 wait fills the instance IDs too */
    gvnv_device device;
    unsigned long long event_type; /* GVNV_EVENT_TYPE_* */
    unsigned long long event_data; /* an Xid event's code; 999 an Xid NVML cannot name */
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
} gvnv_event_data;

#define GVNV_EVENT_TYPE_XID_CRITICAL_ERROR 0x8ULL /* nvmlEventTypeXidCriticalError */

#define GVNV_SUCCESS 0
#define GVNV_ERROR_UNINITIALIZED 1
#define GVNV_ERROR_INVALID_ARGUMENT 2
#define GVNV_ERROR_NOT_SUPPORTED 3
#define GVNV_ERROR_NO_PERMISSION 4
#define GVNV_ERROR_ALREADY_INITIALIZED 5
#define GVNV_ERROR_NOT_FOUND 6
#define GVNV_ERROR_INSUFFICIENT_SIZE 7
#define GVNV_ERROR_INSUFFICIENT_POWER 8
#define GVNV_ERROR_DRIVER_NOT_LOADED 9
#define GVNV_ERROR_TIMEOUT 10
#define GVNV_ERROR_IRQ_ISSUE 11
#define GVNV_ERROR_LIBRARY_NOT_FOUND 12
#define GVNV_ERROR_FUNCTION_NOT_FOUND 13
#define GVNV_ERROR_CORRUPTED_INFOROM 14
#define GVNV_ERROR_GPU_IS_LOST 15
#define GVNV_ERROR_RESET_REQUIRED 16
#define GVNV_ERROR_OPERATING_SYSTEM 17
#define GVNV_ERROR_LIB_RM_VERSION_MISMATCH 18
#define GVNV_ERROR_IN_USE 19
#define GVNV_ERROR_MEMORY 20
#define GVNV_ERROR_NO_DATA 21
#define GVNV_ERROR_UNKNOWN 999

#define GVNV_FEATURE_DISABLED 0
#define GVNV_FEATURE_ENABLED 1
#define GVNV_CLOCK_SM 1
#define GVNV_NVLINK_MAX_LINKS 18 /* NVML_NVLINK_MAX_LINKS: Hopper and Blackwell have 18 */
#define GVNV_NVLINK_DEVICE_TYPE_GPU 0
#define GVNV_NVLINK_DEVICE_TYPE_SWITCH 2
#define GVNV_TEMPERATURE_GPU 0
#define GVNV_MEMORY_ERROR_CORRECTED 0
#define GVNV_MEMORY_ERROR_UNCORRECTED 1
#define GVNV_VOLATILE_ECC 0
#define GVNV_AGGREGATE_ECC 1
#define GVNV_MEMORY_LOCATION_DRAM 2
#define GVNV_NVLINK_ERROR_DL_REPLAY 0
#define GVNV_NVLINK_ERROR_DL_RECOVERY 1
#define GVNV_NVLINK_ERROR_DL_CRC_FLIT 2
#define GVNV_NVLINK_ERROR_DL_CRC_DATA 3
#define GVNV_NVLINK_ERROR_DL_ECC_DATA 4
#define GVNV_FABRIC_STATE_NOT_SUPPORTED 0
#define GVNV_FABRIC_STATE_NOT_STARTED 1
#define GVNV_FABRIC_STATE_IN_PROGRESS 2
#define GVNV_FABRIC_STATE_COMPLETED 3
#define GVNV_FABRIC_HEALTH_DEGRADED_BW_TRUE 1 /* healthMask bits 0-1 */
#define GVNV_VALUE_TYPE_DOUBLE 0
#define GVNV_VALUE_TYPE_UNSIGNED_INT 1
#define GVNV_VALUE_TYPE_UNSIGNED_LONG 2
#define GVNV_VALUE_TYPE_UNSIGNED_LONG_LONG 3
#define GVNV_VALUE_TYPE_SIGNED_LONG_LONG 4
#define GVNV_VALUE_TYPE_SIGNED_INT 5
#define GVNV_VALUE_TYPE_UNSIGNED_SHORT 6
/* Field IDs (NVML_FI_*) of the counters nvmlDeviceGetFieldValues reads in one call. */
#define GVNV_FI_DEV_RETIRED_SBE 29
#define GVNV_FI_DEV_RETIRED_DBE 30
#define GVNV_FI_DEV_RETIRED_PENDING 31
#define GVNV_FI_DEV_PERF_POLICY_POWER 74      /* = CLOCKS_EVENT_REASON_SW_POWER_CAP, ns */
#define GVNV_FI_DEV_PERF_POLICY_SYNC_BOOST 76 /* = CLOCKS_EVENT_REASON_SYNC_BOOST, ns */
#define GVNV_FI_DEV_MEMORY_TEMP 82
#define GVNV_FI_DEV_TEMPERATURE_SHUTDOWN_TLIMIT 193
#define GVNV_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT 194
#define GVNV_FI_DEV_TEMPERATURE_MEM_MAX_TLIMIT 195
#define GVNV_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT 196
#define GVNV_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN 269 /* ns */
#define GVNV_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN 270
#define GVNV_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN 271
/* What the driver says a GPU needs before it can be used again (nvmlDeviceGpuRecoveryAction_t;
 * R550 on; the driver logs each change as Xid 154). */
#define GVNV_FI_DEV_GET_GPU_RECOVERY_ACTION 230
/* NVLink 5 (Blackwell) per-link counters, scope = the link; NOT_SUPPORTED on Hopper (driver
 * 580 on H200: bench/results/2026-11-28-h200x2-nvlink-fields.md). */
/* The far end's port number of an NVLink (scope = the link): an NVSwitch's link an SXid names. */
#define GVNV_FI_DEV_NVLINK_REMOTE_NVLINK_ID 146
#define GVNV_FI_DEV_NVLINK_COUNT_LOCAL_LINK_INTEGRITY_ERRORS 211
#define GVNV_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS 213
#define GVNV_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS 214
#define GVNV_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS 219
#define GVNV_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS 221
#define GVNV_RECOVERY_ACTION_NONE 0
#define GVNV_RECOVERY_ACTION_GPU_RESET 1
#define GVNV_RECOVERY_ACTION_NODE_REBOOT 2
#define GVNV_RECOVERY_ACTION_DRAIN_P2P 3
#define GVNV_RECOVERY_ACTION_DRAIN_AND_RESET 4
#define GVNV_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN 5
#define GVNV_RECOVERY_ACTION_BUS_RESET 6
#define GVNV_RECOVERY_ACTION_SYSTEM_REBOOT 7

#define GVNV_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define GVNV_DEVICE_NAME_V2_BUFFER_SIZE 96
#define GVNV_DEVICE_UUID_V2_BUFFER_SIZE 96
#define GVNV_DEVICE_SERIAL_BUFFER_SIZE 30
#define GVNV_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32
#define GVNV_DEVICE_INFOROM_VERSION_BUFFER_SIZE 16
#define GVNV_GSP_FIRMWARE_VERSION_BUFFER_SIZE 64

#endif
