/* The aggregator's views: the rows of a table (per name or per instance), sorted, and the few
 * words and shares the views print. What stats.c keeps, read without changing it, but for the
 * name rows' blocked by, which is summed from their instances when a view is made
 * (stats_late_sync). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_private.h"

const char *stats_end_name(const stats_t *s, const stats_instance_t *in)
{
    switch (in->end) {
    case STATS_END_RETURN: return "returned";
    case STATS_END_RAISE: return "raised";
    case STATS_END_CANCEL: return "cancelled";
    default: return in->epoch == s->epoch ? "live" : "unknown";
    }
}

double stats_overhead_part(const stats_t *s, int drain, int events)
{
    const stats_device_t *d = &s->device;
    if (d->drain_span_us == 0) {
        return -1.0;
    }
    return ((drain ? (double)d->drain_sum_us : 0.0) + (events ? d->event_sum_us : 0.0)) / (double)d->drain_span_us;
}

double stats_overhead(const stats_t *s)
{
    return stats_overhead_part(s, 1, 1);
}

double stats_event_cost_ns(const stats_t *s)
{
    const stats_device_t *d = &s->device;
    if (!d->have_hello || d->event_cost == 0 || d->tick_hz == 0) {
        return -1.0;
    }
    return (double)d->event_cost * 1e9 / 1024.0 / (double)d->tick_hz;
}

static double row_mean(const stats_row_t *r)
{
    return r->f.count ? (double)r->f.total_us / (double)r->f.count : 0.0;
}

/* qsort has no context argument in C11: the key of the sort under way (views run on one thread) */
static stats_sort_t sort_key;

static int row_compare(const void *a, const void *b)
{
    const stats_row_t *x = a, *y = b;
    double dx = 0, dy = 0;
    switch (sort_key) {
    case STATS_SORT_TOTAL: dx = (double)x->f.total_us; dy = (double)y->f.total_us; break;
    case STATS_SORT_COUNT: dx = (double)x->f.count; dy = (double)y->f.count; break;
    case STATS_SORT_MAX: dx = (double)x->f.max_us; dy = (double)y->f.max_us; break;
    case STATS_SORT_MEAN: dx = row_mean(x); dy = row_mean(y); break;
    case STATS_SORT_NAME: break;
    }
    if (dx != dy) {
        return dx < dy ? 1 : -1;
    }
    int c = strcmp(x->name, y->name);
    if (c != 0) {
        return c;
    }
    uint64_t kx = x->inst ? x->inst->key : 0, ky = y->inst ? y->inst->key : 0;
    return kx < ky ? -1 : kx > ky;
}

#define ROW_OWN_NAME 24 /* "task #4294967295" */

/* The row's percentiles: of its slice lengths (h) and its lateness. */
static void row_pcts(stats_row_t *r, const stats_hist_t *h)
{
    for (unsigned i = 0; i < STATS_PCTS; i++) {
        r->slice_pct[i] = r->f.count ? stats_hist_quantile(h, stats_pcts[i], r->f.min_us, r->f.max_us) : 0;
        r->late_pct[i] = r->late ? stats_hist_quantile(&r->late->hist, stats_pcts[i], r->late->min_us, r->late->max_us) : 0;
    }
}

static void row_of_instance(const stats_t *s, const stats_instance_t *in, stats_row_t *r, char *own)
{
    memset(r, 0, sizeof *r);
    r->inst = in;
    r->f = in->f;
    r->instances = 1;
    r->kind = STATS_ROW_NAME;
    r->lower_bound = stats_instance_lower_bound(s, in);
    if (in->name >= 0) {
        r->name = s->names[in->name].name;
    } else {
        snprintf(own, ROW_OWN_NAME, "task #%lu", (unsigned long)in->id);
        r->name = own;
    }
    r->parent_name = stats_parent_name(s, in);
    stats_late_settle((stats_t *)s, (stats_late_t *)&in->late); /* its list read by the views */
    r->late = stats_late_known(s, &in->late) ? &in->late : NULL;
    if (in->moved.len == 0 || in->slices.len == 0) {
        row_pcts(r, in->moved.len != 0 ? &in->moved : &in->slices);
        return;
    }
    /* slices after it ended, beside those its name row took (a stream that resumed it again) */
    stats_hist_t both;
    memset(&both, 0, sizeof both);
    stats_hist_merge(&both, &in->moved);
    stats_hist_merge(&both, &in->slices);
    row_pcts(r, &both);
    stats_hist_drop(&both);
}

/* An unnamed instance a view by name shows: one with something in it. */
static int unnamed_row_of(const stats_instance_t *in)
{
    return in->in_use && in->name < 0 && (in->f.count != 0 || in->f.errors != 0);
}

uint64_t stats_unnamed_folded(const stats_t *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->inst_used; i++) {
        n += (uint64_t)unnamed_row_of(&s->inst[i]);
    }
    return n > STATS_UNNAMED_ROWS ? n - STATS_UNNAMED_ROWS : 0;
}

static const stats_instance_t *by_time_rows; /* qsort's context, as sort_key */

/* The unnamed instances with the most time first (then by key: the same ones every time). */
static int by_time(const void *a, const void *b)
{
    const stats_instance_t *x = &by_time_rows[*(const int32_t *)a], *y = &by_time_rows[*(const int32_t *)b];
    if (x->f.total_us != y->f.total_us) {
        return x->f.total_us < y->f.total_us ? 1 : -1;
    }
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Which unnamed instances a view by name sums in "(unnamed tasks)": fold[i] set for those past the
 * STATS_UNNAMED_ROWS with the most time. NULL when none is (or out of memory: *failed). */
static uint8_t *unnamed_fold_marks(const stats_t *s, int *failed)
{
    size_t n = 0;
    for (size_t i = 0; i < s->inst_used; i++) {
        n += (size_t)unnamed_row_of(&s->inst[i]);
    }
    if (n <= STATS_UNNAMED_ROWS) {
        return NULL;
    }
    int32_t *order = malloc(n * sizeof *order);
    uint8_t *fold = calloc(s->inst_used, 1);
    if (order == NULL || fold == NULL) {
        free(order);
        free(fold);
        *failed = 1;
        return NULL;
    }
    n = 0;
    for (size_t i = 0; i < s->inst_used; i++) {
        if (unnamed_row_of(&s->inst[i])) {
            order[n++] = (int32_t)i;
        }
    }
    by_time_rows = s->inst;
    qsort(order, n, sizeof *order, by_time);
    for (size_t k = STATS_UNNAMED_ROWS; k < n; k++) {
        fold[order[k]] = 1;
    }
    free(order);
    return fold;
}

/* What a view by name sums in "(unnamed tasks)" besides the instances folded for good. */
typedef struct unnamed_sum {
    stats_figures_t f;
    uint64_t instances;
    int lower_bound;
    stats_hist_t slices;
    stats_name_t late; /* its lateness in late.folded (stats_late_fold keeps the main culprits) */
} unnamed_sum_t;

static void unnamed_sum_late(stats_t *s, unnamed_sum_t *u, const stats_late_t *l)
{
    if (l->resumes != 0 || l->n_blame != 0 || l->other_us != 0 || l->outside_us != 0 || l->unknown_us != 0) {
        stats_late_fold(s, &u->late, l);
    }
}

/* Adds the view's sum to the row of "(unnamed tasks)", whose own lateness is own and slice
 * lengths *hist. */
static void unnamed_row_sum(stats_t *s, stats_row_t *r, unnamed_sum_t *u, const stats_late_t *own, stats_hist_t *hist)
{
    stats_figures_merge(&r->f, &u->f);
    r->instances += u->instances;
    r->lower_bound |= u->lower_bound;
    if (hist != &u->slices) {
        stats_hist_merge(hist, &u->slices);
    }
    /* the lateness: the row's own and the instances', kept where the row can point to it */
    unnamed_sum_late(s, u, own);
    stats_late_drop(&s->view_unnamed_late);
    s->view_unnamed_late = u->late.folded;
    memset(&u->late.folded, 0, sizeof u->late.folded);
    r->late = stats_late_known(s, &s->view_unnamed_late) ? &s->view_unnamed_late : NULL;
}

stats_row_t *stats_rows(const stats_t *s, int by_instance, stats_sort_t sort, size_t *n)
{
    /* the name rows' blocked by, summed where it changed: a figure made for the views, as the
     * histograms below (views run on one thread, as pipeline_stats' stats_sync) */
    stats_late_sync((stats_t *)s);
    int failed = 0;
    uint8_t *fold = unnamed_fold_marks(s, &failed);
    unnamed_sum_t u;
    memset(&u, 0, sizeof u);
    u.f.min_us = UINT64_MAX;
    size_t cap = s->n_names + s->inst_used + 1;
    /* the rows, then the names made up for unnamed instances: sorting moves rows, not names */
    stats_row_t *rows = malloc(cap * (sizeof *rows + ROW_OWN_NAME));
    char *own = (char *)(rows + cap);
    *n = 0;
    if (!rows || failed) {
        free(rows);
        free(fold);
        return NULL;
    }
    /* a name row is a lower bound when any of its instances is; its figures are what it holds
     * and what its instances have that it has not taken in yet (stats_sync) */
    uint8_t *lower = calloc(s->n_names + 1, 1);
    stats_figures_t *sum = malloc((s->n_names + 1) * sizeof *sum);
    /* a name row's slice lengths: those of its instances folded away, and its live ones' */
    stats_hist_t *hist = by_instance ? NULL : calloc(s->n_names + 1, sizeof *hist);
    if (!lower || !sum || (!by_instance && !hist)) {
        free(fold);
        free(lower);
        free(sum);
        free(hist);
        free(rows);
        return NULL;
    }
    for (size_t i = 0; i < s->n_names; i++) {
        sum[i] = s->names[i].f;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->inst_used; i++) {
        const stats_instance_t *in = &s->inst[i];
        if (!in->in_use) {
            continue;
        }
        if (in->name >= 0 && stats_instance_lower_bound(s, in)) {
            lower[in->name] = 1;
        }
        if (in->name >= 0 && in->dirty) {
            stats_figures_t *f = &sum[in->name];
            f->count += in->f.count - in->synced.count;
            f->total_us += in->f.total_us - in->synced.total_us;
            f->slow += in->f.slow - in->synced.slow;
            f->errors += in->f.errors - in->synced.errors;
            stats_figures_mem(f, in->f.alloc - in->synced.alloc, in->f.gc_count - in->synced.gc_count,
                in->f.gc_us - in->synced.gc_us);
            f->max_us = in->f.max_us > f->max_us ? in->f.max_us : f->max_us;
            f->min_us = in->f.min_us < f->min_us ? in->f.min_us : f->min_us;
        }
        if (!by_instance && in->name >= 0) {
            /* one that ended is summed once, in its name row's own (not again at every refresh) */
            stats_instance_settle((stats_t *)s, (stats_instance_t *)in);
            stats_hist_merge(&hist[in->name], &in->slices);
        }
        if (fold != NULL && fold[i] && by_instance) {
            continue; /* one of the many unnamed: by instance, left out (by name, summed) */
        }
        if (fold != NULL && fold[i]) {
            /* one of the many unnamed: its figures go to "(unnamed tasks)" */
            stats_figures_merge(&u.f, &in->f);
            u.instances++;
            u.lower_bound |= stats_instance_lower_bound(s, in);
            stats_hist_merge(&u.slices, &in->slices);
            unnamed_sum_late((stats_t *)s, &u, &in->late);
            continue;
        }
        if (by_instance || in->name < 0) {
            if (!by_instance && in->f.count == 0 && in->f.errors == 0) {
                continue;
            }
            row_of_instance(s, in, &rows[k], own + k * ROW_OWN_NAME);
            k++;
        }
    }
    if (!by_instance) {
        for (size_t i = 0; i < s->n_names; i++) {
            const stats_name_t *nm = &s->names[i];
            if (sum[i].count == 0 && nm->instances == 0) {
                continue;
            }
            stats_row_t *r = &rows[k++];
            memset(r, 0, sizeof *r);
            r->name = nm->name;
            r->f = sum[i];
            r->instances = nm->instances;
            r->kind = (stats_row_kind_t)nm->kind;
            r->lower_bound = nm->lower_bound || lower[i];
            r->late = stats_late_known(s, &nm->late) ? &nm->late : NULL;
            stats_hist_merge(&hist[i], &nm->slices);
            if (u.instances != 0 && (int32_t)i == s->unnamed_row) {
                unnamed_row_sum((stats_t *)s, r, &u, &nm->late, &hist[i]);
            }
            row_pcts(r, &hist[i]);
        }
        if (u.instances != 0 && s->unnamed_row < 0) {
            /* no instance was folded for good before its name came: the row is the view's alone */
            stats_row_t *r = &rows[k++];
            memset(r, 0, sizeof *r);
            r->name = "(unnamed tasks)";
            r->kind = STATS_ROW_UNNAMED;
            r->f.min_us = UINT64_MAX;
            stats_late_t none;
            memset(&none, 0, sizeof none);
            unnamed_row_sum((stats_t *)s, r, &u, &none, &u.slices);
            row_pcts(r, &u.slices);
        }
    }
    stats_hist_drop(&u.slices);
    stats_late_drop(&u.late.folded);
    if (fold != NULL) {
        /* stats_late_fold marked the sums to be made again: they were, just now (the view's sum
         * is not the name rows') */
        ((stats_t *)s)->late_stale = 0;
    }
    free(fold);
    for (size_t i = 0; hist && i < s->n_names; i++) {
        stats_hist_drop(&hist[i]);
    }
    free(hist);
    free(lower);
    free(sum);
    sort_key = sort;
    if (k > 1) {
        qsort(rows, k, sizeof *rows, row_compare);
    }
    *n = k;
    return rows;
}
