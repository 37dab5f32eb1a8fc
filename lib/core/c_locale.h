/* SPDX-License-Identifier: Apache-2.0 */
/* The library reads and writes numbers and names as C does, whatever locale its caller's
 * process chose: a daemon that called setlocale(LC_ALL, "") on a German host had every worker
 * refuse its arguments ("--budget 20,49..."), its policies' fractions refused ("0.5") and sysfs's
 * "32.0 GT/s" misread; a Turkish one's strcasecmp told "pix" from "PIX" (a dotted capital I).
 * So each public function that parses or formats runs its thread in the C locale until it
 * returns, and each thread the library starts runs in it; the caller's locale is never
 * changed (uselocale is the thread's alone). */
#ifndef GV_CORE_C_LOCALE_H
#define GV_CORE_C_LOCALE_H

#include <locale.h>

/* Puts the calling thread in the C locale; what it was in before, for gv_c_locale_leave
 * ((locale_t)0 when the C locale could not be made: nothing changed). */
locale_t gv_c_locale_enter(void);
/* Puts the thread back in *before (nothing for (locale_t)0). */
void gv_c_locale_leave(locale_t *before);

/* Around a call into the caller's own code (its event hook, its log callback): the locale its
 * thread had when it called the library, while that code runs; gv_c_locale_resume puts the C
 * locale back. (locale_t)0 when the thread is not in one of the library's entry points. */
locale_t gv_c_locale_pause(void);
void gv_c_locale_resume(locale_t paused);

/* The rest of the enclosing block in the C locale, the thread's own put back at its end
 * (every return included). */
#define GV_IN_C_LOCALE()                                                                           \
    locale_t gv_locale_before_ __attribute__((cleanup(gv_c_locale_leave), unused)) =               \
        gv_c_locale_enter()

#endif
