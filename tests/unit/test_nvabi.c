/* SPDX-License-Identifier: Apache-2.0 */
/* Our minimal ABI declarations (lib/backends/nvabi) against NVIDIA's own headers: every value
 * and layout we rely on must match. Built only where the CUDA toolkit is installed. */
#include <cuda.h>
#include <stddef.h>
#ifdef GV_HAVE_NVML_H
#include <nvml.h>
#endif

#ifdef GV_HAVE_CUBLASLT_H
/* cublasLt.h declares cublasLtLoggerForceDisable() without (void). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#pragma GCC diagnostic pop
#endif

#ifdef GV_HAVE_NCCL_H
/* nccl.h declares ncclGroupStart() without (void). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop
#endif

#include "backends/nvabi/cublaslt_abi.h"
#include "backends/nvabi/cuda_abi.h"
#include "backends/nvabi/nccl_abi.h"
#include "backends/nvabi/nvml_abi.h"

#define SAME(ours, theirs) _Static_assert((ours) == (theirs), #ours " != " #theirs)

SAME(sizeof(gvcu_result), sizeof(CUresult));
SAME(sizeof(gvcu_device), sizeof(CUdevice));
SAME(sizeof(gvcu_device_attribute), sizeof(CUdevice_attribute));
SAME(sizeof(gvcu_uuid), sizeof(CUuuid));
SAME(sizeof(gvcu_proc_query), sizeof(CUdriverProcAddressQueryResult));
SAME(GVCU_SUCCESS, CUDA_SUCCESS);
SAME(GVCU_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE);
SAME(GVCU_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY);
SAME(GVCU_ERROR_NOT_INITIALIZED, CUDA_ERROR_NOT_INITIALIZED);
SAME(GVCU_ERROR_DEINITIALIZED, CUDA_ERROR_DEINITIALIZED);
SAME(GVCU_ERROR_STUB_LIBRARY, CUDA_ERROR_STUB_LIBRARY);
SAME(GVCU_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE);
SAME(GVCU_ERROR_DEVICE_UNAVAILABLE, CUDA_ERROR_DEVICE_UNAVAILABLE);
SAME(GVCU_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_DEVICE);
SAME(GVCU_ERROR_NOT_FOUND, CUDA_ERROR_NOT_FOUND);
SAME(GVCU_ERROR_SYSTEM_NOT_READY, CUDA_ERROR_SYSTEM_NOT_READY);
SAME(GVCU_ERROR_SYSTEM_DRIVER_MISMATCH, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH);
SAME(GVCU_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE);
SAME(GVCU_ERROR_UNKNOWN, CUDA_ERROR_UNKNOWN);
SAME(GVCU_DEVICE_ATTRIBUTE_CLOCK_RATE, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
SAME(GVCU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME(GVCU_DEVICE_ATTRIBUTE_PCI_BUS_ID, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
SAME(GVCU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
SAME(GVCU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
SAME(GVCU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME(GVCU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME(GVCU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED);
SAME(GVCU_GET_PROC_ADDRESS_DEFAULT, CU_GET_PROC_ADDRESS_DEFAULT);
SAME(GVCU_GET_PROC_ADDRESS_SUCCESS, CU_GET_PROC_ADDRESS_SUCCESS);
SAME(GVCU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
SAME(GVCU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);

#ifdef GV_HAVE_CUBLASLT_H
SAME(sizeof(gvbl_algo), sizeof(cublasLtMatmulAlgo_t));
SAME(sizeof(gvbl_heuristic), sizeof(cublasLtMatmulHeuristicResult_t));
SAME(offsetof(gvbl_heuristic, state), offsetof(cublasLtMatmulHeuristicResult_t, state));
SAME(GVBL_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_NOT_SUPPORTED);
SAME(GVBL_COMPUTE_32F, CUBLAS_COMPUTE_32F);
SAME(GVBL_COMPUTE_32F_FAST_TF32, CUBLAS_COMPUTE_32F_FAST_TF32);
SAME(GVBL_R_16BF, CUDA_R_16BF);
SAME(GVBL_R_8F_E4M3, CUDA_R_8F_E4M3);
SAME(GVBL_MATMUL_DESC_TRANSA, CUBLASLT_MATMUL_DESC_TRANSA);
SAME(GVBL_MATMUL_DESC_B_SCALE_POINTER, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER);
SAME(GVBL_MATMUL_PREF_MAX_WORKSPACE_BYTES, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
SAME(GVBL_MATMUL_PREF_REDUCTION_SCHEME_MASK, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK);
SAME(GVBL_REDUCTION_SCHEME_NONE, CUBLASLT_REDUCTION_SCHEME_NONE);
SAME(GVBL_REDUCTION_SCHEME_INPLACE, CUBLASLT_REDUCTION_SCHEME_INPLACE);
SAME(GVBL_REDUCTION_SCHEME_COMPUTE_TYPE, CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE);
SAME(GVBL_ALGO_CONFIG_ID, CUBLASLT_ALGO_CONFIG_ID);
SAME(GVBL_ALGO_CONFIG_TILE_ID, CUBLASLT_ALGO_CONFIG_TILE_ID);
SAME(GVBL_ALGO_CONFIG_SPLITK_NUM, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
SAME(GVBL_ALGO_CONFIG_REDUCTION_SCHEME, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
SAME(GVBL_ALGO_CONFIG_CTA_SWIZZLING, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
SAME(GVBL_ALGO_CONFIG_CUSTOM_OPTION, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
SAME(GVBL_ALGO_CONFIG_STAGES_ID, CUBLASLT_ALGO_CONFIG_STAGES_ID);
SAME(GVBL_ALGO_CONFIG_INNER_SHAPE_ID, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID);
SAME(GVBL_ALGO_CONFIG_CLUSTER_SHAPE_ID, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
#endif

#ifdef GV_HAVE_NCCL_H
SAME(sizeof(gvnc_unique_id), sizeof(ncclUniqueId));
SAME(GVNC_UNIQUE_ID_BYTES, NCCL_UNIQUE_ID_BYTES);
SAME(sizeof(gvnc_result), sizeof(ncclResult_t));
SAME(GVNC_SUCCESS, ncclSuccess);
SAME(GVNC_UNHANDLED_CUDA_ERROR, ncclUnhandledCudaError);
SAME(GVNC_SYSTEM_ERROR, ncclSystemError);
SAME(GVNC_INTERNAL_ERROR, ncclInternalError);
SAME(GVNC_INVALID_ARGUMENT, ncclInvalidArgument);
SAME(GVNC_INVALID_USAGE, ncclInvalidUsage);
SAME(GVNC_REMOTE_ERROR, ncclRemoteError);
SAME(GVNC_IN_PROGRESS, ncclInProgress);
SAME(GVNC_FLOAT32, ncclFloat32);
SAME(GVNC_SUM, ncclSum);
SAME(GVNC_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT);
SAME(GVNC_VERSION(2, 28, 9), NCCL_VERSION(2, 28, 9));
/* Our config is the head of NCCL's: same offsets up to split_share. */
SAME(offsetof(gvnc_config, size), offsetof(ncclConfig_t, size));
SAME(offsetof(gvnc_config, magic), offsetof(ncclConfig_t, magic));
SAME(offsetof(gvnc_config, version), offsetof(ncclConfig_t, version));
SAME(offsetof(gvnc_config, blocking), offsetof(ncclConfig_t, blocking));
SAME(offsetof(gvnc_config, cga_cluster_size), offsetof(ncclConfig_t, cgaClusterSize));
SAME(offsetof(gvnc_config, min_ctas), offsetof(ncclConfig_t, minCTAs));
SAME(offsetof(gvnc_config, max_ctas), offsetof(ncclConfig_t, maxCTAs));
SAME(offsetof(gvnc_config, net_name), offsetof(ncclConfig_t, netName));
SAME(offsetof(gvnc_config, split_share), offsetof(ncclConfig_t, splitShare));
#endif

#ifdef GV_HAVE_NVML_H
SAME(sizeof(gvnv_pci_info), sizeof(nvmlPciInfo_t));
SAME(offsetof(gvnv_pci_info, pci_device_id), offsetof(nvmlPciInfo_t, pciDeviceId));
SAME(offsetof(gvnv_pci_info, bus_id), offsetof(nvmlPciInfo_t, busId));
SAME(sizeof(gvnv_memory), sizeof(nvmlMemory_t));
SAME(offsetof(gvnv_memory, free), offsetof(nvmlMemory_t, free));
SAME(offsetof(gvnv_memory, used), offsetof(nvmlMemory_t, used));
SAME(sizeof(gvnv_memory_v2), sizeof(nvmlMemory_v2_t));
SAME(offsetof(gvnv_memory_v2, reserved), offsetof(nvmlMemory_v2_t, reserved));
SAME(offsetof(gvnv_memory_v2, used), offsetof(nvmlMemory_v2_t, used));
SAME(GVNV_STRUCT_VERSION(gvnv_memory_v2, 2), nvmlMemory_v2);
SAME(GVNV_ERROR_GPU_IS_LOST, NVML_ERROR_GPU_IS_LOST);
SAME(GVNV_ERROR_LIB_RM_VERSION_MISMATCH, NVML_ERROR_LIB_RM_VERSION_MISMATCH);
SAME(GVNV_ERROR_NOT_SUPPORTED, NVML_ERROR_NOT_SUPPORTED);
SAME(GVNV_ERROR_DRIVER_NOT_LOADED, NVML_ERROR_DRIVER_NOT_LOADED);
SAME(GVNV_CLOCK_SM, NVML_CLOCK_SM);
SAME(GVNV_TEMPERATURE_GPU, NVML_TEMPERATURE_GPU);
SAME(sizeof(gvnv_utilization), sizeof(nvmlUtilization_t));
SAME(offsetof(gvnv_utilization, memory), offsetof(nvmlUtilization_t, memory));
SAME(GVNV_NVLINK_MAX_LINKS, NVML_NVLINK_MAX_LINKS);
SAME(GVNV_NVLINK_DEVICE_TYPE_GPU, NVML_NVLINK_DEVICE_TYPE_GPU);
SAME(GVNV_NVLINK_DEVICE_TYPE_SWITCH, NVML_NVLINK_DEVICE_TYPE_SWITCH);
/* Health counters. */
SAME(sizeof(gvnv_sram_ecc_status), sizeof(nvmlEccSramErrorStatus_v1_t));
SAME(offsetof(gvnv_sram_ecc_status, volatile_cor),
     offsetof(nvmlEccSramErrorStatus_v1_t, volatileCor));
SAME(offsetof(gvnv_sram_ecc_status, aggregate_unc_other),
     offsetof(nvmlEccSramErrorStatus_v1_t, aggregateUncBucketOther));
SAME(offsetof(gvnv_sram_ecc_status, threshold_exceeded),
     offsetof(nvmlEccSramErrorStatus_v1_t, bThresholdExceeded));
SAME(GVNV_STRUCT_VERSION(gvnv_sram_ecc_status, 1), nvmlEccSramErrorStatus_v1);
SAME(sizeof(gvnv_remapped_rows_v2), sizeof(nvmlRemappedRowsInfo_v2_t));
SAME(offsetof(gvnv_remapped_rows_v2, failure_occurred),
     offsetof(nvmlRemappedRowsInfo_v2_t, bFailureOccurred));
SAME(sizeof(gvnv_remap_histogram), sizeof(nvmlRowRemapperHistogramValues_t));
SAME(offsetof(gvnv_remap_histogram, none), offsetof(nvmlRowRemapperHistogramValues_t, none));
SAME(GVNV_STRUCT_VERSION(gvnv_repair_status, 1), nvmlRepairStatus_v1);
SAME(offsetof(gvnv_repair_status, tpc_repair_pending),
     offsetof(nvmlRepairStatus_v1_t, bTpcRepairPending));
SAME(sizeof(gvnv_unrepairable_memory), sizeof(nvmlUnrepairableMemoryStatus_v1_t));
SAME(GVNV_STRUCT_VERSION(gvnv_margin_temperature, 1), nvmlMarginTemperature_v1);
SAME(GVNV_STRUCT_VERSION(gvnv_fabric_info, 3), nvmlGpuFabricInfo_v3);
SAME(offsetof(gvnv_fabric_info, status), offsetof(nvmlGpuFabricInfo_v3_t, status));
SAME(offsetof(gvnv_fabric_info, state), offsetof(nvmlGpuFabricInfo_v3_t, state));
SAME(offsetof(gvnv_fabric_info, health_mask), offsetof(nvmlGpuFabricInfo_v3_t, healthMask));
SAME(sizeof(gvnv_field_value), sizeof(nvmlFieldValue_t));
SAME(offsetof(gvnv_field_value, value_type), offsetof(nvmlFieldValue_t, valueType));
SAME(offsetof(gvnv_field_value, nvml_return), offsetof(nvmlFieldValue_t, nvmlReturn));
SAME(offsetof(gvnv_field_value, value), offsetof(nvmlFieldValue_t, value));
SAME(sizeof(gvnv_event_data), sizeof(nvmlEventData_t));
SAME(offsetof(gvnv_event_data, event_type), offsetof(nvmlEventData_t, eventType));
SAME(offsetof(gvnv_event_data, event_data), offsetof(nvmlEventData_t, eventData));
SAME(offsetof(gvnv_event_data, compute_instance_id), offsetof(nvmlEventData_t, computeInstanceId));
SAME(GVNV_EVENT_TYPE_XID_CRITICAL_ERROR, nvmlEventTypeXidCriticalError);
SAME(GVNV_FI_DEV_NVLINK_REMOTE_NVLINK_ID, NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID);
SAME(GVNV_FI_DEV_NVLINK_COUNT_LOCAL_LINK_INTEGRITY_ERRORS,
     NVML_FI_DEV_NVLINK_COUNT_LOCAL_LINK_INTEGRITY_ERRORS);
SAME(GVNV_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS,
     NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS);
SAME(GVNV_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS,
     NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS);
SAME(GVNV_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS, NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS);
SAME(GVNV_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS, NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS);
SAME(GVNV_MEMORY_LOCATION_DRAM, NVML_MEMORY_LOCATION_DRAM);
SAME(GVNV_MEMORY_ERROR_UNCORRECTED, NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
SAME(GVNV_AGGREGATE_ECC, NVML_AGGREGATE_ECC);
SAME(GVNV_NVLINK_ERROR_DL_ECC_DATA, NVML_NVLINK_ERROR_DL_ECC_DATA);
SAME(GVNV_FABRIC_STATE_COMPLETED, NVML_GPU_FABRIC_STATE_COMPLETED);
SAME(GVNV_FABRIC_HEALTH_DEGRADED_BW_TRUE, NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_TRUE);
SAME(GVNV_VALUE_TYPE_UNSIGNED_SHORT, NVML_VALUE_TYPE_UNSIGNED_SHORT);
SAME(GVNV_FI_DEV_RETIRED_PENDING, NVML_FI_DEV_RETIRED_PENDING);
SAME(GVNV_FI_DEV_PERF_POLICY_POWER, NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP);
SAME(GVNV_FI_DEV_PERF_POLICY_SYNC_BOOST, NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST);
SAME(GVNV_FI_DEV_MEMORY_TEMP, NVML_FI_DEV_MEMORY_TEMP);
SAME(GVNV_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT, NVML_FI_DEV_TEMPERATURE_GPU_MAX_TLIMIT);
SAME(GVNV_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN,
     NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN);
#endif

/* With GV_NVABI_ASSERTS_ONLY the file is only the static assertions above, so it can be
 * checked with `cc -fsyntax-only` where the NVIDIA headers are but cmocka is not. */
#ifndef GV_NVABI_ASSERTS_ONLY
#include "helpers.h"

/* The typedefs' signatures: our function pointer types accept the real functions. */
static void proc_address_signatures_match(void **state)
{
    (void)state;
    gvcu_get_proc_address_v2_fn ours = NULL;
    CUresult (*theirs)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) =
        NULL;
    assert_int_equal(sizeof ours, sizeof theirs);
    ours = (gvcu_get_proc_address_v2_fn)theirs;
    assert_null(ours);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(proc_address_signatures_match)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
