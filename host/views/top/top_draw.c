/* The live table's drawing: the screen's geometry (layout, resize), and the whole screen put
 * together from its parts: header (top_draw_header.c), table (top_draw_table.c) or timeline
 * (top_draw_timeline.c), text pane and footer (top_draw_pane.c), help (top_draw_help.c). The
 * parts draw with top_paint.c's primitives and never call back here. ncurses sends only the
 * cells that changed. */
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
    l->blocked_w = top_format_col(TOP_COL_BLOCKED)->width;
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
            if (v->hogs_list || v->capture_shown) {
                top_draw_hogs(v);
            } else if (v->spans_open) {
                top_draw_spans(v);
            } else if (v->timeline) {
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
