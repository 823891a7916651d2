/* The JSON report: the figures of the text report for programs (docs/json.md is its schema). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "stats.h"
#include "stats_spans.h"

/* JSON numbers are doubles: exact up to 2^53 microseconds (285 years). */
static int add_num(cJSON *obj, const char *key, double v)
{
    return cJSON_AddNumberToObject(obj, key, v) != NULL;
}

static int add_pcts(cJSON *o, const stats_row_t *r);

static int add_figures(cJSON *o, const stats_row_t *r, uint64_t elapsed_us)
{
    const stats_figures_t *f = &r->f;
    return add_num(o, "count", (double)f->count) && add_num(o, "total_us", (double)f->total_us) &&
        add_num(o, "max_us", (double)f->max_us) && add_num(o, "min_us", f->count ? (double)f->min_us : 0.0) &&
        add_num(o, "mean_us", f->count ? (double)f->total_us / (double)f->count : 0.0) &&
        add_num(o, "share", elapsed_us ? (double)f->total_us / (double)elapsed_us : 0.0) &&
        add_num(o, "slow", (double)f->slow) && add_num(o, "errors", (double)f->errors) &&
        cJSON_AddBoolToObject(o, "lower_bound", r->lower_bound) != NULL && add_pcts(o, r);
}

/* "late": how late the row's resumes were and who took the waiting (docs/json.md); null when the
 * device does not report lateness. */
static int add_late(cJSON *o, const stats_t *s, const stats_row_t *r)
{
    const stats_late_t *l = r->late;
    if (l == NULL) {
        return cJSON_AddNullToObject(o, "late") != NULL;
    }
    cJSON *x = cJSON_AddObjectToObject(o, "late");
    uint64_t blocked_us = 0;
    int32_t who = stats_late_culprit(s, l, &blocked_us);
    double total = (double)l->total_us;
    return x && add_num(x, "resumes", (double)l->resumes) && add_num(x, "count", (double)l->count) &&
        add_num(x, "total_us", total) && add_num(x, "max_us", (double)l->max_us) &&
        add_num(x, "mean_us", l->resumes ? total / (double)l->resumes : 0.0) &&
        (who == STATS_LATE_NONE ? cJSON_AddNullToObject(x, "blocked_by") != NULL
                                : cJSON_AddStringToObject(x, "blocked_by", stats_late_who_name(s, who)) != NULL) &&
        add_num(x, "blocked_us", (double)blocked_us) &&
        add_num(x, "blocked_share", total > 0 ? (double)blocked_us / total : 0.0) &&
        add_num(x, "outside_us", (double)l->outside_us) &&
        add_num(x, "outside_share", total > 0 ? (double)l->outside_us / total : 0.0) &&
        add_num(x, "unknown_us", (double)(l->unknown_us + l->other_us)) &&
        add_num(x, "p50_us", (double)r->late_pct[0]) && add_num(x, "p95_us", (double)r->late_pct[1]) &&
        add_num(x, "p99_us", (double)r->late_pct[2]);
}

/* "mem": what the figures allocated and the collections in them (docs/json.md), each null when the
 * device does not measure it; only from a device that reports memory (every other report stays as
 * it was). */
static int add_mem(cJSON *o, const stats_t *s, const stats_figures_t *f)
{
    if (!stats_mem_known(s)) {
        return 1;
    }
    stats_mem_t m;
    stats_mem_of(s, f, &m);
    cJSON *x = cJSON_AddObjectToObject(o, "mem");
    return x && (m.alloc_known ? add_num(x, "alloc_bytes", (double)m.alloc_bytes) && add_num(x, "alloc_per_s", m.alloc_per_s)
                               : cJSON_AddNullToObject(x, "alloc_bytes") && cJSON_AddNullToObject(x, "alloc_per_s")) &&
        cJSON_AddBoolToObject(x, "alloc_lower_bound", m.alloc_known && m.alloc_lower) &&
        (m.gc_known ? add_num(x, "gc_count", (double)m.gc_count) : cJSON_AddNullToObject(x, "gc_count") != NULL) &&
        cJSON_AddBoolToObject(x, "gc_lower_bound", m.gc_known && m.gc_at_least) &&
        (m.gc_timed ? add_num(x, "gc_us", (double)m.gc_us) : cJSON_AddNullToObject(x, "gc_us") != NULL);
}

/* p50, p95, p99 of the row's slice lengths. */
static int add_pcts(cJSON *o, const stats_row_t *r)
{
    return add_num(o, "p50_us", (double)r->slice_pct[0]) && add_num(o, "p95_us", (double)r->slice_pct[1]) &&
        add_num(o, "p99_us", (double)r->slice_pct[2]);
}

/* A figure that is negative when not known: null then. */
static int add_or_null(cJSON *o, const char *key, double v)
{
    return v >= 0 ? add_num(o, key, v) : cJSON_AddNullToObject(o, key) != NULL;
}

cJSON *report_json_device(const stats_t *s)
{
    const stats_device_t *d = &s->device;
    if (!d->have_hello) {
        return cJSON_CreateNull();
    }
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "platform", d->platform) || !add_num(o, "version", d->version) ||
        !add_num(o, "tick_hz", d->tick_hz) || !add_num(o, "tick_bits", d->tick_bits) ||
        !add_num(o, "period_ticks", d->period_ticks) || !add_num(o, "late_unit", d->late_unit) ||
        !add_num(o, "ring_bytes", d->ring_bytes) || !add_num(o, "boot_ticks", d->boot_ticks) ||
        !add_num(o, "drain_us", d->drain_us) || !add_num(o, "dropped_total", d->dropped_total) ||
        !add_or_null(o, "event_cost_ns", stats_event_cost_ns(s)) || !add_or_null(o, "overhead", stats_overhead(s)) ||
        !add_or_null(o, "drain_overhead", stats_overhead_part(s, 1, 0)) ||
        !add_or_null(o, "event_overhead", stats_event_cost_ns(s) >= 0 ? stats_overhead_part(s, 0, 1) : -1.0) ||
        (d->mem != 0 && !add_num(o, "mem", d->mem))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *report_json_stream(const stats_t *s)
{
    const stats_stream_t *t = &s->stream;
    cJSON *o = cJSON_CreateObject();
    if (!o || !add_num(o, "bytes", (double)t->bytes) || !add_num(o, "frames", (double)t->frames) ||
        !add_num(o, "events", (double)t->events) || !add_num(o, "crc_errors", (double)t->crc_errors) ||
        !add_num(o, "lost_frames", (double)t->lost_frames) || !add_num(o, "dropped_events", (double)t->dropped_events) ||
        !add_num(o, "text_lines", (double)t->text_lines) || !add_num(o, "resets", (double)t->resets) ||
        !add_num(o, "reconnects", (double)t->reconnects) || !add_num(o, "malformed", (double)t->malformed) ||
        !add_num(o, "unsupported", (double)t->unsupported) || !add_num(o, "unmatched", (double)t->unmatched) ||
        !add_num(o, "duplicates", (double)t->duplicates) ||
        !add_num(o, "clock_steps_back", (double)t->clock_steps_back) ||
        !add_num(o, "skipped_bytes", (double)t->skipped_bytes) ||
        !add_num(o, "recording_damage", (double)t->recording_damage) ||
        !cJSON_AddBoolToObject(o, "ended_before_stop", t->ended_before_stop != 0)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* One row of "tasks": a name (or an instance row standing for itself). */
static int json_task(cJSON *o, const stats_t *s, const stats_row_t *r)
{
    static const char *kinds[] = {"name", "other", "unnamed"};
    return cJSON_AddStringToObject(o, "name", r->name) &&
           cJSON_AddStringToObject(o, "kind", r->inst ? "instance" : kinds[r->kind]) &&
           add_num(o, "instances", (double)r->instances) && add_figures(o, r, s->elapsed_us) &&
           add_late(o, s, r) && add_mem(o, s, &r->f) && (!r->inst || add_num(o, "id", r->inst->id));
}

/* One row of "instances". */
static int json_instance(cJSON *o, const stats_t *s, const stats_row_t *r)
{
    const stats_instance_t *in = r->inst;
    return add_num(o, "id", in->id) && add_num(o, "epoch", in->epoch) &&
           (in->name >= 0 ? cJSON_AddStringToObject(o, "name", r->name) : cJSON_AddNullToObject(o, "name")) &&
           cJSON_AddStringToObject(o, "label", in->label) && add_num(o, "parent", in->parent) &&
           (r->parent_name ? cJSON_AddStringToObject(o, "parent_name", r->parent_name)
                           : cJSON_AddNullToObject(o, "parent_name")) &&
           cJSON_AddStringToObject(o, "end", stats_end_name(s, in)) && add_figures(o, r, s->elapsed_us) &&
           add_late(o, s, r) && add_mem(o, s, &r->f);
}

/* A span's "mem" (docs/json.md): its inclusive memory as a row's, and its own beside it, in
 * bytes; only from a device that reports memory. */
static int add_span_mem(cJSON *x, const stats_t *s, const stats_span_figures_t *f)
{
    if (!stats_mem_known(s)) {
        return 1;
    }
    stats_figures_t incl = stats_span_mem_figures(&f->incl_mem), own = stats_span_mem_figures(&f->own_mem);
    if (!add_mem(x, s, &incl)) {
        return 0;
    }
    cJSON *m = cJSON_GetObjectItemCaseSensitive(x, "mem");
    stats_mem_t o;
    stats_mem_of(s, &own, &o);
    return m && (o.alloc_known ? add_num(m, "own_alloc_bytes", (double)o.alloc_bytes)
                               : cJSON_AddNullToObject(m, "own_alloc_bytes") != NULL) &&
        (o.gc_known ? add_num(m, "own_gc_count", (double)o.gc_count) : cJSON_AddNullToObject(m, "own_gc_count") != NULL) &&
        (o.gc_timed ? add_num(m, "own_gc_us", (double)o.gc_us) : cJSON_AddNullToObject(m, "own_gc_us") != NULL);
}

/* A row's "spans" (docs/json.md): its task's spans, the most inclusive time first. */
static int add_spans(cJSON *o, const stats_t *s, const stats_row_t *r, const stats_span_view_t *v, size_t n)
{
    cJSON *a = cJSON_AddArrayToObject(o, "spans");
    if (a == NULL) {
        return 0;
    }
    size_t first;
    size_t count = stats_span_rows_of(s, v, n, r, &first);
    for (size_t i = first; i < first + count; i++) {
        const stats_span_figures_t *f = &v[i].f;
        cJSON *x = cJSON_CreateObject();
        if (!x || !cJSON_AddItemToArray(a, x) || !cJSON_AddStringToObject(x, "name", v[i].span) ||
            !add_num(x, "count", (double)f->count) || !add_num(x, "own_us", (double)f->own_us) ||
            !add_num(x, "inclusive_us", (double)f->inclusive_us) || !add_num(x, "wall_us", (double)f->wall_us) ||
            !add_num(x, "max_us", (double)f->max_us) || !add_num(x, "min_us", f->count ? (double)f->min_us : 0.0) ||
            !add_num(x, "unwound", (double)f->unwound) || !add_num(x, "cut", (double)f->cut) ||
            !add_num(x, "p50_us", (double)v[i].pct[0]) || !add_num(x, "p95_us", (double)v[i].pct[1]) ||
            !add_num(x, "p99_us", (double)v[i].pct[2]) || !add_span_mem(x, s, f)) {
            return 0;
        }
    }
    return 1;
}

/* The rows by name (by_instance 0) or by instance, sorted, as an array of objects; with their
 * spans when the stream had some. */
static cJSON *json_rows(const stats_t *s, int by_instance, sort_key_t sort,
    int (*fill)(cJSON *, const stats_t *, const stats_row_t *))
{
    size_t n = 0, n_spans = 0;
    stats_row_t *rows = sort_key_rows(s, by_instance, sort, &n);
    stats_span_view_t *spans = s->spans ? stats_span_rows(s, by_instance, &n_spans) : NULL;
    cJSON *a = cJSON_CreateArray();
    if (!a || (!rows && n)) {
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(a, o) || !fill(o, s, &rows[i]) ||
            (s->spans && !add_spans(o, s, &rows[i], spans, n_spans))) {
            goto fail;
        }
    }
    free(rows);
    free(spans);
    return a;
fail:
    cJSON_Delete(a);
    free(rows);
    free(spans);
    return NULL;
}

/* "span_counts": the stream's spans not counted in a row (docs/json.md); only when it had some. */
static int add_span_counts(cJSON *root, const stats_t *s)
{
    const stats_span_counts_t *c = &s->span_counts;
    if (s->spans == NULL && c->refused == 0 && c->unmatched == 0) {
        return 1;
    }
    cJSON *o = cJSON_AddObjectToObject(root, "span_counts");
    return o && add_num(o, "refused", (double)c->refused) && add_num(o, "unmatched", (double)c->unmatched) &&
        add_num(o, "cut", (double)c->cut) && add_num(o, "other_names", (double)c->other_names);
}

cJSON *report_json_tasks(const stats_t *s, int by_instance, sort_key_t sort)
{
    return by_instance ? json_rows(s, 1, sort, json_instance) : json_rows(s, 0, sort, json_task);
}

static int attach(cJSON *root, const char *key, cJSON *item)
{
    if (!item) {
        return 0;
    }
    cJSON_AddItemToObject(root, key, item);
    return 1;
}

int report_json(FILE *out, const pipeline_t *p, const report_options_t *o)
{
    const stats_t *s = pipeline_stats(p);
    sort_key_t sort = o ? o->sort : SORT_TOTAL;
    int rc = -1;
    char *text = NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON *tool = cJSON_CreateObject();
    if (!root || !attach(root, "tool", tool) || !cJSON_AddStringToObject(tool, "name", "aioprof-top") ||
        !cJSON_AddStringToObject(tool, "version", AIOPROF_VERSION)) {
        goto out;
    }
    if (!(o && o->source ? cJSON_AddStringToObject(root, "source", o->source) : cJSON_AddNullToObject(root, "source")) ||
        !attach(root, "device", report_json_device(s)) || !add_num(root, "elapsed_us", (double)s->elapsed_us) ||
        !attach(root, "stream", report_json_stream(s)) || !attach(root, "tasks", report_json_tasks(s, 0, sort)) ||
        !add_num(root, "outside_us", (double)s->outside_us) ||
        !add_num(root, "outside_share", s->elapsed_us ? (double)s->outside_us / (double)s->elapsed_us : 0.0) ||
        !add_num(root, "epochs", (double)s->epoch + 1) ||
        (stats_mem_known(s) && !add_mem(cJSON_AddObjectToObject(root, "outside_tasks"), s, &s->mem_outside)) ||
        !add_num(root, "folded_instances", (double)s->folded_instances) ||
        (s->past_cap >= 0 && !add_num(root, "live_tasks_max", (double)s->live_max)) ||
        !add_num(root, "unnamed_folded", (double)stats_unnamed_folded(s)) ||
        !attach(root, "instances", json_rows(s, 1, sort, json_instance)) || !add_span_counts(root, s)) {
        goto out;
    }
    text = cJSON_Print(root);
    if (!text) {
        goto out;
    }
    if (fputs(text, out) >= 0 && fputc('\n', out) != EOF && !ferror(out)) {
        rc = 0;
    }
out:
    cJSON_free(text);
    cJSON_Delete(root);
    return rc;
}
