/* SPDX-License-Identifier: Apache-2.0 */
/* Per-GPU verdicts: each GPU of the report's inventory judged by the rows whose subject is
 * that GPU ("gpu3"), so that a scheduler can take one bad GPU of eight out of service alone
 * (docs/outputs.md, "Per-GPU verdicts"). Derived from the rows on every call: a report read
 * back from its JSON gives the same answers. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

long gv_subject_gpu(const char *subject)
{
    if (strncmp(subject, "gpu", 3) != 0 || !isdigit((unsigned char)subject[3]))
        return -1;
    char *end = NULL;
    long n = strtol(subject + 3, &end, 10);
    return *end || n > 99999 ? -1 : n;
}

/* FAIL outranks ERROR here: one FAILed check makes the GPU unusable whatever else could not be
 * judged. SKIP (no judgement) is below everything tested. */
static int gpu_rank(int32_t v)
{
    static const int rank[] = {
        [GV_SKIP] = 0, [GV_PASS] = 1, [GV_WARN] = 2, [GV_ERROR] = 3, [GV_FAIL] = 4};
    return v >= GV_PASS && v <= GV_ERROR ? rank[v] : 0;
}

int32_t gv_gpu_verdict_of(const gv_report *r, uint32_t gpu)
{
    int32_t worst = GV_SKIP;
    for (size_t i = 0; i < r->count; i++) {
        const gv_check_result *c = &r->results[i];
        if (gv_subject_gpu(c->subject) == (long)gpu && gpu_rank(c->verdict) > gpu_rank(worst))
            worst = c->verdict;
    }
    return worst;
}

int32_t gv_report_gpu_verdict(const gv_report *r, uint32_t index)
{
    if (!r || index >= r->gpu_count)
        return -1;
    return gv_gpu_verdict_of(r, r->gpus[index].index);
}
