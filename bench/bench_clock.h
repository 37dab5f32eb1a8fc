/* SPDX-License-Identifier: Apache-2.0 */
/* The bench programs' clock: seconds on the monotonic clock. */
#ifndef GV_BENCH_CLOCK_H
#define GV_BENCH_CLOCK_H

#include <time.h>

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
