/* --budget FILE (docs/usage.md, "Budgets"): limits per task-name pattern on the session's figures
 * (max slice, p99 slice, share, late max, late p99, allocation rate) and on the stream's (dropped
 * events, CRC errors), checked when the session ends; a breach makes its exit status 3. Each
 * breach says its task, figure, limit, value and when the worst one happened on the session's time
 * line: the budget watches the happenings (a pipeline observer, chained in front of the session's
 * other one) for the time of each name's longest slice and latest resume.
 *
 * The file is JSON: {"budgets": [{"task": "slow*", "max_slice_ms": 50}, {"crc_errors": 0}]}; it
 * is untrusted input like any file: every mistake is one sentence naming the line and the key. */
#ifndef AIOPROF_BUDGET_H
#define AIOPROF_BUDGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "observer.h"
#include "stats.h"

#define BUDGET_LINES_MAX 1000u

typedef struct budget budget_t;

/* Reads and checks the file. NULL with one sentence in err (no such file, not JSON, a key that is
 * not a budget's, a limit that is not a number of zero or more). */
budget_t *budget_load(const char *path, char *err, size_t errlen);
void budget_free(budget_t *b);

/* The observer that watches for the worst times; it passes every happening on to next (may be
 * NULL) with next_user. */
const pipeline_observer_t *budget_observer(void);
void budget_chain(budget_t *b, const pipeline_observer_t *next, void *next_user);

/* Checks the session's figures against every line. Returns the number of lines broken, or -1
 * when out of memory. */
int budget_check(budget_t *b, const stats_t *s);

/* The result on out: one line per breach, and per line skipped (a figure the session does not
 * have), then a summary. Returns 0, or -1 when writing failed. */
int budget_report(const budget_t *b, FILE *out);

/* The result as JUnit XML (one test case per budget line) on out; source names the session's input.
 * Returns 0, or -1 when writing failed. */
int budget_junit(const budget_t *b, FILE *out, const char *source);

#endif
