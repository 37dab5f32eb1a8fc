/* SPDX-License-Identifier: Apache-2.0 */
/* The report in Prometheus' text format (report_prometheus.c) and the metrics its rows feed
 * (metrics.def). Which check feeds which metric is the catalog's to say (checks.def, a layer
 * above): gv_report_prometheus (checks/prometheus.c) passes its column in. */
#ifndef GV_REPORT_PROMETHEUS_H
#define GV_REPORT_PROMETHEUS_H

#include <stdint.h>

#include "gpuverify/gv_report.h"

/* GV_METRIC_<name> for each line of metrics.def, in its order; GV_METRIC_none for a check
 * whose rows feed none. */
enum gv_metric {
    GV_METRIC_none,
#define GV_METRIC(name, ...) GV_METRIC_##name,
#include "report/metrics.def"
#undef GV_METRIC
};

/* The metric the rows of check `id` feed (enum gv_metric), GV_METRIC_none for none. */
typedef int (*gv_metric_of_fn)(const char *id);

/* gv_report_prometheus's text (gpuverify/gv_report.h), each row's value in the metric
 * metric_of names for its check, when the row's unit, value and subject fit it. */
gv_status gv_report_prometheus_text(const gv_report *r, uint32_t flags, gv_metric_of_fn metric_of,
                                    char **out);

#endif
