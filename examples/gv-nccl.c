/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
/* gv-nccl: NCCL collectives through libgpuverify, with nccl-tests' table and a verdict.
 *
 *   gv-nccl [options]                  one process over the local GPUs (gv_nccl_bench)
 *   mpirun -np N gv-nccl [options]     one rank per GPU when built with MPI: local rank -> GPU
 *                                      by hostname, rank 0's id broadcast, results gathered
 *
 * Exit status: 0 PASS, 1 WARN, FAIL or a deadline passed, 2 usage or library error. */
#include <gpuverify/gpuverify.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rendezvous.h"
#ifdef GPUVERIFY_WITH_MPI
#include <mpi.h>
#endif

static const char *const tool = "gv-nccl";

/* gv_nccl_bench's bounds (nccl_bench.c's check_opts), refused here with the option's name. */
#define NCCL_MIN_BYTES 4ull
#define NCCL_MAX_BYTES (64ull << 30)
#define NCCL_MAX_ITERS 100000
#define NCCL_MAX_DEADLINE_S 86400.0
#define NCCL_MAX_BUSBW_GBPS 100000.0
#define NCCL_MAX_RANK 1048575

static void usage(void)
{
    printf("usage: gv-nccl [--op NAME] [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP]\n"
           "               [--gpus LIST] [--deadline S] [--min-busbw GBPS] [--json]\n"
           "               [--library-dir DIR] [--withhold RANK] [--in-process] [--in-place]\n"
           "               [--rendezvous HOST:PORT] [--version]\n"
           "  --op NAME       all_reduce (default), all_gather, reduce_scatter, broadcast,\n"
           "                  reduce, alltoall, gather, scatter, sendrecv (nccl-tests' names),\n"
           "                  pairs (every ordered pair of ranks in turn, at -b and -e)\n"
           "  -b, -e          first and last size in bytes, with K/M/G suffixes, 4 to 64G\n"
           "                  (default 8, 1G)\n"
           "  -f FACTOR       sizes grow by this factor, 2 to 1024 (default 2)\n"
           "  -n ITERS        timed operations per size, 1 to 100000 (default 20)\n"
           "  -w WARMUP       untimed operations per size, 0 to 100000 (default 1)\n"
           "  --gpus LIST     CUDA devices 0 to %d, comma-separated (default all; under MPI\n"
           "                  the local rank's entry)\n"
           "  --deadline S    for the whole run, 0.1 to 86400 (default: the library's, 60 s)\n"
           "  --min-busbw G   FAIL below this peak bus bandwidth in GB/s (default none)\n"
           "  --withhold R    under MPI, rank R never joins: tests the deadline\n"
           "  --rendezvous HOST:PORT  ranks of srun, torchrun or mpirun without MPI: the\n"
           "                  rank on HOST listens on PORT and takes rank 0, the others\n"
           "                  connect (another launch at that port is not let in)\n"
           "  --in-place      each size in place too (nccl-tests' second column group)\n"
           "  --in-process    run NCCL in this process (non-blocking communicators) rather\n"
           "                  than in gpuverify-worker\n"
           "Exit status: 0 PASS, 1 WARN, FAIL or a deadline passed, 2 usage or library error.\n",
           GV_NCCL_MAX_GPUS - 1);
}

/* A size in bytes: digits and an optional K, M or G (binary, as nccl-tests), within
 * NCCL_MIN_BYTES..NCCL_MAX_BYTES. */
static int size_arg(const char *opt, const char *text, uint64_t *out)
{
    char *end = NULL;
    unsigned long long v = 0;
    int ok = *text >= '0' && *text <= '9';
    if (ok) {
        v = strtoull(text, &end, 10);
        int shift = *end == 'K' || *end == 'k'   ? 10
                    : *end == 'M' || *end == 'm' ? 20
                    : *end == 'G' || *end == 'g' ? 30
                                                 : 0;
        ok = (shift ? end[1] == '\0' : *end == '\0') && v <= NCCL_MAX_BYTES >> shift;
        v <<= shift;
    }
    if (!ok || v < NCCL_MIN_BYTES || v > NCCL_MAX_BYTES) {
        fprintf(stderr,
                "%s: %s wants a size from 4 to 64G bytes (a K, M or G suffix allowed), not "
                "'%s'\n",
                tool, opt, text);
        return -1;
    }
    *out = v;
    return 0;
}

static int count_arg(const char *opt, const char *text, uint64_t min, uint64_t max, uint32_t *out)
{
    uint64_t v;
    if (gv_cli_uint64(tool, opt, text, min, max, &v) != 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* "0,2,5": CUDA devices 0..GV_NCCL_MAX_GPUS - 1, at most GV_NCCL_MAX_GPUS of them. */
static int gpus_arg(const char *text, gv_nccl_opts *o)
{
    const char *p = text;
    for (o->gpu_count = 0; o->gpu_count < GV_NCCL_MAX_GPUS; p++) {
        char *end = NULL;
        unsigned long long v = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
        if (!end || v >= GV_NCCL_MAX_GPUS || (*end != ',' && *end != '\0'))
            break;
        for (uint32_t k = 0; k < o->gpu_count; k++)
            if (o->gpus[k] == v) {
                fprintf(stderr, "%s: --gpus '%s' lists GPU %llu twice\n", tool, text, v);
                return -1;
            }
        o->gpus[o->gpu_count++] = (uint32_t)v;
        p = end;
        if (!*p)
            return 0;
    }
    fprintf(stderr,
            "%s: --gpus wants up to %d CUDA devices from 0 to %d, comma-separated, not '%s'\n",
            tool, GV_NCCL_MAX_GPUS, GV_NCCL_MAX_GPUS - 1, text);
    return -1;
}

/* The library's error in this tool's words: the option in place of the gv_nccl_opts field it
 * sets ("gv_nccl_opts.max_bytes 8 leaves no element ..." is "-e 8 leaves ..."). */
static const char *in_options(const char *text)
{
    static const char *const fields[][2] = {{"gv_nccl_opts.max_bytes", "-e"},
                                            {"gv_nccl_opts.min_bytes", "-b"},
                                            {"gv_nccl_opts.gpus", "--gpus"}};
    static char out[1024];
    for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
        const char *at = strstr(text, fields[k][0]);
        if (at) {
            snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, fields[k][1],
                     at + strlen(fields[k][0]));
            return out;
        }
    }
    return text;
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++)
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    putchar('"');
}

/* hosts: every rank's host name, '\n'-separated (one host for one process). */
static void print_json(const gv_nccl_result *r, gv_status st, const char *hosts)
{
    printf("{\"collective\": \"%s\", \"verdict\": \"%s\", \"hosts\": [",
           gv_nccl_collective_name(r->collective), gv_verdict_name(r->verdict));
    for (const char *h = hosts; *h;) {
        size_t n = strcspn(h, "\n");
        char one[256];
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), h);
        printf("%s", h == hosts ? "" : ", ");
        json_string(one);
        h += n + (h[n] == '\n');
    }
    printf("], \"status\": ");
    json_string(gv_strerror(st));
    printf(", \"nranks\": %d, \"isolation\": \"%s\", \"nccl_version\": ", (int)r->nranks,
           r->isolation == GV_ISOLATION_PROCESS ? "process" : "none");
    json_string(r->version);
    printf(", \"nccl_cuda\": %d, \"peak_busbw_gbps\": %.6g, \"peak_bytes\": %llu, "
           "\"wrong_elements\": %llu, \"init_s\": %.3f, \"total_s\": %.3f, \"message\": ",
           (int)r->nccl_cuda, r->peak_busbw_gbps, (unsigned long long)r->peak_bytes,
           (unsigned long long)r->wrong_elements, r->init_s, r->total_s);
    json_string(r->message);
    printf(", \"settings\": ");
    json_string(r->settings);
    printf(", \"transport_known\": %s, \"via\": {\"p2p\": %u, \"shm\": %u, \"net\": %u, "
           "\"socket\": %u, \"collnet\": %u}, \"nvls\": %s, \"network\": ",
           r->transport_known ? "true" : "false", r->via_p2p, r->via_shm, r->via_net, r->via_socket,
           r->via_collnet, r->nvls ? "true" : "false");
    json_string(r->network);
    printf(", \"transports\": ");
    json_string(r->transports);
    for (int group = 0; group < 2; group++) {
        const gv_nccl_size *rows = group ? r->in_place : r->sizes;
        printf(", \"%s\": [", group ? "in_place" : "sizes");
        for (uint32_t i = 0; i < r->size_count; i++) {
            const gv_nccl_size *s = &rows[i];
            printf("%s\n  {\"bytes\": %llu, \"count\": %llu, \"time_us\": %.2f, "
                   "\"algbw_gbps\": %.3f, \"busbw_gbps\": %.3f, \"wrong\": %llu}",
                   i ? "," : "", (unsigned long long)s->bytes, (unsigned long long)s->count,
                   s->time_us, s->algbw_gbps, s->busbw_gbps, (unsigned long long)s->wrong);
        }
        printf("]");
    }
    printf(", \"pairs\": [");
    for (uint32_t k = 0; k < r->pair_count; k++) {
        const gv_nccl_pair *p = &r->pairs[k];
        printf("%s\n  {\"from\": %d, \"to\": %d, \"latency_us\": %.2f, \"busbw_gbps\": %.3f, "
               "\"wrong\": %llu}",
               k ? "," : "", (int)p->from, (int)p->to, p->latency_us, p->busbw_gbps,
               (unsigned long long)p->wrong);
    }
    printf("]}\n");
}

static void print_table(const gv_nccl_result *r, gv_status st, int processes)
{
    printf("# gv-nccl: %s over %d ranks (%d process%s), NCCL %s",
           gv_nccl_collective_name(r->collective), (int)r->nranks, processes,
           processes == 1 ? "" : "es", r->version[0] ? r->version : "?");
    if (r->nccl_cuda)
        printf(" built for CUDA %d.%d", r->nccl_cuda / 1000, r->nccl_cuda % 1000 / 10);
    printf("\n# GPUs: %s\n# settings: %s\n# ran in %s\n# init %.2f s, whole run %.2f s\n", r->gpus,
           r->settings,
           r->isolation == GV_ISOLATION_PROCESS ? "gpuverify-worker (blocking communicators)"
                                                : "this process (non-blocking communicators)",
           r->init_s, r->total_s);
    if (r->transport_known)
        printf("# NCCL connected through: %s (network %s%s)\n",
               r->transports[0] ? r->transports : "no connection logged",
               r->network[0] ? r->network : "not named", r->nvls ? ", NVLS multicast" : "");
    /* nccl-tests' columns: out of place, then in place when it was measured. */
    int in_place = 0;
    for (uint32_t i = 0; i < r->size_count; i++)
        in_place |= r->in_place[i].time_us > 0;
    printf("#%14s %12s %6s %11s %12s %12s %8s", "size(B)", "count", "type", "time(us)",
           "algbw(GB/s)", "busbw(GB/s)", "#wrong");
    if (in_place)
        printf("  %11s %12s %12s %8s  (in place)", "time(us)", "algbw(GB/s)", "busbw(GB/s)",
               "#wrong");
    printf("\n");
    for (uint32_t i = 0; i < r->size_count; i++) {
        const gv_nccl_size *s = &r->sizes[i], *p = &r->in_place[i];
        printf("%15llu %12llu %6s %11.2f %12.2f %12.2f %8llu", (unsigned long long)s->bytes,
               (unsigned long long)s->count, "float", s->time_us, s->algbw_gbps, s->busbw_gbps,
               (unsigned long long)s->wrong);
        if (in_place)
            printf("  %11.2f %12.2f %12.2f %8llu", p->time_us, p->algbw_gbps, p->busbw_gbps,
                   (unsigned long long)p->wrong);
        printf("\n");
    }
    if (r->size_count)
        printf("# Peak busbw: %.2f GB/s at %llu bytes\n", r->peak_busbw_gbps,
               (unsigned long long)r->peak_bytes);
    if (r->pair_count)
        printf("#%6s %4s %14s %14s %8s\n", "from", "to", "latency(us)", "busbw(GB/s)", "#wrong");
    for (uint32_t k = 0; k < r->pair_count; k++)
        printf("%7d %4d %14.2f %14.2f %8llu\n", (int)r->pairs[k].from, (int)r->pairs[k].to,
               r->pairs[k].latency_us, r->pairs[k].busbw_gbps,
               (unsigned long long)r->pairs[k].wrong);
    printf("# %s%s%s: %s\n", gv_verdict_name(r->verdict), st != GV_OK ? " / " : "",
           st != GV_OK ? gv_strerror(st) : "", r->message);
}

/* The ranks ran without the floor (each would judge its own figure): the combined figure is
 * judged here, and a PASS says that figure, not rank 0's. Six significant digits at most: 0.2396
 * beside a floor of 0.22, never "0.2 is below 0.2". */
static void judge_combined(gv_nccl_result *r, const gv_nccl_opts *o, int ranks)
{
    if (r->verdict != GV_PASS || o->collective == GV_NCCL_PAIRS)
        return;
    if (o->min_busbw_gbps > 0 && r->peak_busbw_gbps < o->min_busbw_gbps) {
        r->verdict = GV_FAIL;
        snprintf(r->message, sizeof r->message,
                 "%s over %d ranks: peak busbw %.6g GB/s (at %llu bytes, the ranks' mean time) is "
                 "below the floor of %.6g GB/s; data exact at %u sizes",
                 gv_nccl_collective_name(o->collective), ranks, r->peak_busbw_gbps,
                 (unsigned long long)r->peak_bytes, o->min_busbw_gbps, (unsigned)r->size_count);
    } else {
        snprintf(
            r->message, sizeof r->message,
            "%s over %d ranks: data exact at %u sizes; peak busbw %.6g GB/s at %llu bytes (the "
            "ranks' mean time)",
            gv_nccl_collective_name(o->collective), ranks, (unsigned)r->size_count,
            r->peak_busbw_gbps, (unsigned long long)r->peak_bytes);
    }
}

/* A rank's options: the floor left to judge_combined. */
static const gv_nccl_opts *unfloored(const gv_nccl_opts *o, gv_nccl_opts *own)
{
    *own = *o;
    own->min_busbw_gbps = 0;
    return own;
}

/* nccl-tests' way of combining ranks: the mean time per size, wrong elements summed, the worst
 * verdict; figures recomputed from the mean time, and judged against the floor. A withheld rank
 * (SKIP) takes no part. */
static void combine(const gv_nccl_result *all, const gv_status *sts, int count,
                    const gv_nccl_opts *o, gv_nccl_result *out, gv_status *st)
{
    int base = 0, ranks = 0;
    while (base < count - 1 && all[base].verdict == GV_SKIP)
        base++;
    *out = all[base];
    out->verdict = GV_PASS; /* the worst rank's verdict and message replace it */
    out->wrong_elements = 0;
    out->peak_busbw_gbps = 0;
    size_t used = 0;
    for (int k = 0; k < count; k++) {
        if (all[k].verdict == GV_SKIP)
            continue;
        ranks++;
        int w = snprintf(out->gpus + used, sizeof out->gpus - used, "%s%d:%s", used ? " " : "", k,
                         all[k].gpus);
        if (w > 0 && used + (size_t)w < sizeof out->gpus)
            used += (size_t)w;
        if (all[k].verdict > out->verdict) {
            out->verdict = all[k].verdict;
            snprintf(out->message, sizeof out->message, "rank %d: %s", k, all[k].message);
        }
        if (sts[k] != GV_OK && *st == GV_OK)
            *st = sts[k];
        out->wrong_elements += all[k].wrong_elements;
        if (k != base) { /* every rank logs its own connections */
            out->via_p2p += all[k].via_p2p, out->via_shm += all[k].via_shm;
            out->via_net += all[k].via_net, out->via_socket += all[k].via_socket;
            out->via_collnet += all[k].via_collnet;
            size_t at = strlen(out->transports);
            if (all[k].transports[0])
                snprintf(out->transports + at, sizeof out->transports - at, "%s%s", at ? "; " : "",
                         all[k].transports);
        }
        if (all[k].size_count < out->size_count)
            out->size_count = all[k].size_count;
        /* A pair as its ranks saw it: the slower of the sender's and receiver's figures. */
        for (uint32_t p = 0; k != base && p < out->pair_count && p < all[k].pair_count; p++) {
            gv_nccl_pair *mine = &out->pairs[p];
            const gv_nccl_pair *theirs = &all[k].pairs[p];
            if (theirs->latency_us <= 0)
                continue;
            if (mine->latency_us <= 0 || theirs->latency_us > mine->latency_us)
                mine->latency_us = theirs->latency_us;
            if (mine->busbw_gbps <= 0 || theirs->busbw_gbps < mine->busbw_gbps)
                mine->busbw_gbps = theirs->busbw_gbps;
            mine->wrong += theirs->wrong;
        }
    }
    double factor = out->size_count && out->sizes[0].algbw_gbps > 0
                        ? out->sizes[0].busbw_gbps / out->sizes[0].algbw_gbps
                        : 0;
    for (int group = 0; group < 2; group++)
        for (uint32_t i = 0; i < out->size_count; i++) {
            gv_nccl_size *s = group ? &out->in_place[i] : &out->sizes[i];
            double sum = 0;
            s->wrong = 0;
            for (int k = 0; k < count; k++)
                if (all[k].verdict != GV_SKIP) {
                    const gv_nccl_size *one = group ? &all[k].in_place[i] : &all[k].sizes[i];
                    sum += one->time_us, s->wrong += one->wrong;
                }
            s->time_us = sum / ranks;
            s->algbw_gbps = s->time_us > 0 ? s->bytes / (s->time_us * 1e3) : 0;
            s->busbw_gbps = s->algbw_gbps * factor;
            if (!group && s->busbw_gbps > out->peak_busbw_gbps)
                out->peak_busbw_gbps = s->busbw_gbps, out->peak_bytes = s->bytes;
        }
    judge_combined(out, o, count);
}

/* The GPU of a rank: --gpus' entry for its local rank; else the only GPU a launcher left it
 * (srun --gpus-per-task=1 sets CUDA_VISIBLE_DEVICES to one device); else its local rank. */
static uint32_t rank_gpu(const gv_nccl_opts *o, int local)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (o->gpu_count)
        return o->gpus[local % o->gpu_count];
    if (visible && *visible && !strchr(visible, ','))
        return 0;
    return (uint32_t)local;
}

/* One rank of a launch without MPI (srun, torchrun, mpirun), joined through the rendezvous
 * at `where`: every rank's host name to all (ranks on the same host take their GPUs in rank
 * order unless the launcher says the local rank), rank 0's id to all, every rank's result to
 * rank 0, which prints. */
typedef struct rank_answer {
    gv_nccl_result r;
    int32_t st, sent; /* sent: 1 from a rank that answered (a missing rank's part is zeroed) */
} rank_answer;

#define HOST_BYTES 256

static int run_rendezvous(gv_ctx *ctx, const gv_nccl_opts *o, const char *where, int json)
{
    int rank, size, local;
    uint64_t key;
    if (gv_rdv_from_env(&rank, &size, &local, &key) != 0) {
        fprintf(stderr,
                "%s: --rendezvous needs a launcher that gives each process its rank and the "
                "world size (srun: SLURM_PROCID, torchrun: RANK, mpirun: OMPI_COMM_WORLD_RANK)\n",
                tool);
        return 2;
    }
    double wait_s = o->deadline_s > 0 ? o->deadline_s : 60.0;
    char err[512] = "", host[HOST_BYTES] = "";
    gethostname(host, sizeof host - 1);
    rank_answer mine;
    memset(&mine, 0, sizeof mine);
    gv_nccl_opts own;
    mine.r = (gv_nccl_result)GV_NCCL_RESULT_INIT;
    /* The process on the rendezvous's host is rank 0, and prints; where none listened, the
     * launcher's rank 0 says so. */
    int taken;
    gv_rdv *rdv = gv_rdv_join(where, rank, size, key, wait_s, &taken, err, sizeof err);
    rank = taken >= 0 ? taken : rank;
    char *hosts = rdv ? calloc((size_t)size, HOST_BYTES) : NULL;
    rank_answer *all = rdv && rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
    struct {
        int32_t ok;
        gv_nccl_id id;
    } start;
    memset(&start, 0, sizeof start);
    int code = 1;
    if (rdv && (!hosts || (rank == 0 && !all)))
        snprintf(err, sizeof err, "out of memory for %d ranks", size);
    else if (rdv && gv_rdv_gather(rdv, host, HOST_BYTES, hosts, wait_s, err, sizeof err) == 0 &&
             gv_rdv_bcast(rdv, hosts, (size_t)size * HOST_BYTES, wait_s, err, sizeof err) == 0) {
        if (local < 0)
            for (int k = local = 0; k < rank; k++)
                local += strcmp(hosts + (size_t)k * HOST_BYTES, host) == 0;
        if (rank == 0)
            start.ok = gv_nccl_unique_id(ctx, &start.id) == GV_OK;
        if (rank == 0 && !start.ok)
            snprintf(err, sizeof err, "%s", in_options(gv_ctx_last_error(ctx)));
        if (gv_rdv_bcast(rdv, &start, sizeof start, wait_s, err, sizeof err) == 0 && start.ok) {
            gv_status st = gv_nccl_bench_rank(ctx, &start.id, rank, size, rank_gpu(o, local),
                                              unfloored(o, &own), &mine.r);
            if (st != GV_OK && st != GV_ERR_TIMEOUT && mine.r.message[0] == '\0') {
                mine.r.verdict = GV_ERROR;
                snprintf(mine.r.message, sizeof mine.r.message, "%s",
                         in_options(gv_ctx_last_error(ctx)));
            }
            mine.st = st, mine.sent = 1;
            /* Every rank's sweep ends by its deadline; a second one for the slowest to send. */
            gv_rdv_gather(rdv, &mine, sizeof mine, all, wait_s + 30, err, sizeof err);
            code = 0;
        }
    }
    if (rank != 0) {
        if (code)
            fprintf(stderr, "%s: rank %d: %s\n", tool, rank, err);
        gv_rdv_close(rdv);
        free(hosts);
        return code;
    }
    /* Rank 0 always answers, a rank that never came or never sent named as a FAIL. */
    gv_nccl_result combined = GV_NCCL_RESULT_INIT, *results = calloc((size_t)size, sizeof *results);
    gv_status *sts = calloc((size_t)size, sizeof *sts), st = GV_OK;
    char *names = calloc((size_t)size, HOST_BYTES + 1);
    if (!results || !sts || !names) {
        fprintf(stderr, "%s: out of memory for %d ranks' results\n", tool, size);
        code = 2;
    } else {
        size_t used = 0;
        for (int k = 0; k < size; k++) {
            const rank_answer *a = all && code == 0 ? &all[k] : k == 0 ? &mine : NULL;
            if (a && a->sent) {
                results[k] = a->r, sts[k] = (gv_status)a->st;
            } else {
                results[k] = (gv_nccl_result)GV_NCCL_RESULT_INIT;
                results[k].verdict = GV_FAIL;
                results[k].collective = o->collective;
                results[k].nranks = (uint32_t)size;
                snprintf(results[k].message, sizeof results[k].message, "%s",
                         err[0] ? err : "no result from this rank");
                sts[k] = GV_ERR_TIMEOUT;
            }
            const char *h = hosts && hosts[(size_t)k * HOST_BYTES] ? hosts + (size_t)k * HOST_BYTES
                            : k == 0                               ? host
                                                                   : "?";
            used += (size_t)snprintf(names + used, (size_t)size * (HOST_BYTES + 1) - used, "%s%s",
                                     k ? "\n" : "", h);
        }
        combine(results, sts, size, o, &combined, &st);
        if (json)
            print_json(&combined, st, names);
        else
            print_table(&combined, st, size);
        code = combined.verdict == GV_PASS && st == GV_OK ? 0 : 1;
    }
    free(results);
    free(sts);
    free(names);
    free(hosts);
    free(all);
    gv_rdv_close(rdv);
    return code;
}

#ifdef GPUVERIFY_WITH_MPI
/* Ranks on the same host before this one: its local rank, which picks its GPU; every rank's
 * host name into hosts ('\n'-separated, for the JSON output). */
static int local_rank(int rank, int size, char *hosts, size_t cap)
{
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int len;
    MPI_Get_processor_name(host, &len);
    char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    int local = 0;
    size_t used = 0;
    for (int k = 0; k < size; k++) {
        const char *h = all + (size_t)k * MPI_MAX_PROCESSOR_NAME;
        local += k < rank && strcmp(h, host) == 0;
        int w = snprintf(hosts + used, cap - used, "%s%s", k ? "\n" : "", h);
        if (w > 0 && used + (size_t)w < cap)
            used += (size_t)w;
    }
    free(all);
    return local;
}

/* One rank of an MPI job; rank 0 prints. */
static int run_mpi(gv_ctx *ctx, const gv_nccl_opts *o, int withhold, int json, int rank, int size,
                   gv_nccl_result *combined, gv_status *st)
{
    char *hosts = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME + 1);
    if (!hosts)
        return 2;
    int local = local_rank(rank, size, hosts, (size_t)size * (MPI_MAX_PROCESSOR_NAME + 1));
    uint32_t gpu = rank_gpu(o, local);
    gv_nccl_id id;
    memset(&id, 0, sizeof id);
    int ok = rank != 0 || gv_nccl_unique_id(ctx, &id) == GV_OK;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        if (rank == 0)
            fprintf(stderr, "gv-nccl: %s\n", in_options(gv_ctx_last_error(ctx)));
        free(hosts);
        return 2;
    }
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    gv_status mine = GV_OK;
    gv_nccl_opts own;
    if (rank == withhold)
        r.verdict = GV_SKIP; /* never joins: the others must time out */
    else
        mine = gv_nccl_bench_rank(ctx, &id, rank, size, gpu, unfloored(o, &own), &r);
    if (mine != GV_OK && mine != GV_ERR_TIMEOUT && r.message[0] == '\0') {
        r.verdict = GV_ERROR;
        snprintf(r.message, sizeof r.message, "%s", in_options(gv_ctx_last_error(ctx)));
    }
    gv_nccl_result *all = rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
    gv_status *sts = rank == 0 ? calloc((size_t)size, sizeof *sts) : NULL;
    MPI_Gather(&r, sizeof r, MPI_BYTE, all, sizeof r, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Gather(&mine, sizeof mine, MPI_BYTE, sts, sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        *st = GV_OK;
        combine(all, sts, size, o, combined, st);
        if (json)
            print_json(combined, *st, hosts);
        else
            print_table(combined, *st, size);
    }
    free(all);
    free(sts);
    free(hosts);
    int code = rank == 0 ? combined->verdict == GV_PASS && *st == GV_OK ? 0 : 1 : 0;
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return code;
}
#endif

int main(int argc, char **argv)
{
    gv_nccl_opts o = GV_NCCL_OPTS_INIT;
    gv_ctx_opts co = GV_CTX_OPTS_INIT;
    const char *ops[GV_NCCL_COLLECTIVES];
    for (int c = 0; c < GV_NCCL_COLLECTIVES; c++)
        ops[c] = gv_nccl_collective_name(c);
    int json = 0, withhold = -1;
    const char *rendezvous = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        uint64_t rank;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (!strcmp(a, "--version")) {
            gv_cli_version(tool);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--in-place")) {
            o.flags |= GV_NCCL_IN_PLACE;
        } else if (!strcmp(a, "--in-process")) {
            o.flags |= GV_NCCL_IN_PROCESS;
        } else if (strcmp(a, "--op") && strcmp(a, "-b") && strcmp(a, "-e") && strcmp(a, "-f") &&
                   strcmp(a, "-n") && strcmp(a, "-w") && strcmp(a, "--deadline") &&
                   strcmp(a, "--min-busbw") && strcmp(a, "--library-dir") &&
                   strcmp(a, "--withhold") && strcmp(a, "--gpus") && strcmp(a, "--rendezvous")) {
            return gv_cli_unknown(tool, a);
        } else if (!(v = gv_cli_value(tool, argc, argv, &i))) {
            return GV_CLI_USAGE;
        } else if (!strcmp(a, "--op")) {
            if ((o.collective = gv_cli_choice(tool, a, v, ops, GV_NCCL_COLLECTIVES)) < 0)
                return GV_CLI_USAGE;
        } else if (!strcmp(a, "-b") || !strcmp(a, "-e")) {
            if (size_arg(a, v, a[1] == 'b' ? &o.min_bytes : &o.max_bytes) != 0)
                return GV_CLI_USAGE;
        } else if (!strcmp(a, "-f")) {
            if (count_arg(a, v, 2, 1024, &o.step_factor) != 0)
                return GV_CLI_USAGE;
        } else if (!strcmp(a, "-n")) {
            if (count_arg(a, v, 1, NCCL_MAX_ITERS, &o.iters) != 0)
                return GV_CLI_USAGE;
        } else if (!strcmp(a, "-w")) {
            if (count_arg(a, v, 0, NCCL_MAX_ITERS, &o.warmup_iters) != 0)
                return GV_CLI_USAGE;
        } else if (!strcmp(a, "--deadline")) {
            if (gv_cli_double(tool, a, v, 0.1, NCCL_MAX_DEADLINE_S, &o.deadline_s) != 0)
                return GV_CLI_USAGE;
        } else if (!strcmp(a, "--min-busbw")) {
            if (gv_cli_double(tool, a, v, 0, NCCL_MAX_BUSBW_GBPS, &o.min_busbw_gbps) != 0)
                return GV_CLI_USAGE;
        } else if (!strcmp(a, "--library-dir")) {
            co.library_dir = v;
        } else if (!strcmp(a, "--rendezvous")) {
            char why[320];
            if (gv_rdv_check_where(v, why, sizeof why) != 0) {
                fprintf(stderr, "%s: --rendezvous %s\n", tool, why);
                return GV_CLI_USAGE;
            }
            rendezvous = v;
        } else if (!strcmp(a, "--withhold")) {
            if (gv_cli_uint64(tool, a, v, 0, NCCL_MAX_RANK, &rank) != 0)
                return GV_CLI_USAGE;
            withhold = (int)rank;
        } else if (gpus_arg(v, &o) != 0) { /* --gpus */
            return GV_CLI_USAGE;
        }
    }
    if (o.min_bytes > o.max_bytes) {
        fprintf(stderr, "%s: -b %llu is above -e %llu: the first size is the smallest\n", tool,
                (unsigned long long)o.min_bytes, (unsigned long long)o.max_bytes);
        return GV_CLI_USAGE;
    }
#ifndef GPUVERIFY_WITH_MPI
    if (withhold >= 0) {
        fprintf(stderr,
                "%s: --withhold is for a run under MPI, and this gv-nccl was built "
                "without MPI\n",
                tool);
        return GV_CLI_USAGE;
    }
#endif
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(&co, &ctx) != GV_OK) {
        fprintf(stderr, "gv-nccl: cannot create a context: %s\n", gv_ctx_last_error(NULL));
        return 2;
    }
    int code = 2, size = 1;
    if (rendezvous && withhold >= 0) {
        fprintf(stderr, "%s: --withhold is for a run under MPI, not --rendezvous\n", tool);
        code = GV_CLI_USAGE;
    } else if (rendezvous) {
        code = run_rendezvous(ctx, &o, rendezvous, json);
    }
    if (rendezvous) {
        gv_ctx_destroy(ctx);
        return code;
    }
#ifdef GPUVERIFY_WITH_MPI
    /* MPI only under a launcher (Open MPI, MPICH/Hydra, PMIx, Slurm's PMI): a plain run stays
     * one process without MPI's start-up. */
    int rank = 0, mpi = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
                        getenv("PMIX_RANK") || getenv("PMI_RANK");
    if (mpi) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    if (withhold >= 0 && (size < 2 || withhold >= size)) {
        if (rank == 0)
            fprintf(stderr, "%s: --withhold %d: %s\n", tool, withhold,
                    size > 1 ? "no such rank in this MPI job"
                             : "a rank of an MPI job of 2 or more processes (mpirun, srun)");
        size = 0; /* nothing runs: exit 2 */
    } else if (size > 1) {
        gv_nccl_result combined = GV_NCCL_RESULT_INIT;
        gv_status st = GV_OK;
        code = run_mpi(ctx, &o, withhold, json, rank, size, &combined, &st);
    }
#endif
    if (size == 1) {
        gv_nccl_result r = GV_NCCL_RESULT_INIT;
        gv_status st = gv_nccl_bench(ctx, &o, &r);
        if (st != GV_OK && st != GV_ERR_TIMEOUT)
            fprintf(stderr, "gv-nccl: %s\n", in_options(gv_ctx_last_error(ctx)));
        else {
            char host[256] = "";
            gethostname(host, sizeof host - 1);
            if (json)
                print_json(&r, st, host);
            else
                print_table(&r, st, 1);
            code = r.verdict == GV_PASS && st == GV_OK ? 0 : 1;
        }
    }
#ifdef GPUVERIFY_WITH_MPI
    if (mpi)
        MPI_Finalize();
#endif
    gv_ctx_destroy(ctx);
    return code;
}
