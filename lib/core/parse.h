/* SPDX-License-Identifier: Apache-2.0 */
/* Values from outside the library (files under the sysroot, the kernel log, the environment,
 * the command line, a policy) read through one family of checked parsers. A value is taken
 * only when the whole field is a number of the quantity's documented range (docs/inputs.md);
 * anything else (empty, not a number, trailing bytes, out of range, not finite) is an unknown
 * with a reason, never a value, so that a truncated or hostile file cannot read as healthy. */
#ifndef GV_CORE_PARSE_H
#define GV_CORE_PARSE_H

#include <stddef.h>
#include <stdint.h>

enum gv_parse_result {
    GV_PARSE_OK = 0,
    GV_PARSE_EMPTY,      /* nothing but white space */
    GV_PARSE_NOT_NUMBER, /* does not start with a digit (or a sign where one is allowed) */
    GV_PARSE_TRAILING,   /* a number followed by something that is not white space */
    GV_PARSE_RANGE       /* a number outside [lo, hi], too large to hold, or not finite */
};

/* The whole of text (white space around it allowed) as an integer in base 10, 16 or 0 (C's
 * prefixes), within [lo, hi]. *out is written only on GV_PARSE_OK. */
enum gv_parse_result gv_parse_u64(const char *text, int base, uint64_t lo, uint64_t hi,
                                  uint64_t *out);
enum gv_parse_result gv_parse_i64(const char *text, int base, int64_t lo, int64_t hi, int64_t *out);
/* The whole of text as a finite decimal number within [lo, hi]. */
enum gv_parse_result gv_parse_double(const char *text, double lo, double hi, double *out);

/* The number that starts at *p (after blanks) inside a longer field, within [lo, hi]; on
 * GV_PARSE_OK *p moves past it. What follows is the caller's to judge (no TRAILING here). */
enum gv_parse_result gv_parse_u64_at(const char **p, int base, uint64_t lo, uint64_t hi,
                                     uint64_t *out);
enum gv_parse_result gv_parse_double_at(const char **p, double lo, double hi, double *out);

/* "empty", "not a number", "trailing bytes", "out of range" for messages. */
const char *gv_parse_why(enum gv_parse_result r);

/* src into dst (cap > 0, always terminated) with every control byte (< 0x20 but tab, and 0x7f)
 * and every byte of a malformed UTF-8 sequence replaced by '?': text read from outside may go
 * into a message only this way, so that no message carries a newline (a second line in
 * --npd's one-line output) or a terminal escape. Returns how many bytes were replaced. */
size_t gv_text_clean(char *dst, size_t cap, const char *src);

/* Whether n bytes are text a person wrote: printable ASCII, tabs, newlines and well-formed
 * UTF-8 only (no NUL, no other control byte). A file that fails this is binary, not a
 * configuration. */
int gv_text_is_printable(const char *data, size_t n);

#endif
