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

void top_draw_spans(const top_view_t *v)
{
    static const char *head[] = {"count", "own ms", "incl ms", "wall ms", "max ms", "p95 ms", "unwound"};
    enum { W = 10, NCOLS = 7 };
    const top_layout_t *l = &v->lay;
    attr_t th = top_attr_pair(v, PAIR_THEAD, A_REVERSE);
    int name_w = v->width - NCOLS * (W + 1) - 1;
    if (name_w < 8) {
        name_w = 8;
    }
    char title[STATS_TEXT_MAX * 4 + 96];
    snprintf(title, sizeof title, "spans of %s", v->spans_title);
    int x = top_draw_cell(v, l->table_y, 0, 1, "", 0, th);
    x = top_draw_cell(v, l->table_y, x, name_w, title, 0, th);
    for (int c = 0; c < NCOLS && x < v->width; c++) {
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
        char cells[NCOLS][32];
        snprintf(cells[0], sizeof cells[0], "%" PRIu64, f->count);
        ms(cells[1], sizeof cells[1], f->own_us);
        ms(cells[2], sizeof cells[2], f->inclusive_us);
        ms(cells[3], sizeof cells[3], f->wall_us);
        ms(cells[4], sizeof cells[4], f->max_us);
        ms(cells[5], sizeof cells[5], sp->pct[1]);
        snprintf(cells[6], sizeof cells[6], "%" PRIu64, f->unwound);
        int y = l->rows_y + i;
        x = top_draw_cell(v, y, 0, 1, "", 0, A_NORMAL);
        x = top_draw_cell(v, y, x, name_w, sp->span, 0, f->max_us >= v->head.slow_us ? A_BOLD : A_NORMAL);
        for (int c = 0; c < NCOLS && x < v->width; c++) {
            x = top_draw_cell(v, y, x, 1, "", 0, A_NORMAL);
            x = top_draw_cell(v, y, x, W, cells[c], 1, c == 4 && f->max_us >= v->head.slow_us ? A_BOLD : A_NORMAL);
        }
    }
}
