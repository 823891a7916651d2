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

static size_t snap_slot(uint64_t key, int by_inst, size_t mask)
{
    uint64_t h = (key ^ ((uint64_t)by_inst << 63)) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & mask;
}

/* ---- the window's history ----
 * A snapshot is the rows the view built, their cumulative figures, taken every quarter second of
 * host time: of the grouping shown only (the other one starts its own history when it is shown),
 * and found again through a small hash table rather than sorted. */

void top_history_free(top_history_t *h)
{
    for (size_t i = 0; i < TOP_HISTORY; i++) {
        free(h->snap[i].e);
        free(h->snap[i].slot);
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

static int snap_fill(top_snap_t *sn, const top_rows_t *rows, int grouping, const stats_t *s, uint64_t now_us)
{
    size_t n = rows->n, slots = 16;
    while (slots < 2 * n) {
        slots *= 2;
    }
    if (n > sn->cap) {
        top_snap_entry_t *e = realloc(sn->e, n * sizeof *e);
        if (!e) {
            return -1;
        }
        sn->e = e;
        sn->cap = n;
    }
    if (slots > sn->mask + 1 || sn->slot == NULL) {
        uint32_t *sl = realloc(sn->slot, slots * sizeof *sl);
        if (!sl) {
            return -1;
        }
        sn->slot = sl;
        sn->mask = slots - 1;
    }
    memset(sn->slot, 0, (sn->mask + 1) * sizeof *sn->slot);
    for (size_t i = 0; i < n; i++) {
        const top_row_t *r = &rows->rows[i];
        sn->e[i].key = r->key;
        sn->e[i].by_inst = r->by_inst;
        sn->e[i].f = r->cum;
        size_t at = snap_slot(r->key, r->by_inst, sn->mask);
        while (sn->slot[at] != 0) {
            at = (at + 1) & sn->mask;
        }
        sn->slot[at] = (uint32_t)i + 1;
    }
    sn->n = n;
    sn->grouping = grouping;
    sn->taken_us = now_us;
    sn->elapsed_us = s->elapsed_us;
    sn->outside_us = s->outside_us;
    sn->events = s->stream.events;
    sn->bytes = s->stream.bytes;
    return 0;
}

void top_history_take(top_history_t *h, const top_rows_t *rows, int grouping, const stats_t *s, uint64_t now_us)
{
    if (h->n > 0) {
        const top_snap_t *last = history_at(h, h->n - 1);
        if (s->elapsed_us < last->elapsed_us || s->stream.events < last->events) {
            top_history_clear(h); /* the statistics were reset */
        } else if (last->grouping == grouping && now_us - last->taken_us < TOP_HISTORY_STEP_US) {
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
    if (snap_fill(sn, rows, grouping, s, now_us) == 0) {
        h->n++;
    }
}

int top_history_due(const top_history_t *h, int grouping, uint64_t now_us)
{
    if (h->n == 0) {
        return 1;
    }
    const top_snap_t *last = history_at(h, h->n - 1);
    return last->grouping != grouping || now_us - last->taken_us >= TOP_HISTORY_STEP_US;
}

/* The snapshot of a grouping the window starts at: the newest one at least a second of device
 * time old, else the oldest. */
static const top_snap_t *history_base(const top_history_t *h, int grouping, uint64_t elapsed_us)
{
    const top_snap_t *best = NULL;
    for (size_t i = 0; i < h->n; i++) {
        const top_snap_t *sn = history_at(h, i);
        if (sn->elapsed_us > elapsed_us) {
            break;
        }
        if (sn->grouping == grouping && (best == NULL || elapsed_us - sn->elapsed_us >= TOP_WINDOW_US)) {
            best = sn;
        }
    }
    return best;
}

static const top_snap_entry_t *snap_find(const top_snap_t *sn, uint64_t key, int by_inst)
{
    if (sn == NULL || sn->n == 0) {
        return NULL;
    }
    for (size_t at = snap_slot(key, by_inst, sn->mask); sn->slot[at] != 0; at = (at + 1) & sn->mask) {
        const top_snap_entry_t *e = &sn->e[sn->slot[at] - 1];
        if (e->key == key && e->by_inst == (uint64_t)by_inst) {
            return e;
        }
    }
    return NULL;
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
    /* memory only grows too; a row whose did not is new (all of it in the window) */
    if (c->alloc >= old->f.alloc && c->gc_count >= old->f.gc_count && c->gc_us >= old->f.gc_us) {
        r->win.alloc = c->alloc - old->f.alloc;
        r->win.gc_count = c->gc_count - old->f.gc_count;
        r->win.gc_us = c->gc_us - old->f.gc_us;
    }
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

/* Lateness and the distributions, as the report has them (cumulative). */
static void rows_late(top_rows_t *r, top_row_t *t, const stats_t *s, const stats_row_t *sr)
{
    t->pct_known = sr->f.count > 0;
    memcpy(t->slice_pct, sr->slice_pct, sizeof t->slice_pct);
    const stats_late_t *l = sr->late;
    if (l == NULL) {
        return;
    }
    t->late_known = 1;
    t->late_count = l->count;
    t->late_total_us = l->total_us;
    t->late_max_us = l->max_us;
    t->late_mean_us = stats_late_mean_us(l);
    memcpy(t->late_pct, sr->late_pct, sizeof t->late_pct);
    uint64_t blocked = 0;
    int32_t who = stats_late_culprit(s, l, &blocked);
    if (l->total_us == 0) {
        return;
    }
    /* the one column says what took most of the waiting: a task, or the time outside tasks (the
     * scheduler, the drain) when that was more; the report gives both */
    if (who != STATS_LATE_NONE && blocked >= l->outside_us) {
        t->culprit = rows_intern(r, stats_late_who_name(s, who));
        t->culprit_permille = (uint32_t)(blocked * 1000u / l->total_us);
    } else if (l->outside_us > 0) {
        t->culprit = rows_intern(r, "(outside tasks)");
        t->culprit_permille = (uint32_t)(l->outside_us * 1000u / l->total_us);
    }
}

int top_rows_build(top_rows_t *r, const stats_t *s, int by_instance, const top_history_t *h)
{
    size_t n = 0;
    stats_row_t *rows = stats_rows(s, by_instance, STATS_SORT_NAME, &n);
    if (rows == NULL && n == 0 && (s->n_names > 0 || s->inst_used > 0)) {
        return -1;
    }
    const top_snap_t *base = history_base(h, by_instance, s->elapsed_us);
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
        rows_late(r, t, s, sr);
        if (t->name == SIZE_MAX || t->label == SIZE_MAX || t->creator == SIZE_MAX || t->culprit == SIZE_MAX) {
            rc = -1;
            t->name = t->label = t->creator = t->culprit = 0;
        }
        window_figures(t, snap_find(base, t->key, t->by_inst));
    }
    r->n = n;
    free(rows);
    return rc;
}

void top_head_build(top_head_t *hd, const stats_t *s, const top_history_t *h, int grouping)
{
    const top_snap_t *base = history_base(h, grouping, s->elapsed_us);
    hd->stream = s->stream;
    hd->device = s->device;
    hd->elapsed_us = s->elapsed_us;
    hd->outside_us = s->outside_us;
    hd->overhead = stats_overhead(s);
    hd->slow_us = s->slow_us;
    hd->late_known = s->device.late_unit != 0;
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
