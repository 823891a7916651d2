/* The live table's rows: copied out of the statistics, so that a frozen view keeps them, with
 * the header's figures, and windowed against the history of snapshots (the last second). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_private.h"

/* ---- keys ---- */

static uint64_t table_name_key(unsigned kind, const char *name)
{
    uint64_t h = 1469598103934665603ull ^ kind;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h = (h ^ *p) * 1099511628211ull;
    }
    return h;
}

static int snap_entry_compare(const void *a, const void *b)
{
    const top_snap_entry_t *x = a, *y = b;
    if (x->by_inst != y->by_inst) {
        return x->by_inst < y->by_inst ? -1 : 1;
    }
    return x->key < y->key ? -1 : x->key > y->key;
}

/* ---- the window's history ---- */

void top_history_free(top_history_t *h)
{
    for (size_t i = 0; i < TOP_HISTORY; i++) {
        free(h->snap[i].e);
    }
    memset(h, 0, sizeof *h);
}

void top_history_clear(top_history_t *h)
{
    h->head = h->n = 0;
}

static top_snap_t *history_at(const top_history_t *h, size_t i)
{
    return (top_snap_t *)&h->snap[(h->head + i) % TOP_HISTORY];
}

static int snap_fill(top_snap_t *sn, const stats_t *s)
{
    size_t need = s->n_names + s->inst_used;
    if (need > sn->cap) {
        top_snap_entry_t *e = realloc(sn->e, need * sizeof *e);
        if (!e) {
            return -1;
        }
        sn->e = e;
        sn->cap = need;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->n_names; i++) {
        sn->e[k].key = table_name_key(s->names[i].kind, s->names[i].name);
        sn->e[k].by_inst = 0;
        sn->e[k++].f = s->names[i].f;
    }
    for (size_t i = 0; i < s->inst_used; i++) {
        if (s->inst[i].in_use) {
            sn->e[k].key = s->inst[i].key;
            sn->e[k].by_inst = 1;
            sn->e[k++].f = s->inst[i].f;
        }
    }
    if (k > 1) { /* sn->e may still be NULL: qsort wants a pointer even for nothing */
        qsort(sn->e, k, sizeof *sn->e, snap_entry_compare);
    }
    sn->n = k;
    sn->elapsed_us = s->elapsed_us;
    sn->outside_us = s->outside_us;
    sn->events = s->stream.events;
    sn->bytes = s->stream.bytes;
    return 0;
}

void top_history_take(top_history_t *h, const stats_t *s)
{
    if (h->n > 0) {
        const top_snap_t *last = history_at(h, h->n - 1);
        if (s->elapsed_us < last->elapsed_us || s->stream.events < last->events) {
            top_history_clear(h); /* the statistics were reset */
        } else if (s->elapsed_us - last->elapsed_us < TOP_HISTORY_STEP_US) {
            return;
        }
    }
    top_snap_t *sn;
    if (h->n == TOP_HISTORY) {
        sn = history_at(h, 0); /* reuse the oldest */
        h->head = (h->head + 1) % TOP_HISTORY;
        h->n--;
    } else {
        sn = history_at(h, h->n);
    }
    if (snap_fill(sn, s) == 0) {
        h->n++;
    }
}

/* The snapshot the window starts at: the newest one at least a second old, else the oldest. */
static const top_snap_t *history_base(const top_history_t *h, uint64_t elapsed_us)
{
    const top_snap_t *best = NULL;
    for (size_t i = 0; i < h->n; i++) {
        const top_snap_t *sn = history_at(h, i);
        if (sn->elapsed_us > elapsed_us) {
            break;
        }
        if (best == NULL || elapsed_us - sn->elapsed_us >= TOP_WINDOW_US) {
            best = sn;
        }
    }
    return best;
}

static const top_snap_entry_t *snap_find(const top_snap_t *sn, uint64_t key, int by_inst)
{
    if (sn == NULL || sn->n == 0) { /* sn->e may be NULL then, which bsearch does not allow */
        return NULL;
    }
    top_snap_entry_t k = {.key = key, .by_inst = (uint64_t)by_inst};
    return bsearch(&k, sn->e, sn->n, sizeof *sn->e, snap_entry_compare);
}

/* cur minus old; a row whose figures went down was reset or reused: all of it is new. */
static void window_figures(top_row_t *r, const top_snap_entry_t *old)
{
    const stats_figures_t *c = &r->cum;
    r->win = *c;
    r->win_max_known = 1;
    if (old == NULL || c->count < old->f.count || c->total_us < old->f.total_us || c->slow < old->f.slow ||
        c->errors < old->f.errors) {
        return;
    }
    r->win.count = c->count - old->f.count;
    r->win.total_us = c->total_us - old->f.total_us;
    r->win.slow = c->slow - old->f.slow;
    r->win.errors = c->errors - old->f.errors;
    r->win_max_known = c->max_us > old->f.max_us || r->win.count == 0;
    if (r->win.count == 0) {
        r->win.max_us = 0;
    }
}

/* ---- the rows ---- */

void top_rows_free(top_rows_t *r)
{
    free(r->rows);
    free(r->pool);
    memset(r, 0, sizeof *r);
}

const char *top_rows_str(const top_rows_t *r, size_t off)
{
    return r->pool ? r->pool + off : "";
}

/* Returns the offset of a copy of s in the pool, 0 ("") when s is NULL or empty, SIZE_MAX when
 * out of memory. */
static size_t rows_intern(top_rows_t *r, const char *s)
{
    if (s == NULL || *s == '\0') {
        return 0;
    }
    size_t len = strlen(s) + 1;
    if (r->pool_len + len > r->pool_cap) {
        size_t cap = r->pool_cap ? r->pool_cap : 4096;
        while (cap < r->pool_len + len) {
            cap *= 2;
        }
        char *p = realloc(r->pool, cap);
        if (!p) {
            return SIZE_MAX;
        }
        r->pool = p;
        r->pool_cap = cap;
    }
    if (len > 0) {
        memcpy(r->pool + r->pool_len, s, len);
    }
    r->pool_len += len;
    return r->pool_len - len;
}

int top_rows_build(top_rows_t *r, const stats_t *s, int by_instance, const top_history_t *h)
{
    size_t n = 0;
    stats_row_t *rows = stats_rows(s, by_instance, STATS_SORT_NAME, &n);
    if (rows == NULL && n == 0 && (s->n_names > 0 || s->inst_used > 0)) {
        return -1;
    }
    const top_snap_t *base = history_base(h, s->elapsed_us);
    if (n > r->cap) {
        top_row_t *nr = realloc(r->rows, n * sizeof *nr);
        if (!nr) {
            free(rows);
            return -1;
        }
        r->rows = nr;
        r->cap = n;
    }
    r->pool_len = 0;
    if (rows_intern(r, "x") == SIZE_MAX) { /* offset 0 stays "" */
        free(rows);
        return -1;
    }
    r->pool[0] = '\0';
    r->pool_len = 1;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const stats_row_t *sr = &rows[i];
        top_row_t *t = &r->rows[i];
        memset(t, 0, sizeof *t);
        t->cum = sr->f;
        t->instances = sr->instances;
        t->lower_bound = (uint8_t)(sr->lower_bound != 0);
        t->name = rows_intern(r, sr->name);
        if (sr->inst != NULL) {
            const stats_instance_t *in = sr->inst;
            t->by_inst = 1;
            t->key = in->key;
            t->named = in->name >= 0;
            t->id = in->id;
            t->parent = in->parent;
            t->label = rows_intern(r, in->label);
            t->end = stats_end_name(s, in);
            if (in->parent != 0) {
                char creator[STATS_TEXT_MAX + 16];
                snprintf(creator, sizeof creator, "%s #%" PRIu32, sr->parent_name ? sr->parent_name : "task",
                    in->parent);
                t->creator = rows_intern(r, creator);
            }
        } else {
            t->key = table_name_key(sr->kind, sr->name);
        }
        if (t->name == SIZE_MAX || t->label == SIZE_MAX || t->creator == SIZE_MAX) {
            rc = -1;
            t->name = t->label = t->creator = 0;
        }
        window_figures(t, snap_find(base, t->key, t->by_inst));
    }
    r->n = n;
    free(rows);
    return rc;
}

void top_head_build(top_head_t *hd, const stats_t *s, const top_history_t *h)
{
    const top_snap_t *base = history_base(h, s->elapsed_us);
    hd->stream = s->stream;
    hd->device = s->device;
    hd->elapsed_us = s->elapsed_us;
    hd->outside_us = s->outside_us;
    hd->overhead = stats_overhead(s);
    hd->slow_us = s->slow_us;
    hd->win_elapsed_us = s->elapsed_us;
    hd->win_outside_us = s->outside_us;
    hd->events_per_s = hd->bytes_per_s = 0;
    if (base != NULL) {
        hd->win_elapsed_us = s->elapsed_us - base->elapsed_us;
        hd->win_outside_us = s->outside_us >= base->outside_us ? s->outside_us - base->outside_us : s->outside_us;
        if (hd->win_elapsed_us > 0) {
            double secs = (double)hd->win_elapsed_us / 1e6;
            hd->events_per_s = (double)(s->stream.events - base->events) / secs;
            hd->bytes_per_s = (double)(s->stream.bytes - base->bytes) / secs;
        }
    }
}
