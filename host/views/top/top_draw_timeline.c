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

/* Draws a lane's cells from x, straight into the window's cells in one call (add_wchnstr; in
 * ASCII, addchnstr): addstr decoded each glyph as a multibyte character, most of a timeline's
 * refresh. Each cell value's glyph is made once a call. */
void top_draw_lane(const top_view_t *v, int y, int x, const uint8_t *cells, int n, int outside)
{
    enum { KINDS = 8 };
    n = n > (int)TOP_TIMELINE_CELLS_MAX ? (int)TOP_TIMELINE_CELLS_MAX : n;
    if (n <= 0) {
        return;
    }
    attr_t attrs[KINDS];
    const char *glyphs[KINDS];
    for (int k = 0; k < KINDS; k++) {
        attrs[k] = A_DIM;
        glyphs[k] = outside ? outside_glyph(v, (uint8_t)k) : cell_glyph(v, (uint8_t)k, &attrs[k]);
    }
    if (!v->unicode) {
        chtype line[TOP_TIMELINE_CELLS_MAX], kind[KINDS];
        for (int k = 0; k < KINDS; k++) {
            kind[k] = (chtype)(unsigned char)glyphs[k][0] | attrs[k];
        }
        for (int i = 0; i < n; i++) {
            line[i] = kind[cells[i] < KINDS ? cells[i] : 0];
        }
        mvaddchnstr(y, x, line, n);
        return;
    }
    static cchar_t line[TOP_TIMELINE_CELLS_MAX];
    cchar_t kind[KINDS];
    for (int k = 0; k < KINDS; k++) {
        wchar_t wc[2] = {0, 0};
        if (mbtowc(&wc[0], glyphs[k], strlen(glyphs[k])) <= 0) {
            wc[0] = L' ';
        }
        setcchar(&kind[k], wc, attrs[k] & ~A_COLOR, (short)PAIR_NUMBER(attrs[k]), NULL);
    }
    for (int i = 0; i < n; i++) {
        line[i] = kind[cells[i] < KINDS ? cells[i] : 0];
    }
    mvadd_wchnstr(y, x, line, n);
}

/* The heading: the label column's title, then the ticks (top_timeline_ticks), the edge's name
 * ("now") over the last cells, and a mark at cell mark (-1: none), which the ticks leave room
 * for (over the edge's name, it is drawn instead of that). */
void top_draw_timeline_axis(const top_view_t *v, int y, int lw, int ncells, uint64_t span, const char *title,
    const char *edge, int mark)
{
    attr_t head = top_attr_pair(v, PAIR_THEAD, A_REVERSE);
    top_draw_cell(v, y, 0, lw, title, 0, head);
    top_draw_cell(v, y, lw, v->width - lw, "", 0, head);
    int ew = (int)strlen(edge);
    int x0 = lw + 1;
    top_tick_t ticks[TOP_TICKS_MAX];
    size_t n = top_timeline_ticks(span, ncells, ew, mark, ticks, TOP_TICKS_MAX);
    for (size_t i = 0; i < n; i++) {
        int w = (int)strlen(ticks[i].label);
        top_draw_cell(v, y, x0 + ticks[i].cell, 1, v->unicode ? "\xE2\x94\x82" : "|", 0, head);
        top_draw_cell(v, y, x0 + ticks[i].cell + 1, w, ticks[i].label, 0, head);
    }
    if (mark < ncells - ew) {
        top_draw_cell(v, y, x0 + ncells - ew, ew, edge, 1, head | A_BOLD);
    }
    if (mark >= 0 && mark < ncells) {
        top_draw_cell(v, y, x0 + mark, 1, v->unicode ? "\xE2\x96\xBC" : "v", 0, head | A_BOLD);
    }
}

static void draw_axis(const top_view_t *v, int lw, int ncells)
{
    char title[64];
    snprintf(title, sizeof title, "%s %s", top_table_grouping(v) ? "task" : "name",
        v->unicode ? "\xE2\x86\x93 lanes" : "lanes");
    top_draw_timeline_axis(v, v->lay.table_y, lw, ncells, v->tl_span_us, title, "now", -1);
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
