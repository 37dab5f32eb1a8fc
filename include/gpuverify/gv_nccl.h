/* SPDX-License-Identifier: Apache-2.0 */
/* gpuverify: NCCL collectives with nccl-tests' figures and a hard deadline.
 *
 * gv_nccl_bench drives the local GPUs from one process. Across processes and nodes the caller
 * bootstraps: rank 0 calls gv_nccl_unique_id, the caller hands the id to every rank (MPI, a
 * file, a key-value store), and every rank calls gv_nccl_bench_rank with one GPU.
 *
 * The data are exact: every input element is a small integer, so every sum is exact and results
 * are compared with zero tolerance. algbw = bytes / time; busbw = algbw x 2(n-1)/n for all-reduce,
 * x (n-1)/n for all-gather, reduce-scatter, all-to-all, gather and scatter, x 1 for broadcast,
 * reduce and sendrecv (nccl-tests' definitions; "bytes" is the all-reduce/broadcast/reduce/
 * sendrecv buffer, the all-gather and gather output, the reduce-scatter, all-to-all and scatter
 * input).
 * Time = host clock around `iters` queued operations and a wait for all of them, over iters.
 *
 * Where it runs: in gpuverify-worker (the process gv_run isolates checks in) when one is found,
 * with blocking communicators, so each operation costs what it costs nccl-tests; the caller
 * keeps the deadline by killing the worker's process group, which no NCCL state can survive or
 * hang. Without a worker, or with GV_NCCL_IN_PROCESS, it runs in the caller with non-blocking
 * communicators that it polls and aborts at the deadline (NCCL then starts a thread per
 * operation: tens of microseconds more per operation at small sizes). Either way a rank that
 * never arrives or a collective that never completes returns GV_ERR_TIMEOUT (result verdict
 * FAIL, message saying where) within the deadline + 1 s, and the caller stays usable.
 * gv_nccl_result.isolation says which ran. Units: GB/s = 1e9 B/s. */
#ifndef GPUVERIFY_GV_NCCL_H
#define GPUVERIFY_GV_NCCL_H

#include <stdint.h>

#include "gv_common.h"
#include "gv_context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The collectives, named as nccl-tests' programs are (all_reduce_perf, ...). Rooted ones use
 * rank 0. all-to-all, gather and scatter are NCCL's own calls from NCCL 2.28, before that
 * send/recv in one group, as nccl-tests does; sendrecv is nccl-tests' ring: every rank sends to
 * the next and receives from the one before. Append-only. */
enum gv_nccl_collective {
    GV_NCCL_ALL_REDUCE = 0, /* sum */
    GV_NCCL_ALL_GATHER = 1,
    GV_NCCL_REDUCE_SCATTER = 2, /* sum */
    GV_NCCL_BROADCAST = 3,      /* from rank 0 */
    GV_NCCL_REDUCE = 4,         /* sum, to rank 0 */
    GV_NCCL_ALL_TO_ALL = 5,
    GV_NCCL_GATHER = 6,  /* to rank 0 */
    GV_NCCL_SCATTER = 7, /* from rank 0 */
    GV_NCCL_SEND_RECV = 8,
    /* Not a collective: every ordered pair of ranks in turn, `from` sending to `to` while the
     * others wait, at min_bytes (latency) and max_bytes (bandwidth) only: the one slow or broken
     * link among many. At most 16 ranks; sizes[] holds the median pair of each size. */
    GV_NCCL_PAIRS = 9
};
#define GV_NCCL_COLLECTIVES 10 /* how many there are */

/* "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "gather",
 * "scatter", "sendrecv", "pairs"; "unknown" otherwise. Static. */
GV_API const char *gv_nccl_collective_name(int32_t collective);

/* gv_nccl_opts.flags */
#define GV_NCCL_IN_PROCESS 0x1u /* run in the caller even when gpuverify-worker is found */
/* Each size in place too (nccl-tests' second column group): the output buffer is the input
 * (all-gather and gather send from their part of it, reduce-scatter and scatter receive into
 * theirs); not for all-to-all and sendrecv, which have no in-place form. */
#define GV_NCCL_IN_PLACE 0x2u

#define GV_NCCL_MAX_GPUS 64
#define GV_NCCL_MAX_SIZES 48
#define GV_NCCL_PAIRS_MAX_RANKS 16
#define GV_NCCL_MAX_PAIRS (GV_NCCL_PAIRS_MAX_RANKS * (GV_NCCL_PAIRS_MAX_RANKS - 1))

typedef struct gv_nccl_opts {
    uint32_t struct_size;
    uint32_t flags;     /* GV_NCCL_IN_PROCESS, GV_NCCL_IN_PLACE */
    int32_t collective; /* enum gv_nccl_collective, default all-reduce */
    uint32_t gpu_count; /* gv_nccl_bench: the CUDA devices in gpus[]; 0 = every device */
    uint32_t gpus[GV_NCCL_MAX_GPUS];
    uint64_t min_bytes;    /* first size of the sweep, default 8 */
    uint64_t max_bytes;    /* last size, default 1 GiB; per GPU memory: 2 x this */
    uint32_t step_factor;  /* sizes grow by this factor, default 2 */
    uint32_t iters;        /* timed operations per size, default 20 */
    uint32_t warmup_iters; /* untimed operations per size before the verified one, default 1 */
    uint32_t reserved0;
    double deadline_s;     /* the whole call; 0 = the context's default deadline */
    double min_busbw_gbps; /* FAIL when the peak busbw is below this; 0 = no floor */
    uint64_t seed;         /* of the input data */
} gv_nccl_opts;

#ifdef __cplusplus
#define GV_NCCL_OPTS_INIT                                                                          \
    {                                                                                              \
        sizeof(gv_nccl_opts), 0, GV_NCCL_ALL_REDUCE, 0, {0}, 8, 1ull << 30, 2, 20, 1, 0, 0.0, 0.0, \
            0x5eed5eedull                                                                          \
    }
#else
#define GV_NCCL_OPTS_INIT                                                                          \
    {                                                                                              \
        .struct_size = sizeof(gv_nccl_opts), .collective = GV_NCCL_ALL_REDUCE, .min_bytes = 8,     \
        .max_bytes = 1ull << 30, .step_factor = 2, .iters = 20, .warmup_iters = 1,                 \
        .seed = 0x5eed5eedull                                                                      \
    }
#endif

/* One size of the sweep: nccl-tests' columns. */
typedef struct gv_nccl_size {
    uint64_t bytes; /* nccl-tests' "size" */
    uint64_t count; /* FP32 elements each rank passes to NCCL */
    double time_us; /* one operation */
    double algbw_gbps;
    double busbw_gbps;
    uint64_t wrong; /* output elements differing from the exact result, over this call's ranks */
} gv_nccl_size;

/* One ordered pair of GV_NCCL_PAIRS: what the ranks of this call that took part measured (a
 * rank of another process's pair leaves it 0). */
typedef struct gv_nccl_pair {
    int32_t from, to;  /* ranks */
    double latency_us; /* one send/receive of min_bytes */
    double busbw_gbps; /* max_bytes / time (bus factor 1, as nccl-tests' sendrecv) */
    uint64_t wrong;    /* elements received wrong, both sizes */
} gv_nccl_pair;

typedef struct gv_nccl_result {
    uint32_t struct_size;
    int32_t verdict; /* enum gv_verdict: FAIL on any wrong element, a timeout or a busbw floor */
    int32_t collective;
    int32_t nranks;       /* the communicator's size */
    int32_t rank;         /* the first rank this call drove (0 for gv_nccl_bench) */
    int32_t local_gpus;   /* GPUs this call drove */
    int32_t nccl_version; /* ncclGetVersion: 22809 */
    int32_t nccl_cuda;    /* the CUDA version NCCL was built for, 13000; 0 unknown */
    char version[32];     /* "2.28.9" */
    char message[256];
    char settings[512]; /* NCCL_* algorithm and transport settings in force, with their sources */
    char gpus[256];     /* "0=0000:18:00.0 1=0000:2a:00.0": CUDA index = PCI bus id */
    double init_s;      /* creating the communicators */
    double total_s;     /* the whole call */
    double peak_busbw_gbps;
    double peak_algbw_gbps; /* at the size of the peak busbw */
    uint64_t peak_bytes;    /* where the peak busbw was reached */
    uint64_t wrong_elements;
    uint32_t size_count; /* rows of sizes[] filled */
    uint32_t reserved0;
    gv_nccl_size sizes[GV_NCCL_MAX_SIZES];
    int32_t isolation; /* enum gv_isolation: GV_ISOLATION_PROCESS when the sweep ran in
                        * gpuverify-worker, GV_ISOLATION_NONE in the caller's process */
    /* What NCCL chose, from its INFO log, which gpuverify-worker captures into a file of its
     * own (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT: lines written once per connection, none
     * per operation). In the caller's process NCCL's log is not touched: transport_known 0. */
    int32_t transport_known; /* 1: the connections below are NCCL's own account */
    int32_t nvls;            /* 1: NCCL said NVLS multicast (NVSwitch) is available */
    uint32_t via_p2p;        /* distinct (rank -> peer, transport) connections of this call's */
    uint32_t via_shm;        /* ranks through P2P (NVLink or PCIe), SHM (host memory), */
    uint32_t via_net;        /* NET (a network: IB, RoCE, sockets), */
    uint32_t via_socket;     /* of which NET/Socket, */
    uint32_t via_collnet;    /* and CollNet (SHARP) */
    uint32_t reserved2;
    char network[32];     /* NCCL's "Using network ..." ("IB", "Socket"), "" when not said */
    char transports[256]; /* the distinct connections: "0->1 P2P/CUMEM/read; 1->0 P2P/CUMEM/read" */
    /* With GV_NCCL_IN_PLACE: each size of sizes[] in place (time 0 where not measured). Its
     * wrong elements count in wrong_elements; the peak is out of place's, as nccl-tests'. */
    gv_nccl_size in_place[GV_NCCL_MAX_SIZES];
    /* GV_NCCL_PAIRS: every ordered pair, from 0->1, 0->2, ... to n-1->n-2. */
    uint32_t pair_count;
    uint32_t reserved3;
    gv_nccl_pair pairs[GV_NCCL_MAX_PAIRS];
} gv_nccl_result;

#define GV_NCCL_RESULT_INIT GV_STRUCT_INIT(gv_nccl_result)

/* NCCL's opaque bootstrap id (ncclUniqueId): plain bytes, safe to copy between processes. */
typedef struct gv_nccl_id {
    char internal[128];
} gv_nccl_id;

/* One process, several local GPUs. GV_OK when the sweep ran (see verdict); GV_ERR_TIMEOUT at the
 * deadline (out holds what was measured and where it stopped); GV_ERR_LIBRARY without NCCL;
 * GV_ERR_NOT_FOUND for a GPU index CUDA does not have; GV_ERR_BUSY for a GPU another gpuverify
 * kept through half the context's deadline, or over several GPUs, another process's tests across
 * GPUs (docs/checks.md, "Verdicts a scheduler can trust"). */
GV_API gv_status gv_nccl_bench(gv_ctx *ctx, const gv_nccl_opts *opts, gv_nccl_result *out);

/* A new bootstrap id; call on rank 0 only, then distribute it. It is valid while this process
 * lives (NCCL's bootstrap root runs in it). */
GV_API gv_status gv_nccl_unique_id(gv_ctx *ctx, gv_nccl_id *out);

/* One rank of nranks on CUDA device `gpu`; every rank calls it with the same id and options.
 * opts->gpus and gpu_count are ignored. */
GV_API gv_status gv_nccl_bench_rank(gv_ctx *ctx, const gv_nccl_id *id, int32_t rank, int32_t nranks,
                                    uint32_t gpu, const gv_nccl_opts *opts, gv_nccl_result *out);

#ifdef __cplusplus
}
#endif
#endif
