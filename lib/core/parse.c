/* SPDX-License-Identifier: Apache-2.0 */
#include "core/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static enum gv_parse_result whole(enum gv_parse_result r, const char *rest)
{
    if (r != GV_PARSE_OK)
        return r;
    return *skip_blanks(rest) ? GV_PARSE_TRAILING : GV_PARSE_OK;
}

static int digit_of(int base, char c)
{
    if (base == 16)
        return isxdigit((unsigned char)c);
    return c >= '0' && c <= '9' && (base != 8 || c < '8');
}

/* The digits at p in base 10, 16 or 0 (0x.. hexadecimal, 0.. octal): no sign, no blanks. */
static enum gv_parse_result unsigned_at(const char **p, int base, uint64_t *out)
{
    const char *s = *p;
    if (base == 0)
        base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2]) ? 16
               : s[0] == '0' && s[1] >= '0' && s[1] <= '7'                                  ? 8
                                                                                            : 10;
    if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2]))
        s += 2;
    if (!digit_of(base, *s))
        return *s ? GV_PARSE_NOT_NUMBER : GV_PARSE_EMPTY;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, base);
    if (errno == ERANGE)
        return GV_PARSE_RANGE;
    *out = v;
    *p = end;
    return GV_PARSE_OK;
}

enum gv_parse_result gv_parse_u64_at(const char **p, int base, uint64_t lo, uint64_t hi,
                                     uint64_t *out)
{
    if (!p || !*p || !out || (base != 0 && base != 8 && base != 10 && base != 16))
        return GV_PARSE_EMPTY;
    const char *s = skip_blanks(*p);
    uint64_t v;
    enum gv_parse_result r = unsigned_at(&s, base, &v);
    if (r != GV_PARSE_OK)
        return r;
    if (v < lo || v > hi)
        return GV_PARSE_RANGE;
    *out = v;
    *p = s;
    return GV_PARSE_OK;
}

enum gv_parse_result gv_parse_u64(const char *text, int base, uint64_t lo, uint64_t hi,
                                  uint64_t *out)
{
    if (!text)
        return GV_PARSE_EMPTY;
    const char *p = text;
    uint64_t v;
    /* Two statements: C leaves the order of a call's arguments open, and p must be read
     * after gv_parse_u64_at has moved it. */
    enum gv_parse_result r = gv_parse_u64_at(&p, base, lo, hi, &v);
    r = whole(r, p);
    if (r == GV_PARSE_OK)
        *out = v;
    return r;
}

enum gv_parse_result gv_parse_i64(const char *text, int base, int64_t lo, int64_t hi, int64_t *out)
{
    if (!text || !out)
        return GV_PARSE_EMPTY;
    const char *p = skip_blanks(text);
    int negative = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    uint64_t magnitude;
    enum gv_parse_result r = unsigned_at(&p, base, &magnitude);
    if (r == GV_PARSE_EMPTY && p != skip_blanks(text))
        r = GV_PARSE_NOT_NUMBER; /* a sign alone */
    r = whole(r, p);
    if (r != GV_PARSE_OK)
        return r;
    if (magnitude > (uint64_t)INT64_MAX + (uint64_t)negative)
        return GV_PARSE_RANGE;
    int64_t v = negative ? (magnitude == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)magnitude)
                         : (int64_t)magnitude;
    if (v < lo || v > hi)
        return GV_PARSE_RANGE;
    *out = v;
    return GV_PARSE_OK;
}

enum gv_parse_result gv_parse_double_at(const char **p, double lo, double hi, double *out)
{
    if (!p || !*p || !out)
        return GV_PARSE_EMPTY;
    const char *s = skip_blanks(*p);
    const char *digits = s + (*s == '-' || *s == '+');
    if (!*s)
        return GV_PARSE_EMPTY;
    /* Digits or a point and a digit: no "inf", "nan" or hexadecimal floats from outside. */
    if (!(isdigit((unsigned char)*digits) ||
          (*digits == '.' && isdigit((unsigned char)digits[1]))) ||
        (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')))
        return GV_PARSE_NOT_NUMBER;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno == ERANGE || !isfinite(v) || v < lo || v > hi)
        return GV_PARSE_RANGE;
    *out = v;
    *p = end;
    return GV_PARSE_OK;
}

enum gv_parse_result gv_parse_double(const char *text, double lo, double hi, double *out)
{
    if (!text)
        return GV_PARSE_EMPTY;
    const char *p = text;
    double v;
    enum gv_parse_result r = gv_parse_double_at(&p, lo, hi, &v); /* then p: see gv_parse_u64 */
    r = whole(r, p);
    if (r == GV_PARSE_OK)
        *out = v;
    return r;
}

const char *gv_parse_why(enum gv_parse_result r)
{
    switch (r) {
    case GV_PARSE_OK:
        return "a number";
    case GV_PARSE_EMPTY:
        return "empty";
    case GV_PARSE_NOT_NUMBER:
        return "not a number";
    case GV_PARSE_TRAILING:
        return "a number followed by other bytes";
    case GV_PARSE_RANGE:
        return "out of range";
    }
    return "unreadable";
}

/* The length of the well-formed UTF-8 sequence at s (1 for ASCII), 0 when it is malformed. */
static size_t utf8_length(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
               : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                              : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    /* Overlong three-byte forms, UTF-16 surrogates, and code points past U+10FFFF. */
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

static int is_control(unsigned char c)
{
    return (c < 0x20 && c != '\t') || c == 0x7f;
}

size_t gv_text_clean(char *dst, size_t cap, const char *src)
{
    if (!dst || !cap)
        return 0;
    size_t o = 0, replaced = 0;
    const unsigned char *s = (const unsigned char *)(src ? src : "");
    while (*s && o + 1 < cap) {
        size_t n = is_control(*s) ? 0 : utf8_length(s);
        if (n == 0) {
            dst[o++] = '?';
            replaced++;
            s++;
            continue;
        }
        if (o + n >= cap)
            break; /* never half a character */
        memcpy(dst + o, s, n);
        o += n;
        s += n;
    }
    dst[o] = '\0';
    return replaced;
}

int gv_text_is_printable(const char *data, size_t n)
{
    const unsigned char *s = (const unsigned char *)data;
    for (size_t i = 0; i < n;) {
        if (s[i] == '\n' || s[i] == '\r') {
            i++;
            continue;
        }
        if (is_control(s[i]))
            return 0;
        /* utf8_length reads up to 4 bytes: only where they are inside the data. */
        unsigned char tail[4] = {0};
        memcpy(tail, s + i, n - i < 4 ? n - i : 4);
        size_t len = utf8_length(tail);
        if (len == 0)
            return 0;
        i += len;
    }
    return 1;
}
