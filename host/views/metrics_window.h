/* --metrics: each task name's longest slice in the last seconds of device time, for the gauge
 * aioprof_task_slice_max_seconds (docs/usage.md, "Metrics for Prometheus"). The window is fixed
 * in device time, not reset by a scrape, so that two scrapers read the same figure and a scraper
 * that comes every METRICS_WINDOW_S - 1 seconds or sooner sees every slice's maximum.
 *
 * Fed by the pipeline's observer (metrics_window_observer): one maximum per name and whole second
 * of device time, the last METRICS_WINDOW_S seconds kept, at most METRICS_WINDOW_NAMES names (the
 * statistics' own cap); names past it have no figure. Never knows about the link or the scrapes. */
#ifndef AIOPROF_METRICS_WINDOW_H
#define AIOPROF_METRICS_WINDOW_H

#include <stdint.h>

#include "observer.h"

#define METRICS_WINDOW_S 10u      /* the current second of device time and the nine before */
#define METRICS_WINDOW_NAMES 4096u

typedef struct metrics_window metrics_window_t;

/* NULL when out of memory. */
metrics_window_t *metrics_window_new(void);
void metrics_window_free(metrics_window_t *w);

/* A slice of name (escaped, as the statistics name it) that ended at end_us of the observer's
 * time line with self_us of own time. */
void metrics_window_slice(metrics_window_t *w, const char *name, uint64_t end_us, uint64_t self_us);
/* The device time reached (any event): the window ends here. */
void metrics_window_now(metrics_window_t *w, uint64_t at_us);
/* The input started again (a seek back): nothing kept. */
void metrics_window_clear(metrics_window_t *w);

/* The longest own time of name's slices that ended in the window (the current second of device
 * time and the METRICS_WINDOW_S - 1 before it), 0 when none did; -1 when the name is not kept
 * (never seen, or past METRICS_WINDOW_NAMES). */
int64_t metrics_window_max(const metrics_window_t *w, const char *name);

/* The observer that feeds w (as its user), passing everything on to next (NULL: none). */
const pipeline_observer_t *metrics_window_observer(metrics_window_t *w, const pipeline_observer_t *next,
    void *next_user);

#endif
