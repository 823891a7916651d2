/* The aggregator's views: the rows of a table (per name or per instance), sorted, and the few
 * words and shares the views print. What stats.c keeps, read without changing it, but for the
 * name rows' blocked by, which is summed from their instances when a view is made
 * (stats_late_sync). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

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
    r->late = stats_late_known(s, &in->late) ? &in->late : NULL;
    row_pcts(r, &in->slices);
}

stats_row_t *stats_rows(const stats_t *s, int by_instance, stats_sort_t sort, size_t *n)
{
    /* the name rows' blocked by, summed where it changed: a figure made for the views, as the
     * histograms below (views run on one thread, as pipeline_stats' stats_sync) */
    stats_late_sync((stats_t *)s);
    size_t cap = s->n_names + s->inst_used + 1;
    /* the rows, then the names made up for unnamed instances: sorting moves rows, not names */
    stats_row_t *rows = malloc(cap * (sizeof *rows + ROW_OWN_NAME));
    char *own = (char *)(rows + cap);
    *n = 0;
    if (!rows) {
        return NULL;
    }
    /* a name row is a lower bound when any of its instances is; its figures are what it holds
     * and what its instances have that it has not taken in yet (stats_sync) */
    uint8_t *lower = calloc(s->n_names + 1, 1);
    stats_figures_t *sum = malloc((s->n_names + 1) * sizeof *sum);
    /* a name row's slice lengths: those of its instances folded away, and its live ones' */
    stats_hist_t *hist = by_instance ? NULL : calloc(s->n_names + 1, sizeof *hist);
    if (!lower || !sum || (!by_instance && !hist)) {
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
            f->max_us = in->f.max_us > f->max_us ? in->f.max_us : f->max_us;
            f->min_us = in->f.min_us < f->min_us ? in->f.min_us : f->min_us;
        }
        if (!by_instance && in->name >= 0) {
            stats_hist_merge(&hist[in->name], &in->slices);
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
            row_pcts(r, &hist[i]);
        }
    }
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
