/* The live table's primitives (top_draw.h): attributes by colour class, and text drawn cut to its
 * room with anything a terminal could act on made visible (top_format_fit). Every part of the
 * screen (top_draw_*.c) draws with these and nothing else; they call nothing of the parts. */
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

/* A cell's width in printable ASCII (most of what is drawn: figures, names, labels) goes straight
 * into the window's cells, text and attribute together (addchnstr): addstr decodes each byte as
 * a multibyte character, half of a refresh's cost. Returns 0 when the text is not all ASCII, or
 * longer than the room (the caller then draws it with addstr). */
#define TOP_PUT_MAX 512

static int top_put_ascii(int y, int x, const char *text, int pad_before, int pad_after, attr_t attr)
{
    chtype cells[TOP_PUT_MAX];
    int n = 0;
    if (pad_before < 0 || pad_after < 0 || pad_before + pad_after >= TOP_PUT_MAX) {
        return 0;
    }
    for (; n < pad_before; n++) {
        cells[n] = ' ' | attr;
    }
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p < 0x20 || *p >= 0x7F || n + pad_after >= TOP_PUT_MAX) {
            return 0;
        }
        cells[n++] = *p | attr;
    }
    for (int i = 0; i < pad_after; i++) {
        cells[n++] = ' ' | attr;
    }
    mvaddchnstr(y, x, cells, n);
    return 1;
}

void top_draw_glyphs(int y, int x, const char *glyph, int n, attr_t attr)
{
    static cchar_t line[TOP_PUT_MAX];
    wchar_t wc[2] = {L' ', 0};
    cchar_t one;
    if (mbtowc(&wc[0], glyph, strlen(glyph)) <= 0) {
        wc[0] = L' ';
    }
    setcchar(&one, wc, attr & ~A_COLOR, (short)PAIR_NUMBER(attr), NULL);
    int most = n > TOP_PUT_MAX ? TOP_PUT_MAX : n;
    for (int i = 0; i < most; i++) {
        line[i] = one;
    }
    for (int at = 0; at < n; at += TOP_PUT_MAX) {
        mvadd_wchnstr(y, x + at, line, n - at < TOP_PUT_MAX ? n - at : TOP_PUT_MAX);
    }
}

/* n spaces at the cursor, a few calls for a wide pad rather than one addch each */
static void top_draw_spaces(int n)
{
    static const char spaces[] = "                                                                ";
    const int most = (int)sizeof spaces - 1;
    for (; n > 0; n -= most) {
        addnstr(spaces, n < most ? n : most);
    }
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
    if (top_put_ascii(y, x, buf, right ? width - w : 0, right ? 0 : width - w, attr)) {
        return x + width;
    }
    attrset(attr);
    move(y, x);
    if (right) {
        top_draw_spaces(width - w);
    }
    addstr(buf);
    if (!right) {
        top_draw_spaces(width - w);
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
    if (top_put_ascii(y, x, buf, 0, 0, attr)) {
        return x + w;
    }
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
