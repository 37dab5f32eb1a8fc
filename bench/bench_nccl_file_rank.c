/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
/* One rank of an NCCL job whose bootstrap id travels through a file, as a cluster without MPI
 * hands it over (a shared filesystem, a key-value store): rank 0 writes the id to ID_FILE
 * (atomically: a temporary file renamed), every other rank waits for it, and each calls
 * gv_nccl_bench_rank on its GPU. Run each rank where its "node" is (a network namespace, a
 * host); rank 0 alone with NRANKS 2 is the withheld-rank deadline case. Prints one JSON object:
 * status, verdict, the time to return, the transport NCCL took ("network": "Socket"), peak
 * bus bandwidth and every size.
 * Usage: bench_nccl_file_rank RANK NRANKS GPU ID_FILE [DEADLINE_S [MAX_BYTES [OP]]]
 *   DEADLINE_S 60, MAX_BYTES 256 MiB, OP all_reduce (gv-nccl's --op names) */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"

static int write_id(const char *path, const gv_nccl_id *id)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    int ok = fwrite(id, sizeof *id, 1, f) == 1;
    ok = fclose(f) == 0 && ok;
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}

/* Waits up to wait_s for rank 0's file. */
static int read_id(const char *path, gv_nccl_id *id, double wait_s)
{
    double until = now_s() + wait_s;
    do {
        FILE *f = fopen(path, "rb");
        if (f) {
            int ok = fread(id, sizeof *id, 1, f) == 1;
            fclose(f);
            if (ok)
                return 0;
        }
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    } while (now_s() < until);
    return -1;
}

static int op_number(const char *name)
{
    for (int c = 0; c < GV_NCCL_COLLECTIVES; c++)
        if (!strcmp(name, gv_nccl_collective_name(c)))
            return c;
    return -1;
}

/* " NAME": "VALUE",\n with VALUE escaped for JSON (NCCL's messages may hold quotes). */
static void print_field(const char *name, const char *value)
{
    printf(" \"%s\": \"", name);
    for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    printf("\",\n");
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench_nccl_file_rank RANK NRANKS GPU ID_FILE [DEADLINE_S "
                        "[MAX_BYTES [OP]]]\n");
        return 2;
    }
    int rank = atoi(argv[1]), nranks = atoi(argv[2]);
    uint32_t gpu = (uint32_t)atoi(argv[3]);
    const char *id_file = argv[4];
    gv_nccl_opts o = GV_NCCL_OPTS_INIT;
    o.deadline_s = argc > 5 ? atof(argv[5]) : 60.0;
    o.max_bytes = argc > 6 ? strtoull(argv[6], NULL, 10) : 256ull << 20;
    o.collective = argc > 7 ? op_number(argv[7]) : GV_NCCL_ALL_REDUCE;
    if (rank < 0 || rank >= nranks || o.collective < 0) {
        fprintf(stderr, "bench_nccl_file_rank: bad rank, rank count or operation\n");
        return 2;
    }
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(NULL, &ctx) != GV_OK)
        return 2;
    gv_nccl_id id;
    memset(&id, 0, sizeof id);
    double t0 = now_s();
    int have_id = rank == 0 ? gv_nccl_unique_id(ctx, &id) == GV_OK && write_id(id_file, &id) == 0
                            : read_id(id_file, &id, o.deadline_s) == 0;
    if (!have_id) {
        fprintf(stderr, "bench_nccl_file_rank: no id (%s): %s\n", id_file, gv_ctx_last_error(ctx));
        gv_ctx_destroy(ctx);
        return 2;
    }
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    gv_status st = gv_nccl_bench_rank(ctx, &id, rank, nranks, gpu, &o, &r);
    double took = now_s() - t0;
    printf("{\"rank\": %d, \"nranks\": %d, \"gpu\": %u, \"op\": \"%s\", \"status\": \"%s\", "
           "\"verdict\": \"%s\", \"returned_after_s\": %.3f, \"deadline_s\": %.1f,\n",
           rank, nranks, gpu, gv_nccl_collective_name(o.collective), gv_strerror(st),
           gv_verdict_name(r.verdict), took, o.deadline_s);
    print_field("message", r.message);
    print_field("network", r.network);
    print_field("transports", r.transports);
    print_field("settings", r.settings);
    print_field("nccl", r.version);
    printf(" \"transport_known\": %d, \"via_p2p\": %u, \"via_shm\": %u, \"via_net\": %u, "
           "\"via_socket\": %u, \"init_s\": %.3f, \"peak_busbw_gbps\": %.2f, "
           "\"peak_bytes\": %llu, \"wrong\": %llu,\n \"sizes\": [",
           r.transport_known, r.via_p2p, r.via_shm, r.via_net, r.via_socket, r.init_s,
           r.peak_busbw_gbps, (unsigned long long)r.peak_bytes,
           (unsigned long long)r.wrong_elements);
    for (uint32_t i = 0; i < r.size_count && i < GV_NCCL_MAX_SIZES; i++)
        printf("%s{\"bytes\": %llu, \"time_us\": %.2f, \"busbw_gbps\": %.3f}", i ? ", " : "",
               (unsigned long long)r.sizes[i].bytes, r.sizes[i].time_us, r.sizes[i].busbw_gbps);
    printf("]}\n");
    gv_ctx_destroy(ctx);
    return st == GV_OK && r.verdict == GV_PASS ? 0 : 1;
}
