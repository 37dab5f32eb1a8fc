/* SPDX-License-Identifier: Apache-2.0 */
/* The policy inside the library: its text form, which the worker receives on its command
 * line (gv_policy_parse reads it back), and the names of its enums. */
#ifndef GV_CHECKS_POLICY_H
#define GV_CHECKS_POLICY_H

#include <stddef.h>

#include "gpuverify/gv_policy.h"

/* "skip", "warn", "fail", "ignore" (enum gv_busy_rule); "skip" for other values. */
const char *gv_busy_rule_name(int32_t rule);
/* The policy as key = value lines that gv_policy_parse turns back into the same policy;
 * -1 when cap is too small (out then holds a cut text). */
int gv_policy_format(const gv_policy *p, char *out, size_t cap);
/* A policy set field by field (a binding's setters) holds only what its text could say:
 * GV_ERR_INVALID_ARG naming the first field that does not (gpu_count 5000, a NaN threshold, a
 * model name with a line break), as gv_policy_parse would have refused it. */
gv_status gv_policy_check(gv_ctx *ctx, const gv_policy *p);

#endif
