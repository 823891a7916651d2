/* The live table's table: the column headings with the sort mark, the rows, the cursor, and the
 * "(outside tasks)" row under them. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <stdio.h>

#include "top_draw.h"

/* A column's width in this drawing. */
static int col_w(const top_layout_t *l, top_col_t c)
{
    return c == TOP_COL_NAME ? l->name_w : c == TOP_COL_BLOCKED ? l->blocked_w : top_format_col(c)->width;
}

static void draw_table_head(const top_view_t *v, const top_layout_t *l)
{
    attr_t head = top_attr_pair(v, PAIR_THEAD, A_REVERSE);
    attr_t sorted = top_attr_pair(v, PAIR_SORTED, A_REVERSE) | A_BOLD;
    const char *mark = top_sort_mark(v);
    char buf[64];
    int x = 0;
    for (size_t i = 0; i < l->ncols; i++) {
        const top_col_info_t *ci = top_format_col(l->cols[i]);
        int w = col_w(l, l->cols[i]);
        const char *text = l->cols[i] == TOP_COL_NAME && top_table_grouping(v) ? "task" : ci->head;
        int is_sorted = l->cols[i] == v->sort;
        /* the ASCII marks are letters ("v"): a space keeps them off the heading ("v total ms") */
        if (!is_sorted) {
            TOP_FORMAT_JOIN(buf, sizeof buf, text);
        } else if (ci->left) {
            TOP_FORMAT_JOIN(buf, sizeof buf, text, v->unicode ? "" : " ", mark);
        } else {
            TOP_FORMAT_JOIN(buf, sizeof buf, mark, v->unicode ? "" : " ", text);
        }
        if (i > 0) {
            x = top_draw_cell(v, l->table_y, x, 1, "", 0, head);
        }
        x = top_draw_cell(v, l->table_y, x, w, buf, !ci->left, is_sorted ? sorted : head);
    }
    if (x < v->width) {
        top_draw_cell(v, l->table_y, x, v->width - x, "", 0, head);
    }
}

static void draw_row(const top_view_t *v, const top_layout_t *l, int y, const top_row_t *r, int selected)
{
    attr_t sel = top_attr_pair(v, PAIR_SORTED, A_REVERSE);
    char buf[STATS_TEXT_MAX * 2 + 64];
    int x = 0;
    for (size_t i = 0; i < l->ncols; i++) {
        const top_col_info_t *ci = top_format_col(l->cols[i]);
        int w = col_w(l, l->cols[i]);
        top_class_t cls;
        top_table_cell(v, r, l->cols[i], w, buf, sizeof buf, &cls);
        if (i > 0) {
            x = top_draw_cell(v, y, x, 1, "", 0, selected ? sel : A_NORMAL);
        }
        x = top_draw_cell(v, y, x, w, buf, !ci->left, selected ? sel : top_attr_class(v, cls));
    }
    if (selected && x < v->width) {
        top_draw_cell(v, y, x, v->width - x, "", 0, sel);
    }
}

/* Right under the last row, as the report has it; at the bottom of the area when rows fill it. */
static void draw_outside(const top_view_t *v, const top_layout_t *l, int y)
{
    uint64_t el = v->window ? v->head.win_elapsed_us : v->head.elapsed_us;
    uint64_t out = v->window ? v->head.win_outside_us : v->head.outside_us;
    double share = el ? (double)out / (double)el : 0;
    char buf[64];
    int x = 0;
    for (size_t i = 0; i < l->ncols; i++) {
        int w = col_w(l, l->cols[i]);
        if (i > 0) {
            x++;
        }
        switch (l->cols[i]) {
        case TOP_COL_NAME: x = top_draw_cell(v, y, x, w, "(outside tasks)", 0, A_DIM); break;
        case TOP_COL_TOTAL:
            top_format_ms(buf, sizeof buf, out, w);
            x = top_draw_cell(v, y, x, w, buf, 1, top_attr_class(v, top_format_class_share(share)));
            break;
        case TOP_COL_SHARE:
            if (el) {
                top_format_share(buf, sizeof buf, share, w);
            } else {
                snprintf(buf, sizeof buf, "-");
            }
            x = top_draw_cell(v, y, x, w, buf, 1, top_attr_class(v, top_format_class_share(share)));
            break;
        default: x += w; break;
        }
    }
}

/* The widths of this drawing: blocked by takes what its cells need from the name column's room
 * that the names shown do not use (it shows "(outside tasks) 80 %", 20 columns, in 18). */
static void table_widths(const top_view_t *v, top_layout_t *l)
{
    int blocked = 0;
    for (size_t i = 0; i < l->ncols; i++) {
        blocked |= l->cols[i] == TOP_COL_BLOCKED;
    }
    if (!blocked) {
        return;
    }
    char buf[STATS_TEXT_MAX * 4 + 64], fit[STATS_TEXT_MAX * 4 + 64];
    int name_need = top_format_fit(fit, sizeof fit, "(outside tasks)", 1000, "~"), need = 0;
    for (int i = 0; i < l->rows_h && v->scroll + (size_t)i < v->n_vis; i++) {
        const top_row_t *r = top_table_row(v, v->scroll + (size_t)i);
        top_table_name(v, r, buf, sizeof buf);
        int w = top_format_fit(fit, sizeof fit, buf, 1000, "~");
        name_need = w > name_need ? w : name_need;
        top_class_t cls;
        top_table_cell(v, r, TOP_COL_BLOCKED, 1000, buf, sizeof buf, &cls);
        w = top_format_fit(fit, sizeof fit, buf, 1000, "~");
        need = w > need ? w : need;
    }
    l->blocked_w = top_format_widen(&l->name_w, name_need, top_format_name_min(top_table_grouping(v)),
        top_format_col(TOP_COL_BLOCKED)->width, need);
}

void top_draw_table(const top_view_t *v)
{
    top_layout_t lay = v->lay;
    const top_layout_t *l = &lay;
    table_widths(v, &lay);
    draw_table_head(v, l);
    if (v->n_vis == 0) {
        const char *why = "waiting for task data from the device";
        if (v->filter[0]) {
            why = "no task matches the filter (Esc clears it)";
        } else if (v->window && v->head.elapsed_us > 0) {
            why = "no task ran in the last second";
        }
        top_draw_seg(v, l->rows_y, 1, why, A_DIM);
    }
    int i = 0;
    for (; i < l->rows_h && v->scroll + (size_t)i < v->n_vis; i++) {
        size_t at = v->scroll + (size_t)i;
        draw_row(v, l, l->rows_y + i, top_table_row(v, at), at == v->cursor);
    }
    draw_outside(v, l, v->n_vis == 0 ? l->rows_y + 1 : l->rows_y + i);
}
