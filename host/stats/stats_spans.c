/* Span figures (stats_spans.h): span names and ids, the (instance, span name) rows, and the views
 * that sum them per task name. Allocated at a stream's first span, bounded by the caps. */
#include "stats_spans.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aioprof_wire.h"
#include "escape.h"
#include "stats_private.h"

#define NAME_SLOTS (STATS_SPAN_NAME_CAP * 2u)
#define ID_SLOTS (STATS_SPAN_IDS * 2u)
#define ROW_SLOTS (STATS_SPAN_ROWS * 2u)

typedef struct span_row {
    uint64_t key;        /* its instance's key */
    uint32_t inst_id;
    int32_t task_name;   /* its instance's name row when it last counted, -1 unnamed */
    int32_t span;        /* name index */
    stats_span_figures_t f;
    stats_hist_t hist;   /* inclusive times */
} span_row_t;

typedef struct span_id {
    uint32_t id;         /* 0: empty slot */
    int32_t name;
} span_id_t;

struct stats_spans {
    char (*names)[STATS_TEXT_MAX];
    uint32_t n_names;
    int32_t other;                  /* "(other spans)", -1 until needed */
    int32_t name_table[NAME_SLOTS]; /* by hash of the escaped name, -1 empty */
    span_id_t ids[ID_SLOTS];
    uint32_t n_ids;
    span_row_t *rows;
    uint32_t n_rows;
    int32_t row_table[ROW_SLOTS];   /* by (key, span), -1 empty */
};

static const stats_span_figures_t figures_empty = {.min_us = UINT64_MAX};

static stats_spans_t *spans_get(stats_t *s)
{
    if (s->spans) {
        return s->spans;
    }
    stats_spans_t *sp = calloc(1, sizeof *sp);
    if (sp == NULL) {
        return NULL;
    }
    sp->names = calloc(STATS_SPAN_NAME_CAP + 1u, sizeof *sp->names);
    sp->rows = calloc(STATS_SPAN_ROWS, sizeof *sp->rows);
    if (sp->names == NULL || sp->rows == NULL) {
        free(sp->names);
        free(sp->rows);
        free(sp);
        return NULL;
    }
    sp->other = -1;
    memset(sp->name_table, 0xFF, sizeof sp->name_table);
    memset(sp->row_table, 0xFF, sizeof sp->row_table);
    s->spans = sp;
    return sp;
}

/* "(other spans)": the names past the caps. */
static int32_t other_name(stats_spans_t *sp)
{
    if (sp->other < 0) {
        sp->other = (int32_t)STATS_SPAN_NAME_CAP; /* the one row past the cap, kept for it */
        snprintf(sp->names[sp->other], STATS_TEXT_MAX, "(other spans)");
    }
    return sp->other;
}

/* The index of an escaped name, made when new. */
static int32_t name_index(stats_t *s, stats_spans_t *sp, const char *text)
{
    size_t len = strlen(text);
    uint32_t h = stats_fnv_add(2166136261u, (const uint8_t *)text, len);
    for (uint32_t i = h % NAME_SLOTS;; i = (i + 1u) % NAME_SLOTS) {
        int32_t at = sp->name_table[i];
        if (at < 0) {
            if (sp->n_names == STATS_SPAN_NAME_CAP) {
                s->span_counts.other_names++;
                return other_name(sp);
            }
            at = (int32_t)sp->n_names++;
            memcpy(sp->names[at], text, len + 1u);
            sp->name_table[i] = at;
            return at;
        }
        if (strcmp(sp->names[at], text) == 0) {
            return at;
        }
    }
}

/* The slot of id: its own, or the empty one where it goes; NULL when the table is full. */
static span_id_t *id_slot(stats_spans_t *sp, uint32_t id)
{
    for (uint32_t i = (id * 2654435761u) % ID_SLOTS;; i = (i + 1u) % ID_SLOTS) {
        if (sp->ids[i].id == id) {
            return &sp->ids[i];
        }
        if (sp->ids[i].id == 0) {
            return sp->n_ids < STATS_SPAN_IDS ? &sp->ids[i] : NULL;
        }
    }
}

int32_t stats_span_name_set(stats_t *s, uint32_t id, const uint8_t *name, size_t len)
{
    stats_spans_t *sp = spans_get(s);
    if (sp == NULL) {
        return -1;
    }
    char text[STATS_TEXT_MAX];
    escape_bytes(text, sizeof text, name, len > AIOPROF_SPAN_NAME_MAX ? AIOPROF_SPAN_NAME_MAX : len, ESCAPE_NAME);
    span_id_t *slot = id == 0 ? NULL : id_slot(sp, id);
    if (slot == NULL) {
        s->span_counts.other_names++;
        return other_name(sp);
    }
    if (slot->id == 0) {
        slot->id = id;
        sp->n_ids++;
    }
    slot->name = name_index(s, sp, text);
    return slot->name;
}

int32_t stats_span_name_of(stats_t *s, uint32_t id)
{
    stats_spans_t *sp = spans_get(s);
    if (sp == NULL) {
        return -1;
    }
    span_id_t *slot = id == 0 ? NULL : id_slot(sp, id);
    if (slot == NULL) {
        return other_name(sp);
    }
    if (slot->id == 0) {
        char text[32];
        snprintf(text, sizeof text, "span #%" PRIu32, id);
        slot->id = id;
        sp->n_ids++;
        slot->name = name_index(s, sp, text);
    }
    return slot->name;
}

const char *stats_span_name_text(const stats_t *s, int32_t span)
{
    return s->spans && span >= 0 && span <= (int32_t)STATS_SPAN_NAME_CAP ? s->spans->names[span] : "";
}

/* The row of (in, span), made when new; NULL when they are all taken. */
static span_row_t *row_of(stats_spans_t *sp, const stats_instance_t *in, int32_t span)
{
    uint64_t h = (in->key * 0x9E3779B97F4A7C15ull) ^ (uint64_t)span * 0xC2B2AE3D27D4EB4Full;
    for (uint32_t i = (uint32_t)(h >> 40) % ROW_SLOTS;; i = (i + 1u) % ROW_SLOTS) {
        int32_t at = sp->row_table[i];
        if (at < 0) {
            if (sp->n_rows == STATS_SPAN_ROWS) {
                return NULL;
            }
            span_row_t *r = &sp->rows[sp->n_rows];
            *r = (span_row_t){.key = in->key, .inst_id = in->id, .span = span, .f = figures_empty};
            sp->row_table[i] = (int32_t)sp->n_rows++;
            return r;
        }
        span_row_t *r = &sp->rows[at];
        if (r->key == in->key && r->span == span) {
            return r;
        }
    }
}

int stats_span_close(stats_t *s, const stats_instance_t *in, int32_t span, uint64_t own_us, uint64_t inclusive_us,
    uint64_t wall_us, int unwound, const stats_span_mem_t *own_mem, const stats_span_mem_t *incl_mem)
{
    stats_spans_t *sp = s->spans;
    span_row_t *r = sp && span >= 0 ? row_of(sp, in, span) : NULL;
    if (r == NULL) {
        s->span_counts.refused++;
        return -1;
    }
    r->task_name = in->name;
    stats_span_figures_t *f = &r->f;
    f->count++;
    f->own_us += own_us;
    f->inclusive_us += inclusive_us;
    f->wall_us += wall_us;
    f->max_us = inclusive_us > f->max_us ? inclusive_us : f->max_us;
    f->min_us = inclusive_us < f->min_us ? inclusive_us : f->min_us;
    f->unwound += unwound != 0;
    if (own_mem) {
        stats_span_mem_add(&f->own_mem, own_mem);
    }
    if (incl_mem) {
        stats_span_mem_add(&f->incl_mem, incl_mem);
    }
    stats_hist_add(&r->hist, inclusive_us);
    return 0;
}

void stats_span_cut(stats_t *s, const stats_instance_t *in, int32_t span)
{
    stats_spans_t *sp = s->spans;
    if (sp == NULL) {
        return;
    }
    span_row_t *r = span >= 0 ? row_of(sp, in, span) : NULL;
    if (r) {
        r->task_name = in->name;
        r->f.cut++;
    }
}

/* A view row while it is made: its span name's index and its span row beside it. */
typedef struct view_tmp {
    stats_span_view_t v;
    int32_t span;
    uint32_t row;
} view_tmp_t;

/* By task (name row, then instance), then the most inclusive time first, then by span name. */
static int view_cmp(const void *a, const void *b)
{
    const stats_span_view_t *x = a, *y = b;
    if (x->task_name != y->task_name) {
        return x->task_name < y->task_name ? -1 : 1;
    }
    if (x->inst_key != y->inst_key) {
        return x->inst_key < y->inst_key ? -1 : 1;
    }
    if (x->f.inclusive_us != y->f.inclusive_us) {
        return x->f.inclusive_us > y->f.inclusive_us ? -1 : 1;
    }
    return strcmp(x->span, y->span);
}

/* By (task, span name): the rows a view by name sums. */
static int group_cmp(const void *a, const void *b)
{
    const view_tmp_t *x = a, *y = b;
    if (x->v.task_name != y->v.task_name) {
        return x->v.task_name < y->v.task_name ? -1 : 1;
    }
    if (x->v.inst_key != y->v.inst_key) {
        return x->v.inst_key < y->v.inst_key ? -1 : 1;
    }
    return x->span < y->span ? -1 : x->span > y->span;
}

static void figures_merge(stats_span_figures_t *d, const stats_span_figures_t *f)
{
    d->count += f->count;
    d->own_us += f->own_us;
    d->inclusive_us += f->inclusive_us;
    d->wall_us += f->wall_us;
    d->max_us = f->max_us > d->max_us ? f->max_us : d->max_us;
    d->min_us = f->min_us < d->min_us ? f->min_us : d->min_us;
    d->unwound += f->unwound;
    d->cut += f->cut;
    stats_span_mem_add(&d->own_mem, &f->own_mem);
    stats_span_mem_add(&d->incl_mem, &f->incl_mem);
}

stats_span_view_t *stats_span_rows(const stats_t *s, int by_instance, size_t *n)
{
    *n = 0;
    const stats_spans_t *sp = s->spans;
    if (sp == NULL || sp->n_rows == 0) {
        return NULL;
    }
    view_tmp_t *tmp = calloc(sp->n_rows, sizeof *tmp);
    stats_span_view_t *v = calloc(sp->n_rows, sizeof *v);
    if (tmp == NULL || v == NULL) {
        free(tmp);
        free(v);
        return NULL;
    }
    size_t m = 0;
    for (uint32_t i = 0; i < sp->n_rows; i++) {
        const span_row_t *r = &sp->rows[i];
        if (r->f.count == 0 && r->f.cut == 0) {
            continue; /* nothing since a reset */
        }
        int apart = by_instance || r->task_name < 0; /* unnamed instances are rows of their own */
        tmp[m++] = (view_tmp_t){.v = {.task_name = r->task_name, .inst_key = apart ? r->key : 0,
                                    .inst_id = apart ? r->inst_id : 0, .span = sp->names[r->span], .f = r->f},
            .span = r->span, .row = i};
    }
    qsort(tmp, m, sizeof *tmp, group_cmp);
    size_t out = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i + 1;
        while (j < m && group_cmp(&tmp[i], &tmp[j]) == 0) {
            j++;
        }
        stats_span_view_t g = tmp[i].v;
        stats_hist_t h = {0};
        for (size_t k = i; k < j; k++) {
            if (k > i) {
                figures_merge(&g.f, &tmp[k].v.f);
            }
            stats_hist_merge(&h, &sp->rows[tmp[k].row].hist);
        }
        for (unsigned q = 0; q < STATS_PCTS; q++) {
            g.pct[q] = g.f.count ? stats_hist_quantile(&h, stats_pcts[q], g.f.min_us, g.f.max_us) : 0;
        }
        stats_hist_drop(&h);
        v[out++] = g;
        i = j;
    }
    free(tmp);
    qsort(v, out, sizeof *v, view_cmp);
    *n = out;
    if (out == 0) {
        free(v);
        return NULL;
    }
    return v;
}

size_t stats_span_rows_of(const stats_t *s, const stats_span_view_t *v, size_t n, const stats_row_t *row,
    size_t *first)
{
    (void)s;
    size_t count = 0;
    *first = 0;
    for (size_t i = 0; i < n; i++) {
        int mine;
        if (row->inst != NULL) {
            mine = v[i].inst_key == row->inst->key;
        } else {
            mine = row->kind == STATS_ROW_NAME && v[i].task_name >= 0 && v[i].inst_key == 0 &&
                strcmp(s->names[v[i].task_name].name, row->name) == 0;
        }
        if (mine) {
            if (count == 0) {
                *first = i;
            }
            count++;
        } else if (count) {
            break;
        }
    }
    return count;
}

void stats_spans_reset(stats_t *s)
{
    stats_spans_t *sp = s->spans;
    if (sp == NULL) {
        return;
    }
    for (uint32_t i = 0; i < sp->n_rows; i++) {
        sp->rows[i].f = figures_empty;
        stats_hist_zero(&sp->rows[i].hist);
    }
}

void stats_spans_free(stats_t *s)
{
    stats_spans_t *sp = s->spans;
    if (sp == NULL) {
        return;
    }
    for (uint32_t i = 0; i < sp->n_rows; i++) {
        stats_hist_drop(&sp->rows[i].hist);
    }
    free(sp->rows);
    free(sp->names);
    free(sp);
    s->spans = NULL;
}

void stats_spans_epoch(stats_t *s)
{
    stats_spans_t *sp = s->spans;
    if (sp) {
        memset(sp->ids, 0, sizeof sp->ids);
        sp->n_ids = 0;
    }
}
