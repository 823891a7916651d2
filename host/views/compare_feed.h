/* One session's side of a comparison, taken as its bytes go by (docs/usage.md, "Comparing
 * sessions"): a pipeline of its own, fed the same bytes as the session's, a frame at a time,
 * whose statistics become a window of the side (stats_compare.h) and are reset each time the
 * device time line passes the window's length. The session's pipeline gives the totals.
 *
 *   session: source_read -> pipeline_feed (totals) + compare_feed_bytes (windows) */
#ifndef AIOPROF_COMPARE_FEED_H
#define AIOPROF_COMPARE_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"
#include "stats_compare.h"

typedef struct compare_feed compare_feed_t;

/* slow_us as the session's pipeline has it; window_us 0: a second. NULL when out of memory. */
compare_feed_t *compare_feed_open(uint64_t slow_us, uint64_t window_us);
void compare_feed_close(compare_feed_t *c);

/* The calls the session's pipeline gets (pipeline.h). NULL c is accepted by each. */
void compare_feed_bytes(compare_feed_t *c, const uint8_t *data, size_t len);
void compare_feed_link(compare_feed_t *c, int up);
void compare_feed_input_damaged(compare_feed_t *c);

/* The end of the input (ended: by itself, as pipeline_end_of_input): the last window, when it is
 * at least half a window long, and the totals of the session's pipeline. Returns 0, or -1 when
 * out of memory. */
int compare_feed_end(compare_feed_t *c, const pipeline_t *totals, int ended);

/* The side so far, its totals taken from the session's pipeline now (the live table's deltas).
 * NULL when out of memory. */
const stats_cmp_side_t *compare_feed_side(compare_feed_t *c, const pipeline_t *totals);

/* The input is read again from its start (a replay seeking back): the side starts again empty. */
void compare_feed_restart(compare_feed_t *c);

/* The side, handed over to *out (the caller frees it with stats_cmp_free); c keeps an empty one. */
void compare_feed_take(compare_feed_t *c, stats_cmp_side_t *out);

#endif
