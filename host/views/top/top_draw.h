/* The live table's drawing, shared by top_draw*.c and top_view.c: the screen's geometry, the
 * primitives each part draws with, and the parts. Only those files include it (it needs curses). */
#ifndef AIOPROF_TOP_DRAW_H
#define AIOPROF_TOP_DRAW_H

#include <curses.h>
#include <stdint.h>

#include "top_private.h"

enum { PAIR_MEDIUM = 1, PAIR_LARGE, PAIR_ALERT, PAIR_THEAD, PAIR_SORTED, PAIR_GOOD, PAIR_KEY };

/* top_draw.c: geometry. top_layout places the parts for the current size and grouping;
 * top_resize learns the size (KEY_RESIZE, the start) and lays out again. */
void top_layout(top_view_t *v);
void top_resize(top_view_t *v);

/* top_paint.c: primitives. Every string drawn goes through top_format_fit (cut to its room,
 * anything a terminal could act on made visible). */
attr_t top_attr_class(const top_view_t *v, top_class_t c);
attr_t top_attr_pair(const top_view_t *v, int pair, attr_t mono);
const char *top_sep(const top_view_t *v);
/* Draws s in [x, x + width) of line y, cut to fit, right- or left-aligned and padded with spaces
 * in the same attribute. Returns x + width. */
int top_draw_cell(const top_view_t *v, int y, int x, int width, const char *s, int right, attr_t attr);
/* Draws s at x as far as the line goes. Returns the x after it. */
int top_draw_seg(const top_view_t *v, int y, int x, const char *s, attr_t attr);
/* n copies of one glyph (a character of one column, UTF-8) from x on line y, straight into the
 * window's cells in one call (a rule). */
void top_draw_glyphs(int y, int x, const char *glyph, int n, attr_t attr);
/* "label N" with N coloured as a count of bad things. */
int top_draw_counter(const top_view_t *v, int y, int x, const char *label, uint64_t n);

/* The whole screen (top_draw.c), and its parts. */
void top_draw(top_view_t *v);
void top_draw_header(const top_view_t *v); /* top_draw_header.c */
void top_draw_table(const top_view_t *v);  /* top_draw_table.c */
void top_draw_timeline(top_view_t *v);     /* top_draw_timeline.c */
/* ... its parts, for a capture's timeline too: a lane's cells from x; the heading (title over the
 * labels, ticks back from the right edge, named edge, a mark over cell mark that the ticks leave
 * room for, -1: none); the render's buffers (0, or -1: no memory) */
void top_draw_lane(const top_view_t *v, int y, int x, const uint8_t *cells, int n, int outside);
void top_draw_timeline_axis(const top_view_t *v, int y, int lw, int ncells, uint64_t span, const char *title,
    const char *edge, int mark);
int top_draw_timeline_room(top_view_t *v, size_t lanes, int ncells);
void top_draw_hogs(top_view_t *v);         /* top_draw_hogs.c: the hogs' list, or a capture's timeline */
void top_draw_pane(const top_view_t *v);   /* top_draw_pane.c */
void top_draw_footer(const top_view_t *v); /* top_draw_pane.c */
void top_draw_message(const top_view_t *v); /* top_draw_pane.c */
void top_draw_help(top_view_t *v);         /* top_draw_help.c */
void top_draw_spans(const top_view_t *v);  /* top_spans.c */

#endif
