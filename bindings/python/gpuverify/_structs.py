# SPDX-License-Identifier: Apache-2.0
"""ctypes mirrors of the public structs (include/gpuverify/*.h), field for field. Each carries
its C name; _native checks every mirror against gv_struct_size() of the loaded library."""
import ctypes as C

LOG_FN = C.CFUNCTYPE(None, C.c_void_p, C.c_int32, C.c_char_p)


class Versioned(C.Structure):
    """A struct whose first field is struct_size, set on creation."""

    c_name = ""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.struct_size = C.sizeof(self)


class CtxOpts(Versioned):
    c_name = "gv_ctx_opts"
    _fields_ = [("struct_size", C.c_uint32), ("flags", C.c_uint32), ("sysroot", C.c_char_p),
                ("library_dir", C.c_char_p), ("cuda_library", C.c_char_p),
                ("nvml_library", C.c_char_p), ("cublaslt_library", C.c_char_p),
                ("cudnn_library", C.c_char_p), ("nccl_library", C.c_char_p),
                ("ibverbs_library", C.c_char_p), ("log_fn", LOG_FN), ("log_user", C.c_void_p),
                ("log_level", C.c_int32), ("live_libraries", C.c_int32),
                ("deadline_s", C.c_double), ("worker_path", C.c_char_p),
                # ABI 1.1: the history database; NULL (the default here) keeps none.
                ("state_path", C.c_char_p),
                # ABI 1.1: the node's name; NULL: $GPUVERIFY_NODE_NAME, else the host's.
                ("node_name", C.c_char_p)]


class Policy(Versioned):
    c_name = "gv_policy"
    _fields_ = [("struct_size", C.c_uint32), ("flags", C.c_uint32), ("gpu_count", C.c_int32),
                ("require_rdma", C.c_int32), ("gpu_model", C.c_char * 96),
                ("kernel_min", C.c_char * 32), ("gemm_warn_fraction", C.c_double),
                ("gemm_fail_fraction", C.c_double), ("gemm_min_tflops", C.c_double * 5),
                ("copy_min_gbps", C.c_double), ("nccl_min_busbw_gbps", C.c_double),
                ("xids", C.c_char * 128), ("busy", C.c_int32), ("reserved", C.c_int32),
                ("ecc_correctable_warn", C.c_double), ("pcie_replay_warn_per_min", C.c_double),
                ("aer_correctable_warn", C.c_double), ("nvlink_crc_warn", C.c_double),
                ("clock_event_warn_s", C.c_double), ("temp_margin_warn_c", C.c_double),
                ("retired_pages_fail", C.c_int32), ("reserved1", C.c_int32),
                ("history_min_runs", C.c_double), ("history_runs", C.c_double),
                ("history_perf_warn_fraction", C.c_double), ("history_window_days", C.c_double),
                ("history_ecc_per_day_warn", C.c_double), ("history_remap_warn", C.c_double),
                ("history_exhaustion_days_warn", C.c_double),
                ("history_record_warn", C.c_double), ("history_keep_days", C.c_double),
                ("history_keep_runs", C.c_double), ("history_keep_mb", C.c_double),
                ("history_wait_s", C.c_double),
                ("history_symbol_error_warn_per_h", C.c_double),
                ("history_symbol_error_fail_per_h", C.c_double)]

    def __init__(self, **kw):
        super().__init__(**kw)
        if "gpu_count" not in kw:
            self.gpu_count = -1  # GV_POLICY_INIT: not set


class RunEvent(Versioned):
    c_name = "gv_run_event"
    _fields_ = [("struct_size", C.c_uint32), ("kind", C.c_int32), ("check", C.c_char_p),
                ("subject", C.c_char_p), ("result", C.c_void_p),
                ("checks_started", C.c_uint32), ("checks_selected", C.c_uint32),
                ("elapsed_s", C.c_double), ("budget_s", C.c_double)]


RUN_EVENT_FN = C.CFUNCTYPE(None, C.POINTER(RunEvent), C.c_void_p)


class RunOpts(Versioned):
    c_name = "gv_run_opts"
    _fields_ = [("struct_size", C.c_uint32), ("flags", C.c_uint32), ("checks", C.c_char_p),
                ("gemm_size", C.c_uint32), ("reserved0", C.c_uint32),
                ("copy_bytes", C.c_uint64), ("topology_xml", C.c_char_p),
                ("nccl_bytes", C.c_uint64), ("level", C.c_int32), ("reserved1", C.c_uint32),
                ("budget_s", C.c_double), ("gpus", C.c_char_p),
                ("policy", C.POINTER(Policy)), ("isolation", C.c_int32),
                ("reserved2", C.c_uint32), ("on_event", RUN_EVENT_FN),
                ("on_event_user", C.c_void_p), ("duration_s", C.c_double),
                # Grown after 1.0.0: gpu.xid's wait for NVML's Xid events before judging.
                ("watch_s", C.c_double)]


class CheckResult(Versioned):
    c_name = "gv_check_result"
    _fields_ = [("struct_size", C.c_uint32), ("verdict", C.c_int32), ("id", C.c_char * 48),
                ("subject", C.c_char * 48), ("message", C.c_char * 512),
                ("measured", C.c_char * 128), ("expected", C.c_char * 128),
                ("expected_source", C.c_char * 32), ("unit", C.c_char * 16),
                ("remediation", C.c_char * 256), ("value", C.c_double),
                ("duration_s", C.c_double),
                # Grown after 1.0.0: a row that is no judgement because another gpuverify
                # held a GPU it needed; that process's PID (0 unknown) and how long it had
                # held it (seconds, negative unknown). An older library leaves them as set.
                ("held_by_other", C.c_int32), ("held_by_pid", C.c_int32),
                ("held_s", C.c_double),
                # ABI 1.1: what to do about the row (enum gv_action, 0 none), and a GEMM row's
                # result fingerprint and what makes two comparable.
                ("action", C.c_int32), ("reserved3", C.c_int32),
                ("fingerprint", C.c_char * 32), ("fingerprint_key", C.c_char * 224)]

    def __init__(self, **kw):
        super().__init__(**dict(dict(held_s=-1.0), **kw))


# The library only writes gv_check_result: one that does not know the held_* fields yet
# (1.0.0) fills the layout up to duration_s and the defaults above stand for the rest.
CheckResult.c_min_size = CheckResult.held_by_other.offset


class LibraryInfo(Versioned):
    c_name = "gv_library_info"
    _fields_ = [("struct_size", C.c_uint32), ("library", C.c_int32), ("state", C.c_int32),
                ("reserved", C.c_int32), ("name", C.c_char * 32), ("path", C.c_char * 512),
                ("version", C.c_char * 64), ("tried", C.c_char * 1024),
                ("detail", C.c_char * 256)]


class DriverInfo(Versioned):
    c_name = "gv_driver_info"
    _fields_ = [("struct_size", C.c_uint32), ("module_loaded", C.c_int32),
                ("module_kind", C.c_int32), ("nouveau_loaded", C.c_int32),
                ("module_version", C.c_char * 32), ("kernel_release", C.c_char * 64),
                ("os_name", C.c_char * 128), ("nvml_state", C.c_int32),
                ("cuda_state", C.c_int32), ("driver_version", C.c_char * 32),
                ("nvml_version", C.c_char * 32), ("cuda_driver_version", C.c_int32),
                ("nvml_cuda_version", C.c_int32), ("cuda_init_result", C.c_int32),
                ("nvml_init_result", C.c_int32), ("gpu_count_pci", C.c_int32),
                ("gpu_count_nvml", C.c_int32), ("gpu_count_cuda", C.c_int32),
                ("gpu_count", C.c_int32)]


class Gpu(Versioned):
    c_name = "gv_gpu"
    _fields_ = [("struct_size", C.c_uint32), ("index", C.c_uint32), ("nvml_index", C.c_int32),
                ("cuda_index", C.c_int32), ("name", C.c_char * 96), ("uuid", C.c_char * 96),
                ("serial", C.c_char * 32), ("pci_bus_id", C.c_char * 32),
                ("pci_vendor_id", C.c_int32), ("pci_device_id", C.c_int32),
                ("pci_class", C.c_int32), ("numa_node", C.c_int32),
                ("local_cpus", C.c_char * 128), ("memory_total", C.c_int64),
                ("memory_used", C.c_int64), ("memory_free", C.c_int64),
                ("cc_major", C.c_int32), ("cc_minor", C.c_int32), ("sm_count", C.c_int32),
                ("max_sm_clock_mhz", C.c_int32), ("vbios", C.c_char * 32),
                ("persistence_mode", C.c_int32), ("ecc_current", C.c_int32),
                ("ecc_pending", C.c_int32), ("mig_current", C.c_int32),
                ("mig_pending", C.c_int32), ("compute_mode", C.c_int32),
                ("power_limit_mw", C.c_int32), ("temperature_c", C.c_int32),
                ("pcie_gen_current", C.c_int32), ("pcie_gen_max", C.c_int32),
                ("pcie_width_current", C.c_int32), ("pcie_width_max", C.c_int32),
                ("link_speed_current_gts", C.c_double), ("link_speed_max_gts", C.c_double),
                ("link_width_current_sysfs", C.c_int32), ("link_width_max_sysfs", C.c_int32),
                ("nvml_result", C.c_int32), ("inaccessible", C.c_int32),
                ("inforom_image", C.c_char * 16), ("gsp_firmware", C.c_char * 64),
                ("board_part_number", C.c_char * 32)]


class CudaOpts(Versioned):
    c_name = "gv_cuda_opts"
    _fields_ = [("struct_size", C.c_uint32), ("flags", C.c_uint32),
                ("quick_alloc_bytes", C.c_uint64), ("alloc_fraction", C.c_double),
                ("alloc_bytes", C.c_uint64), ("copy_bytes", C.c_uint64),
                ("copy_samples", C.c_uint32), ("copies_per_sample", C.c_uint32)]

    def __init__(self, **kw):  # GV_CUDA_OPTS_INIT
        defaults = dict(quick_alloc_bytes=64 << 20, alloc_fraction=0.5, copy_bytes=256 << 20,
                        copy_samples=5, copies_per_sample=16)
        super().__init__(**dict(defaults, **kw))


class CudaResult(Versioned):
    c_name = "gv_cuda_result"
    _fields_ = [("struct_size", C.c_uint32), ("verdict", C.c_int32), ("cuda_index", C.c_int32),
                ("name", C.c_char * 96), ("pci_bus_id", C.c_char * 32),
                ("message", C.c_char * 256), ("context_s", C.c_double),
                ("memory_total", C.c_uint64), ("memory_free", C.c_uint64),
                ("alloc_verdict", C.c_int32), ("reserved0", C.c_uint32),
                ("alloc_quick_bytes", C.c_uint64), ("alloc_bytes", C.c_uint64),
                ("alloc_errors", C.c_uint64), ("alloc_message", C.c_char * 256),
                ("copy_verdict", C.c_int32), ("numa_node", C.c_int32), ("h2d_gbps", C.c_double),
                ("d2h_gbps", C.c_double), ("d2d_gbps", C.c_double),
                ("link_current_gbps", C.c_double), ("link_max_gbps", C.c_double),
                ("memory_bw_gbps", C.c_double), ("copy_message", C.c_char * 256)]


class MemtestOpts(Versioned):
    c_name = "gv_memtest_opts"
    _fields_ = [("struct_size", C.c_uint32), ("flags", C.c_uint32), ("fraction", C.c_double),
                ("chunk_bytes", C.c_uint64), ("rounds", C.c_uint32), ("reserved0", C.c_uint32),
                ("duration_s", C.c_double), ("seed", C.c_uint64)]

    def __init__(self, **kw):  # GV_MEMTEST_OPTS_INIT
        defaults = dict(fraction=0.92, chunk_bytes=1 << 30, rounds=1, seed=0x6d656d74657374)
        super().__init__(**dict(defaults, **kw))


class MemtestError(C.Structure):
    _fields_ = [("address", C.c_uint64), ("offset", C.c_uint64), ("expected", C.c_uint64),
                ("read", C.c_uint64), ("round", C.c_uint32), ("reserved0", C.c_uint32),
                ("step", C.c_char * 48)]


class MemtestResult(Versioned):
    c_name = "gv_memtest_result"
    _fields_ = [("struct_size", C.c_uint32), ("verdict", C.c_int32), ("cuda_index", C.c_int32),
                ("rounds", C.c_uint32), ("name", C.c_char * 96), ("pci_bus_id", C.c_char * 32),
                ("message", C.c_char * 512), ("memory_total", C.c_uint64),
                ("memory_free", C.c_uint64), ("bytes_tested", C.c_uint64),
                ("chunks", C.c_uint32), ("steps", C.c_uint32), ("seconds", C.c_double),
                ("gbps", C.c_double), ("errors", C.c_uint64), ("errors_logged", C.c_uint32),
                ("reserved1", C.c_uint32), ("first_errors", MemtestError * 8),
                ("ecc_corrected_before", C.c_int64), ("ecc_corrected_after", C.c_int64),
                ("ecc_uncorrected_before", C.c_int64), ("ecc_uncorrected_after", C.c_int64)]


class StressSample(C.Structure):
    c_name = "gv_stress_sample"
    _fields_ = [("t_s", C.c_double), ("tflops", C.c_double), ("sm_clock_mhz", C.c_double),
                ("power_w", C.c_double), ("temperature_c", C.c_double),
                ("clock_event_reasons", C.c_uint64), ("cuda_index", C.c_int32),
                ("mismatches", C.c_uint32)]


class StressOpts(Versioned):
    c_name = "gv_stress_opts"
    _fields_ = [("struct_size", C.c_uint32), ("flags", C.c_uint32), ("dtype", C.c_int32),
                ("size", C.c_uint32), ("duration_s", C.c_double), ("interval_s", C.c_double),
                ("gpu_count", C.c_uint32), ("gpus", C.c_uint32 * 16),
                ("series_capacity", C.c_uint32), ("series", C.POINTER(StressSample)),
                ("seed", C.c_uint64)]

    def __init__(self, **kw):  # GV_STRESS_OPTS_INIT
        defaults = dict(dtype=3, size=8192, duration_s=120.0, interval_s=0.1,
                        seed=0x5354524553530000)
        super().__init__(**dict(defaults, **kw))


class StressGpu(C.Structure):
    c_name = "gv_stress_gpu"
    _fields_ = [("cuda_index", C.c_int32), ("verdict", C.c_int32), ("name", C.c_char * 96),
                ("pci_bus_id", C.c_char * 32), ("message", C.c_char * 256),
                ("iterations", C.c_uint64), ("mismatches", C.c_uint64),
                ("first_mismatch", C.c_uint64), ("result_hash", C.c_uint64),
                ("agrees", C.c_int32), ("samples", C.c_uint32), ("tflops_median", C.c_double),
                ("tflops_min", C.c_double), ("tflops_first", C.c_double),
                ("tflops_last", C.c_double), ("sm_clock_mean_mhz", C.c_double),
                ("sm_clock_min_mhz", C.c_double), ("power_mean_w", C.c_double),
                ("power_max_w", C.c_double), ("power_limit_w", C.c_double),
                ("temperature_max_c", C.c_double), ("clock_event_reasons", C.c_uint64)]


class GemmFingerprint(C.Structure):
    # gv_gemm_fingerprint: part of the results below, its layout checked through theirs.
    _fields_ = [("hash", C.c_char * 32), ("key", C.c_char * 224), ("seconds", C.c_double)]


class StressResult(Versioned):
    c_name = "gv_stress_result"
    _fields_ = [("struct_size", C.c_uint32), ("verdict", C.c_int32), ("dtype", C.c_int32),
                ("size", C.c_uint32), ("message", C.c_char * 512), ("duration_s", C.c_double),
                ("gpu_count", C.c_uint32), ("series_count", C.c_uint32),
                ("series_dropped", C.c_uint64), ("library_version", C.c_char * 32),
                ("gpus", StressGpu * 16),
                # Grown after 1.0.0: each GPU's result fingerprint; an older library leaves
                # them empty.
                ("fingerprints", GemmFingerprint * 16)]


StressResult.c_min_size = StressResult.fingerprints.offset


class GemmOpts(Versioned):
    c_name = "gv_gemm_opts"
    _fields_ = [("struct_size", C.c_uint32), ("flags", C.c_uint32), ("dtype", C.c_int32),
                ("m", C.c_uint32), ("n", C.c_uint32), ("k", C.c_uint32),
                ("warmup_s", C.c_double), ("batch_s", C.c_double), ("batches", C.c_uint32),
                ("algo_candidates", C.c_uint32), ("verify_samples", C.c_uint32),
                ("reserved0", C.c_uint32), ("warn_fraction", C.c_double),
                ("fail_fraction", C.c_double), ("seed", C.c_uint64)]

    def __init__(self, **kw):  # GV_GEMM_OPTS_INIT
        defaults = dict(dtype=2, m=8192, n=8192, k=8192, warmup_s=1.0, batch_s=0.3, batches=5,
                        algo_candidates=16, verify_samples=64, warn_fraction=0.60,
                        fail_fraction=0.40, seed=0x9E3779B97F4A7C15)
        super().__init__(**dict(defaults, **kw))


class GemmResult(Versioned):
    c_name = "gv_gemm_result"
    _fields_ = [("struct_size", C.c_uint32), ("verdict", C.c_int32), ("dtype", C.c_int32),
                ("cuda_index", C.c_int32), ("m", C.c_uint32), ("n", C.c_uint32),
                ("k", C.c_uint32), ("reserved0", C.c_uint32), ("message", C.c_char * 256),
                ("library_version", C.c_char * 32), ("tflops_median", C.c_double),
                ("tflops_best", C.c_double), ("time_median_ms", C.c_double),
                ("peak_tflops", C.c_double), ("peak_source", C.c_char * 96),
                ("fraction_of_peak", C.c_double), ("clock_efficiency", C.c_double),
                ("sm_clock_mean_mhz", C.c_double), ("sm_clock_min_mhz", C.c_double),
                ("power_mean_w", C.c_double), ("power_max_w", C.c_double),
                ("temperature_max_c", C.c_double), ("clock_event_reasons", C.c_uint64),
                ("verified", C.c_int32), ("verify_samples", C.c_uint32),
                ("verify_errors", C.c_uint32), ("algos_timed", C.c_uint32),
                ("verify_worst", C.c_double), ("algo", C.c_char * 64), ("batches", C.c_uint32),
                ("gemms_per_batch", C.c_uint32),
                ("peak_estimated", C.c_uint32),
                # Grown after 1.0.0: the data type's result fingerprint (hash, key, seconds);
                # an older library leaves it empty.
                ("fingerprint", GemmFingerprint)]


GemmResult.c_min_size = GemmResult.fingerprint.offset


class CudnnResult(Versioned):
    c_name = "gv_cudnn_result"
    _fields_ = [("struct_size", C.c_uint32), ("verdict", C.c_int32), ("cuda_index", C.c_int32),
                ("reserved0", C.c_int32), ("message", C.c_char * 256), ("version", C.c_char * 32),
                ("cudart_version", C.c_int64), ("fp32_verdict", C.c_int32),
                ("fp16_verdict", C.c_int32), ("fp32_worst", C.c_double),
                ("fp16_worst", C.c_double)]


MAX_NCCL_GPUS = 64
MAX_NCCL_SIZES = 48


class NcclOpts(Versioned):
    c_name = "gv_nccl_opts"
    _fields_ = [("struct_size", C.c_uint32), ("flags", C.c_uint32), ("collective", C.c_int32),
                ("gpu_count", C.c_uint32), ("gpus", C.c_uint32 * MAX_NCCL_GPUS),
                ("min_bytes", C.c_uint64), ("max_bytes", C.c_uint64),
                ("step_factor", C.c_uint32), ("iters", C.c_uint32),
                ("warmup_iters", C.c_uint32), ("reserved0", C.c_uint32),
                ("deadline_s", C.c_double), ("min_busbw_gbps", C.c_double), ("seed", C.c_uint64)]

    def __init__(self, **kw):  # GV_NCCL_OPTS_INIT
        defaults = dict(min_bytes=8, max_bytes=1 << 30, step_factor=2, iters=20, warmup_iters=1,
                        seed=0x5EED5EED)
        super().__init__(**dict(defaults, **kw))


class NcclSize(C.Structure):
    c_name = "gv_nccl_size"
    _fields_ = [("bytes", C.c_uint64), ("count", C.c_uint64), ("time_us", C.c_double),
                ("algbw_gbps", C.c_double), ("busbw_gbps", C.c_double), ("wrong", C.c_uint64)]


class NcclPair(C.Structure):
    c_name = "gv_nccl_pair"
    _fields_ = [("from_", C.c_int32), ("to", C.c_int32), ("latency_us", C.c_double),
                ("busbw_gbps", C.c_double), ("wrong", C.c_uint64)]


MAX_NCCL_PAIRS = 16 * 15


class NcclResult(Versioned):
    c_name = "gv_nccl_result"
    _fields_ = [("struct_size", C.c_uint32), ("verdict", C.c_int32), ("collective", C.c_int32),
                ("nranks", C.c_int32), ("rank", C.c_int32), ("local_gpus", C.c_int32),
                ("nccl_version", C.c_int32), ("nccl_cuda", C.c_int32),
                ("version", C.c_char * 32), ("message", C.c_char * 256),
                ("settings", C.c_char * 512), ("gpus", C.c_char * 256), ("init_s", C.c_double),
                ("total_s", C.c_double), ("peak_busbw_gbps", C.c_double),
                ("peak_algbw_gbps", C.c_double), ("peak_bytes", C.c_uint64),
                ("wrong_elements", C.c_uint64), ("size_count", C.c_uint32),
                ("reserved0", C.c_uint32), ("sizes", NcclSize * MAX_NCCL_SIZES),
                ("isolation", C.c_int32), ("transport_known", C.c_int32), ("nvls", C.c_int32),
                ("via_p2p", C.c_uint32), ("via_shm", C.c_uint32), ("via_net", C.c_uint32),
                ("via_socket", C.c_uint32), ("via_collnet", C.c_uint32),
                ("reserved2", C.c_uint32), ("network", C.c_char * 32),
                ("transports", C.c_char * 256), ("in_place", NcclSize * MAX_NCCL_SIZES),
                ("pair_count", C.c_uint32), ("reserved3", C.c_uint32),
                ("pairs", NcclPair * MAX_NCCL_PAIRS)]


class NcclId(C.Structure):
    c_name = "gv_nccl_id"
    _fields_ = [("internal", C.c_char * 128)]


class HistoryOpts(Versioned):
    c_name = "gv_history_opts"
    _fields_ = [("struct_size", C.c_uint32), ("flags", C.c_uint32), ("subject", C.c_char_p),
                ("checks", C.c_char_p), ("since_unix", C.c_int64), ("max_runs", C.c_uint32),
                ("reserved", C.c_uint32)]


MIRRORS = [CtxOpts, HistoryOpts, Policy, RunOpts, RunEvent, StressSample, StressOpts, StressGpu, StressResult, CheckResult, LibraryInfo, DriverInfo, Gpu, CudaOpts,
           CudaResult, MemtestOpts, MemtestResult, GemmOpts, GemmResult, CudnnResult, NcclOpts, NcclSize, NcclPair, NcclResult, NcclId]
