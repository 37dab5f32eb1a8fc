/* SPDX-License-Identifier: Apache-2.0 */
/* system.os and system.kernel: what the node runs, read from the sysroot. */
#include <math.h>

#include "checks/checks.h"

void gv_check_system_os(const gv_facts *f, gv_report *r)
{
    if (f->os_src.status != GV_OK) {
        gv_check_result *c =
            gv_report_add(r, gv_id_system_os, "node", GV_ERROR, "%s", f->os_src.err.text);
        gv_result_remedy(c, "restore /etc/os-release (os-release(5)) from the distribution");
        gv_result_action(c, GV_ACTION_FIX_CONFIG); /* read again, the file says the same */
        return;
    }
    gv_check_result *c =
        gv_report_add(r, gv_id_system_os, "node", GV_PASS, "%s", f->os.pretty_name);
    gv_result_measured(c, NAN, "", "%s %s", f->os.id, f->os.version_id);
}

void gv_check_system_kernel(const gv_facts *f, gv_report *r)
{
    if (f->kernel_src.status != GV_OK) {
        gv_result_action(
            gv_report_add(r, gv_id_system_kernel, "node", GV_ERROR, "%s", f->kernel_src.err.text),
            GV_ACTION_FIX_CONFIG);
        return;
    }
    gv_check_result *c =
        gv_report_add(r, gv_id_system_kernel, "node", GV_PASS, "Linux kernel %s", f->kernel);
    gv_result_measured(c, NAN, "", "%s", f->kernel);
}
