/* Span figures (docs/usage.md, "Spans"): per span name under its task instance, summed per task
 * name when a view is made. The events stage tells it a span's name (SPAN_NAME), and each span
 * that closed with its own, inclusive and wall time, or that was cut (a loss, the stream's end).
 *
 * Memory is bounded whatever the stream holds, and taken only once a stream has spans: at most
 * STATS_SPAN_NAME_CAP distinct names (more: "(other spans)"), STATS_SPAN_IDS ids of one boot
 * (more: their spans are named "(other spans)" too), STATS_SPAN_ROWS rows of (instance, span
 * name) (more: the span is not counted, and refused says how many). Never knows how spans are
 * encoded, nor the time line. */
#ifndef AIOPROF_STATS_SPANS_H
#define AIOPROF_STATS_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

#define STATS_SPAN_NAME_CAP 1024u
#define STATS_SPAN_IDS 4096u
#define STATS_SPAN_ROWS 8192u

/* Memory inside spans (docs/usage.md, "Memory per span"), in the device's unit as a task row's
 * (stats_figures_t.alloc: stats_mem_figures turns it into bytes and says what is measured). */
typedef struct stats_span_mem {
    uint64_t alloc;    /* allocated while its task ran in the span */
    uint64_t gc_count; /* collections inside it */
    uint64_t gc_us;    /* their time, when the device measures it */
} stats_span_mem_t;

typedef struct stats_span_figures {
    uint64_t count;        /* spans that closed (unwound ones included) */
    uint64_t own_us;       /* its task's own time while it was the innermost open span */
    uint64_t inclusive_us; /* its task's own time while it was open */
    uint64_t wall_us;      /* open to close */
    uint64_t max_us;       /* the largest inclusive time of one */
    uint64_t min_us;       /* UINT64_MAX while count is 0 */
    uint64_t unwound;      /* closed by their task's end */
    uint64_t cut;          /* open at a loss or at the stream's end: not in the figures above */
    stats_span_mem_t own_mem;  /* while it was its task's innermost open span */
    stats_span_mem_t incl_mem; /* while it was open, its nested spans' included */
} stats_span_figures_t;

/* The name index of span id in this boot; an id never named gets "span #id" (a reader that
 * joined late). -1 when out of memory. */
int32_t stats_span_name_of(stats_t *s, uint32_t id);

/* A SPAN_NAME: id's name, raw untrusted bytes. Returns its name index, or -1 (out of memory). */
int32_t stats_span_name_set(stats_t *s, uint32_t id, const uint8_t *name, size_t len);

/* The escaped text of a name index ("" for none). */
const char *stats_span_name_text(const stats_t *s, int32_t span);

/* A span of name index `span` of in closed (unwound: by its task's end), with what was allocated
 * and collected inside it (own and inclusive; NULL: nothing). Returns 0, or -1 when it had no row
 * (counted as refused). */
int stats_span_close(stats_t *s, const stats_instance_t *in, int32_t span, uint64_t own_us, uint64_t inclusive_us,
    uint64_t wall_us, int unwound, const stats_span_mem_t *own_mem, const stats_span_mem_t *incl_mem);

/* d += m, saturated (a hostile stream's amounts cannot wrap). */
static inline void stats_span_mem_add(stats_span_mem_t *d, const stats_span_mem_t *m)
{
    d->alloc = stats_sat_add(d->alloc, m->alloc);
    d->gc_count = stats_sat_add(d->gc_count, m->gc_count);
    d->gc_us = stats_sat_add(d->gc_us, m->gc_us);
}

/* The figures of m as a task row's memory figures (stats_mem_of turns them into what is shown). */
static inline stats_figures_t stats_span_mem_figures(const stats_span_mem_t *m)
{
    stats_figures_t f = {0};
    f.alloc = m->alloc;
    f.gc_count = m->gc_count;
    f.gc_us = m->gc_us;
    return f;
}

/* A span of in open at a loss or at the end: counted apart in its row, not in the figures (the
 * caller counts it in s->span_counts.cut). */
void stats_span_cut(stats_t *s, const stats_instance_t *in, int32_t span);

/* A row of a view: the spans of one span name under one task instance (by instance) or one task
 * name (by name: its instances summed; unnamed instances apart, as task rows are). */
typedef struct stats_span_view {
    int32_t task_name;       /* the task's name row, -1: an unnamed instance */
    uint64_t inst_key;       /* by instance, and unnamed instances by name: its instance's key */
    uint32_t inst_id;
    const char *span;        /* escaped */
    stats_span_figures_t f;
    uint64_t pct[STATS_PCTS]; /* p50, p95, p99 of the inclusive times */
} stats_span_view_t;

/* The rows, by task (name row, then instance key) and, within a task, the most inclusive time
 * first. A malloc'ed array (free()), NULL with *n 0 when there is none or out of memory. */
stats_span_view_t *stats_span_rows(const stats_t *s, int by_instance, size_t *n);

/* The rows of a view (stats_span_rows) that belong to a task row: [*first, *first + count). */
size_t stats_span_rows_of(const stats_t *s, const stats_span_view_t *v, size_t n, const stats_row_t *row,
    size_t *first);

/* Span figures back to zero (stats_reset); everything freed (stats_clear, stats_free); a new boot:
 * its ids are new (stats_new_epoch). */
void stats_spans_reset(stats_t *s);
void stats_spans_free(stats_t *s);
void stats_spans_epoch(stats_t *s);

#endif
