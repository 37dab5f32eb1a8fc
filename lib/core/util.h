/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers every module uses: a monotonic clock, growing a separated text list, units,
 * the order of verdicts. */
#ifndef GV_CORE_UTIL_H
#define GV_CORE_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Bytes in a MiB and a GiB, as doubles for the figures reports print. */
#define GV_MIB (1024.0 * 1024.0)
#define GV_GIB (1024.0 * GV_MIB)

/* Seconds on the monotonic clock, for durations. */
double gv_now_s(void);
/* Sleeps ms milliseconds (an interrupted sleep ends early: callers poll). */
void gv_nap_ms(long ms);
/* Appends text to dst, preceded by sep unless dst is empty; truncates at cap. */
void gv_append(char *dst, size_t cap, const char *sep, const char *text);
/* Copies text into out[cap] as snprintf does, but a text cut short ends before a UTF-8
 * character it would have split (a lone lead byte is no text to a JSON reader). */
void gv_copy_text(char *out, size_t cap, const char *text);
/* The non-empty entries of a comma-separated list ("0,2,3": 3; "": 0). */
size_t gv_list_count(const char *list);
/* The median of n > 0 samples; sorts them in place (v[0] is then the smallest). */
double gv_median(double *v, size_t n);
/* The smaller of two measurements where negative means unknown: min(a, b), or the known one. */
double gv_min_known(double a, double b);

/* The more severe of two verdicts: ERROR > FAIL > WARN > PASS > SKIP (a SKIP gives way to
 * anything tested). The active tests combine their parts' verdicts with it too. */
int32_t gv_verdict_worse(int32_t a, int32_t b);

#endif
