/* SPDX-License-Identifier: Apache-2.0 */
/* gv_report_prometheus: the report layer's Prometheus text, each row feeding the metric its
 * check's catalog line names (checks.def's metric column). Here rather than in report/, which
 * sits below the catalog. */
#include "checks/checks.h"
#include "core/c_locale.h"
#include "report/prometheus.h"

static int metric_of_check(const char *id)
{
    int i = gv_catalog_index(id);
    return i < 0 ? GV_METRIC_none : gv_checks[i].metric;
}

gv_status gv_report_prometheus(const gv_report *r, uint32_t flags, char **out)
{
    GV_IN_C_LOCALE();
    return gv_report_prometheus_text(r, flags, metric_of_check, out);
}
