/* SPDX-License-Identifier: Apache-2.0 */
/* A state on its way is read again until it settles, not judged mid-way: the NVSwitch fabric
 * registering the GPUs after the driver loads, an InfiniBand port the subnet manager has not
 * swept yet, a link still training after boot. A node checked as it comes up (slurmd's health
 * check, a provisioning agent) FAILed for what it was about to become, and a health-check drain
 * stays until a person lifts it. One rule for every such wait: every 0.25 s, for at most 20 s
 * and two thirds of the context's deadline (what is left of it is the check's). */
#ifndef GV_CORE_SETTLE_H
#define GV_CORE_SETTLE_H

#include "gpuverify/gv_context.h"

/* Whether a node up this long (seconds, -1 unknown) may still be bringing things up: a fabric
 * manager not started yet, a link still training. */
int gv_settle_booting(double uptime_s);

/* Calls read_again(user) while on_its_way(user), within the bounds above; the seconds waited
 * (0: settled, or nothing on its way, at the first look). stage names the wait for a deadline's
 * message. */
double gv_settle(gv_ctx *ctx, const char *stage, int (*on_its_way)(void *user),
                 void (*read_again)(void *user), void *user);

#endif
