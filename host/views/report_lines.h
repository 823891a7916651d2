/* --json-lines: a live feed for scripts and dashboards, in the manner of orbtop's JSON output. One
 * JSON object per interval of the session's time line (--interval, default 1 s), on one line,
 * flushed as it is written: that interval's figures and the totals so far (docs/json.md, "JSON
 * lines"). The last line, at the end of the session, covers what is left and says "final".
 *
 * The interval's figures come from a second pipeline fed the same bytes, whose statistics are
 * reset at every line: every slice is counted in exactly one interval (the one it ended in), so
 * the intervals add up to the totals exactly. The session's own pipeline gives the totals.
 *
 *   session: source_read -> pipeline_feed (totals) + report_lines_feed (interval)
 *            report_lines_tick(host time) before the bytes of a later interval are fed */
#ifndef AIOPROF_REPORT_LINES_H
#define AIOPROF_REPORT_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pipeline.h"
#include "report.h"

/* More intervals than this skipped at once (a long gap in a recording) are one line. */
#define REPORT_LINES_SKIP_MAX 3600u

typedef struct report_lines report_lines_t;

/* interval_us > 0; slow_us as the session's pipeline has it; ro: sort, grouping, source. Returns
 * NULL when out of memory. */
report_lines_t *report_lines_open(FILE *out, uint64_t interval_us, uint64_t slow_us, const report_options_t *ro);
void report_lines_close(report_lines_t *l);

/* The same calls the session's pipeline gets (pipeline.h), for the interval's pipeline. NULL l is
 * accepted by each. */
void report_lines_feed(report_lines_t *l, const uint8_t *data, size_t len);
void report_lines_link(report_lines_t *l, int up);
void report_lines_input_damaged(report_lines_t *l);
/* ended: the input ended by itself (pipeline_end_of_input), else pipeline_finish. */
void report_lines_finish(report_lines_t *l, int ended);

/* The session's time line is at now_us (host microseconds, the sources' time): writes a line for
 * every interval that ended by then. Returns 0, or -1 when writing failed (errno says why; EPIPE:
 * the reader left). */
int report_lines_tick(report_lines_t *l, const pipeline_t *totals, uint64_t now_us);

/* The end of the session at now_us: the intervals that ended, then the last one, "final": true.
 * Returns as report_lines_tick. */
int report_lines_end(report_lines_t *l, const pipeline_t *totals, uint64_t now_us);

#endif
