#include "core/util.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

double gv_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gv_append(char *dst, size_t cap, const char *sep, const char *text)
{
    size_t n = strlen(dst);
    if (n + 1 >= cap)
        return;
    snprintf(dst + n, cap - n, "%s%s", n ? sep : "", text);
}
