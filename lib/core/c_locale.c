/* SPDX-License-Identifier: Apache-2.0 */
#include "core/c_locale.h"

#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t gv_c_locale_enter(void)
{
    pthread_once(&once, make_c_locale);
    return c_locale ? uselocale(c_locale) : (locale_t)0;
}

void gv_c_locale_leave(locale_t *before)
{
    if (*before)
        uselocale(*before);
}
