/* The comparison of two sessions (docs/usage.md, "Comparing sessions"; docs/json.md, "The
 * comparison"): per figure, per task name, the base's and the new session's totals, their change,
 * and whether it stands out of the noise (the Mann-Whitney U test on the figure's windows,
 * stats_compare.h): the change when p < STATS_CMP_ALPHA, "~" otherwise, as benchstat shows it.
 * Names on one side only are "new" or "gone". */
#ifndef AIOPROF_COMPARE_REPORT_H
#define AIOPROF_COMPARE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "stats_compare.h"

typedef struct compare_report_options {
    const char *base_source; /* what each side was read from */
    const char *new_source;
    int unicode;             /* a UTF-8 locale: the minus sign and the delta */
} compare_report_options_t;

/* Return 0, or -1 when writing failed (or out of memory). */
int compare_report_text(FILE *out, const stats_cmp_side_t *base, const stats_cmp_side_t *cur,
    const compare_report_options_t *o);
int compare_report_json(FILE *out, const stats_cmp_side_t *base, const stats_cmp_side_t *cur,
    const compare_report_options_t *o);

/* One figure's change for a name as the live table shows it, in out: "+12 %", "~", "new",
 * "gone", or "" when neither side knows the figure. Returns 1 when the change is significant. */
int compare_report_cell(const stats_cmp_side_t *base, const stats_cmp_side_t *cur, const char *name,
    stats_cmp_fig_t fig, char *out, size_t outlen);

#endif
