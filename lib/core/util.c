/* SPDX-License-Identifier: Apache-2.0 */
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuverify/gv_report.h"

double gv_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gv_nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

void gv_append(char *dst, size_t cap, const char *sep, const char *text)
{
    size_t n = strlen(dst);
    if (n + 1 >= cap)
        return;
    snprintf(dst + n, cap - n, "%s%s", n ? sep : "", text);
}

void gv_copy_text(char *out, size_t cap, const char *text)
{
    if (!cap)
        return;
    size_t n = strlen(text);
    if (n < cap) {
        memcpy(out, text, n + 1);
        return;
    }
    n = cap - 1;
    /* Back to the start of the character at the cut, when the cut falls inside it (a
     * continuation byte 10xxxxxx follows). */
    if ((text[n] & 0xC0) == 0x80)
        while (n > 0 && (text[n] & 0xC0) == 0x80)
            n--;
    memcpy(out, text, n);
    out[n] = '\0';
}

size_t gv_list_count(const char *list)
{
    size_t n = 0;
    for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',')
        n += strcspn(p, ",") > 0;
    return n;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double gv_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double gv_min_known(double a, double b)
{
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

int32_t gv_verdict_worse(int32_t a, int32_t b)
{
    static const int rank[] = {
        [GV_SKIP] = 0, [GV_PASS] = 1, [GV_WARN] = 2, [GV_FAIL] = 3, [GV_ERROR] = 4};
    if (b < GV_PASS || b > GV_ERROR)
        return a;
    if (a < GV_PASS || a > GV_ERROR)
        return b;
    return rank[b] > rank[a] ? b : a;
}
