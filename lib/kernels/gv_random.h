/* SPDX-License-Identifier: Apache-2.0 */
/* Test data defined element by element from a seed: the GPU fills buffers with it, and the
 * host (or the fake libcuda) recomputes any element without copying the buffer back. Shared by
 * the CUDA C kernels (gv_kernels.cu), the library and the fakes; plain C99 otherwise. */
#ifndef GV_KERNELS_GV_RANDOM_H
#define GV_KERNELS_GV_RANDOM_H

#ifdef __CUDACC__
#define GV_HD __host__ __device__ __forceinline__
typedef unsigned long long gv_u64;
typedef unsigned int gv_u32;
#else
#include <stdint.h>
#define GV_HD static inline
typedef uint64_t gv_u64;
typedef uint32_t gv_u32;
#endif

/* Element encodings gv_fill_random writes. */
#define GV_BITS_FP32 0
#define GV_BITS_FP16 1
#define GV_BITS_BF16 2
#define GV_BITS_FP8_E4M3 3

/* splitmix64's finaliser: consecutive inputs give independent-looking outputs. */
GV_HD gv_u64 gv_mix64(gv_u64 x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* The VRAM test's 64-bit word at index i. */
GV_HD gv_u64 gv_pattern_word(gv_u64 seed, gv_u64 i)
{
    return gv_mix64(seed + i * 0x9e3779b97f4a7c15ull);
}

/* Element i of a random matrix, as the bits of its encoding: random sign and mantissa, and a
 * magnitude in [0.5, 2) so that every encoding, FP8 included, holds it without rounding. Never
 * zero: zeros make tensor cores draw less power and run faster than real data. */
GV_HD gv_u32 gv_random_bits(int kind, gv_u64 seed, gv_u64 i)
{
    gv_u64 h = gv_mix64(seed ^ gv_mix64(i + 1));
    gv_u32 sign = (gv_u32)(h >> 63);
    gv_u32 upper = (gv_u32)((h >> 62) & 1u); /* 0: [0.5, 1), 1: [1, 2) */
    gv_u32 mant = (gv_u32)h;
    switch (kind) {
    case GV_BITS_FP16:
        return sign << 15 | (14u + upper) << 10 | (mant & 0x3ffu);
    case GV_BITS_BF16:
        return sign << 15 | (126u + upper) << 7 | (mant & 0x7fu);
    case GV_BITS_FP8_E4M3:
        return sign << 7 | (6u + upper) << 3 | (mant & 0x7u);
    default:
        return sign << 31 | (126u + upper) << 23 | (mant & 0x7fffffu);
    }
}

/* What rank `rank` contributes at element i of a collective's input: an integer in [-64, 63] as
 * an FP32 value, so that sums over up to 2^17 ranks are exact in any order and the results
 * compare with zero tolerance. */
GV_HD float gv_collective_value(gv_u64 seed, gv_u32 rank, gv_u64 i)
{
    gv_u64 h = gv_mix64(seed ^ gv_mix64(((gv_u64)rank << 40) + i + 1));
    return (float)((int)(h & 127u) - 64);
}

/* Collectives as gv_check_collective numbers them (enum gv_nccl_collective). */
#define GV_COLL_ALL_REDUCE 0
#define GV_COLL_ALL_GATHER 1
#define GV_COLL_REDUCE_SCATTER 2
#define GV_COLL_BROADCAST 3
#define GV_COLL_REDUCE 4
#define GV_COLL_ALL_TO_ALL 5
#define GV_COLL_GATHER 6
#define GV_COLL_SCATTER 7
#define GV_COLL_SEND_RECV 8

/* The exact result at element j of a collective's output on `rank` of `nranks`, each rank's
 * input `count` elements (all-gather, broadcast, all-reduce, reduce, gather, sendrecv) or
 * nranks x count elements (reduce-scatter, all-to-all, scatter). Roots are rank 0; the outputs
 * of reduce and gather are the root's. */
GV_HD float gv_collective_expected(int coll, gv_u64 seed, gv_u32 nranks, gv_u32 rank, gv_u64 count,
                                   gv_u64 j)
{
    float sum = 0;
    switch (coll) {
    case GV_COLL_ALL_GATHER:
    case GV_COLL_GATHER:
        return gv_collective_value(seed, (gv_u32)(j / count), j % count);
    case GV_COLL_BROADCAST:
        return gv_collective_value(seed, 0, j);
    case GV_COLL_ALL_TO_ALL:
        return gv_collective_value(seed, (gv_u32)(j / count), (gv_u64)rank * count + j % count);
    case GV_COLL_SCATTER:
        return gv_collective_value(seed, 0, (gv_u64)rank * count + j);
    case GV_COLL_SEND_RECV:
        return gv_collective_value(seed, (rank + nranks - 1) % nranks, j);
    case GV_COLL_REDUCE_SCATTER:
        for (gv_u32 r = 0; r < nranks; r++)
            sum += gv_collective_value(seed, r, (gv_u64)rank * count + j);
        return sum;
    default:
        for (gv_u32 r = 0; r < nranks; r++)
            sum += gv_collective_value(seed, r, j);
        return sum;
    }
}

/* A word of a result as gv_hash_words adds it up. */
GV_HD gv_u64 gv_hash_word(gv_u64 word, gv_u64 index)
{
    return gv_mix64(word ^ (index * 0x9e3779b97f4a7c15ull));
}

/* The memory test's patterns (gv_mem_step), each a function of the word's device address so
 * that every chunk of memory gets its own values and the host can recompute any of them. */
#define GV_MEM_NONE 0      /* as `expect`: not read; as `write`: not written */
#define GV_MEM_ADDRESS 1   /* the word's own address: words differing in any address bit differ */
#define GV_MEM_WALK 2      /* one bit set, walking one position per word (inverted: walking 0) */
#define GV_MEM_RANDOM 3    /* a random word from the seed */
#define GV_MEM_INVERT 0x10 /* the bitwise complement of the pattern */
#define GV_MEM_LOG 8       /* mismatches recorded in full (address, expected, read) */

GV_HD gv_u64 gv_mem_word(int pattern, gv_u64 seed, gv_u64 addr)
{
    gv_u64 w;
    switch (pattern & 0xf) {
    case GV_MEM_ADDRESS:
        w = addr;
        break;
    case GV_MEM_WALK:
        w = 1ull << ((addr / 8 + seed) & 63u);
        break;
    default: /* one multiply: the test must run at DRAM speed, so no costlier mixer */
        w = (addr ^ seed) * 0x9e3779b97f4a7c15ull;
        w ^= w >> 29;
        break;
    }
    return pattern & GV_MEM_INVERT ? ~w : w;
}

#endif
