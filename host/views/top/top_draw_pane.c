/* The live table's bottom: the device text pane and the footer of keys. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "top_draw.h"

void top_draw_pane(const top_view_t *v)
{
    const top_layout_t *l = &v->lay;
    if (l->pane_h == 0) {
        return;
    }
    char title[160];
    top_draw_glyphs(l->pane_y, 0, v->unicode ? "\xE2\x94\x80" : "-", v->width, v->pane_focus ? A_BOLD : A_DIM);
    uint64_t shown = v->frozen ? v->text_frozen : v->text_total, end = top_pane_end(v);
    int x = top_draw_seg(v, l->pane_y, 2, " device output ", v->pane_focus ? A_BOLD : A_DIM);
    if (end < shown) {
        snprintf(title, sizeof title, " %llu newer line%s below ", (unsigned long long)(shown - end),
            shown - end == 1 ? "" : "s");
        x = top_draw_seg(v, l->pane_y, x + 1, title, top_attr_class(v, TOP_CLASS_LARGE));
    }
    if (v->pane_focus) {
        top_draw_seg(v, l->pane_y, x + 1, " arrows PgUp PgDn Home End scroll, Tab back to the table ", A_BOLD);
    }
    int lines = l->pane_h - 1;
    for (int i = 0; i < lines; i++) {
        /* the newest line at the bottom; lines the ring has overwritten are gone */
        uint64_t back = (uint64_t)(lines - i);
        if (back > end || v->text_total - (end - back) > TOP_TEXT_LINES) {
            continue;
        }
        uint64_t idx = end - back;
        top_draw_seg(v, l->pane_y + 1 + i, 0, v->text[idx % TOP_TEXT_LINES], A_NORMAL);
    }
}

void top_draw_footer(const top_view_t *v)
{
    int y = v->lay.footer_y;
    attr_t key = A_BOLD;
    attr_t label = top_attr_pair(v, PAIR_KEY, A_REVERSE);
    if (v->filter_edit) {
        int x = top_draw_seg(v, y, 0, "Filter: ", key);
        x = top_draw_seg(v, y, x, v->filter, label);
        x = top_draw_seg(v, y, x, "_", label | A_BLINK);
        top_draw_seg(v, y, x + 2, "Enter keep  Esc clear", A_DIM);
        return;
    }
    static const char *const live[][2] = {{"F1", "Help  "}, {"/", "Filter"}, {"g", "Group "}, {"w", "Window"},
        {"p", "Freeze"}, {"r", "Reset "}, {"<>", "Sort  "}, {"I", "Invert"}, {"q", "Quit  "}};
    static const char *const replay[][2] = {{"F1", "Help  "}, {"/", "Filter"}, {"g", "Group "}, {"w", "Window"},
        {"Spc", "Pause "}, {"+-", "Speed "}, {"p", "Freeze"}, {"<>", "Sort  "}, {"q", "Quit  "}};
    const char *const(*items)[2] = v->status && v->status->replay ? replay : live;
    size_t n = v->status && v->status->replay ? sizeof replay / sizeof replay[0] : sizeof live / sizeof live[0];
    int x = 0;
    for (size_t i = 0; i < n; i++) {
        int need = (int)(strlen(items[i][0]) + strlen(items[i][1]) + 1);
        if (x + need > v->width) {
            break;
        }
        x = top_draw_seg(v, y, x, items[i][0], key);
        x = top_draw_seg(v, y, x, items[i][1], label) + 1;
    }
}

/* The message, whole: wrapped over up to TOP_MESSAGE_LINES lines that end on the footer's, over
 * whatever is there. */
void top_draw_message(const top_view_t *v)
{
    const char *lines[TOP_MESSAGE_LINES];
    size_t lens[TOP_MESSAGE_LINES];
    const char *p = v->message;
    int n = 0;
    int room = v->width - 2;
    while (*p && n < TOP_MESSAGE_LINES) {
        size_t len = n + 1 < TOP_MESSAGE_LINES ? top_format_wrap(p, room) : strlen(p); /* the last is cut */
        lines[n] = p;
        lens[n++] = len;
        p += len;
    }
    attr_t attr = top_attr_pair(v, PAIR_ALERT, A_NORMAL) | A_REVERSE | A_BOLD;
    for (int i = 0; i < n; i++) {
        char line[TOP_MESSAGE_MAX];
        int y = v->lay.footer_y - (n - 1) + i;
        size_t len = lens[i];
        while (len > 0 && lines[i][len - 1] == ' ') {
            len--; /* the space the line broke at */
        }
        snprintf(line, sizeof line, " %.*s", (int)len, lines[i]);
        top_draw_cell(v, y, 0, v->width, line, 0, attr);
    }
}

