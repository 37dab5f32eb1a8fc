/* SPDX-License-Identifier: Apache-2.0 */
#include "core/errbuf.h"

#include <stdarg.h>
#include <stdio.h>

gv_status gv_err(gv_errbuf *e, gv_status status, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->text, sizeof e->text, fmt, ap);
        va_end(ap);
    }
    return status;
}
