/* The live table's help screen: the keys (from top_keys.c) and what the colours and marks mean. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <string.h>

#include "top_draw.h"

void top_draw_help(const top_view_t *v)
{
    size_t n;
    const top_key_help_t *h = top_keys_help(&n);
    int y = v->lay.head_lines;
    int bottom = v->lay.footer_y;
    y = (top_draw_seg(v, y, 0, "aioprof-top keys", A_BOLD), y + 1);
    int kw = 0;
    for (size_t i = 0; i < n; i++) {
        int w = (int)strlen(h[i].keys);
        kw = w > kw ? w : kw;
    }
    if (kw > v->width / 3) {
        kw = v->width / 3; /* narrow: the descriptions matter more */
    }
    for (size_t i = 0; i < n && y < bottom; i++, y++) {
        top_draw_cell(v, y, 1, kw, h[i].keys, 0, A_BOLD);
        top_draw_seg(v, y, kw + 3, h[i].what, A_NORMAL);
    }
    static const char *const legend[] = {
        "dim: zero; red: over --slow, errors, or a hog (25 % of the time or more)",
        "\xE2\x89\xA5 (>): the figure may be low, events were lost while the task ran",
        "last second: a dim \xE2\x89\xA4 max (<) is the older maximum: no new one was set inside the window",
    };
    for (size_t i = 0; i < 3 && y + 1 < bottom; i++) {
        const char *s = legend[i];
        if (i == 1 && !v->unicode) {
            s = "> : the figure may be low, events were lost while the task ran";
        }
        top_draw_seg(v, ++y, 1, s, A_DIM);
    }
}
