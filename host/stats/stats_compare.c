/* One session's side of a comparison (stats_compare.h): per name, totals and per-window figures,
 * and the test of a figure between two sides. */
#include "stats_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fig_keys[STATS_CMP_FIGS] = {
    "rate", "share", "mean_us", "max_us", "p50_us", "p95_us", "p99_us", "late_max_us", "late_p95_us", "alloc_rate",
};

const char *stats_cmp_fig_key(stats_cmp_fig_t fig)
{
    return fig < STATS_CMP_FIGS ? fig_keys[fig] : "?";
}

void stats_cmp_init(stats_cmp_side_t *side, uint64_t window_us)
{
    memset(side, 0, sizeof *side);
    side->window_us = window_us ? window_us : STATS_CMP_WINDOW_US;
}

void stats_cmp_free(stats_cmp_side_t *side)
{
    for (size_t i = 0; i < side->n_tasks; i++) {
        free(side->tasks[i].win);
    }
    free(side->tasks);
    memset(side, 0, sizeof *side);
}

/* The figures of a row over elapsed_us; NAN for what it does not have. */
static void row_figures(const stats_row_t *r, uint64_t elapsed_us, uint32_t mem, double *v)
{
    double secs = (double)elapsed_us / 1e6;
    int some = r->f.count != 0;
    v[STATS_CMP_RATE] = secs > 0 ? (double)r->f.count / secs : NAN;
    v[STATS_CMP_SHARE] = elapsed_us ? (double)r->f.total_us / (double)elapsed_us : NAN;
    v[STATS_CMP_MEAN] = some ? (double)r->f.total_us / (double)r->f.count : NAN;
    v[STATS_CMP_MAX] = some ? (double)r->f.max_us : NAN;
    for (unsigned i = 0; i < 3; i++) {
        v[STATS_CMP_P50 + i] = some ? (double)r->slice_pct[i] : NAN;
    }
    int late = r->late != NULL && r->late->resumes != 0;
    v[STATS_CMP_LATE_MAX] = late ? (double)r->late->max_us : NAN;
    v[STATS_CMP_LATE_P95] = late ? (double)r->late_pct[1] : NAN;
    /* bytes allocated per second, from a device that counts them: unknown otherwise, never a
     * made-up 0 */
    stats_mem_t m;
    stats_mem_figures(mem, elapsed_us, &r->f, &m);
    v[STATS_CMP_ALLOC_RATE] = m.alloc_known && elapsed_us ? m.alloc_per_s : NAN;
}

/* A window's figures for a name it did not see: no slices, so rate and share 0. */
static void window_empty(float *w)
{
    for (unsigned f = 0; f < STATS_CMP_FIGS; f++) {
        w[f] = NAN;
    }
    w[STATS_CMP_RATE] = 0;
    w[STATS_CMP_SHARE] = 0;
}

static stats_cmp_task_t *task_get(stats_cmp_side_t *side, const char *name)
{
    for (size_t i = 0; i < side->n_tasks; i++) {
        if (strcmp(side->tasks[i].name, name) == 0) {
            return &side->tasks[i];
        }
    }
    if (side->n_tasks == STATS_CMP_TASKS_MAX) {
        side->tasks_past = 1;
        return NULL;
    }
    if (side->n_tasks == side->cap_tasks) {
        size_t cap = side->cap_tasks ? side->cap_tasks * 2 : 16;
        stats_cmp_task_t *t = realloc(side->tasks, cap * sizeof *t);
        if (t == NULL) {
            return NULL;
        }
        side->tasks = t;
        side->cap_tasks = cap;
    }
    stats_cmp_task_t *t = &side->tasks[side->n_tasks];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    for (unsigned f = 0; f < STATS_CMP_FIGS; f++) {
        t->total[f] = NAN;
    }
    if (side->cap_windows) {
        t->win = malloc(side->cap_windows * STATS_CMP_FIGS * sizeof *t->win);
        if (t->win == NULL) {
            return NULL;
        }
        /* the windows before it came: it had no slices in them */
        for (size_t w = 0; w < side->n_windows; w++) {
            window_empty(t->win + w * STATS_CMP_FIGS);
        }
    }
    side->n_tasks++;
    return t;
}

/* Room for one more window in every row. */
static int windows_grow(stats_cmp_side_t *side)
{
    if (side->n_windows < side->cap_windows) {
        return 0;
    }
    size_t cap = side->cap_windows ? side->cap_windows * 2 : 64;
    if (cap > STATS_CMP_WINDOWS_MAX) {
        cap = STATS_CMP_WINDOWS_MAX;
    }
    for (size_t i = 0; i < side->n_tasks; i++) {
        float *w = realloc(side->tasks[i].win, cap * STATS_CMP_FIGS * sizeof *w);
        if (w == NULL) {
            return -1;
        }
        side->tasks[i].win = w;
    }
    side->cap_windows = cap;
    return 0;
}

int stats_cmp_take_window(stats_cmp_side_t *side, const stats_t *w)
{
    if (side->n_windows == STATS_CMP_WINDOWS_MAX) {
        side->windows_past++;
        return 0;
    }
    if (windows_grow(side) < 0) {
        return -1;
    }
    size_t at = side->n_windows;
    for (size_t i = 0; i < side->n_tasks; i++) {
        window_empty(side->tasks[i].win + at * STATS_CMP_FIGS);
    }
    size_t n = 0;
    stats_row_t *rows = stats_rows(w, 0, STATS_SORT_NAME, &n);
    if (rows == NULL && n) {
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        stats_cmp_task_t *t = task_get(side, rows[i].name);
        if (t == NULL) {
            rc = side->n_tasks < STATS_CMP_TASKS_MAX ? -1 : rc; /* out of memory, or past the cap */
            continue;
        }
        double v[STATS_CMP_FIGS];
        row_figures(&rows[i], w->elapsed_us, w->device.mem, v);
        for (unsigned f = 0; f < STATS_CMP_FIGS; f++) {
            t->win[at * STATS_CMP_FIGS + f] = (float)v[f];
        }
    }
    free(rows);
    side->n_windows++;
    return rc;
}

int stats_cmp_take_totals(stats_cmp_side_t *side, const stats_t *t)
{
    size_t n = 0;
    stats_row_t *rows = stats_rows(t, 0, STATS_SORT_NAME, &n);
    if (rows == NULL && n) {
        return -1;
    }
    side->elapsed_us = t->elapsed_us;
    side->stream = t->stream;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        stats_cmp_task_t *task = task_get(side, rows[i].name);
        if (task == NULL) {
            rc = side->n_tasks < STATS_CMP_TASKS_MAX ? -1 : rc;
            continue;
        }
        row_figures(&rows[i], t->elapsed_us, t->device.mem, task->total);
    }
    free(rows);
    return rc;
}

const stats_cmp_task_t *stats_cmp_find(const stats_cmp_side_t *side, const char *name)
{
    for (size_t i = 0; i < side->n_tasks; i++) {
        if (strcmp(side->tasks[i].name, name) == 0) {
            return &side->tasks[i];
        }
    }
    return NULL;
}

/* The windows' values of a figure that are known, into out (room for side->n_windows). */
static size_t samples(const stats_cmp_side_t *side, const stats_cmp_task_t *t, stats_cmp_fig_t fig, double *out)
{
    size_t n = 0;
    if (t == NULL || t->win == NULL) {
        return 0;
    }
    for (size_t w = 0; w < side->n_windows; w++) {
        float v = t->win[w * STATS_CMP_FIGS + fig];
        if (!isnan(v)) {
            if (out != NULL) {
                out[n] = v;
            }
            n++;
        }
    }
    return n;
}

size_t stats_cmp_samples(const stats_cmp_side_t *side, const stats_cmp_task_t *t, stats_cmp_fig_t fig)
{
    return samples(side, t, fig, NULL);
}

int stats_cmp_test(const stats_cmp_side_t *a, const stats_cmp_task_t *ta, const stats_cmp_side_t *b,
    const stats_cmp_task_t *tb, stats_cmp_fig_t fig, stats_mwu_t *r)
{
    double *x = malloc((a->n_windows + b->n_windows + 1) * sizeof *x);
    if (x == NULL) {
        stats_mwu(NULL, 0, NULL, 0, r);
        return -1;
    }
    size_t na = samples(a, ta, fig, x);
    size_t nb = samples(b, tb, fig, x + na);
    int rc = stats_mwu(x, na, x + na, nb, r);
    free(x);
    return rc;
}

static int double_order(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

double stats_cmp_median(const stats_cmp_side_t *side, const stats_cmp_task_t *t, stats_cmp_fig_t fig)
{
    size_t n = samples(side, t, fig, NULL);
    double *x = n ? malloc(n * sizeof *x) : NULL;
    if (x == NULL) {
        return NAN;
    }
    samples(side, t, fig, x);
    qsort(x, n, sizeof *x, double_order);
    double m = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
    free(x);
    return m;
}
