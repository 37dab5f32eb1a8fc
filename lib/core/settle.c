/* SPDX-License-Identifier: Apache-2.0 */
#include "core/settle.h"

#include <time.h>

#include "core/context.h"
#include "core/progress.h"
#include "core/util.h"

#define SETTLE_WAIT_S 20.0
#define SETTLE_BOOT_S 600.0 /* ten minutes of uptime: what comes up at boot has come up */
#define SETTLE_POLL_NS 250000000L

int gv_settle_booting(double uptime_s)
{
    return uptime_s >= 0 && uptime_s < SETTLE_BOOT_S;
}

double gv_settle(gv_ctx *ctx, const char *stage, int (*on_its_way)(void *user),
                 void (*read_again)(void *user), void *user)
{
    double limit = ctx->deadline_s * 2 / 3, t0 = gv_now_s(), waited = 0;
    limit = limit < SETTLE_WAIT_S ? limit : SETTLE_WAIT_S;
    while (on_its_way(user) && gv_now_s() - t0 < limit) {
        gv_progress_stage(ctx, "%s", stage);
        struct timespec pause = {0, SETTLE_POLL_NS};
        nanosleep(&pause, NULL);
        read_again(user);
        waited = gv_now_s() - t0;
    }
    return waited;
}
