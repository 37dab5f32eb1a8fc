/* SPDX-License-Identifier: Apache-2.0 */
#include "core/c_locale.h"

#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/* The thread's locale when it entered the outermost of the library's entry points, and how
 * deep in them it is (an entry point may call another). */
static __thread locale_t callers;
static __thread int depth;

locale_t gv_c_locale_enter(void)
{
    pthread_once(&once, make_c_locale);
    if (!c_locale)
        return (locale_t)0;
    locale_t before = uselocale(c_locale);
    if (before && depth++ == 0)
        callers = before;
    return before;
}

void gv_c_locale_leave(locale_t *before)
{
    if (!*before)
        return;
    uselocale(*before);
    depth--;
}

locale_t gv_c_locale_pause(void)
{
    return depth > 0 ? uselocale(callers) : (locale_t)0;
}

void gv_c_locale_resume(locale_t paused)
{
    if (paused)
        uselocale(paused);
}
