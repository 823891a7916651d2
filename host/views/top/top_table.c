/* What the live table shows of its rows: the grouping, the filter, the sort, the cursor that
 * stays on its row, and the text of each cell. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_report.h"
#include "top_private.h"

/* ---- what is shown ---- */

int top_table_grouping(const top_view_t *v)
{
    return v->by_instance || v->drilled;
}

top_colset_t top_table_colset(const top_view_t *v)
{
    if (v->colset == TOP_SET_MAIN || v->colset == TOP_SET_MAIN_LATE) {
        return v->head.late_known ? TOP_SET_MAIN_LATE : TOP_SET_MAIN;
    }
    return v->colset;
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
    /* "(tasks past the cap)" is an instance row (id 0) of its own name, not a task: no "#0" */
    if (grouping && r->named && r->id != 0) {
        char id[11];
        TOP_FORMAT_JOIN(out, size, name, " #", top_format_u32(id, r->id), *label ? " [" : "", label, *label ? "]" : "");
    } else {
        TOP_FORMAT_JOIN(out, size, name, *label ? " [" : "", label, *label ? "]" : "");
    }
}

/* An instance's name cut to fit a cell: what tells instances apart, " #id [label]", stays whole
 * while the shared function name gives way (down to a few characters), so a narrow terminal still
 * shows which Sensor._go is which. Other rows are cut at the end when drawn. */
static void table_name_fit(const top_view_t *v, const top_row_t *r, int width, char *out, size_t size)
{
    char whole[512], suffix[160], head[512];
    top_table_name(v, r, out, size);
    if (!top_table_grouping(v) || !r->named || r->id == 0 ||
        top_format_fit(whole, sizeof whole, out, width + 1, "") <= width) {
        return;
    }
    const top_rows_t *rs = &v->base[top_table_grouping(v)];
    const char *label = top_rows_str(rs, r->label);
    char id[11];
    TOP_FORMAT_JOIN(suffix, sizeof suffix, " #", top_format_u32(id, r->id), *label ? " [" : "", label, *label ? "]" : "");
    int suffix_w = top_format_fit(whole, sizeof whole, suffix, width + 1, "");
    int head_w = width - suffix_w;
    if (head_w < TOP_NAME_KEEP) {
        head_w = TOP_NAME_KEEP; /* the label is cut at the end when drawn instead */
    }
    top_format_fit(head, sizeof head, top_rows_str(rs, r->name), head_w, top_cut_mark(v));
    TOP_FORMAT_JOIN(out, size, head, suffix);
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

static uint64_t late_mean(const top_row_t *r)
{
    return r->late_mean_us;
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
    case TOP_COL_LATE_MAX: x = a->late_max_us; y = b->late_max_us; break;
    case TOP_COL_LATE_MEAN: x = late_mean(a); y = late_mean(b); break;
    case TOP_COL_BLOCKED:
        text = 1;
        c = sort_text(top_rows_str(rs, a->culprit), top_rows_str(rs, b->culprit));
        break;
    case TOP_COL_P50:
    case TOP_COL_P95:
    case TOP_COL_P99:
        x = a->slice_pct[v->sort - TOP_COL_P50];
        y = b->slice_pct[v->sort - TOP_COL_P50];
        break;
    case TOP_COL_LATE_P50:
    case TOP_COL_LATE_P95:
    case TOP_COL_LATE_P99:
        x = a->late_pct[v->sort - TOP_COL_LATE_P50];
        y = b->late_pct[v->sort - TOP_COL_LATE_P50];
        break;
    case TOP_COL_ALLOC:
    case TOP_COL_ALLOC_RATE: x = fa->alloc; y = fb->alloc; break; /* the same time for every row */
    case TOP_COL_GC: x = fa->gc_count; y = fb->gc_count; break;
    case TOP_COL_GC_MS: x = fa->gc_us; y = fb->gc_us; break;
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
    top_table_move(v, 0);
    return 0;
}

/* ---- the cursor ---- */

static int table_rows_h(const top_view_t *v)
{
    return v->lay.rows_h > 0 ? v->lay.rows_h : 1;
}

void top_table_move(top_view_t *v, long delta)
{
    long n = (long)v->n_vis;
    long c = (long)v->cursor + delta;
    if (c >= n) {
        c = n - 1;
    }
    if (c < 0) {
        c = 0;
    }
    v->cursor = (size_t)c;
    long h = table_rows_h(v);
    long top = (long)v->scroll;
    if (c < top) {
        top = c;
    }
    if (c >= top + h) {
        top = c - h + 1;
    }
    if (top > n - h) {
        top = n - h; /* no empty space below the last row when rows were removed */
    }
    if (top < 0) {
        top = 0;
    }
    v->scroll = (size_t)top;
    if (n > 0) {
        const top_row_t *r = top_table_row(v, v->cursor);
        v->cursor_key = r->key;
        v->cursor_by_inst = r->by_inst;
        v->cursor_set = 1;
    }
}

/* ---- cells ---- */

/* Lateness and the distributions: cumulative figures only, so "-" in the last-second window (and
 * where the device does not report lateness, or a row has no distribution yet). */
static void table_late_cell(const top_view_t *v, const top_row_t *r, top_col_t c, int width, char *out, size_t size,
    top_class_t *cls)
{
    int is_late = c == TOP_COL_LATE_MAX || c == TOP_COL_LATE_MEAN || c == TOP_COL_BLOCKED || c >= TOP_COL_LATE_P50;
    int known = is_late ? r->late_known : r->pct_known;
    if (c >= TOP_COL_LATE_P50) {
        known = known && r->pct_known;
    }
    *cls = TOP_CLASS_ZERO;
    if (v->window || !known) {
        TOP_FORMAT_JOIN(out, size, "-");
        return;
    }
    uint64_t us = 0;
    switch (c) {
    case TOP_COL_BLOCKED: {
        const char *who = top_rows_str(&v->base[top_table_grouping(v)], r->culprit);
        if (!*who) {
            TOP_FORMAT_JOIN(out, size, "-");
            return;
        }
        /* the share first, so that a cut name still shows it */
        char share[16];
        char pct[11];
        TOP_FORMAT_JOIN(share, sizeof share, " ", top_format_u32(pct, (uint32_t)((r->culprit_permille + 5) / 10)), " %");
        char name[STATS_TEXT_MAX * 4 + 8];
        int room = width - (int)strlen(share);
        top_format_fit(name, sizeof name, who, room > 1 ? room : 1, top_cut_mark(v));
        TOP_FORMAT_JOIN(out, size, name, share);
        *cls = TOP_CLASS_SMALL;
        return;
    }
    case TOP_COL_LATE_MAX: us = r->late_max_us; break;
    case TOP_COL_LATE_MEAN: us = late_mean(r); break;
    case TOP_COL_P50:
    case TOP_COL_P95:
    case TOP_COL_P99: us = r->slice_pct[c - TOP_COL_P50]; break;
    default: us = r->late_pct[c - TOP_COL_LATE_P50]; break;
    }
    top_format_ms(out, size, us, width);
    *cls = top_format_class_slice(us, v->head.slow_us);
}

/* Memory (docs/usage.md, "Memory"): only what the device's HELLO says it measures, "-" for the
 * rest; a lower bound marked as one. */
static void table_mem_cell(const top_view_t *v, const stats_figures_t *f, top_col_t c, int width, char *out,
    size_t size, top_class_t *cls)
{
    stats_mem_t m;
    stats_mem_figures(v->head.device.mem, v->window ? v->head.win_elapsed_us : v->head.elapsed_us, f, &m);
    char num[64];
    const char *ge = v->unicode ? "\xE2\x89\xA5" : ">";
    int known = c == TOP_COL_GC ? m.gc_known : c == TOP_COL_GC_MS ? m.gc_timed : m.alloc_known;
    int lower = c == TOP_COL_GC || c == TOP_COL_GC_MS ? m.gc_at_least : m.alloc_lower;
    *cls = TOP_CLASS_ZERO;
    if (!known) {
        TOP_FORMAT_JOIN(out, size, "-");
        return;
    }
    int w = width - (lower ? 1 : 0);
    switch (c) {
    case TOP_COL_ALLOC_RATE:
        top_format_count(num, sizeof num, (uint64_t)(m.alloc_per_s + 0.5), w);
        *cls = top_format_class_count((uint64_t)(m.alloc_per_s / 100.0));
        break;
    case TOP_COL_ALLOC:
        top_format_count(num, sizeof num, m.alloc_bytes, w);
        *cls = top_format_class_count(m.alloc_bytes / 100u);
        break;
    case TOP_COL_GC:
        top_format_count(num, sizeof num, m.gc_count, w);
        *cls = top_format_class_bad(m.gc_count);
        break;
    default:
        top_format_ms(num, sizeof num, m.gc_us, w);
        *cls = top_format_class_slice(m.gc_us, v->head.slow_us);
        break;
    }
    TOP_FORMAT_JOIN(out, size, lower ? ge : "", num);
}

/* --compare: a figure's change against the base, for a name (instances have none of their own): a
 * significant one is loud, "~" dim. */
static void table_delta_cell(const top_view_t *v, const top_row_t *r, top_col_t c, char *out, size_t size,
    top_class_t *cls)
{
    static const stats_cmp_fig_t figs[] = {STATS_CMP_RATE, STATS_CMP_SHARE, STATS_CMP_MAX, STATS_CMP_P99,
                                           STATS_CMP_LATE_MAX};
    *cls = TOP_CLASS_ZERO;
    out[0] = '\0';
    if (v->opt.cmp_base == NULL || v->cmp_now == NULL || r->by_inst) {
        return;
    }
    const char *name = top_rows_str(&v->base[top_table_grouping(v)], r->name);
    if (compare_report_cell(v->opt.cmp_base, v->cmp_now, name, figs[c - TOP_COL_D_RATE], out, size)) {
        *cls = TOP_CLASS_LARGE;
    } else if (strcmp(out, "new") == 0) {
        *cls = TOP_CLASS_MEDIUM;
    }
}

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
            TOP_FORMAT_JOIN(num, sizeof num, "-");
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
    case TOP_COL_LATE_MAX:
    case TOP_COL_LATE_MEAN:
    case TOP_COL_BLOCKED:
    case TOP_COL_P50:
    case TOP_COL_P95:
    case TOP_COL_P99:
    case TOP_COL_LATE_P50:
    case TOP_COL_LATE_P95:
    case TOP_COL_LATE_P99:
        table_late_cell(v, r, c, width, out, size, cls);
        return;
    case TOP_COL_D_RATE:
    case TOP_COL_D_SHARE:
    case TOP_COL_D_MAX:
    case TOP_COL_D_P99:
    case TOP_COL_D_LATE_MAX:
        table_delta_cell(v, r, c, out, size, cls);
        return;
    case TOP_COL_ALLOC_RATE:
    case TOP_COL_ALLOC:
    case TOP_COL_GC:
    case TOP_COL_GC_MS:
        table_mem_cell(v, f, c, width, out, size, cls);
        return;
    case TOP_COL_END:
        TOP_FORMAT_JOIN(out, size, r->end ? r->end : "");
        *cls = r->end && (strcmp(r->end, "raised") == 0 || strcmp(r->end, "cancelled") == 0) ? TOP_CLASS_ALERT
                                                                                               : TOP_CLASS_SMALL;
        return;
    case TOP_COL_CREATOR: {
        const char *cr = top_rows_str(&v->base[top_table_grouping(v)], r->creator);
        TOP_FORMAT_JOIN(out, size, *cr ? cr : "-");
        return;
    }
    default:
        table_name_fit(v, r, width, out, size);
        *cls = top_table_is_hog(v, r) ? TOP_CLASS_ALERT : TOP_CLASS_SMALL;
        return;
    }
    TOP_FORMAT_JOIN(out, size, mark, num);
}
