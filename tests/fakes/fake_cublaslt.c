/* SPDX-License-Identifier: Apache-2.0 */
/* A fake libcublasLt.so.13 for CI, built from lib/backends/cublaslt_api.def. It computes every
 * GEMM for real on the host (tests use small shapes; the same inputs again reuse the last
 * sums), except the few too big for a test's time (the result fingerprint's 2048^3): those it
 * computes from a sample of the dot products' terms, the same on every run and fake GPU. It
 * charges the fake GPU clock at the scenario's TFLOPS, and can corrupt its outputs (silent data
 * corruption). Test code only. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/nvabi/cublaslt_abi.h"
#include "fake_cuda_device.h"
#include "kernels/gv_float_bits.h"

#define GV_CUBLASLT_FN(ret, name, required, params)                                                \
    __attribute__((visibility("default"))) ret name params;
#include "backends/cublaslt_api.def"
#undef GV_CUBLASLT_FN

struct gvbl_matmul_desc_st {
    int compute, trans_a, trans_b;
};
struct gvbl_layout_st {
    int type;
    uint64_t rows, cols;
    int64_t ld;
};
struct gvbl_preference_st {
    uint64_t workspace;
    uint32_t reduction_mask; /* the reduction schemes (split-K) the heuristic may offer */
};

/* The algorithms the fake heuristic offers, best first: a split-K one first, as cuBLASLt offers
 * for shapes of few tiles, then two that reduce each dot product in one sequence. A heuristic
 * result's algo carries its index here (data[0]), which the configuration getter reads. */
static const struct fake_algo {
    int32_t id, splitk;
    uint32_t tile, stages, reduction;
} fake_algos[] = {
    {21, 4, 18, 9, GVBL_REDUCTION_SCHEME_COMPUTE_TYPE},
    {23, 1, 18, 9, GVBL_REDUCTION_SCHEME_NONE},
    {21, 1, 20, 8, GVBL_REDUCTION_SCHEME_NONE},
};
#define FAKE_ALGOS (sizeof fake_algos / sizeof *fake_algos)

size_t cublasLtGetVersion(void)
{
    return 130100;
}

size_t cublasLtGetCudartVersion(void)
{
    fake_scenario s;
    return fake_scenario_load(&s) == 0 ? (size_t)s.cublas_cuda_version : 13000;
}

gvbl_status cublasLtCreate(gvbl_handle *handle)
{
    /* As the real one did on an H100 with CUDA_FORCE_PTX_JIT=1 inherited. */
    const char *jit = getenv("CUDA_FORCE_PTX_JIT");
    if (jit && !strcmp(jit, "1"))
        return GVBL_STATUS_INTERNAL_ERROR;
    *handle = (gvbl_handle)malloc(1);
    return *handle ? GVBL_STATUS_SUCCESS : GVBL_STATUS_ALLOC_FAILED;
}

gvbl_status cublasLtDestroy(gvbl_handle handle)
{
    free(handle);
    return GVBL_STATUS_SUCCESS;
}

gvbl_status cublasLtMatmulDescCreate(gvbl_matmul_desc *desc, gvbl_compute_type compute,
                                     gvbl_data_type scale_type)
{
    if (scale_type != GVBL_R_32F)
        return GVBL_STATUS_NOT_SUPPORTED;
    *desc = calloc(1, sizeof **desc);
    if (!*desc)
        return GVBL_STATUS_ALLOC_FAILED;
    (*desc)->compute = compute;
    return GVBL_STATUS_SUCCESS;
}

gvbl_status cublasLtMatmulDescDestroy(gvbl_matmul_desc desc)
{
    free(desc);
    return GVBL_STATUS_SUCCESS;
}

gvbl_status cublasLtMatmulDescSetAttribute(gvbl_matmul_desc desc, gvbl_desc_attribute attribute,
                                           const void *value, size_t bytes)
{
    if (attribute == GVBL_MATMUL_DESC_TRANSA && bytes == 4)
        desc->trans_a = *(const int32_t *)value;
    else if (attribute == GVBL_MATMUL_DESC_TRANSB && bytes == 4)
        desc->trans_b = *(const int32_t *)value;
    else if (attribute != GVBL_MATMUL_DESC_A_SCALE_POINTER &&
             attribute != GVBL_MATMUL_DESC_B_SCALE_POINTER)
        return GVBL_STATUS_INVALID_VALUE;
    return GVBL_STATUS_SUCCESS;
}

gvbl_status cublasLtMatrixLayoutCreate(gvbl_layout *layout, gvbl_data_type type, uint64_t rows,
                                       uint64_t cols, int64_t ld)
{
    *layout = malloc(sizeof **layout);
    if (!*layout)
        return GVBL_STATUS_ALLOC_FAILED;
    **layout = (struct gvbl_layout_st){type, rows, cols, ld};
    return GVBL_STATUS_SUCCESS;
}

gvbl_status cublasLtMatrixLayoutDestroy(gvbl_layout layout)
{
    free(layout);
    return GVBL_STATUS_SUCCESS;
}

gvbl_status cublasLtMatmulPreferenceCreate(gvbl_preference *pref)
{
    *pref = calloc(1, sizeof **pref);
    if (!*pref)
        return GVBL_STATUS_ALLOC_FAILED;
    (*pref)->reduction_mask = 0x7; /* cuBLASLt's default: every scheme */
    return GVBL_STATUS_SUCCESS;
}

gvbl_status cublasLtMatmulPreferenceDestroy(gvbl_preference pref)
{
    free(pref);
    return GVBL_STATUS_SUCCESS;
}

gvbl_status cublasLtMatmulPreferenceSetAttribute(gvbl_preference pref,
                                                 gvbl_preference_attribute attribute,
                                                 const void *value, size_t bytes)
{
    if (attribute == GVBL_MATMUL_PREF_MAX_WORKSPACE_BYTES && bytes == 8)
        pref->workspace = *(const uint64_t *)value;
    else if (attribute == GVBL_MATMUL_PREF_REDUCTION_SCHEME_MASK && bytes == 4)
        pref->reduction_mask = *(const uint32_t *)value;
    else
        return GVBL_STATUS_INVALID_VALUE;
    return GVBL_STATUS_SUCCESS;
}

gvbl_status cublasLtMatmulAlgoGetHeuristic(gvbl_handle handle, gvbl_matmul_desc desc, gvbl_layout a,
                                           gvbl_layout b, gvbl_layout c, gvbl_layout d,
                                           gvbl_preference pref, int requested,
                                           gvbl_heuristic *results, int *returned)
{
    (void)handle, (void)desc, (void)a, (void)b, (void)c, (void)d;
    /* Two candidates, of those the preference's reduction schemes allow. */
    int n = 0;
    for (size_t i = 0; i < FAKE_ALGOS && n < requested && n < 2; i++) {
        uint32_t scheme = fake_algos[i].reduction;
        if (scheme != GVBL_REDUCTION_SCHEME_NONE && !(scheme & pref->reduction_mask))
            continue;
        memset(&results[n], 0, sizeof results[n]);
        results[n].algo.data[0] = (uint64_t)i;
        results[n].state = GVBL_STATUS_SUCCESS;
        results[n].waves_count = 1.0f;
        n++;
    }
    *returned = n;
    return n > 0 ? GVBL_STATUS_SUCCESS : GVBL_STATUS_NOT_SUPPORTED;
}

gvbl_status cublasLtMatmulAlgoConfigGetAttribute(const gvbl_algo *algo,
                                                 gvbl_algo_config_attribute attribute, void *value,
                                                 size_t bytes, size_t *written)
{
    if (!algo || algo->data[0] >= FAKE_ALGOS)
        return GVBL_STATUS_INVALID_VALUE;
    const struct fake_algo *f = &fake_algos[algo->data[0]];
    uint32_t v32;
    uint16_t v16 = 0;
    size_t size = 4;
    switch (attribute) {
    case GVBL_ALGO_CONFIG_ID:
        v32 = (uint32_t)f->id;
        break;
    case GVBL_ALGO_CONFIG_TILE_ID:
        v32 = f->tile;
        break;
    case GVBL_ALGO_CONFIG_SPLITK_NUM:
        v32 = (uint32_t)f->splitk;
        break;
    case GVBL_ALGO_CONFIG_REDUCTION_SCHEME:
        v32 = f->reduction;
        break;
    case GVBL_ALGO_CONFIG_STAGES_ID:
        v32 = f->stages;
        break;
    case GVBL_ALGO_CONFIG_CTA_SWIZZLING:
    case GVBL_ALGO_CONFIG_CUSTOM_OPTION:
        v32 = 0;
        break;
    case GVBL_ALGO_CONFIG_INNER_SHAPE_ID:
    case GVBL_ALGO_CONFIG_CLUSTER_SHAPE_ID:
        size = 2;
        break;
    default:
        return GVBL_STATUS_INVALID_VALUE;
    }
    /* As cuBLASLt: the buffer must be the attribute's size exactly; 0 asks for the size. */
    if (bytes == 0 && written) {
        *written = size;
        return GVBL_STATUS_SUCCESS;
    }
    if (!value || bytes != size)
        return GVBL_STATUS_INVALID_VALUE;
    if (size == 2)
        memcpy(value, &v16, 2);
    else
        memcpy(value, &v32, 4);
    if (written)
        *written = size;
    return GVBL_STATUS_SUCCESS;
}

static int bits_of(int type)
{
    switch (type) {
    case GVBL_R_16F:
        return GV_BITS_FP16;
    case GVBL_R_16BF:
        return GV_BITS_BF16;
    case GVBL_R_8F_E4M3:
        return GV_BITS_FP8_E4M3;
    default:
        return GV_BITS_FP32;
    }
}

static size_t size_of(int type)
{
    return type == GVBL_R_32F ? 4 : type == GVBL_R_8F_E4M3 ? 1 : 2;
}

static double element(const gvbl_layout l, const void *base, uint64_t row, uint64_t col)
{
    uint32_t bits = 0;
    size_t size = size_of(l->type);
    memcpy(&bits, (const unsigned char *)base + (col * (uint64_t)l->ld + row) * size, size);
    return gv_bits_to_double(bits_of(l->type), bits);
}

/* GEMMs run so far per scenario GPU, for gemm_drift_after. */
static struct {
    const fake_gpu *gpu;
    unsigned long long count;
} runs[FAKE_MAX_GPUS];

static unsigned long long count_run(const fake_gpu *g)
{
    for (int i = 0; i < FAKE_MAX_GPUS; i++)
        if (runs[i].gpu == g || !runs[i].gpu) {
            runs[i].gpu = g;
            return ++runs[i].count;
        }
    return 0;
}

/* Operands decoded to doubles up to this many elements each (128 MiB); larger ones are read
 * element by element. */
#define FAKE_DECODED_MAX (16ull << 20)

/* sums[j * m + i] = scale * (op(A) op(B))(i, j), computed in double. */
static void products(gvbl_matmul_desc desc, float scale, const void *a, gvbl_layout a_layout,
                     const void *b, gvbl_layout b_layout, uint64_t m, uint64_t n, uint64_t k,
                     double *sums)
{
    /* op(A) row by row and op(B) column by column, each element decoded once rather than at
     * each of its uses: the decoding is most of the host's work, many times more under the
     * sanitizers and valgrind. The same sums, in the same order. */
    double *ad = m * k <= FAKE_DECODED_MAX ? malloc(m * k * sizeof *ad) : NULL;
    double *bd = ad && k * n <= FAKE_DECODED_MAX ? malloc(k * n * sizeof *bd) : NULL;
    if (ad && bd) {
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t p = 0; p < k; p++)
                ad[i * k + p] =
                    desc->trans_a ? element(a_layout, a, p, i) : element(a_layout, a, i, p);
        for (uint64_t j = 0; j < n; j++)
            for (uint64_t p = 0; p < k; p++)
                bd[j * k + p] =
                    desc->trans_b ? element(b_layout, b, j, p) : element(b_layout, b, p, j);
    }
    for (uint64_t j = 0; j < n; j++)
        for (uint64_t i = 0; i < m; i++) {
            double sum = 0;
            if (ad && bd) {
                const double *ar = ad + i * k, *bc = bd + j * k;
                for (uint64_t p = 0; p < k; p++)
                    sum += ar[p] * bc[p];
            } else {
                for (uint64_t p = 0; p < k; p++) {
                    double av =
                        desc->trans_a ? element(a_layout, a, p, i) : element(a_layout, a, i, p);
                    double bv =
                        desc->trans_b ? element(b_layout, b, j, p) : element(b_layout, b, p, j);
                    sum += av * bv;
                }
            }
            sums[j * m + i] = sum * scale;
        }
    free(ad);
    free(bd);
}

/* Products of more multiply-adds than this are more than a test can compute on the host in its
 * time: the result fingerprint's 2048^3 (8.6e9) would take seconds per GEMM. */
#define FAKE_EXACT_MAX (1ull << 30)
/* Up to this many outputs (2048^2) such a product is still made, from a sample of terms. */
#define FAKE_SAMPLED_OUTPUTS_MAX (1ull << 22)
/* Terms of each dot product summed in a sampled product. */
#define FAKE_SAMPLED_TERMS 4

/* A sampled product: column j of the result is scale * the sum over FAKE_SAMPLED_TERMS evenly
 * spaced p of op(A)(i, p) op(B)(p, j). Not the product, but a function of both inputs that is
 * the same on every run and fake GPU, made in a few tens of milliseconds for 2048^3 (the terms
 * decoded once, the result written column by column, no m x n buffer): what the result
 * fingerprint needs of a GPU, whose hash is compared, never its values. */
typedef struct sample {
    double *ad, *bd; /* op(A)'s rows' and op(B)'s columns' sampled terms */
    double scale;
} sample;

static int sample_prepare(sample *s, gvbl_matmul_desc desc, float scale, const void *a,
                          gvbl_layout a_layout, const void *b, gvbl_layout b_layout, uint64_t m,
                          uint64_t n, uint64_t k)
{
    enum { S = FAKE_SAMPLED_TERMS };
    s->ad = malloc(m * S * sizeof *s->ad);
    s->bd = malloc(n * S * sizeof *s->bd);
    s->scale = scale;
    if (!s->ad || !s->bd)
        return -1;
    uint64_t at[S];
    for (int t = 0; t < S; t++)
        at[t] = (uint64_t)t * k / S;
    for (uint64_t i = 0; i < m; i++)
        for (int t = 0; t < S; t++)
            s->ad[i * S + t] =
                desc->trans_a ? element(a_layout, a, at[t], i) : element(a_layout, a, i, at[t]);
    for (uint64_t j = 0; j < n; j++)
        for (int t = 0; t < S; t++)
            s->bd[j * S + t] =
                desc->trans_b ? element(b_layout, b, j, at[t]) : element(b_layout, b, at[t], j);
    return 0;
}

static void sample_column(const sample *s, uint64_t j, uint64_t m, double *column)
{
    enum { S = FAKE_SAMPLED_TERMS };
    const double *bc = s->bd + j * S;
    for (uint64_t i = 0; i < m; i++) {
        double sum = 0;
        for (int t = 0; t < S; t++)
            sum += s->ad[i * S + t] * bc[t];
        column[i] = sum * s->scale;
    }
}

/* The bytes a layout spans from its base. */
static size_t extent(const gvbl_layout l)
{
    return l->rows && l->cols ? ((l->cols - 1) * (uint64_t)l->ld + l->rows) * size_of(l->type) : 0;
}

/* The last GEMM's inputs and sums, per thread: a timed batch repeats one GEMM on the same
 * inputs thousands of times, and its sums are those of the first. Small GEMMs only. */
#define FAKE_CACHED_MAX (1u << 20)
static __thread struct {
    struct gvbl_matmul_desc_st desc;
    struct gvbl_layout_st la, lb;
    float scale;
    uint64_t m, n;
    unsigned char *a, *b;
    double *sums;
} last;

static int same_layout(const struct gvbl_layout_st *x, const struct gvbl_layout_st *y)
{
    return x->type == y->type && x->rows == y->rows && x->cols == y->cols && x->ld == y->ld;
}

/* Field by field: a layout's padding is never written. */
static int same_as_last(gvbl_matmul_desc desc, float scale, const void *a, gvbl_layout la,
                        const void *b, gvbl_layout lb, uint64_t m, uint64_t n)
{
    return last.sums && last.desc.compute == desc->compute && last.desc.trans_a == desc->trans_a &&
           last.desc.trans_b == desc->trans_b && same_layout(&last.la, la) &&
           same_layout(&last.lb, lb) && last.scale == scale && last.m == m && last.n == n &&
           !memcmp(last.a, a, extent(la)) && !memcmp(last.b, b, extent(lb));
}

/* Keeps this GEMM's inputs and sums as the last (nothing when they are too big). */
static void remember(gvbl_matmul_desc desc, float scale, const void *a, gvbl_layout la,
                     const void *b, gvbl_layout lb, uint64_t m, uint64_t n, const double *sums)
{
    free(last.a), free(last.b), free(last.sums);
    last.a = last.b = NULL, last.sums = NULL;
    size_t ea = extent(la), eb = extent(lb);
    if (ea > FAKE_CACHED_MAX || eb > FAKE_CACHED_MAX || m * n * sizeof *sums > FAKE_CACHED_MAX)
        return;
    last.a = malloc(ea ? ea : 1), last.b = malloc(eb ? eb : 1);
    last.sums = malloc(m * n * sizeof *sums);
    if (!last.a || !last.b || !last.sums) {
        free(last.a), free(last.b), free(last.sums);
        last.a = last.b = NULL, last.sums = NULL;
        return;
    }
    memcpy(last.a, a, ea), memcpy(last.b, b, eb), memcpy(last.sums, sums, m * n * sizeof *sums);
    last.desc = *desc, last.la = *la, last.lb = *lb, last.scale = scale, last.m = m, last.n = n;
}

/* D = alpha * op(A) * op(B) + beta * C, column-major, computed in double. */
gvbl_status cublasLtMatmul(gvbl_handle handle, gvbl_matmul_desc desc, const void *alpha,
                           const void *a, gvbl_layout a_layout, const void *b, gvbl_layout b_layout,
                           const void *beta, const void *c, gvbl_layout c_layout, void *d,
                           gvbl_layout d_layout, const gvbl_algo *algo, void *workspace,
                           size_t workspace_bytes, gvcu_stream stream)
{
    int fault = fake_cuda_fault("cublasLtMatmul");
    if (fault)
        return (gvbl_status)fault;
    (void)handle, (void)c, (void)c_layout, (void)algo, (void)workspace, (void)workspace_bytes;
    (void)stream;
    const fake_gpu *g = fake_cuda_current_gpu();
    if (!g)
        return GVBL_STATUS_NOT_INITIALIZED;
    if (*(const float *)beta != 0.0f)
        return GVBL_STATUS_NOT_SUPPORTED; /* gpuverify never accumulates */
    uint64_t m = d_layout->rows, n = d_layout->cols;
    uint64_t k = desc->trans_a ? a_layout->rows : a_layout->cols;
    int sampled = m * n * k > FAKE_EXACT_MAX;
    if (sampled && m * n > FAKE_SAMPLED_OUTPUTS_MAX)
        return GVBL_STATUS_NOT_SUPPORTED; /* too big to compute on the host in a test */
    float scale = *(const float *)alpha;
    size_t out_size = size_of(d_layout->type);
    /* A GPU that starts computing wrong after so many GEMMs: element (0, 0) off by one. */
    unsigned long long nth = count_run(g);
    double drift = g->gemm_drift_after && nth > (unsigned long long)g->gemm_drift_after ? 1.0 : 0.0;
    double *sums = NULL, *column = NULL;
    sample sampled_terms = {NULL, NULL, 0};
    if (sampled) {
        column = malloc(m * sizeof *column);
        if (!column ||
            sample_prepare(&sampled_terms, desc, scale, a, a_layout, b, b_layout, m, n, k) != 0) {
            free(column), free(sampled_terms.ad), free(sampled_terms.bd);
            return GVBL_STATUS_ALLOC_FAILED;
        }
    } else if (same_as_last(desc, scale, a, a_layout, b, b_layout, m, n)) {
        sums = last.sums;
    } else {
        sums = malloc((m * n + 1) * sizeof *sums);
        if (!sums)
            return GVBL_STATUS_ALLOC_FAILED;
        products(desc, scale, a, a_layout, b, b_layout, m, n, k, sums);
    }
    for (uint64_t j = 0; j < n; j++) {
        const double *col = sums ? sums + j * m : column;
        if (!sums)
            sample_column(&sampled_terms, j, m, column);
        for (uint64_t i = 0; i < m; i++) {
            double sum = col[i] + (g->gemm_corrupt ? 1.0 : 0.0) + (i == 0 && j == 0 ? drift : 0.0);
            uint32_t bits = gv_float_to_bits(bits_of(d_layout->type), sum);
            /* gemm_lsb_flip: element (0, 0) one bit off, within any tolerance, the same on
             * every GPU and at every run: only a comparison with other nodes sees it. */
            if (g->gemm_lsb_flip && i == 0 && j == 0)
                bits ^= 1u;
            memcpy((unsigned char *)d + (j * (uint64_t)d_layout->ld + i) * out_size, &bits,
                   out_size);
        }
    }
    if (sampled) {
        free(column), free(sampled_terms.ad), free(sampled_terms.bd);
    } else if (sums != last.sums) {
        remember(desc, scale, a, a_layout, b, b_layout, m, n, sums);
        free(sums);
    }
    /* gemm_tflops is the 16-bit rate; the others in Hopper's proportions. TF32 runs at the FP32
     * rate under NVIDIA_TF32_OVERRIDE=0, as the real library does. */
    const char *tf32 = getenv("NVIDIA_TF32_OVERRIDE");
    int fast_tf32 = desc->compute == GVBL_COMPUTE_32F_FAST_TF32 && !(tf32 && !strcmp(tf32, "0"));
    double rate = g->gemm_tflops * (a_layout->type == GVBL_R_8F_E4M3 ? 2.0
                                    : fast_tf32                      ? 0.5
                                    : a_layout->type == GVBL_R_32F   ? 1.0 / 14
                                                                     : 1.0);
    fake_cuda_advance(2.0 * m * n * k / (rate * 1e12));
    return GVBL_STATUS_SUCCESS;
}

const char *cublasLtGetStatusName(gvbl_status status)
{
    return status == GVBL_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS_FAKE_ERROR";
}
