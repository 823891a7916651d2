/* What budget.c (the file, the watch, the check, the text) and budget_junit.c (the XML) share.
 * Not for other files: they use budget.h. */
#ifndef AIOPROF_BUDGET_PRIVATE_H
#define AIOPROF_BUDGET_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "budget.h"

typedef enum budget_lim {
    LIM_MAX_SLICE, LIM_P99_SLICE, LIM_SHARE, LIM_LATE_MAX, LIM_LATE_P99, LIM_ALLOC, LIM_DROPS, LIM_CRC, LIMS
} budget_lim_t;

typedef struct budget_breach {
    char task[STATS_TEXT_MAX]; /* "" for the session's figures */
    budget_lim_t lim;
    double limit, value;       /* in the file's units */
    int64_t at_us;             /* when the worst happened on the session's time line; -1 unknown */
} budget_breach_t;

typedef struct budget_line {
    char label[STATS_TEXT_MAX + 32]; /* "line 2: slow*", or the line's own "name" */
    char *pattern;             /* task names (fnmatch); NULL: the session's stream figures */
    double limit[LIMS];
    int has[LIMS];
    budget_breach_t *breaches;
    size_t n_breaches;
    size_t matched;            /* task names the pattern matched */
    char skipped[240];         /* why a figure of it could not be checked, "" when all were */
} budget_line_t;

/* The key of a limit in the file, and how a message names it. */
const char *budget_lim_key(budget_lim_t l);
const char *budget_lim_what(budget_lim_t l);
/* A value or a limit of l, in its unit ("80.000 ms", "50.00 %", "3"). */
void budget_value_text(budget_lim_t l, double v, char *out, size_t len);
/* One breach as a sentence: "slow: max slice 80.000 ms > 50.000 ms, the worst at 1.234 s". */
void budget_breach_text(const budget_breach_t *x, char *out, size_t len);

/* The lines, after budget_check. */
size_t budget_lines(const budget_t *b, const budget_line_t **lines);
const char *budget_path(const budget_t *b);
double budget_elapsed_s(const budget_t *b);

#endif
