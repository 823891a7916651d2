/* The live table's spans of one task (docs/live-table.md, "Spans"): `S` on a row shows, in the
 * rows' area, the spans of its task (a name: summed over its instances; an instance: its own),
 * the most inclusive time first; `S`, Esc or Backspace goes back to the rows. The figures are
 * taken with the rows (never while frozen), from stats_spans.h. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_spans.h"
#include "top_draw.h"

/* The spans of the task shown, from s (when they are to be taken). */
void top_spans_take(top_view_t *v, const stats_t *s)
{
    if (!v->spans_open || s == NULL) {
        return;
    }
    free(v->spans);
    v->spans = NULL;
    v->n_spans = 0;
    size_t n = 0;
    stats_span_view_t *all = stats_span_rows(s, v->spans_by_inst, &n);
    if (all == NULL) {
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int mine = v->spans_by_inst ? all[i].inst_key == v->spans_key
                                    : all[i].task_name >= 0 && all[i].inst_key == 0 &&
                                          strcmp(s->names[all[i].task_name].name, v->spans_task) == 0;
        if (mine) {
            all[k++] = all[i];
        }
    }
    v->spans = all;
    v->n_spans = k;
}

unsigned top_spans_key(top_view_t *v, int key)
{
    (void)key;
    if (v->spans_open) {
        v->spans_open = 0;
        return TOP_REDRAW_ROWS;
    }
    if (v->n_vis == 0) {
        return TOP_REDRAW_NONE;
    }
    const top_row_t *r = top_table_row(v, v->cursor);
    char name[STATS_TEXT_MAX * 4 + 64];
    top_table_name(v, r, name, sizeof name);
    snprintf(v->spans_title, sizeof v->spans_title, "%s", name);
    snprintf(v->spans_task, sizeof v->spans_task, "%s", top_rows_str(&v->base[top_table_grouping(v)], r->name));
    v->spans_by_inst = r->by_inst;
    v->spans_key = r->key;
    v->spans_open = 1;
    top_spans_take(v, v->p ? pipeline_stats(v->p) : NULL);
    return TOP_REDRAW_ROWS;
}

static void ms(char *out, size_t size, uint64_t us)
{
    snprintf(out, size, "%" PRIu64 ".%03u", us / 1000u, (unsigned)(us % 1000u));
}

/* The columns: the times, then (from a device that reports memory) what the spans allocated and
 * the collections inside them (docs/live-table.md, "Spans"), then p95 and unwound; those that do
 * not fit beside a name of 12 are left out from the right. */
enum { SPAN_W = 10, SPAN_COLS_MAX = 12, SPAN_NAME_MIN = 12 };

static unsigned span_columns(const top_view_t *v, const char **head, int *mem_at)
{
    static const char *times[] = {"count", "own ms", "incl ms", "wall ms", "max ms"};
    static const char *mem[] = {"alloc", "own alloc", "alloc/s", "gc", "gc ms"};
    static const char *tail[] = {"p95 ms", "unwound"};
    unsigned n = 0;
    for (unsigned i = 0; i < 5; i++) {
        head[n++] = times[i];
    }
    *mem_at = -1;
    if (v->head.device.mem != 0) {
        *mem_at = (int)n;
        for (unsigned i = 0; i < 5; i++) {
            head[n++] = mem[i];
        }
    }
    for (unsigned i = 0; i < 2; i++) {
        head[n++] = tail[i];
    }
    while (n > 5 && v->width - (int)n * (SPAN_W + 1) - 1 < SPAN_NAME_MIN) {
        n--;
    }
    return n;
}

/* The memory cells of a span: "-" for what the device does not measure, a lower bound marked. */
static void span_mem_cells(const top_view_t *v, const stats_span_figures_t *f, char (*cells)[32])
{
    stats_figures_t fi = stats_span_mem_figures(&f->incl_mem), fo = stats_span_mem_figures(&f->own_mem);
    stats_mem_t mi, mo;
    stats_mem_figures(v->head.device.mem, v->head.elapsed_us, &fi, &mi);
    stats_mem_figures(v->head.device.mem, v->head.elapsed_us, &fo, &mo);
    const char *ge = v->unicode ? "\xE2\x89\xA5" : ">";
    const char *al = mi.alloc_lower ? ge : "", *gl = mi.gc_at_least ? ge : "";
    if (mi.alloc_known) {
        snprintf(cells[0], 32, "%s%" PRIu64, al, mi.alloc_bytes);
        snprintf(cells[1], 32, "%s%" PRIu64, al, mo.alloc_bytes);
        snprintf(cells[2], 32, "%s%.0f", al, mi.alloc_per_s);
    } else {
        snprintf(cells[0], 32, "-");
        snprintf(cells[1], 32, "-");
        snprintf(cells[2], 32, "-");
    }
    if (mi.gc_known) {
        snprintf(cells[3], 32, "%s%" PRIu64, gl, mi.gc_count);
    } else {
        snprintf(cells[3], 32, "-");
    }
    if (mi.gc_timed) {
        snprintf(cells[4], 32, "%s%" PRIu64 ".%03u", gl, mi.gc_us / 1000u, (unsigned)(mi.gc_us % 1000u));
    } else {
        snprintf(cells[4], 32, "-");
    }
}

void top_draw_spans(const top_view_t *v)
{
    const char *head[SPAN_COLS_MAX];
    int mem_at;
    const int ncols = (int)span_columns(v, head, &mem_at);
    const int W = SPAN_W;
    const top_layout_t *l = &v->lay;
    attr_t th = top_attr_pair(v, PAIR_THEAD, A_REVERSE);
    int name_w = v->width - ncols * (W + 1) - 1;
    if (name_w < 8) {
        name_w = 8;
    }
    char title[STATS_TEXT_MAX * 4 + 96];
    snprintf(title, sizeof title, "spans of %s", v->spans_title);
    int x = top_draw_cell(v, l->table_y, 0, 1, "", 0, th);
    x = top_draw_cell(v, l->table_y, x, name_w, title, 0, th);
    for (int c = 0; c < ncols && x < v->width; c++) {
        x = top_draw_cell(v, l->table_y, x, 1, "", 0, th);
        x = top_draw_cell(v, l->table_y, x, W, head[c], 1, th);
    }
    if (x < v->width) {
        top_draw_cell(v, l->table_y, x, v->width - x, "", 0, th);
    }
    if (v->n_spans == 0) {
        top_draw_seg(v, l->rows_y, 1, "no span of this task has closed yet (S or Esc: back to the tasks)", A_DIM);
        return;
    }
    for (int i = 0; i < l->rows_h && (size_t)i < v->n_spans; i++) {
        const stats_span_view_t *sp = &v->spans[i];
        const stats_span_figures_t *f = &sp->f;
        char cells[SPAN_COLS_MAX][32];
        int k = 0;
        snprintf(cells[k++], sizeof cells[0], "%" PRIu64, f->count);
        ms(cells[k++], sizeof cells[0], f->own_us);
        ms(cells[k++], sizeof cells[0], f->inclusive_us);
        ms(cells[k++], sizeof cells[0], f->wall_us);
        ms(cells[k++], sizeof cells[0], f->max_us);
        if (mem_at >= 0) {
            span_mem_cells(v, f, &cells[k]);
            k += 5;
        }
        ms(cells[k++], sizeof cells[0], sp->pct[1]);
        snprintf(cells[k++], sizeof cells[0], "%" PRIu64, f->unwound);
        int hog = f->max_us >= v->head.slow_us;
        int y = l->rows_y + i;
        x = top_draw_cell(v, y, 0, 1, "", 0, A_NORMAL);
        x = top_draw_cell(v, y, x, name_w, sp->span, 0, hog ? A_BOLD : A_NORMAL);
        for (int c = 0; c < ncols && x < v->width; c++) {
            x = top_draw_cell(v, y, x, 1, "", 0, A_NORMAL);
            x = top_draw_cell(v, y, x, W, cells[c], 1, c == 4 && hog ? A_BOLD : A_NORMAL);
        }
    }
}
