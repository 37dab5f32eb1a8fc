/* The run's verdict in one line of at most GV_VERDICT_LINE_MAX bytes, for programs that read
 * one line: gv-check --quiet, --npd (node-problem-detector's max_output_length is 200), the
 * Slurm and NHC scripts' drain reasons. Its first word is the class and the grammar is stable
 * (docs/outputs.md):
 *   OK <n> checks, <p> PASS, <s> SKIP
 *   WARN <check> <subject>: <message> (<w> WARN of <n>)
 *   FAIL <check> <subject>: <message> (<f> FAIL, <w> WARN, <e> ERROR of <n>)
 *   ERROR <check> <subject>: <message> (<e> ERROR, <w> WARN of <n>)
 *   HELD for <seconds|?> s by PID <pid|?>: <check> <subject>: <message>
 * The message is cut at a word, never the counts. */
#ifndef GV_EXAMPLES_VERDICT_LINE_H
#define GV_EXAMPLES_VERDICT_LINE_H

#include <gpuverify/gpuverify.h>
#include <stddef.h>

#define GV_VERDICT_LINE_MAX 200

enum gv_line_class {
    GV_LINE_OK = 0,    /* PASS, WARN and SKIP only */
    GV_LINE_FAIL = 1,  /* a check FAILed */
    GV_LINE_ERROR = 3, /* no FAIL; a check could not do its work */
    GV_LINE_HELD = 4   /* no FAIL; every ERROR a check another gpuverify's hold left unrun */
};

/* The line into out (cap > GV_VERDICT_LINE_MAX), no newline; returns its class, whose value is
 * gv-check's exit status for it. */
enum gv_line_class gv_verdict_line(const gv_report *r, char *out, size_t cap);

#endif
