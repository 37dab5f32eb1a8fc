#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <gpuverify/gpuverify.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void gv_cli_version(const char *tool)
{
    printf("%s %s (built against libgpuverify %d.%d.%d)\n", tool, gv_version_string(),
           GV_VERSION_MAJOR, GV_VERSION_MINOR, GV_VERSION_PATCH);
}

int gv_cli_double(const char *tool, const char *opt, const char *text, double min, double max,
                  double *out)
{
    char *end = NULL;
    errno = 0;
    double v = text && *text ? strtod(text, &end) : NAN;
    if (!end || *end || errno || !isfinite(v) || v < min || v > max) {
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
    char *end = NULL;
    errno = 0;
    /* strtoull takes "-1" as its largest value: a sign is refused before it sees one. */
    int digits = text && *text >= '0' && *text <= '9';
    unsigned long long v = digits ? strtoull(text, &end, 10) : 0;
    if (!digits || !end || *end || errno || v < min || v > max) {
        fprintf(stderr, "%s: %s wants a whole number from %" PRIu64 " to %" PRIu64 ", not '%s'\n",
                tool, opt, min, max, text ? text : "");
        return -1;
    }
    *out = v;
    return 0;
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

int gv_cli_colour(FILE *to)
{
    const char *no = getenv("NO_COLOR");
    return isatty(fileno(to)) && !(no && *no);
}
