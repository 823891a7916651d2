/* The live table's drawing: the screen's geometry (layout, resize), the primitives every part of
 * the screen draws with (cells cut to fit, segments, attributes by colour class), and the whole
 * screen put together from its parts: header (top_draw_header.c), table (top_draw_table.c) or
 * timeline (top_draw_timeline.c), text
 * pane and footer (top_draw_pane.c), help (top_draw_help.c). ncurses sends only the cells that
 * changed. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <inttypes.h>
#include <stdio.h>

#include "top_draw.h"

#define TOP_MIN_W 40
#define TOP_MIN_H 10

/* ---- layout ---- */

void top_layout(top_view_t *v)
{
    top_layout_t *l = &v->lay;
    int h = v->height;
    l->head_lines = h >= 16 ? 4 : h >= 12 ? 3 : 2;
    l->footer_y = h - 1;
    /* the pane: a few lines below the table; enlarged, half of the room; or none */
    int body = l->footer_y - l->head_lines;
    int normal = h >= 24 ? 5 : h >= 18 ? 3 : 0;
    int large = body / 2 + 1;
    if (large > body - 3) {
        large = body - 3; /* the table keeps its heading, a row and the outside-tasks row */
    }
    if (large < 2) {
        large = body >= 3 ? 2 : 0;
    }
    switch (v->pane_mode) {
    case TOP_PANE_HIDDEN: l->pane_h = 0; break;
    case TOP_PANE_LARGE: l->pane_h = large; break;
    default: l->pane_h = normal > 0 || !v->pane_focus ? normal : large; break;
    }
    l->pane_y = l->footer_y - l->pane_h;
    l->outside_y = l->pane_y - 1;
    l->table_y = l->head_lines;
    l->rows_y = l->table_y + 1;
    l->rows_h = l->outside_y - l->rows_y;
    if (l->rows_h < 1) {
        l->rows_h = 1;
    }
    l->ncols = top_format_columns_set(top_table_colset(v), top_table_grouping(v), v->width, l->cols, &l->name_w);
}

/* KEY_RESIZE and the start: the one place that learns the size. */
void top_resize(top_view_t *v)
{
    int h, w;
    getmaxyx(stdscr, h, w);
    v->height = h;
    v->width = w;
    top_layout(v);
    top_table_move(v, 0);
}

/* ---- primitives ---- */

attr_t top_attr_class(const top_view_t *v, top_class_t c)
{
    if (v->colour) {
        switch (c) {
        case TOP_CLASS_ZERO: return A_DIM;
        case TOP_CLASS_SMALL: return A_NORMAL;
        case TOP_CLASS_MEDIUM: return COLOR_PAIR(PAIR_MEDIUM);
        case TOP_CLASS_LARGE: return COLOR_PAIR(PAIR_LARGE) | A_BOLD;
        case TOP_CLASS_ALERT: return COLOR_PAIR(PAIR_ALERT) | A_BOLD;
        }
    }
    switch (c) {
    case TOP_CLASS_ZERO: return A_DIM;
    case TOP_CLASS_LARGE: return A_BOLD;
    case TOP_CLASS_ALERT: return A_BOLD | A_UNDERLINE;
    default: return A_NORMAL;
    }
}

attr_t top_attr_pair(const top_view_t *v, int pair, attr_t mono)
{
    return v->colour ? COLOR_PAIR(pair) : mono;
}

const char *top_sep(const top_view_t *v)
{
    return v->unicode ? " \xC2\xB7 " : " | ";
}

/* Draws s in [x, x + width) of line y, cut to fit, right-aligned or left-aligned and padded with
 * spaces in the same attribute. Returns x + width. */
int top_draw_cell(const top_view_t *v, int y, int x, int width, const char *s, int right, attr_t attr)
{
    char buf[STATS_TEXT_MAX * 4 + 64];
    if (width <= 0 || x >= v->width) {
        return x + (width > 0 ? width : 0);
    }
    if (x + width > v->width) {
        width = v->width - x;
    }
    int w = top_format_fit(buf, sizeof buf, s, width, top_cut_mark(v));
    attrset(attr);
    move(y, x);
    if (right) {
        for (int i = w; i < width; i++) {
            addch(' ');
        }
    }
    addstr(buf);
    if (!right) {
        for (int i = w; i < width; i++) {
            addch(' ');
        }
    }
    attrset(A_NORMAL);
    return x + width;
}

/* Draws s at x as far as the line goes. Returns the x after it. */
int top_draw_seg(const top_view_t *v, int y, int x, const char *s, attr_t attr)
{
    char buf[STATS_TEXT_MAX * 4 + 64];
    if (x >= v->width) {
        return x;
    }
    int w = top_format_fit(buf, sizeof buf, s, v->width - x, top_cut_mark(v));
    attrset(attr);
    mvaddstr(y, x, buf);
    attrset(A_NORMAL);
    return x + w;
}

/* "label N" with N coloured as a count of bad things. */
int top_draw_counter(const top_view_t *v, int y, int x, const char *label, uint64_t n)
{
    char num[32];
    snprintf(num, sizeof num, "%" PRIu64, n);
    x = top_draw_seg(v, y, x, label, A_NORMAL);
    return top_draw_seg(v, y, x, num, n ? top_attr_class(v, TOP_CLASS_ALERT) : A_DIM);
}


/* ---- the whole screen ---- */

void top_draw(top_view_t *v)
{
    erase();
    if (v->width < TOP_MIN_W || v->height < TOP_MIN_H) {
        /* wrapped, so that even a terminal a few columns wide says it whole */
        char buf[80], line[80];
        snprintf(buf, sizeof buf, "terminal too small (%dx%d): needs %dx%d; q quits", v->width, v->height,
            TOP_MIN_W, TOP_MIN_H);
        const char *p = buf;
        for (int y = 0; *p && y < v->height; y++) {
            size_t len = top_format_wrap(p, v->width);
            snprintf(line, sizeof line, "%.*s", (int)len, p);
            top_draw_seg(v, y, 0, line, A_BOLD);
            p += len;
        }
    } else {
        top_draw_header(v);
        if (v->help) {
            top_draw_help(v);
        } else {
            if (v->timeline) {
                top_draw_timeline(v);
            } else {
                top_draw_table(v);
            }
            top_draw_pane(v);
        }
        top_draw_footer(v);
        if (v->message[0]) {
            top_draw_message(v);
        }
    }
    wnoutrefresh(stdscr);
    doupdate();
}
