/* SPDX-License-Identifier: Apache-2.0 */
/* mem.test: gv_mem_test on every chosen GPU, over most of its free memory. Not in the quick
 * level: it takes nearly all the memory for a second or more, which a prolog must not; nor on
 * a GPU another process uses, unless the policy asks for figures there (gv_busy_spares). */
#include <inttypes.h>
#include <stdio.h>

#include "checks/active.h"
#include "checks/check_ids.h"
#include "checks/busy.h"
#include "compute/compute.h"
#include "core/context.h"
#include "core/progress.h"
#include "gpuverify/gv_compute.h"

void gv_active_memtest(gv_active_run *run)
{
    const gv_active_members members = gv_active_group(gv_active_memtest);
    if (gv_active_no_devices(run, members))
        return;
    for (int gpu = 0; gpu < run->facts->cuda_count; gpu++) {
        if (!gv_active_gpu_chosen(run, gpu))
            continue;
        char subject[48];
        gv_active_subject(run->facts, gpu, subject, sizeof subject);
        gv_progress_begin(run->ctx, gv_id_mem_test, subject);
        gv_busy busy = {0};
        gv_active_sample_busy(run, gpu, &busy);
        char spared[512];
        if (gv_busy_spares(&busy, run->policy, "holding 92% of its free memory", spared,
                           sizeof spared)) {
            gv_report_add(run->report, gv_id_mem_test, subject, GV_SKIP, "%s", spared);
            continue;
        }
        gv_memtest_opts o = GV_MEMTEST_OPTS_INIT;
        gv_memtest_result r = GV_MEMTEST_RESULT_INIT;
        /* Its rounds take seconds and beat from the first: a GPU hung from its first kernel is
         * found a deadline after the test began, not after its whole multiplied time. */
        gv_progress_watch(run->ctx, &gpu, 1);
        gv_status st = gv_mem_test(run->ctx, (uint32_t)gpu, &o, &r);
        gv_progress_watch(run->ctx, NULL, 0);
        gv_active_sample_busy(run, gpu, &busy);
        if (st != GV_OK) {
            gv_result_action(gv_report_add(run->report, gv_id_mem_test, subject, GV_ERROR, "%s",
                                           gv_ctx_last_error(run->ctx)),
                             GV_ACTION_RERUN);
            continue;
        }
        gv_check_result *c =
            gv_report_add(run->report, gv_id_mem_test, subject, r.verdict, "%s", r.message);
        gv_result_measured(c, (double)r.errors, "words", "%" PRIu64 " bad words in %.2f GiB",
                           r.errors, r.bytes_tested / (1024.0 * 1024.0 * 1024.0));
        int ecc_rose = gv_memtest_ecc_rose(&r, 0) || gv_memtest_ecc_rose(&r, 1);
        /* Words read back wrong: the memory, whatever a reset remaps. Uncorrected ECC errors
         * during the test with every word right: the rows are remapped at the next reset
         * (NVIDIA's memory error management), as gpu.ecc_errors asks; corrected ones: a trend
         * for the next run to follow. No memory to test or a CUDA call that failed: reset. */
        gv_result_action(c, r.errors                     ? GV_ACTION_HW_INSPECT
                            : gv_memtest_ecc_rose(&r, 1) ? GV_ACTION_RESET_GPU
                            : gv_memtest_ecc_rose(&r, 0) ? GV_ACTION_RERUN
                                                         : GV_ACTION_RESET_GPU);
        if (r.errors || ecc_rose)
            gv_result_remedy(c, "drain the node; read row remapping and ECC (nvidia-smi -q -d "
                                "ROW_REMAPPER,ECC), reset the GPU to apply pending remaps and "
                                "replace it if words still read back wrong");
        /* Memory others took is memory not tested, not a fault; wrong words and ECC errors
         * during the test are the GPU's whatever the load. */
        gv_busy_apply(&busy, run->policy, c, r.errors != 0 || ecc_rose);
    }
}
