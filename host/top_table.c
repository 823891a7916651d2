/* The live table's rows: copied out of the statistics (so a frozen view keeps them), windowed
 * against the snapshot of a second ago, filtered and sorted for the screen. */
#include <ctype.h>
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

/* ---- what is shown ---- */

int top_table_grouping(const top_view_t *v)
{
    return v->by_instance || v->drilled;
}

const stats_figures_t *top_table_figures(const top_view_t *v, const top_row_t *r)
{
    return v->window ? &r->win : &r->cum;
}

const top_row_t *top_table_row(const top_view_t *v, size_t i)
{
    return &v->base[top_table_grouping(v)].rows[v->vis[i]];
}

static uint64_t row_mean(const stats_figures_t *f)
{
    return f->count ? (f->total_us + f->count / 2) / f->count : 0;
}

int top_table_is_hog(const top_view_t *v, const top_row_t *r)
{
    uint64_t el = v->window ? v->head.win_elapsed_us : v->head.elapsed_us;
    return el > 0 && (double)top_table_figures(v, r)->total_us / (double)el >= TOP_HOG_SHARE;
}

void top_table_name(const top_view_t *v, const top_row_t *r, char *out, size_t size)
{
    const top_rows_t *rs = &v->base[top_table_grouping(v)];
    const char *name = top_rows_str(rs, r->name);
    const char *label = top_rows_str(rs, r->label);
    int grouping = top_table_grouping(v);
    if (grouping && r->named) {
        snprintf(out, size, "%s #%" PRIu32 "%s%s%s", name, r->id, *label ? " [" : "", label, *label ? "]" : "");
    } else {
        snprintf(out, size, "%s%s%s%s", name, *label ? " [" : "", label, *label ? "]" : "");
    }
}

/* An instance's name cut to fit a cell: what tells instances apart, " #id [label]", stays whole
 * while the shared function name gives way (down to a few characters), so a narrow terminal still
 * shows which Sensor._go is which. Other rows are cut at the end when drawn. */
static void table_name_fit(const top_view_t *v, const top_row_t *r, int width, char *out, size_t size)
{
    char whole[512], suffix[160], head[512];
    top_table_name(v, r, out, size);
    if (!top_table_grouping(v) || !r->named || top_format_fit(whole, sizeof whole, out, width + 1, "") <= width) {
        return;
    }
    const top_rows_t *rs = &v->base[top_table_grouping(v)];
    const char *label = top_rows_str(rs, r->label);
    snprintf(suffix, sizeof suffix, " #%" PRIu32 "%s%s%s", r->id, *label ? " [" : "", label, *label ? "]" : "");
    int suffix_w = top_format_fit(whole, sizeof whole, suffix, width + 1, "");
    int head_w = width - suffix_w;
    if (head_w < TOP_NAME_KEEP) {
        head_w = TOP_NAME_KEEP; /* the label is cut at the end when drawn instead */
    }
    top_format_fit(head, sizeof head, top_rows_str(rs, r->name), head_w, top_cut_mark(v));
    snprintf(out, size, "%s%s", head, suffix);
}

/* ASCII case-insensitive substring (names are mostly ASCII; other bytes compare exactly). */
static int table_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i])) {
            i++;
        }
        if (i == n) {
            return 1;
        }
    }
    return n == 0;
}

static const top_view_t *sort_view; /* qsort has no context argument */

static int sort_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int row_order(const void *pa, const void *pb)
{
    const top_view_t *v = sort_view;
    const top_rows_t *rs = &v->base[top_table_grouping(v)];
    const top_row_t *a = &rs->rows[*(const size_t *)pa], *b = &rs->rows[*(const size_t *)pb];
    const stats_figures_t *fa = top_table_figures(v, a), *fb = top_table_figures(v, b);
    uint64_t x = 0, y = 0;
    int text = 0, c = 0;
    switch (v->sort) {
    case TOP_COL_INSTANCES: x = a->instances; y = b->instances; break;
    case TOP_COL_COUNT: x = fa->count; y = fb->count; break;
    case TOP_COL_TOTAL:
    case TOP_COL_SHARE: x = fa->total_us; y = fb->total_us; break;
    case TOP_COL_MAX: x = fa->max_us; y = fb->max_us; break;
    case TOP_COL_MEAN: x = row_mean(fa); y = row_mean(fb); break;
    case TOP_COL_SLOW: x = fa->slow; y = fb->slow; break;
    case TOP_COL_ERRORS: x = fa->errors; y = fb->errors; break;
    case TOP_COL_END: text = 1; c = sort_text(a->end, b->end); break;
    case TOP_COL_CREATOR: text = 1; c = sort_text(top_rows_str(rs, a->creator), top_rows_str(rs, b->creator)); break;
    default: text = 1; break;
    }
    if (!text && x != y) {
        c = x > y ? -1 : 1; /* numbers: largest first */
    }
    if (c == 0) {
        c = strcmp(top_rows_str(rs, a->name), top_rows_str(rs, b->name));
    }
    if (c == 0) {
        c = a->key < b->key ? -1 : a->key > b->key;
    }
    return v->invert ? -c : c;
}

int top_table_select(top_view_t *v)
{
    const top_rows_t *rs = &v->base[top_table_grouping(v)];
    if (rs->n > v->vis_cap) {
        size_t *nv = realloc(v->vis, rs->n * sizeof *nv);
        if (!nv) {
            v->n_vis = 0;
            return -1;
        }
        v->vis = nv;
        v->vis_cap = rs->n;
    }
    char name[STATS_TEXT_MAX * 2 + 32];
    size_t k = 0;
    for (size_t i = 0; i < rs->n; i++) {
        const top_row_t *r = &rs->rows[i];
        if (v->drilled && (!r->named || strcmp(top_rows_str(rs, r->name), v->drill) != 0)) {
            continue;
        }
        if (v->filter[0]) {
            top_table_name(v, r, name, sizeof name);
            if (!table_contains(name, v->filter)) {
                continue;
            }
        }
        if (v->window && r->win.count == 0 && r->win.errors == 0 && !v->drilled) {
            continue; /* the last second: only what ran in it */
        }
        v->vis[k++] = i;
    }
    v->n_vis = k;
    sort_view = v;
    if (k > 1) {
        qsort(v->vis, k, sizeof *v->vis, row_order);
    }
    sort_view = NULL;

    /* the cursor follows its row, as htop's does */
    size_t cur = v->cursor;
    if (v->cursor_set) {
        for (size_t i = 0; i < k; i++) {
            const top_row_t *r = &rs->rows[v->vis[i]];
            if (r->key == v->cursor_key && r->by_inst == v->cursor_by_inst) {
                cur = i;
                break;
            }
        }
    }
    v->cursor = k == 0 ? 0 : (cur < k ? cur : k - 1);
    top_keys_move(v, 0);
    return 0;
}

/* ---- cells ---- */

void top_table_cell(const top_view_t *v, const top_row_t *r, top_col_t c, int width, char *out, size_t size,
    top_class_t *cls)
{
    const stats_figures_t *f = top_table_figures(v, r);
    const char *mark = r->lower_bound && !v->window ? (v->unicode ? "\xE2\x89\xA5" : ">") : "";
    int mw = *mark ? 1 : 0;
    uint64_t el = v->window ? v->head.win_elapsed_us : v->head.elapsed_us;
    uint64_t slow_us = v->head.slow_us;
    char num[64];
    *cls = TOP_CLASS_SMALL;
    num[0] = '\0';
    switch (c) {
    case TOP_COL_INSTANCES:
        top_format_count(num, sizeof num, r->instances, width);
        *cls = top_format_class_count(r->instances);
        mark = "";
        break;
    case TOP_COL_COUNT:
        top_format_count(num, sizeof num, f->count, width - mw);
        *cls = top_format_class_count(f->count);
        break;
    case TOP_COL_TOTAL:
        top_format_ms(num, sizeof num, f->total_us, width - mw);
        *cls = el ? top_format_class_share((double)f->total_us / (double)el) : TOP_CLASS_ZERO;
        break;
    case TOP_COL_SHARE:
        if (el == 0) {
            snprintf(num, sizeof num, "-");
            *cls = TOP_CLASS_ZERO;
            mark = "";
            break;
        }
        top_format_share(num, sizeof num, (double)f->total_us / (double)el, width - mw);
        *cls = top_format_class_share((double)f->total_us / (double)el);
        break;
    case TOP_COL_MAX:
        if (v->window && !r->win_max_known) {
            /* no new maximum inside the window: two totals only bound it by the older maximum */
            top_format_ms(num, sizeof num, r->cum.max_us, width - 1);
            *cls = TOP_CLASS_ZERO;
            mark = v->unicode ? "\xE2\x89\xA4" : "<";
            break;
        }
        top_format_ms(num, sizeof num, f->max_us, width - mw);
        *cls = top_format_class_slice(f->max_us, slow_us);
        break;
    case TOP_COL_MEAN:
        top_format_ms(num, sizeof num, row_mean(f), width);
        *cls = top_format_class_slice(row_mean(f), slow_us);
        mark = "";
        break;
    case TOP_COL_SLOW:
        top_format_count(num, sizeof num, f->slow, width);
        *cls = top_format_class_bad(f->slow);
        mark = "";
        break;
    case TOP_COL_ERRORS:
        top_format_count(num, sizeof num, f->errors, width);
        *cls = top_format_class_bad(f->errors);
        mark = "";
        break;
    case TOP_COL_END:
        snprintf(out, size, "%s", r->end ? r->end : "");
        *cls = r->end && (strcmp(r->end, "raised") == 0 || strcmp(r->end, "cancelled") == 0) ? TOP_CLASS_ALERT
                                                                                               : TOP_CLASS_SMALL;
        return;
    case TOP_COL_CREATOR: {
        const char *cr = top_rows_str(&v->base[top_table_grouping(v)], r->creator);
        snprintf(out, size, "%s", *cr ? cr : "-");
        return;
    }
    default:
        table_name_fit(v, r, width, out, size);
        *cls = top_table_is_hog(v, r) ? TOP_CLASS_ALERT : TOP_CLASS_SMALL;
        return;
    }
    snprintf(out, size, "%s%s", mark, num);
}
