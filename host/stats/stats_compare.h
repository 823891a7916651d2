/* The figures of one session for a comparison with another (docs/usage.md, "Comparing sessions"):
 * per task name, its totals over the session and the same figures in every window of the session's
 * time line (a second by default), so that a change can be told from the noise the way benchstat
 * tells it: each window is one run, and the windows of two sessions are compared with the
 * Mann-Whitney U test (stats_mwu.h). Thousands of slices per name would make the tiniest
 * difference of their distribution "significant"; a window's figure varies as the application's
 * phases fall into it, and that variation is the noise a change must stand out of.
 *
 * Reads stats_t (its rows) and keeps its own copies: a side outlives the pipeline it was taken
 * from. Bounded: STATS_CMP_TASKS_MAX names, STATS_CMP_WINDOWS_MAX windows (past them, counted). */
#ifndef AIOPROF_STATS_COMPARE_H
#define AIOPROF_STATS_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"
#include "stats_mwu.h"

#define STATS_CMP_TASKS_MAX 512u
#define STATS_CMP_WINDOWS_MAX 3600u
#define STATS_CMP_WINDOW_US 1000000u
/* A change is marked significant when the test's two-sided p is below this (benchstat's alpha),
 * and both sides have at least STATS_CMP_MIN_WINDOWS windows of the figure: the fewest that can
 * say it without ties (4 against 4: p = 2/70), and a single window against an hour of them is a
 * moment, not a session. */
#define STATS_CMP_ALPHA 0.05
#define STATS_CMP_MIN_WINDOWS 4u

typedef enum stats_cmp_fig {
    STATS_CMP_RATE,      /* slices per second */
    STATS_CMP_SHARE,     /* of the device's time, 0..1 */
    STATS_CMP_MEAN,      /* own time per slice, mean, us */
    STATS_CMP_MAX,       /* us */
    STATS_CMP_P50,
    STATS_CMP_P95,
    STATS_CMP_P99,
    STATS_CMP_LATE_MAX,  /* us; not known when the device does not report lateness */
    STATS_CMP_LATE_P95,
    STATS_CMP_ALLOC_RATE, /* bytes allocated per second: not known unless the device counts them */
    STATS_CMP_FIGS
} stats_cmp_fig_t;

typedef struct stats_cmp_task {
    char name[STATS_TEXT_MAX];    /* escaped */
    double total[STATS_CMP_FIGS]; /* over the whole session; NAN when not known */
    float *win;                   /* [window * STATS_CMP_FIGS + fig]; NAN: the window had none */
} stats_cmp_task_t;

typedef struct stats_cmp_side {
    stats_cmp_task_t *tasks;
    size_t n_tasks, cap_tasks;
    size_t n_windows, cap_windows;
    uint64_t window_us;
    uint64_t windows_past;       /* windows past STATS_CMP_WINDOWS_MAX, not sampled */
    int tasks_past;              /* 1: names past STATS_CMP_TASKS_MAX were left out */
    uint64_t elapsed_us;         /* the session's (its totals) */
    stats_stream_t stream;
} stats_cmp_side_t;

/* window_us 0: STATS_CMP_WINDOW_US. */
void stats_cmp_init(stats_cmp_side_t *side, uint64_t window_us);
void stats_cmp_free(stats_cmp_side_t *side);

/* w holds one window's figures (its statistics reset at its start): they become the side's next
 * window. Returns 0, or -1 when out of memory. */
int stats_cmp_take_window(stats_cmp_side_t *side, const stats_t *w);

/* t holds the whole session's figures: they become the side's totals (names new to the side get
 * rows, with no window figures but rates and shares of 0). Returns 0, or -1 when out of memory. */
int stats_cmp_take_totals(stats_cmp_side_t *side, const stats_t *t);

/* The row of a name, or NULL. */
const stats_cmp_task_t *stats_cmp_find(const stats_cmp_side_t *side, const char *name);

/* The test of one figure of a name in two sides (either task may be NULL: a side without it);
 * the windows with no value for it are left out. Returns 0, or -1 when out of memory. */
int stats_cmp_test(const stats_cmp_side_t *a, const stats_cmp_task_t *ta, const stats_cmp_side_t *b,
    const stats_cmp_task_t *tb, stats_cmp_fig_t fig, stats_mwu_t *r);

/* The median of a figure over the windows that have it (benchstat's centre of a sample), NAN when
 * none has it. */
double stats_cmp_median(const stats_cmp_side_t *side, const stats_cmp_task_t *t, stats_cmp_fig_t fig);

/* Is r (of na and nb windows) a significant change? */
static inline int stats_cmp_significant(const stats_mwu_t *r, size_t na, size_t nb)
{
    return na >= STATS_CMP_MIN_WINDOWS && nb >= STATS_CMP_MIN_WINDOWS && r->p < STATS_CMP_ALPHA;
}

/* The windows a figure was seen in. */
size_t stats_cmp_samples(const stats_cmp_side_t *side, const stats_cmp_task_t *t, stats_cmp_fig_t fig);

/* The figure's key for JSON and the text's heading ("rate", "share", "mean_us" ...). */
const char *stats_cmp_fig_key(stats_cmp_fig_t fig);

#endif
