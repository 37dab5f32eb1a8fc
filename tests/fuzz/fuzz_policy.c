/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer: gv_policy_parse over any text. What parses must survive gv_policy_format and
 * parse back to the same policy (the worker receives its policy that way): the same text
 * again. (Not memcmp: a text field set twice keeps the longer value's bytes past its NUL.) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/policy.h"
#include "fuzz_text.h"
#include "gpuverify/gpuverify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gv_ctx *ctx = fuzz_ctx();
    char *text = fuzz_text(data, size);
    gv_policy p = GV_POLICY_INIT;
    if (gv_policy_parse(ctx, text, &p) == GV_OK) {
        char again[4096];
        if (gv_policy_format(&p, again, sizeof again) != 0)
            abort();
        gv_policy q = GV_POLICY_INIT;
        char back[4096];
        if (gv_policy_parse(ctx, again, &q) != GV_OK || gv_policy_format(&q, back, sizeof back) ||
            strcmp(again, back) != 0 || q.gpu_count != p.gpu_count || q.busy != p.busy)
            abort(); /* a policy that does not survive the trip to the worker */
    }
    free(text);
    return 0;
}
