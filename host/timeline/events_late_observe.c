/* The events stage's lateness (events_late_private.h): a waiting window told to the observer
 * (observer.h, `late`), with its culprit, the name that took most of it (ties: the first name in
 * byte order). Called by events_late.c and events_late_cells.c. */
#include <string.h>

#include "events_late_private.h"

void late_window_observe(events_t *e, const stats_instance_t *in, const int32_t *who, const uint64_t *hi,
    const uint64_t *lo, size_t n, uint64_t from, uint64_t until, uint64_t before)
{
    const stats_t *s = e->stats;
    int32_t top = STATS_LATE_NONE;
    uint64_t top_us = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t us = lo != NULL ? hi[i] - lo[i] : hi[i];
        if (us != 0 && (top == STATS_LATE_NONE || us > top_us ||
                           (us == top_us && strcmp(stats_late_who_name(s, who[i]), stats_late_who_name(s, top)) < 0))) {
            top = who[i];
            top_us = us;
        }
    }
    /* the ENTER is of this frame, whose turns are late_shift after the microsecond line */
    uint64_t end_us = until - e->late_shift, len = until - from + before;
    pipeline_late_t l = {
        .start_us = len < end_us ? end_us - len : 0,
        .end_us = end_us,
        .blocked_by = top == STATS_LATE_NONE ? NULL : stats_late_who_name(s, top),
        .blocked_us = top_us,
    };
    events_task_view(e, in, &l.task);
    e->obs->late(e->obs_user, &l);
}
