/* SPDX-License-Identifier: Apache-2.0 */
/* What every gpuverify command-line tool does the same way: --version, --help on stdout with
 * exit 0, values refused with exit 2 and a message saying what is allowed, and colour only on
 * a terminal and never under NO_COLOR (https://no-color.org). */
#ifndef GV_EXAMPLES_CLI_H
#define GV_EXAMPLES_CLI_H

#include <gpuverify/gpuverify.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status of a usage error, in every tool. */
#define GV_CLI_USAGE 2

/* Prints "<tool> <library version> (built against <header version>)" on stdout. */
void gv_cli_version(const char *tool);

/* A number for option `opt`: the whole of `text` must be one, within [min, max]. 0 and *out
 * set; otherwise -1 after "<tool>: <opt> wants <what> from <min> to <max>, not '<text>'" on
 * stderr. */
int gv_cli_double(const char *tool, const char *opt, const char *text, double min, double max,
                  double *out);
int gv_cli_uint64(const char *tool, const char *opt, const char *text, uint64_t min, uint64_t max,
                  uint64_t *out);
/* One entry of a list ("0,2"): the decimal digits at *p (no sign, no blank) as a number up to
 * max; 0 with *p moved past them, or -1 (nothing said: the caller names the whole list). */
int gv_cli_uint64_at(const char **p, uint64_t max, uint64_t *out);

/* One of `names` (n of them) for option `opt`: its index, or -1 after "<tool>: <opt> is one of
 * a, b, c, not '<text>'" on stderr. */
int gv_cli_choice(const char *tool, const char *opt, const char *text, const char *const *names,
                  int n);

/* The value of option argv[*i] (moving *i past it), or NULL after "<tool>: <opt> needs a
 * value" on stderr: also when the next argument is an option ("--state --quiet" would name a
 * file "--quiet"; such a file is ./--quiet). */
const char *gv_cli_value(const char *tool, int argc, char **argv, int *i);

/* An argument no option takes: "<tool>: unknown option '<arg>'" (or "unexpected argument" for
 * one not starting with '-') and a hint on stderr; returns GV_CLI_USAGE. */
int gv_cli_unknown(const char *tool, const char *arg);

/* Where `--state default` keeps the history database (gv-check, gv-history): root's under
 * GV_CLI_STATE_ROOT, a user's under $XDG_STATE_HOME (else ~/.local/state), so that the tool
 * that writes it and the one that reads it agree. With make_dir the file's directory is made
 * if missing (a writer; a reader leaves the disk alone). The path, or NULL after
 * "<tool>: --state default: ..." on stderr. */
#define GV_CLI_STATE_ROOT "/var/lib/gpuverify/history.db"
const char *gv_cli_default_state(const char *tool, int make_dir);

/* Why a call failed, for a person: the library's reason (gv_ctx_last_error of ctx, NULL for a
 * context that could not be made), which says what was wrong and where (a file, its line, the
 * documentation), else the status's name. Not both: "input/output error: policy /etc/x: No such
 * file or directory" read as a disk fault. */
const char *gv_cli_reason(const gv_ctx *ctx, gv_status status);

/* The width in columns that lines to `to` must fit: $COLUMNS when it is a whole number from 1
 * to 10000 (the user's or a test's choice), else the terminal's (TIOCGWINSZ) when `to` is one;
 * 0 when neither says (a pipe or a file: lines are not wrapped, one line per row for grep and
 * awk), and under 40 columns. */
unsigned gv_cli_width(FILE *to);

/* Columns `s` takes on a terminal: its UTF-8 characters (a continuation byte takes none). */
size_t gv_cli_columns(const char *s);

/* Prints `text` and a newline on `to`, the cursor at column `col` of the line already: with a
 * `width`, wrapped so that no line is longer than it, broken at spaces (a word longer than a
 * line is cut), each further line starting with `indent` spaces (half the width where the
 * indent would leave under 24 columns, so that a narrow terminal still gets words on each line);
 * with width 0, as it is. */
void gv_cli_wrap(FILE *to, size_t col, const char *text, size_t indent, unsigned width);

/* Whether to colour what goes to `to`: a terminal, and NO_COLOR unset or empty. */
int gv_cli_colour(FILE *to);
/* The escape sequence that colours a verdict (enum gv_verdict): green PASS, yellow WARN, red
 * FAIL and ERROR, grey SKIP; "\033[0m" ends it. */
const char *gv_cli_verdict_colour(int32_t verdict);

#endif
