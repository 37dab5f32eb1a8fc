/* SPDX-License-Identifier: Apache-2.0 */
/* gv-history: the history database gv-check --state keeps, read back through gv_history_json
 * and shown as a table of runs, CSV, the JSON itself, or a text trend chart per figure so that a
 * person sees a GPU slowing over its last runs at a glance. Thin by design: every datum comes
 * from the library's JSON; this file only selects and lays it out. Exit status: 0 shown,
 * 1 nothing matched, 2 usage error or the database cannot be read. */
#define _POSIX_C_SOURCE 200809L
#include <gpuverify/gpuverify.h>
#include <jansson.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#define TOOL "gv-history"
/* --since Nd: up to a century back; --last N: up to a million runs. */
#define MAX_DAYS 36500
#define MAX_LAST 1000000
/* Columns of a trend: more runs than this are averaged into this many columns. */
#define TREND_WIDTH 40
/* Runs shown without --last or --since: a year of daily runs, in seconds and megabytes (every
 * run of a database of thousands took minutes and gigabytes). */
#define DEFAULT_LAST 400

static void usage(void)
{
    printf(
        "usage: gv-history --state FILE|default [--gpu UUID|gpuN] [--node HOST]\n"
        "                  [--checks LIST] [--since YYYY-MM-DD|DAYSd] [--last N]\n"
        "                  [--failures] [--json | --csv | --chart]\n"
        "       gv-history --version | --help\n"
        "What to show:\n"
        "  --state FILE       the SQLite file gv-check --state wrote; default: the one\n"
        "                     gv-check --state default uses (" GV_CLI_STATE_ROOT " for\n"
        "                     root, else $XDG_STATE_HOME/gpuverify/history.db)\n"
        "  --gpu UUID|gpuN    one GPU's record by UUID, in whatever slot or node it ran; gpuN\n"
        "                     is the UUID of gpuN in the newest run (of --node HOST)\n"
        "  --node HOST        the runs of this host name\n"
        "  --checks LIST      comma-separated check IDs or prefixes (gemm,history.performance);\n"
        "                     ^ID leaves one out\n"
        "  --since WHEN       runs since a day (YYYY-MM-DD, UTC) or DAYS days back (30d)\n"
        "  --last N           the newest N runs that match (without it or --since: 400)\n"
        "  --failures         of those runs, only the WARN, FAIL and ERROR rows, and only the\n"
        "                     runs that have one (in every output)\n"
        "Output (one of):\n"
        "  (default)          a table: a line per run (time, host, level, verdict, action),\n"
        "                     then a line per matching row (verdict, check, subject, value)\n"
        "  --chart            per figure (check, subject, unit) a trend, oldest to newest, with\n"
        "                     its runs, min, median, max, last value and last against median;\n"
        "                     block characters in a UTF-8 locale, else ASCII (.:-=+*#@)\n"
        "  --csv              a line per row: started_at,hostname,run_verdict,check,subject,\n"
        "                     history_subject,verdict,action,value,unit,measured,message\n"
        "                     (RFC 4180; the message of WARN, FAIL and ERROR rows)\n"
        "  --json             gv_history_json's JSON (docs/tools.md, \"gv-history\")\n"
        "Exit status: 0 shown, 1 nothing matched, 2 usage error or the database cannot be read.\n"
        "Environment: NO_COLOR turns colour off; LC_ALL, LC_CTYPE, LANG choose the chart's\n"
        "characters; COLUMNS is the width the table wraps at (default: the terminal's; none\n"
        "in a pipe or file, or under 40).\n");
}

typedef struct args {
    const char *state, *gpu, *node, *checks;
    long long since_unix;
    uint64_t last;
    const char *out_flag; /* --json, --csv, --chart; NULL: the table */
    int failures;         /* --failures: WARN, FAIL and ERROR rows only */
} args;

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (Howard Hinnant's
 * days_from_civil): timegm is no standard C, and a date needs no time zone. */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

/* Exactly `n` decimal digits at text as a number; -1 otherwise. */
static long digits(const char *text, int n)
{
    long v = 0;
    for (int k = 0; k < n; k++) {
        if (text[k] < '0' || text[k] > '9')
            return -1;
        v = v * 10 + (text[k] - '0');
    }
    return v;
}

/* --since: "YYYY-MM-DD" (midnight UTC; a real day of 1970 to 9999) or "Nd" (N days before
 * now). 0 and *out set, or -1 after saying what is allowed. */
static int since_arg(const char *text, long long *out)
{
    const char *p = text;
    uint64_t days = 0;
    if (gv_cli_uint64_at(&p, MAX_DAYS, &days) == 0 && p[0] == 'd' && p[1] == '\0' && days >= 1) {
        *out = (long long)time(NULL) - (long long)days * 86400;
        return 0;
    }
    long y = strlen(text) == 10 && text[4] == '-' && text[7] == '-' ? digits(text, 4) : -1;
    long m = y >= 0 ? digits(text + 5, 2) : -1, d = m >= 0 ? digits(text + 8, 2) : -1;
    if (y >= 1970 && m >= 1 && m <= 12 && d >= 1) {
        static const int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        if (d <= month_days[m - 1] + (m == 2 && leap)) {
            *out = days_from_civil(y, (unsigned)m, (unsigned)d) * 86400;
            return 0;
        }
    }
    fprintf(stderr,
            "%s: --since wants a day YYYY-MM-DD from 1970-01-01 to 9999-12-31, or days back "
            "from 1d to %dd, not '%s'\n",
            TOOL, MAX_DAYS, text);
    return -1;
}

/* A value that names something: refused when empty (the library would read "" as "all"). */
static int named_arg(const char *opt, const char *text, const char *what)
{
    if (*text)
        return 0;
    fprintf(stderr, "%s: %s wants %s, not ''\n", TOOL, opt, what);
    return -1;
}

/* "gpuN": a slot, to be followed by the UUID it held in the newest run. */
static int is_slot(const char *gpu)
{
    if (strncmp(gpu, "gpu", 3) != 0 || !gpu[3] || (gpu[3] == '0' && gpu[4]))
        return 0;
    for (const char *p = gpu + 3; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* --gpu: a slot (gpuN), an NVML UUID (GPU-..., MIG-...) or the "<host>/<subject>" the library
 * keeps a GPU without a UUID under. Anything else would only match nothing. */
static int gpu_arg(const char *text)
{
    if (is_slot(text) || !strncmp(text, "GPU-", 4) || !strncmp(text, "MIG-", 4) ||
        (strchr(text, '/') && text[0] != '/'))
        return 0;
    fprintf(stderr, "%s: --gpu wants gpuN (gpu0, gpu7) or a GPU's UUID (GPU-...), not '%s'\n", TOOL,
            text);
    return -1;
}

/* --checks: IDs or prefixes, ^ID leaving one out, none empty. */
static int checks_arg(const char *text)
{
    for (const char *p = text;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0 || (len == 1 && *p == '^')) {
            fprintf(stderr,
                    "%s: --checks wants check IDs or prefixes, comma-separated (^ID leaves one "
                    "out), not '%s'\n",
                    TOOL, text);
            return -1;
        }
        p += len;
        if (!*p)
            return 0;
    }
}

/* The first ID or prefix of a --checks list that names no check of this gpuverify's catalog,
 * into out ("" when each names one). Not refused: a record keeps the checks of the release that
 * made it, which this one may no longer have. */
static void unknown_check(const char *list, char *out, size_t cap)
{
    out[0] = '\0';
    for (const char *p = list; p && *(p += strspn(p, ", "));) {
        const char *t = p + (*p == '^');
        size_t len = strcspn(t, ",");
        p = t + len;
        while (len && t[len - 1] == ' ')
            len--;
        int known = 0;
        for (uint32_t i = 0; i < gv_catalog_count() && !known; i++) {
            const char *id = gv_catalog_id(i);
            known = strncmp(id, t, len) == 0 && (id[len] == '\0' || id[len] == '.');
        }
        if (!known) {
            snprintf(out, cap, "%.*s", (int)len, t);
            return;
        }
    }
}

static int parse(int argc, char **argv, args *a)
{
    static const char *const modes[] = {"--json", "--csv", "--chart"};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        int mode = -1;
        for (int k = 0; k < 3; k++)
            if (strcmp(o, modes[k]) == 0)
                mode = k;
        if (mode >= 0) {
            if (a->out_flag && strcmp(a->out_flag, o) != 0) {
                fprintf(stderr, "%s: %s and %s are two outputs: choose one\n", TOOL, a->out_flag,
                        o);
                return GV_CLI_USAGE;
            }
            a->out_flag = o;
            continue;
        }
        if (strcmp(o, "--failures") == 0) {
            a->failures = 1;
            continue;
        }
        if (strcmp(o, "--version") == 0) {
            gv_cli_version(TOOL);
            return -1;
        }
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            usage();
            return -1;
        }
        static const char *const with_value[] = {"--state",  "--gpu",   "--node",
                                                 "--checks", "--since", "--last"};
        int takes = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            takes |= strcmp(o, with_value[k]) == 0;
        if (!takes)
            return gv_cli_unknown(TOOL, o);
        const char *v = gv_cli_value(TOOL, argc, argv, &i);
        if (!v)
            return GV_CLI_USAGE;
        int bad = 0;
        if (strcmp(o, "--state") == 0) {
            bad = named_arg(o, v, "a file or 'default'");
            if (!bad && strcmp(v, "default") == 0 && !(v = gv_cli_default_state(TOOL, 0)))
                return GV_CLI_USAGE;
            a->state = v;
        } else if (strcmp(o, "--gpu") == 0) {
            bad = gpu_arg(v);
            a->gpu = v;
        } else if (strcmp(o, "--node") == 0) {
            bad = named_arg(o, v, "a host name");
            a->node = v;
        } else if (strcmp(o, "--checks") == 0) {
            bad = checks_arg(v);
            a->checks = v;
        } else if (strcmp(o, "--since") == 0) {
            bad = since_arg(v, &a->since_unix);
        } else {
            bad = gv_cli_uint64(TOOL, o, v, 1, MAX_LAST, &a->last);
        }
        if (bad)
            return GV_CLI_USAGE;
    }
    if (!a->state) {
        fprintf(stderr, "%s: --state FILE|default is required (--help lists the options)\n", TOOL);
        return GV_CLI_USAGE;
    }
    return 0;
}

/* A member's text; "" when absent or not text. */
static const char *text_of(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* gv_history_json into *root (and its text into *text when asked); 0, or -1 after the library's
 * reason on stderr. */
static int fetch(gv_ctx *ctx, const char *path, const char *subject, const char *checks,
                 long long since_unix, uint32_t max_runs, json_t **root, char **text)
{
    gv_history_opts o = GV_HISTORY_OPTS_INIT;
    o.subject = subject;
    o.checks = checks;
    o.since_unix = since_unix;
    o.max_runs = max_runs;
    char *json = NULL;
    gv_status s = gv_history_json(ctx, path, &o, &json);
    if (s != GV_OK) {
        fprintf(stderr, "%s: %s\n", TOOL, gv_cli_reason(ctx, s));
        return -1;
    }
    json_error_t e;
    *root = json_loads(json, 0, &e);
    if (!*root || !json_is_array(json_object_get(*root, "runs"))) {
        fprintf(stderr, "%s: history database %s: the library's JSON does not read: %s\n", TOOL,
                path, *root ? "no runs array" : e.text);
        json_decref(*root);
        gv_free(json);
        return -1;
    }
    if (text)
        *text = json;
    else
        gv_free(json);
    return 0;
}

/* --gpu gpuN: the UUID of gpuN in the newest run (of `node`), so that the GPU is followed by
 * UUID across slots and nodes; "<host>/gpuN" for a GPU without one (the library keeps such a
 * GPU's rows under that name). 0 with out filled; 1 after saying there is no such GPU; 2 when the
 * database cannot be read. */
static int resolve_slot(gv_ctx *ctx, const args *a, char *out, size_t cap)
{
    json_t *root;
    if (fetch(ctx, a->state, a->node, NULL, 0, 1, &root, NULL))
        return GV_CLI_USAGE;
    json_t *run = json_array_get(json_object_get(root, "runs"), 0);
    json_t *gpus = json_object_get(run, "gpus");
    int found = 0;
    for (size_t i = 0; i < json_array_size(gpus) && !found; i++) {
        json_t *g = json_array_get(gpus, i);
        if (strcmp(text_of(g, "subject"), a->gpu) != 0)
            continue;
        if (*text_of(g, "uuid"))
            snprintf(out, cap, "%s", text_of(g, "uuid"));
        else
            snprintf(out, cap, "%s/%s", text_of(run, "hostname"), a->gpu);
        found = 1;
    }
    if (!found && !run)
        fprintf(stderr, "%s: no run in %s%s%s: no %s to follow\n", TOOL, a->state,
                a->node ? " of " : "", a->node ? a->node : "", a->gpu);
    else if (!found)
        fprintf(stderr, "%s: the newest run in %s (%s, %s) has no %s (%zu GPU(s))\n", TOOL,
                a->state, text_of(run, "started_at"), text_of(run, "hostname"), a->gpu,
                json_array_size(gpus));
    json_decref(root);
    return found ? 0 : 1;
}

/* Keeps the runs the library's query could not select: --node with --gpu (the library takes
 * one subject), then --last. Returns whether anything was taken out. */
static int narrow(json_t *runs, const args *a)
{
    int changed = 0;
    for (size_t i = 0; a->node && a->gpu && i < json_array_size(runs);) {
        if (strcmp(text_of(json_array_get(runs, i), "hostname"), a->node) != 0)
            json_array_remove(runs, i), changed = 1;
        else
            i++;
    }
    while (a->last && json_array_size(runs) > a->last)
        json_array_remove(runs, json_array_size(runs) - 1), changed = 1;
    return changed;
}

/* --failures: of the runs selected, the rows that are no PASS or SKIP and the runs that have
 * one (a healthy record of hundreds of runs shows what went wrong, not 300 rows a run). Returns
 * how many runs had none. */
static size_t failures_only(json_t *runs)
{
    size_t none = 0;
    for (size_t i = 0; i < json_array_size(runs);) {
        json_t *rows = json_object_get(json_array_get(runs, i), "checks");
        for (size_t k = 0; k < json_array_size(rows);) {
            const char *v = text_of(json_array_get(rows, k), "verdict");
            if (!strcmp(v, "WARN") || !strcmp(v, "FAIL") || !strcmp(v, "ERROR"))
                k++;
            else
                json_array_remove(rows, k);
        }
        if (json_array_size(rows))
            i++;
        else
            json_array_remove(runs, i), none++;
    }
    return none;
}

/* The database's text as a terminal shows it: control characters (an escape sequence a host
 * name or a message could carry, C1 controls included) become '?'. The JSON output escapes them
 * itself. */
static void clean_strings(json_t *v)
{
    const char *key;
    json_t *item;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach(v, key, item)
        {
            if (json_is_string(item)) {
                const char *t = json_string_value(item);
                size_t n = strlen(t);
                char *copy = malloc(n + 1);
                if (!copy)
                    continue;
                for (size_t k = 0; k <= n; k++) {
                    unsigned char c = (unsigned char)t[k];
                    int c1 = c == 0xc2 && (unsigned char)t[k + 1] >= 0x80 &&
                             (unsigned char)t[k + 1] <= 0x9f;
                    copy[k] = (c && c < 0x20) || c == 0x7f ? '?' : (char)c;
                    if (c1)
                        copy[k] = '?', copy[++k] = '?';
                }
                json_object_set_new(v, key, json_string(copy));
                free(copy);
            } else {
                clean_strings(item);
            }
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, item) clean_strings(item);
    }
}

/* A figure for people: whole numbers whole, others to three decimals without trailing zeros. */
static void figure(double v, char *out, size_t cap)
{
    if (!isfinite(v)) {
        snprintf(out, cap, "-");
        return;
    }
    if (fabs(v) >= 1e12 || (v != 0 && fabs(v) < 1e-3)) {
        snprintf(out, cap, "%.3g", v);
        return;
    }
    snprintf(out, cap, "%.3f", v);
    char *dot = strchr(out, '.');
    if (dot) {
        char *end = out + strlen(out) - 1;
        while (end > dot && *end == '0')
            *end-- = '\0';
        if (end == dot)
            *end = '\0';
    }
    if (strcmp(out, "-0") == 0)
        snprintf(out, cap, "0");
}

static int32_t verdict_of(const char *name)
{
    for (int32_t v = GV_PASS; v <= GV_ERROR; v++)
        if (strcmp(name, gv_verdict_name(v)) == 0)
            return v;
    return GV_SKIP;
}

/* The widest of `key`'s text among the rows of every run (or the runs themselves, rows 0). */
static size_t widest(const json_t *runs, int rows, const char *key, size_t least)
{
    for (size_t i = 0; i < json_array_size(runs); i++) {
        json_t *run = json_array_get(runs, i), *list = json_object_get(run, "checks");
        for (size_t k = 0; rows && k < json_array_size(list); k++) {
            size_t n = gv_cli_columns(text_of(json_array_get(list, k), key));
            least = n > least ? n : least;
        }
        if (!rows && gv_cli_columns(text_of(run, key)) > least)
            least = gv_cli_columns(text_of(run, key));
    }
    return least;
}

/* A line per run, a line per row under it; the host, check and subject columns as wide as the
 * longest shown, and with a terminal's width (gv_cli_width) the rest of a line wraps under its
 * column, else every run and row is one line. With failures, left_out runs had no row left. */
static void print_table(const json_t *runs, int failures, size_t left_out)
{
    int tty = gv_cli_colour(stdout);
    unsigned width = gv_cli_width(stdout);
    int host_width = (int)widest(runs, 0, "hostname", 16);
    int id_width = (int)widest(runs, 1, "id", 24),
        subject_width = (int)widest(runs, 1, "subject", 10);
    size_t value_col = 4 + 8 + (size_t)id_width + 1 + (size_t)subject_width + 1;
    char line[1024];
    snprintf(line, sizeof line, "%-20s  %-*s %-9s %-7s %-12s %s", "Started (UTC)", host_width,
             "Host", "Level", "Verdict", "Action", "Rows");
    gv_cli_wrap(stdout, 0, line, 4, width);
    size_t total = 0;
    for (size_t i = 0; i < json_array_size(runs); i++) {
        json_t *run = json_array_get(runs, i), *rows = json_object_get(run, "checks");
        const char *verdict = text_of(run, "verdict");
        snprintf(line, sizeof line, "%-20s  %-*s %-9s %-7s %-12s %zu", text_of(run, "started_at"),
                 host_width, text_of(run, "hostname"), text_of(run, "level"), verdict,
                 text_of(run, "action"), json_array_size(rows));
        /* The verdict coloured where the line fits as it is (a run's line is short). */
        size_t at = 20 + 2 + (size_t)host_width + 1 + 9 + 1, len = strlen(verdict);
        if (tty && (!width || gv_cli_columns(line) <= width))
            printf("%.*s%s%-7s%s%s\n", (int)at, line, gv_cli_verdict_colour(verdict_of(verdict)),
                   verdict, "\033[0m", line + at + (len > 7 ? len : 7));
        else
            gv_cli_wrap(stdout, 0, line, 4, width);
        for (size_t k = 0; k < json_array_size(rows); k++) {
            json_t *row = json_array_get(rows, k), *value = json_object_get(row, "value");
            const char *rv = text_of(row, "verdict");
            char shown[512], num[48];
            if (json_is_number(value)) {
                figure(json_number_value(value), num, sizeof num);
                snprintf(shown, sizeof shown, "%s%s%s", num, *text_of(row, "unit") ? " " : "",
                         text_of(row, "unit"));
            } else {
                snprintf(shown, sizeof shown, "%s",
                         *text_of(row, "measured") ? text_of(row, "measured") : "-");
            }
            printf("    %s%-7s%s ", tty ? gv_cli_verdict_colour(verdict_of(rv)) : "", rv,
                   tty ? "\033[0m" : "");
            snprintf(line, sizeof line, "%-*s %-*s %s", id_width, text_of(row, "id"), subject_width,
                     text_of(row, "subject"), shown);
            gv_cli_wrap(stdout, 12, line, value_col, width);
            /* Why a row is not a PASS: the database keeps the message of those. */
            if (*text_of(row, "message")) {
                snprintf(line, sizeof line, "            %.160s", text_of(row, "message"));
                gv_cli_wrap(stdout, 0, line, 12, width);
            }
        }
        total += json_array_size(rows);
    }
    printf("\n%zu run(s), %zu row(s)", json_array_size(runs), total);
    if (failures)
        printf(" (--failures: the WARN, FAIL and ERROR rows; %zu more run(s) had none)", left_out);
    printf("\n");
}

/* One CSV field, RFC 4180: quoted when it holds a comma, a quote or a line break, quotes
 * doubled. */
static void csv_field(const char *s, int last)
{
    if (strpbrk(s, ",\"\r\n")) {
        putchar('"');
        for (; *s; s++) {
            if (*s == '"')
                putchar('"');
            putchar(*s);
        }
        putchar('"');
    } else {
        fputs(s, stdout);
    }
    putchar(last ? '\n' : ',');
}

static void print_csv(const json_t *runs)
{
    printf("started_at,hostname,run_verdict,check,subject,history_subject,verdict,action,value,"
           "unit,measured,message\n");
    for (size_t i = 0; i < json_array_size(runs); i++) {
        json_t *run = json_array_get(runs, i), *rows = json_object_get(run, "checks");
        for (size_t k = 0; k < json_array_size(rows); k++) {
            json_t *row = json_array_get(rows, k), *value = json_object_get(row, "value");
            char num[48] = "";
            if (json_is_number(value))
                snprintf(num, sizeof num, "%.15g", json_number_value(value));
            csv_field(text_of(run, "started_at"), 0);
            csv_field(text_of(run, "hostname"), 0);
            csv_field(text_of(run, "verdict"), 0);
            csv_field(text_of(row, "id"), 0);
            csv_field(text_of(row, "subject"), 0);
            csv_field(text_of(row, "history_subject"), 0);
            csv_field(text_of(row, "verdict"), 0);
            csv_field(text_of(row, "action"), 0);
            csv_field(num, 0);
            csv_field(text_of(row, "unit"), 0);
            csv_field(text_of(row, "measured"), 0);
            csv_field(text_of(row, "message"), 1);
        }
    }
}

/* One figure's values over the runs, oldest first: a check on one subject's history (the UUID
 * of a GPU, "<host>/<subject>" otherwise) in one unit. */
typedef struct series {
    const char *check, *history_subject, *unit, *subject, *host; /* the newest row's names */
    size_t rank; /* the check's place in the newest run's rows: the catalog's order */
    double *v;
    size_t n, cap;
    int constant; /* the same value in every run */
} series;

/* Names with numbers in them in the numbers' order: gpu2 before gpu10. */
static int natural(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            const char *x = a, *y = b;
            while (*x == '0')
                x++;
            while (*y == '0')
                y++;
            size_t nx = strspn(x, "0123456789"), ny = strspn(y, "0123456789");
            if (nx != ny)
                return nx < ny ? -1 : 1;
            int c = strncmp(x, y, nx);
            if (c)
                return c;
            a = x + nx;
            b = y + ny;
        } else if (*a != *b) {
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        } else {
            a++, b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

/* Checks in the catalog's order, each one's subjects in natural order (workers finish GPUs in
 * any order, so the rows' own order is no order for a reader). */
static int by_check_subject(const void *pa, const void *pb)
{
    const series *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    int c = natural(a->host, b->host);
    c = c ? c : natural(a->subject, b->subject);
    return c ? c : natural(a->unit, b->unit);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Prints `n` characters of `s` (UTF-8 or ASCII) then pads to `width` columns. */
static void padded(const char *s, size_t n, size_t width)
{
    fputs(s, stdout);
    for (; n < width; n++)
        putchar(' ');
}

/* The trend of a series: each column one run (the mean of several when there are more than
 * TREND_WIDTH), scaled from the lowest column to the highest; a flat series sits mid-height. */
static size_t trend(const series *s, int utf8, char *out, size_t cap)
{
    static const char *const blocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                         "\u2585", "\u2586", "\u2587", "\u2588"};
    static const char ascii[] = ".:-=+*#@";
    size_t cols = s->n < TREND_WIDTH ? s->n : TREND_WIDTH;
    double col[TREND_WIDTH], lo = INFINITY, hi = -INFINITY;
    for (size_t c = 0; c < cols; c++) {
        size_t from = c * s->n / cols, to = (c + 1) * s->n / cols;
        double sum = 0;
        for (size_t k = from; k < to; k++)
            sum += s->v[k];
        col[c] = sum / (double)(to - from);
        lo = fmin(lo, col[c]);
        hi = fmax(hi, col[c]);
    }
    size_t used = 0;
    out[0] = '\0';
    for (size_t c = 0; c < cols; c++) {
        int level = hi > lo ? (int)lround((col[c] - lo) / (hi - lo) * 7) : 3;
        char one[2] = {ascii[level], '\0'};
        const char *ch = utf8 ? blocks[level] : one;
        size_t len = strlen(ch);
        if (used + len + 1 > cap)
            break;
        memcpy(out + used, ch, len + 1);
        used += len;
    }
    return cols;
}

/* --chart: the figures of the selection, each a trend over its runs, oldest to newest. */
static int print_chart(const json_t *runs, int utf8)
{
    series *all = NULL;
    size_t count = 0, cap = 0;
    int ok = 1, one_host = 1;
    const char *host0 = text_of(json_array_get(runs, 0), "hostname");
    /* Newest run first, so that the series come in the order of the newest run's rows (the
     * catalog's) and keep its names; each series' values are reversed at the end. */
    for (size_t i = 0; ok && i < json_array_size(runs); i++) {
        json_t *run = json_array_get(runs, i), *rows = json_object_get(run, "checks");
        one_host &= strcmp(text_of(run, "hostname"), host0) == 0;
        for (size_t k = 0; ok && k < json_array_size(rows); k++) {
            json_t *row = json_array_get(rows, k), *value = json_object_get(row, "value");
            if (!json_is_number(value))
                continue;
            const char *check = text_of(row, "id"), *hs = text_of(row, "history_subject");
            const char *unit = text_of(row, "unit");
            series *s = NULL;
            for (size_t j = 0; j < count && !s; j++)
                if (!strcmp(all[j].check, check) && !strcmp(all[j].history_subject, hs) &&
                    !strcmp(all[j].unit, unit))
                    s = &all[j];
            if (!s) {
                if (count == cap) {
                    series *grown = realloc(all, (cap = cap ? 2 * cap : 64) * sizeof *all);
                    if (!(ok = grown != NULL))
                        break;
                    all = grown;
                }
                /* Ranked by the check's first series. */
                size_t rank = count;
                for (size_t j = 0; j < count && rank == count; j++)
                    if (!strcmp(all[j].check, check))
                        rank = all[j].rank;
                s = &all[count++];
                *s = (series){.check = check,
                              .history_subject = hs,
                              .unit = unit,
                              .subject = text_of(row, "subject"),
                              .host = text_of(run, "hostname"),
                              .rank = rank};
            }
            if (s->n == s->cap) {
                double *grown = realloc(s->v, (s->cap = s->cap ? 2 * s->cap : 16) * sizeof *s->v);
                if (!(ok = grown != NULL))
                    break;
                s->v = grown;
            }
            s->v[s->n++] = json_number_value(value);
        }
    }
    /* A figure that never changed over the runs (a version, a mode, a count of links) has no
     * trend to draw: counted in one line, not charted. */
    size_t width = 5, unit_width = 4, unchanged = 0; /* "Trend", "Unit" */
    for (size_t j = 0; j < count; j++) {
        int constant = all[j].n > 1;
        for (size_t k = 1; constant && k < all[j].n; k++)
            constant = all[j].v[k] == all[j].v[0];
        all[j].constant = constant;
        unchanged += constant;
        if (constant)
            continue;
        width = all[j].n > width ? (all[j].n < TREND_WIDTH ? all[j].n : TREND_WIDTH) : width;
        unit_width = strlen(all[j].unit) > unit_width ? strlen(all[j].unit) : unit_width;
    }
    if (ok)
        qsort(all, count, sizeof *all, by_check_subject);
    if (ok && count) {
        size_t nruns = json_array_size(runs);
        printf("%zu figure(s) over %zu run(s), %s to %s; each trend oldest to newest, left to "
               "right\n",
               count - unchanged, nruns, text_of(json_array_get(runs, nruns - 1), "started_at"),
               text_of(json_array_get(runs, 0), "started_at"));
        if (unchanged)
            printf("%zu more did not change over these runs (not charted; --json lists them)\n",
                   unchanged);
        if (unchanged < count)
            printf("\n%-21s %-10s %-*s %4s  %-*s %9s %9s %9s %9s %8s\n", "Check", "Subject",
                   (int)unit_width, "Unit", "Runs", (int)width, "Trend", "Min", "Median", "Max",
                   "Last", "vs med.");
    }
    for (size_t j = 0; ok && j < count; j++) {
        series *s = &all[j];
        if (s->constant)
            continue;
        for (size_t a = 0, b = s->n - 1; a < b; a++, b--) {
            double t = s->v[a];
            s->v[a] = s->v[b];
            s->v[b] = t;
        }
        double *sorted = malloc(s->n * sizeof *sorted);
        if (!(ok = sorted != NULL))
            break;
        memcpy(sorted, s->v, s->n * sizeof *sorted);
        qsort(sorted, s->n, sizeof *sorted, by_value);
        double median = s->n % 2 ? sorted[s->n / 2] : (sorted[s->n / 2 - 1] + sorted[s->n / 2]) / 2,
               last = s->v[s->n - 1];
        char lo[48], mid[48], hi[48], end[48], vs[24] = "-", label[96], line[4 * TREND_WIDTH + 1];
        figure(sorted[0], lo, sizeof lo);
        figure(median, mid, sizeof mid);
        figure(sorted[s->n - 1], hi, sizeof hi);
        figure(last, end, sizeof end);
        free(sorted);
        if (median != 0)
            snprintf(vs, sizeof vs, "%+.1f%%", 100.0 * (last - median) / fabs(median));
        /* Several hosts: "gpu0" alone would not say whose. */
        if (one_host)
            snprintf(label, sizeof label, "%s", s->subject);
        else
            snprintf(label, sizeof label, "%s/%s", s->host, s->subject);
        size_t cols = trend(s, utf8, line, sizeof line);
        printf("%-21s %-10s %-*s %4zu  ", s->check, label, (int)unit_width,
               *s->unit ? s->unit : "-", s->n);
        padded(line, cols, width);
        printf(" %9s %9s %9s %9s %8s\n", lo, mid, hi, end, vs);
    }
    for (size_t j = 0; j < count; j++)
        free(all[j].v);
    free(all);
    if (!ok)
        fprintf(stderr, "%s: out of memory drawing the chart\n", TOOL);
    return !ok ? GV_CLI_USAGE : count ? 0 : 1;
}

/* Whether the chart may use block characters: the locale's character set is UTF-8. */
static int utf8_locale(void)
{
    if (!setlocale(LC_CTYPE, ""))
        return 0;
    const char *set = nl_langinfo(CODESET);
    return set && (strcmp(set, "UTF-8") == 0 || strcmp(set, "utf8") == 0);
}

int main(int argc, char **argv)
{
    args a = {0};
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    gv_ctx *ctx = NULL;
    if (gv_ctx_create(NULL, &ctx) != GV_OK) {
        fprintf(stderr, "%s: %s\n", TOOL, gv_ctx_last_error(NULL));
        return GV_CLI_USAGE;
    }
    char uuid[256] = "";
    int no_slot = 0; /* --gpu gpuN names no GPU of the newest run: said, and nothing matches */
    if (a.gpu && is_slot(a.gpu)) {
        rc = resolve_slot(ctx, &a, uuid, sizeof uuid);
        if (rc == GV_CLI_USAGE) {
            gv_ctx_destroy(ctx);
            return rc;
        }
        no_slot = rc == 1;
    }
    if (a.gpu && !uuid[0])
        snprintf(uuid, sizeof uuid, "%s", a.gpu); /* a UUID; or a slot no stored row is under */
    /* What the library selects: one subject (the GPU, else the node), the checks, and --last
     * unless this tool takes runs out afterwards. */
    int exact = !(a.gpu && a.node);
    /* Neither --last nor --since: the newest DEFAULT_LAST runs, and a word when there are more. */
    int capped = !a.last && !a.since_unix;
    if (capped)
        a.last = DEFAULT_LAST + 1;
    json_t *root = NULL;
    char *text = NULL;
    if (fetch(ctx, a.state, a.gpu ? uuid : a.node, a.checks, a.since_unix,
              exact ? (uint32_t)a.last : 0, &root, &text)) {
        gv_ctx_destroy(ctx);
        return GV_CLI_USAGE;
    }
    gv_ctx_destroy(ctx);
    json_t *runs = json_object_get(root, "runs");
    int changed = narrow(runs, &a);
    if (capped && json_array_size(runs) > DEFAULT_LAST) {
        json_array_remove(runs, DEFAULT_LAST);
        changed = 1;
        fprintf(stderr, "%s: the newest %d runs shown; --last N or --since WHEN for more\n", TOOL,
                DEFAULT_LAST);
    }
    /* After --last and the cap: the failures of the runs selected, not the newest N runs
     * with a failure (which could mean reading every run of the database). */
    size_t selected = json_array_size(runs), healthy = 0;
    if (a.failures) {
        healthy = failures_only(runs);
        changed = 1;
    }
    if (!a.out_flag || strcmp(a.out_flag, "--json") != 0)
        clean_strings(root);
    int shown = json_array_size(runs) > 0;
    if (a.out_flag && !strcmp(a.out_flag, "--json")) {
        /* The library's text as it is, unless this tool narrowed it: then the same document
         * with what was taken out left out. */
        char *narrowed = changed ? json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII) : NULL;
        printf("%s\n", changed ? (narrowed ? narrowed : "") : text);
        free(narrowed);
        rc = shown ? 0 : 1;
    } else if (a.out_flag && !strcmp(a.out_flag, "--csv")) {
        print_csv(runs);
        rc = shown ? 0 : 1;
    } else if (!shown) {
        rc = 1;
    } else if (a.out_flag) {
        rc = print_chart(runs, utf8_locale());
        if (rc == 1)
            fprintf(stderr, "%s: no figure (a row with a value) among the %zu run(s) matched\n",
                    TOOL, json_array_size(runs));
    } else {
        print_table(runs, a.failures, healthy);
    }
    if (!shown && !no_slot && a.failures && selected)
        fprintf(stderr, "%s: no WARN, FAIL or ERROR row in the %zu run(s) selected\n", TOOL,
                selected);
    else if (!shown && !no_slot)
        fprintf(stderr, "%s: no run in %s matches the selection\n", TOOL, a.state);
    char unknown[64];
    unknown_check(a.checks, unknown, sizeof unknown);
    if (!shown && unknown[0])
        fprintf(stderr, "%s: '%s' in --checks names no check of this gpuverify (gv-check --list)\n",
                TOOL, unknown);
    gv_free(text);
    json_decref(root);
    return rc;
}
