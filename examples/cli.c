/* SPDX-License-Identifier: Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <gpuverify/gpuverify.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/parse.h"

void gv_cli_version(const char *tool)
{
    printf("%s %s (built against libgpuverify %d.%d.%d)\n", tool, gv_version_string(),
           GV_VERSION_MAJOR, GV_VERSION_MINOR, GV_VERSION_PATCH);
}

int gv_cli_double(const char *tool, const char *opt, const char *text, double min, double max,
                  double *out)
{
    /* lib/core/parse.h: the whole text one finite decimal number within [min, max]; no "inf",
     * "nan", hexadecimal float or trailing bytes ("5abc" is refused, never read as 5). */
    double v = 0;
    if (!text || gv_parse_double(text, min, max, &v) != GV_PARSE_OK) {
        fprintf(stderr, "%s: %s wants a number from %g to %g, not '%s'\n", tool, opt, min, max,
                text ? text : "");
        return -1;
    }
    *out = v;
    return 0;
}

int gv_cli_uint64(const char *tool, const char *opt, const char *text, uint64_t min, uint64_t max,
                  uint64_t *out)
{
    /* Decimal digits only (lib/core/parse.h): no sign, so "-1" is never strtoull's largest
     * value; no suffix, exponent or trailing bytes ("16Q", "1e30" are refused). */
    uint64_t v = 0;
    if (!text || gv_parse_u64(text, 10, min, max, &v) != GV_PARSE_OK) {
        fprintf(stderr, "%s: %s wants a whole number from %" PRIu64 " to %" PRIu64 ", not '%s'\n",
                tool, opt, min, max, text ? text : "");
        return -1;
    }
    *out = v;
    return 0;
}

int gv_cli_uint64_at(const char **p, uint64_t max, uint64_t *out)
{
    if (!p || !*p || **p < '0' || **p > '9')
        return -1;
    return gv_parse_u64_at(p, 10, 0, max, out) == GV_PARSE_OK ? 0 : -1;
}

int gv_cli_choice(const char *tool, const char *opt, const char *text, const char *const *names,
                  int n)
{
    for (int k = 0; k < n; k++)
        if (text && strcmp(text, names[k]) == 0)
            return k;
    fprintf(stderr, "%s: %s is one of", tool, opt);
    for (int k = 0; k < n; k++)
        fprintf(stderr, "%s %s", k ? "," : "", names[k]);
    fprintf(stderr, ", not '%s'\n", text ? text : "");
    return -1;
}

const char *gv_cli_value(const char *tool, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value (--help lists the options)\n", tool, argv[*i]);
        return NULL;
    }
    const char *v = argv[*i + 1];
    if (v[0] == '-' && v[1] == '-' && v[2]) {
        fprintf(stderr, "%s: %s needs a value, not the option %s (--help lists the options)\n",
                tool, argv[*i], v);
        return NULL;
    }
    return argv[++*i];
}

int gv_cli_unknown(const char *tool, const char *arg)
{
    fprintf(stderr, "%s: %s '%s' (--help lists the options)\n", tool,
            arg[0] == '-' && arg[1] ? "unknown option" : "unexpected argument", arg);
    return GV_CLI_USAGE;
}

const char *gv_cli_verdict_colour(int32_t verdict)
{
    switch (verdict) {
    case GV_PASS:
        return "\033[32m";
    case GV_WARN:
        return "\033[33m";
    case GV_FAIL:
    case GV_ERROR:
        return "\033[31m";
    default:
        return "\033[90m";
    }
}

const char *gv_cli_default_state(const char *tool, int make_dir)
{
    static char path[4096];
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    if (geteuid() == 0)
        snprintf(path, sizeof path, "%s", GV_CLI_STATE_ROOT);
    else if (xdg && xdg[0] == '/')
        snprintf(path, sizeof path, "%s/gpuverify/history.db", xdg);
    else if (home && home[0] == '/')
        snprintf(path, sizeof path, "%s/.local/state/gpuverify/history.db", home);
    else {
        fprintf(stderr, "%s: --state default: neither root nor a $HOME; name a file\n", tool);
        return NULL;
    }
    /* mkdir -p of the file's directory; an error shows as the history's ERROR row. */
    for (char *p = path + 1; make_dir && (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    return path;
}

int gv_cli_colour(FILE *to)
{
    const char *no = getenv("NO_COLOR");
    return isatty(fileno(to)) && !(no && *no);
}

const char *gv_cli_reason(const gv_ctx *ctx, gv_status status)
{
    const char *why = gv_ctx_last_error(ctx);
    return why && *why ? why : gv_strerror(status);
}

/* Narrower than this, wrapping broke every word of the header over lines (COLUMNS=5): the
 * lines are left whole, as in a pipe. */
#define WIDTH_MIN 40

unsigned gv_cli_width(FILE *to)
{
    const char *columns = getenv("COLUMNS");
    uint64_t n = 0;
    struct winsize ws;
    if (columns && gv_parse_u64(columns, 10, 1, 10000, &n) == GV_PARSE_OK)
        ; /* the caller's */
    else if (isatty(fileno(to)) && ioctl(fileno(to), TIOCGWINSZ, &ws) == 0)
        n = ws.ws_col;
    return n >= WIDTH_MIN ? (unsigned)n : 0;
}

size_t gv_cli_columns(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Columns a continuation line keeps for text: an indent that leaves fewer is cut to half the
 * width (a narrow terminal still gets words on each line). */
#define WRAP_TEXT_MIN 24

/* Bytes of `s` that fill at most `room` columns, never ending inside a character. */
static size_t bytes_within(const char *s, size_t room)
{
    size_t k = 0;
    for (size_t cols = 0; s[k] && cols < room; cols++)
        do
            k++;
        while (((unsigned char)s[k] & 0xC0) == 0x80);
    return k;
}

void gv_cli_wrap(FILE *to, size_t col, const char *text, size_t indent, unsigned width)
{
    if (width == 0) {
        fprintf(to, "%s\n", text);
        return;
    }
    if (indent + WRAP_TEXT_MIN > width && indent > width / 2)
        indent = width / 2;
    const char *p = text;
    /* Leading spaces (a column the caller lines text up with) that leave no room on the line
     * are cut to the indent. */
    size_t pad = strspn(p, " ");
    if (p[pad] && col + pad >= width)
        p += pad - (indent > col ? indent - col : 0);
    for (;;) {
        size_t fit = bytes_within(p, col < width ? width - col : 0);
        if (!p[fit]) {
            fprintf(to, "%s\n", p);
            return;
        }
        /* The line ends at the last space that fits (a space just past it included), not at
         * the spaces that lead the text (an indent of the caller's). */
        size_t lead = strspn(p, " "), cut = fit;
        while (cut > lead && p[cut] != ' ')
            cut--;
        /* No space: a word that a new line has room for starts one; a word wider than any
         * line is cut where the line ends. */
        if (cut <= lead) {
            size_t word = lead + strcspn(p + lead, " ");
            int fits_fresh = bytes_within(p, width - indent) >= word;
            cut = col <= indent || !fits_fresh ? fit : 0;
        }
        size_t end = cut;
        while (end > 0 && p[end - 1] == ' ')
            end--;
        fprintf(to, "%.*s\n", (int)end, p);
        p += cut;
        while (*p == ' ')
            p++;
        if (!*p)
            return;
        fprintf(to, "%*s", (int)indent, "");
        col = indent;
    }
}
