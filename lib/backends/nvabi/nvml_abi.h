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

#define GVNV_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define GVNV_DEVICE_NAME_V2_BUFFER_SIZE 96
#define GVNV_DEVICE_UUID_V2_BUFFER_SIZE 96
#define GVNV_DEVICE_SERIAL_BUFFER_SIZE 30
#define GVNV_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32

#endif
