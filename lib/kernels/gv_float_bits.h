/* SPDX-License-Identifier: Apache-2.0 */
/* Host conversions between the GEMM data encodings and double: decoding what the GPU wrote,
 * and (for the fakes) encoding with round-to-nearest-even as the tensor cores' epilogue does. */
#ifndef GV_KERNELS_GV_FLOAT_BITS_H
#define GV_KERNELS_GV_FLOAT_BITS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/gv_random.h"

static inline double gv_bits_to_double(int kind, uint32_t bits)
{
    switch (kind) {
    case GV_BITS_FP16: {
        int sign = (bits >> 15) & 1, exp = (bits >> 10) & 0x1f, mant = bits & 0x3ff;
        double v = exp == 0    ? ldexp(mant, -24)
                   : exp == 31 ? (mant ? NAN : INFINITY)
                               : ldexp(1024 + mant, exp - 25);
        return sign ? -v : v;
    }
    case GV_BITS_BF16:
        bits <<= 16;
        /* fall through */
    case GV_BITS_FP32: {
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    case GV_BITS_FP8_E4M3: {
        int sign = (bits >> 7) & 1, exp = (bits >> 3) & 0xf, mant = bits & 0x7;
        double v = exp == 15 && mant == 7 ? NAN
                   : exp == 0             ? ldexp(mant, -9)
                                          : ldexp(8 + mant, exp - 10);
        return sign ? -v : v;
    }
    default:
        return NAN;
    }
}

static inline uint32_t gv_float_to_bits(int kind, double value)
{
    float f = (float)value;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (kind == GV_BITS_BF16) {
        if (isnan(f))
            return 0x7fc0;
        return (u + 0x7fff + ((u >> 16) & 1)) >> 16;
    }
    if (kind == GV_BITS_FP16) {
        uint32_t sign = (u >> 16) & 0x8000;
        double a = fabs(value);
        if (isnan(value))
            return 0x7e00;
        if (a >= 65520.0)
            return sign | 0x7c00;
        if (a < ldexp(1, -14)) /* subnormal: multiples of 2^-24 */
            return sign | (uint32_t)nearbyint(a * ldexp(1, 24));
        int e;
        double m = frexp(a, &e);                         /* a = m * 2^e, m in [0.5, 1) */
        uint32_t mant = (uint32_t)nearbyint(m * 2048.0); /* 11 significant bits */
        if (mant == 2048) {
            mant = 1024;
            e++;
        }
        if (e + 14 >= 31)
            return sign | 0x7c00;
        return sign | (uint32_t)(e + 14) << 10 | (mant - 1024);
    }
    return u;
}

#endif
