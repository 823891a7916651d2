/* The live table's timeline (T), drawn over the rows' area: a heading with the time axis, a lane
 * per row shown (the rows in the table's order, so the top ones by the current sort, scrolled with
 * the cursor), and a lane for the time outside tasks. top_timeline.c works out each cell. */
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

#include "top_draw.h"

/* The label column: the name, cut, leaving the lanes most of the width. */
static int label_width(const top_view_t *v)
{
    int min = top_format_name_min(top_table_grouping(v));
    int w = v->width / 4;
    w = w < min ? min : w;
    return w < v->lay.name_w ? w : v->lay.name_w;
}

/* The glyph of a lane's cell, and its attribute. */
static const char *cell_glyph(const top_view_t *v, uint8_t c, attr_t *attr)
{
    switch (c) {
    case TOP_CELL_RAN:
        *attr = top_attr_class(v, TOP_CLASS_MEDIUM);
        return v->unicode ? "\xE2\x96\x88" : "="; /* full block */
    case TOP_CELL_SLOW:
        *attr = top_attr_class(v, TOP_CLASS_ALERT);
        return v->unicode ? "\xE2\x96\x93" : "#"; /* dark shade */
    case TOP_CELL_SPAN:
        *attr = top_attr_class(v, TOP_CLASS_MEDIUM);
        return v->unicode ? "\xE2\x96\x84" : "s"; /* lower half block: ran inside a span */
    case TOP_CELL_UNKNOWN:
        *attr = A_DIM;
        return v->unicode ? "\xC2\xB7" : "~"; /* middle dot */
    default:
        *attr = A_NORMAL;
        return " ";
    }
}

static const char *outside_glyph(const top_view_t *v, uint8_t c)
{
    static const char *const utf8[] = {" ", "\xE2\x96\x91", "\xE2\x96\x92", "\xE2\x96\x93", "\xC2\xB7"};
    static const char *const ascii[] = {" ", ".", ":", "%", "~"};
    return (v->unicode ? utf8 : ascii)[c <= TOP_OUTSIDE_UNKNOWN ? c : 0];
}

/* Draws a lane's cells from x: runs of the same glyph in one call each. */
void top_draw_lane(const top_view_t *v, int y, int x, const uint8_t *cells, int n, int outside)
{
    char run[TOP_TIMELINE_CELLS_MAX * 3 + 8];
    move(y, x);
    for (int i = 0; i < n;) {
        attr_t attr = A_DIM;
        const char *g = outside ? outside_glyph(v, cells[i]) : cell_glyph(v, cells[i], &attr);
        size_t gl = strlen(g), len = 0;
        int j = i;
        while (j < n && cells[j] == cells[i] && len + gl < sizeof run) {
            memcpy(run + len, g, gl);
            len += gl;
            j++;
        }
        run[len] = '\0';
        attrset(attr);
        addstr(run);
        i = j;
    }
    attrset(A_NORMAL);
}

/* A time before now for the axis: "-5s", "-0.5s", "-20ms". */
static void axis_label(char *out, size_t size, uint64_t back_us)
{
    if (back_us >= 1000000u && back_us % 100000u == 0) {
        snprintf(out, size, "-%gs", (double)back_us / 1e6);
    } else if (back_us >= 1000000u) {
        snprintf(out, size, "-%.2fs", (double)back_us / 1e6);
    } else {
        snprintf(out, size, "-%gms", (double)back_us / 1e3);
    }
}

/* The heading: the label column's title, then ticks at round times before the right edge, from the
 * span's left edge (its first cell: a tick there whenever the span is a whole number of steps, which
 * every zoom's is), the edge's name ("now") over the last cells. */
void top_draw_timeline_axis(const top_view_t *v, int y, int lw, int ncells, uint64_t span, const char *title,
    const char *edge)
{
    attr_t head = top_attr_pair(v, PAIR_THEAD, A_REVERSE);
    top_draw_cell(v, y, 0, lw, title, 0, head);
    top_draw_cell(v, y, lw, v->width - lw, "", 0, head);
    /* a tick at least every 12 cells: the smallest round step that leaves room for its label */
    static const uint64_t steps[] = {10000u, 20000u, 50000u, 100000u, 200000u, 500000u, 1000000u, 2000000u,
        5000000u, 10000000u, 20000000u, 30000000u};
    uint64_t step = steps[sizeof steps / sizeof steps[0] - 1];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (steps[i] * (uint64_t)ncells >= span * 12u) {
            step = steps[i];
            break;
        }
    }
    int ew = (int)strlen(edge);
    int x0 = lw + 1;
    int now_x = x0 + ncells - ew, free_x = x0;
    /* from the left edge (the whole span back) to the right one, each where the one before left room */
    for (uint64_t k = span / step; k >= 1 && span > 0; k--) {
        uint64_t back = k * step;
        int c = (int)((span - back) * (uint64_t)ncells / span);
        char lab[32];
        axis_label(lab, sizeof lab, back);
        int w = (int)strlen(lab);
        if (x0 + c < free_x || x0 + c + w + 1 >= now_x) {
            continue;
        }
        top_draw_cell(v, y, x0 + c, 1, v->unicode ? "\xE2\x94\x82" : "|", 0, head);
        top_draw_cell(v, y, x0 + c + 1, w, lab, 0, head);
        free_x = x0 + c + w + 2;
    }
    top_draw_cell(v, y, now_x, ew, edge, 1, head | A_BOLD);
}

static void draw_axis(const top_view_t *v, int lw, int ncells)
{
    char title[64];
    snprintf(title, sizeof title, "%s %s", top_table_grouping(v) ? "task" : "name",
        v->unicode ? "\xE2\x86\x93 lanes" : "lanes");
    top_draw_timeline_axis(v, v->lay.table_y, lw, ncells, v->tl_span_us, title, "now");
}

/* The buffers of a render of lanes x ncells. Returns 0, or -1 when out of memory. */
int top_draw_timeline_room(top_view_t *v, size_t lanes, int ncells)
{
    size_t need = (lanes + 1) * (size_t)ncells;
    if (need <= v->tl_cap) {
        return 0;
    }
    uint8_t *c = realloc(v->tl_cells, need);
    if (c == NULL) {
        return -1;
    }
    v->tl_cells = c;
    uint8_t *o = realloc(v->tl_outside, (size_t)ncells);
    if (o == NULL) {
        return -1;
    }
    v->tl_outside = o;
    uint64_t *b = realloc(v->tl_busy, (size_t)ncells * sizeof *b);
    if (b == NULL) {
        return -1;
    }
    v->tl_busy = b;
    v->tl_cap = need;
    return 0;
}

void top_draw_timeline(top_view_t *v)
{
    const top_layout_t *l = &v->lay;
    int lw = label_width(v);
    int ncells = v->width - lw - 1;
    if (ncells > (int)TOP_TIMELINE_CELLS_MAX) {
        ncells = (int)TOP_TIMELINE_CELLS_MAX;
    }
    if (ncells < 4) {
        top_draw_seg(v, l->rows_y, 1, "too narrow for the timeline (T shows the table)", A_DIM);
        return;
    }
    draw_axis(v, lw, ncells);

    /* the lanes: the rows shown, from the scroll on */
    top_timeline_lane_t lanes[TOP_TIMELINE_LANES_MAX];
    size_t n = 0;
    int grouping = top_table_grouping(v);
    const top_rows_t *rs = &v->base[grouping];
    for (int i = 0; i < l->rows_h && v->scroll + (size_t)i < v->n_vis && n < TOP_TIMELINE_LANES_MAX; i++) {
        const top_row_t *r = top_table_row(v, v->scroll + (size_t)i);
        lanes[n].by_inst = r->by_inst || grouping;
        lanes[n].key = lanes[n].by_inst ? r->key : top_timeline_name_hash(top_rows_str(rs, r->name));
        n++;
    }
    if (top_draw_timeline_room(v, n, ncells) != 0) {
        top_draw_seg(v, l->rows_y, 1, "out of memory for the timeline", A_DIM);
        return;
    }
    top_timeline_render(&v->tl, v->tl_to_us, v->tl_span_us, v->head.slow_us, lanes, n, ncells, v->tl_cells,
        v->tl_outside, v->tl_busy);

    attr_t sel = top_attr_pair(v, PAIR_SORTED, A_REVERSE);
    char name[STATS_TEXT_MAX * 2 + 64];
    if (n == 0) {
        top_draw_seg(v, l->rows_y, 1, v->filter[0] ? "no task matches the filter (Esc clears it)"
                                                   : "waiting for task data from the device", A_DIM);
    }
    for (size_t i = 0; i < n; i++) {
        size_t at = v->scroll + i;
        const top_row_t *r = top_table_row(v, at);
        top_class_t cls;
        top_table_cell(v, r, TOP_COL_NAME, lw, name, sizeof name, &cls);
        int y = l->rows_y + (int)i;
        top_draw_cell(v, y, 0, lw, name, 0, at == v->cursor ? sel : top_attr_class(v, cls));
        top_draw_lane(v, y, lw + 1, v->tl_cells + i * (size_t)ncells, ncells, 0);
    }
    int oy = n == 0 ? l->rows_y + 1 : l->rows_y + (int)n;
    top_draw_cell(v, oy, 0, lw, "(outside tasks)", 0, A_DIM);
    top_draw_lane(v, oy, lw + 1, v->tl_outside, ncells, 1);
}
