/* SPDX-License-Identifier: Apache-2.0 */
/* Scenario files for the fake NVIDIA libraries: the node a test pretends to be.
 *
 *   driver_version = 580.95.05     cuda_version = 13000     nvml_version = 13.580.95.05
 *   nvml_init = 0                  cu_init = 0              (return codes to inject)
 *   gpu = name=NVIDIA H100 80GB HBM3; device_id=0x2330; bus=0000:18:00.0; uuid=GPU-...;
 *         serial=...; memory_mib=81559; cc=9.0; sms=132; max_sm_clock=1980; vbios=...;
 *         inforom=G520.0200.00.05; gsp=580.95.05; board_part=692-2G520-0200-000 (firmware
 *         and board; absent: NOT_SUPPORTED);
 *         persistence=1; ecc=1; mig=0; compute_mode=0; power_limit_w=700; temp=31;
 *         default_power_limit_w=700 (when someone lowered the limit below it);
 *         pcie=5,16,5,16; lost=0; free_mib=256; copy_gbps=50; gemm_tflops=700;
 *         gemm_corrupt=0; nvlinks=18; nvlinks_down=0; nvlink_peer=switch; util=0;
 *         dmabuf=1
 *         (one line per GPU, in PCI order; nvlinks = 0: NVLink not supported; the last
 *         nvlinks_down links are inactive; the peer is "switch" or a GPU's bus id)
 *   cublas_cuda_version = 13000
 *   ib_device = name=mlx5_0; ports=1; active_mtu=5; max_mtu=5; dmabuf=1   (fake libibverbs)
 *   nccl_version = 22809    nccl_busbw_gbps = 0 (instant)    (fake libnccl)
 *   nccl_fault = none | wrong_sum (rank 0 gets one wrong element per operation)
 *                | hang (collectives never complete until aborted) | crash (SIGSEGV)
 *                | host_hang (a collective never leaves NCCL's host code: blocking calls hang)
 *   nccl_hang_rank = 3   (nccl_fault = hang on that rank alone: the others' collectives complete)
 *   nccl_hang_after = 5  (nccl_fault = hang from the rank's 5th operation on: mid-sweep)
 *   nccl_transport = P2P/CUMEM/read    nccl_network = IB   (what NCCL_DEBUG=INFO logs)
 *   nccl_transport_across_pairs = SHM/direct/direct   (between ranks 0-1, 2-3, ... and others)
 *   nccl_slow_link = 1-2   (sends between ranks 1 and 2 take 50 us + 0.1 GB/s, not 20 us + 2 GB/s)
 *
 *   gpu = ...; procs=4121:38912/4122:1024   (other processes on the GPU: pid:MiB, for NVML)
 *   gpu = ...; hidden_mib=9194   (memory of processes NVML does not list: another PID namespace)
 *   gpu = ...; taken_mib=160   (another process takes 160 MiB after the first allocation)
 *   gpu = ...; p2p_gbps=100   (its peer copies at 100 GB/s; default 25 per active NVLink)
 *   gpu = ...; peer_group=1   (peer access only with the GPUs of group 1; default: any GPU)
 *   gpu = ...; peer=0   (no peer access to or from it)
 *   gpu = ...; copy_shared=1   (host copies share one link with the other GPUs of group 1:
 *         its rate divides among those holding pinned copy buffers at the time)
 *   gpu = ...; power_draw_pct=80   (NVML's power reading: 80% of the limit; default 98)
 *   gpu = ...; power_ramp_ms=300   (the reading is 30% of the limit for the first 300 ms after
 *         the process first read it: NVML's one-second average catching up with a load)
 *   gpu = ...; sm_clock=1400       (NVML's SM clock under load; default max_sm_clock)
 *   gpu = ...; kernel_wall_ms=40   (each kernel launch takes 40 ms of wall time on the host,
 *         asleep: the GPU's work, not the host's CPU, sets how long a test takes)
 *   gpu = ...; slow_timings=9   (the first 9 intervals timed with CUDA events on the GPU read
 *         twice as long: something else took the bus or the GPU for that moment)
 *   gpu = ...; slow_streams=1   (every interval timed on the first stream made on the GPU reads
 *         twice as long: the whole first measurement, however many intervals its wall-clock
 *         warm-up takes)
 *   gpu = ...; clock_events=0x24   (NVML's current clock-event reasons under load: power cap
 *         and SW thermal slowdown; default 0)
 *   gpu = ...; gemm_drift_after=50   (the 51st and later GEMMs on the GPU come out wrong)
 *   gpu = ...; gemm_lsb_flip=1   (bit 0 of output element (0, 0) of every GEMM flipped: wrong
 *         within every tolerance; set on every GPU of a node, the GPUs agree with each other and
 *         only the result fingerprints, compared across nodes, tell)
 *   gpu = ...; mem_stuck=0x1000:5   (bit 5 of the word at byte offset 0x1000 of every buffer
 *         the memory test walks reads as 1)
 *   gpu = ...; mem_ecc=3:1   (the DRAM ECC counters rise by 3 corrected and 1 uncorrected
 *         error while the memory test runs)
 *   fault = cuInit hang | cublasLtMatmul crash | cuDevicePrimaryCtxRetain error=2 |
 *           ibv_open_device slow=0.1 |
 *           nvmlDeviceGetHandleByIndex hang gpu=3 | cuEventQuery hang  (one line each: the
 *           entry point, what it does there, optionally only for one GPU by index; points
 *           with faults: cuInit, cuDevicePrimaryCtxRetain/Release, cuMemAlloc, cuMemFree,
 *           cuMemcpyHtoDAsync, cuMemcpyDtoDAsync, cuStreamDestroy, cuLaunchKernel, cuEventQuery,
 *           cublasLtMatmul, cudnnCreate, ncclCommDestroy, ncclCommAbort, nvmlInit,
 *           nvmlDeviceGetHandleByIndex, ibv_open_device)
 *
 * The file is named by $GV_FAKE_SCENARIO and read again at every nvmlInit/cuInit, so one test
 * process can move through several scenarios. Test code only: never shipped. */
#ifndef GV_FAKES_SCENARIO_H
#define GV_FAKES_SCENARIO_H

#define FAKE_MAX_GPUS 16

/* Health counters a GPU reports (gpu = ...; health=dram_unc_vol:2,remap_pending:1): the names
 * in fake_health_names, -1 for NOT_SUPPORTED. Defaults: an H100's (supports everything but
 * page retirement and the fabric; 3072 banks with all spare rows; 40 C under T.Limit). */
enum fake_health {
    FH_SRAM_COR_VOL,
    FH_SRAM_PARITY_VOL,
    FH_SRAM_SECDED_VOL,
    FH_SRAM_COR_AGG,
    FH_SRAM_PARITY_AGG,
    FH_SRAM_SECDED_AGG,
    FH_SRAM_L2,
    FH_SRAM_SM,
    FH_SRAM_PCIE,
    FH_SRAM_MCU,
    FH_SRAM_OTHER,
    FH_SRAM_THRESHOLD,
    FH_DRAM_COR_VOL,
    FH_DRAM_UNC_VOL,
    FH_DRAM_COR_AGG,
    FH_DRAM_UNC_AGG,
    FH_REMAP_COR,
    FH_REMAP_COR_INACTIVE,
    FH_REMAP_UNC,
    FH_REMAP_UNC_INACTIVE,
    FH_REMAP_PENDING,
    FH_REMAP_FAILURE,
    FH_BANKS_MAX,
    FH_BANKS_HIGH,
    FH_BANKS_PARTIAL,
    FH_BANKS_LOW,
    FH_BANKS_NONE,
    FH_RETIRED_SBE,
    FH_RETIRED_DBE,
    FH_RETIRED_PENDING,
    FH_CHANNEL_REPAIR,
    FH_TPC_REPAIR,
    FH_UNREPAIRABLE,
    FH_PCIE_REPLAY,
    FH_NVLINK_REPLAY,
    FH_NVLINK_RECOVERY,
    FH_NVLINK_CRC_FLIT,
    FH_NVLINK_CRC_DATA,
    FH_NVLINK_ECC,
    FH_NVLINK_ERR_LINK,
    FH_MARGIN,
    FH_MEM_TEMP,
    FH_TLIMIT_SHUTDOWN,
    FH_TLIMIT_SLOWDOWN,
    FH_TLIMIT_GPU_MAX,
    FH_TLIMIT_MEM_MAX,
    FH_CE_SW_POWER_MS,
    FH_CE_SYNC_BOOST_MS,
    FH_CE_SW_THERMAL_MS,
    FH_CE_HW_THERMAL_MS,
    FH_CE_HW_POWER_BRAKE_MS,
    FH_FABRIC_STATE,
    FH_FABRIC_STATUS,
    FH_FABRIC_HEALTH,
    FH_RECOVERY_ACTION, /* NVML's GPU recovery action; -1: not supported (a driver before R550) */
    FH_FABRIC_DONE_MS,  /* the fabric state reads COMPLETED this long after the process first
                           asked (the fabric manager finishing at boot); 0: never changes */
    /* NVLink 5 field values on nvlink_err_link (0 on the others); -1 (the default): NVML
     * answers NOT_SUPPORTED, as on Hopper. */
    FH_NVLINK_RECOVERY_OK,
    FH_NVLINK_RECOVERY_FAILED,
    FH_NVLINK_EFFECTIVE,
    FH_NVLINK_SYMBOL,
    FH_NVLINK_INTEGRITY,
    FH_COUNT
};
extern const char *const fake_health_names[FH_COUNT];

typedef struct fake_gpu {
    char name[96], bus[32], uuid[96], serial[32], vbios[32];
    char inforom[16], gsp[64]; /* firmware versions; "": NOT_SUPPORTED */
    char board_part[32];       /* nvmlDeviceGetBoardPartNumber; "": NOT_SUPPORTED */
    unsigned device_id;
    unsigned long long memory_mib;
    int cc_major, cc_minor, sms, max_sm_clock;
    int persistence, ecc, ecc_pending, mig, mig_pending, compute_mode, power_limit_w, temp;
    int default_power_limit_w; /* the board's default; 0: power_limit_w */
    int pcie_gen, pcie_width, pcie_gen_max, pcie_width_max;
    int lost;
    /* Active tests: free device memory the fake hands out, copy rate, GEMM rate and faults. */
    unsigned long long free_mib; /* default 256 */
    /* Another process allocates this much right after the first allocation that succeeds on
     * the GPU (a check started beside another one); cuMemGetInfo then shows less free. */
    unsigned long long taken_mib;
    double copy_gbps;   /* default 50 */
    double gemm_tflops; /* default 700 */
    int gemm_corrupt;   /* 1: every GEMM output is off by one */
    int gemm_lsb_flip;  /* 1: bit 0 of every GEMM's output element (0, 0) flipped */
    int peer;           /* 0: no peer access to or from it (default 1) */
    int peer_group;     /* non-zero: peer access only with GPUs of the same group (a NUMA node's) */
    double p2p_gbps;    /* peer copy rate; 0: 25 GB/s per active NVLink */
    int copy_shared;    /* > 0: a link shared with the GPUs of this group number */
    int power_draw_pct; /* power NVML reports, percent of the limit; default 98 */
    int power_ramp_ms;  /* 30% of the limit for this long after the first reading */
    int sm_clock;       /* the SM clock NVML reports under load, MHz; 0: max_sm_clock */
    unsigned long long clock_events; /* nvmlClocksEventReason* bits NVML reports; default 0 */
    int slow_timings;                /* the first this many event intervals read twice as long */
    int slow_streams; /* intervals on the first this many streams made read twice as long */
    long long gemm_drift_after; /* > 0: GEMMs after this many on the GPU come out wrong */
    long long mem_stuck;        /* byte offset of a stuck-at-1 bit in memory-test buffers; -1 */
    int mem_stuck_bit;
    long long mem_ecc_cor, mem_ecc_unc; /* ECC errors counted while the memory test runs */
    int nvlinks, nvlinks_down;          /* NVLinks the GPU has, how many of them are inactive */
    char nvlink_peer[32]; /* "switch" (default) or the bus id of the GPU at the other end */
    int utilization;      /* GPU utilization percent */
    int dmabuf;           /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, default 1 */
    int cuda_missing;     /* 1: NVML lists the GPU, CUDA does not enumerate it */
    int nvml_denied;      /* 1: its handle is NVML_ERROR_NO_PERMISSION (a job's cgroup) */
    int proc_count;       /* other processes NVML lists on the GPU */
    unsigned long long hidden_mib; /* held by processes NVML does not list (another PID ns) */
    unsigned proc_pid[4];
    int kernel_wall_ms;
    unsigned long long proc_mib[4];
    /* NVML's Xid events: this code (0 none) is reported to an event set that registered the GPU,
     * xid_event_ms after it did; events_unsupported: the GPU registers for none. */
    int xid_event, xid_event_ms, events_unsupported;
    long long health[FH_COUNT];
} fake_gpu;

#define FAKE_MAX_FAULTS 8

/* A fault injected at an entry point: "hang" blocks forever, "crash" raises SIGSEGV, "slow=S"
 * takes S seconds before the call does its work,
 * "error" returns code, "stall" answers CUDA_ERROR_NOT_READY for ever (work queued on the GPU
 * that never completes, the host thread free), "crash_once" crashes the first process of a
 * run only (a fresh worker then gets past it; needs $GV_FAKE_ONCE_DIR, where it leaves its
 * mark). after=S: only once S seconds have passed since the process first reached the point;
 * calls=N: only from the process's Nth call of the point on (a point in the middle of a check,
 * whatever the host's speed). */
typedef struct fake_fault {
    char point[64];
    char action[16];
    int code;
    int gpu;         /* -1: every GPU */
    double after_s;  /* 0: from the first call */
    double slow_s;   /* "slow=S": the call takes S s more, then does its work */
    int after_calls; /* calls=N: only from the process's Nth call on (for this GPU) */
} fake_fault;

#define FAKE_MAX_IB 16

/* An RDMA device the fake libibverbs lists (ports 1..ports, MTUs as enum ibv_mtu). */
typedef struct fake_ib_device {
    char name[64];
    int ports, active_mtu, max_mtu;
    int dmabuf; /* ibv_reg_dmabuf_mr probe: 1 supported (EBADF), 0 EOPNOTSUPP */
} fake_ib_device;

typedef struct fake_scenario {
    char driver_version[32], nvml_version[32];
    int cuda_version;
    int nvml_init, cu_init;
    int cublas_cuda_version; /* what the fake cuBLASLt says it was built for, default 13000 */
    int nccl_version;        /* ncclGetVersion, default 22809 */
    char nccl_fault[16];     /* "", "none", "wrong_sum", "hang", "crash", "host_hang" */
    char nccl_transport[48]; /* what its INFO log says connects the ranks: "P2P/CUMEM/read" */
    /* between ranks of different pairs (0-1, 2-3, ...), where set: NVLink-bridged pairs */
    char nccl_transport_across_pairs[48];
    char nccl_network[16];  /* its "Using network": "IB" */
    int nccl_slow_link[2];  /* ranks whose sends crawl (50 us + 0.1 GB/s, not 20 us + 2 GB/s) */
    int nccl_hang_rank;     /* nccl_fault = hang for this rank only; -1 every rank */
    int nccl_hang_after;    /* ... from its Nth operation on; 0 from the first */
    double nccl_busbw_gbps; /* the bus bandwidth the fake NCCL takes its time for; 0 instant */
    /* The baseboard's NVSwitches (comma-separated bus ids, HGX H100's four): a GPU's links to
     * "switch" spread over them (links 0-4 on the first, 5-8, 9-12, 13-17), GPU i's k-th link
     * to a switch on its port i * 5 + k (NVML's remote NVLink ID field). Unset: one switch on
     * bus 0xff and no remote link ID (NOT_SUPPORTED). */
    char nvswitch_buses[4][32];
    int nvswitch_count;
    int gpu_count;
    fake_gpu gpus[FAKE_MAX_GPUS];
    int ib_count;
    fake_ib_device ib[FAKE_MAX_IB];
    int fault_count;
    fake_fault faults[FAKE_MAX_FAULTS];
} fake_scenario;

/* The fault the scenario puts at this entry point for GPU gpu (-1 when the call has no GPU,
 * which a fault on one GPU leaves alone): hangs or crashes here, or returns the error code to
 * answer with; 0 when none. */
int fake_fault_at(const fake_scenario *s, const char *point, int gpu);

/* Reads $GV_FAKE_SCENARIO into s; -1 when unset, unreadable or malformed. */
int fake_scenario_load(fake_scenario *s);

#endif
