/* SPDX-License-Identifier: Apache-2.0 */
/* Our own minimal declarations of the CUDA driver API ABI: just the types, values and layouts
 * gpuverify uses, so no NVIDIA header is needed to build. tests/unit/test_nvabi.c checks each
 * against the real cuda.h when the toolkit is present. Prefix gvcu_ / GVCU_ avoids clashes. */
#ifndef GV_NVABI_CUDA_ABI_H
#define GV_NVABI_CUDA_ABI_H

#include <stdint.h>

typedef int gvcu_result;                        /* CUresult */
typedef int gvcu_device;                        /* CUdevice */
typedef int gvcu_device_attribute;              /* CUdevice_attribute */
typedef int gvcu_proc_query;                    /* CUdriverProcAddressQueryResult */
typedef unsigned long long gvcu_deviceptr;      /* CUdeviceptr (64-bit) */
typedef struct gvcu_context_st *gvcu_context;   /* CUcontext */
typedef struct gvcu_stream_st *gvcu_stream;     /* CUstream */
typedef struct gvcu_event_st *gvcu_event;       /* CUevent */
typedef struct gvcu_module_st *gvcu_module;     /* CUmodule */
typedef struct gvcu_function_st *gvcu_function; /* CUfunction */
typedef struct gvcu_uuid {
    char bytes[16];
} gvcu_uuid; /* CUuuid */

/* CUresult values we name. */
#define GVCU_SUCCESS 0
#define GVCU_ERROR_INVALID_VALUE 1
#define GVCU_ERROR_OUT_OF_MEMORY 2
#define GVCU_ERROR_NOT_INITIALIZED 3
#define GVCU_ERROR_DEINITIALIZED 4
#define GVCU_ERROR_STUB_LIBRARY 34
#define GVCU_ERROR_DEVICE_UNAVAILABLE 46 /* exclusive-process mode: another process has it */
#define GVCU_ERROR_NO_DEVICE 100
#define GVCU_ERROR_INVALID_DEVICE 101
#define GVCU_ERROR_NO_BINARY_FOR_GPU 209
#define GVCU_ERROR_ECC_UNCORRECTABLE 214
#define GVCU_ERROR_INVALID_PTX 218
#define GVCU_ERROR_UNSUPPORTED_PTX_VERSION 222
#define GVCU_ERROR_NOT_FOUND 500
#define GVCU_ERROR_NOT_READY 600
#define GVCU_ERROR_ILLEGAL_ADDRESS 700
#define GVCU_ERROR_LAUNCH_TIMEOUT 702
#define GVCU_ERROR_PEER_ACCESS_UNSUPPORTED 217
#define GVCU_ERROR_PEER_ACCESS_ALREADY_ENABLED 704
#define GVCU_ERROR_LAUNCH_FAILED 719
#define GVCU_ERROR_SYSTEM_NOT_READY 802 /* a daemon the system needs (fabric manager) is not up */
#define GVCU_ERROR_SYSTEM_DRIVER_MISMATCH 803
#define GVCU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE 804
#define GVCU_ERROR_UNKNOWN 999

/* CUdevice_attribute values we read. */
#define GVCU_DEVICE_ATTRIBUTE_CLOCK_RATE 13
#define GVCU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define GVCU_DEVICE_ATTRIBUTE_PCI_BUS_ID 33
#define GVCU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID 34
#define GVCU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID 50
#define GVCU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define GVCU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define GVCU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED 124

/* cuMemHostAlloc flags, stream and event flags. */
#define GVCU_MEMHOSTALLOC_PORTABLE 0x01
#define GVCU_MEMHOSTALLOC_DEVICEMAP 0x02
#define GVCU_STREAM_NON_BLOCKING 0x1
#define GVCU_EVENT_DEFAULT 0x0

/* cuGetProcAddress flags and results. */
#define GVCU_GET_PROC_ADDRESS_DEFAULT 0
#define GVCU_GET_PROC_ADDRESS_SUCCESS 0
#define GVCU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND 1
#define GVCU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT 2

/* cuGetProcAddress_v2 (CUDA 12.0, driver r525) and the 11.3 form without the status. */
typedef gvcu_result (*gvcu_get_proc_address_v2_fn)(const char *symbol, void **pfn, int cuda_version,
                                                   uint64_t flags, gvcu_proc_query *status);
typedef gvcu_result (*gvcu_get_proc_address_fn)(const char *symbol, void **pfn, int cuda_version,
                                                uint64_t flags);

#endif
