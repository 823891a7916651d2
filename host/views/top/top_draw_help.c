/* The live table's help screen: the keys (from top_keys.c), what the columns mean, and what the
 * colours and marks mean. Descriptions wrap to the width; the whole scrolls when it is taller than
 * the screen (top_keys.c scrolls it: v->help_scroll, kept within the help when drawn). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "top_draw.h"

#define HELP_LINES_MAX 600

enum { HELP_HEADING, HELP_ITEM, HELP_NOTE };

typedef struct help_entry {
    int kind;
    const char *left; /* keys, a column's heading; NULL for a heading or a note */
    const char *text;
} help_entry_t;

/* One line on the screen: a part of an entry's text, with its left column on the first. */
typedef struct help_line {
    const help_entry_t *e;
    const char *text;
    size_t len;
    int first;
} help_line_t;

static const help_entry_t help_columns[] = {
    {HELP_HEADING, NULL, "The columns"},
    {HELP_ITEM, "name, task", "the task's name as the device sent it, made safe to print; per instance (g) with its "
                              "#id and [label]"},
    {HELP_ITEM, "inst", "instances of that name"},
    {HELP_ITEM, "count", "slices: each time the task was resumed, until it yielded, returned or raised"},
    {HELP_ITEM, "total ms", "the task's own run time in those slices: exclusive of the tasks it resumed, whose time "
                            "is theirs"},
    {HELP_ITEM, "%", "total as a share of the device's time"},
    {HELP_ITEM, "max ms, mean ms", "the longest and the mean slice"},
    {HELP_ITEM, "slow", "slices longer than the slow threshold (--slow; the header shows it)"},
    {HELP_ITEM, "errors", "instances that ended by an exception, cancellations included"},
    {HELP_ITEM, "end, created by", "per instance: live, returned, raised or cancelled; the task that created it"},
    {HELP_ITEM, "(outside tasks)", "time no task ran: the scheduler, and idle"},
    {HELP_ITEM, "late max, mean", "(f) how late the task's resumes came, from when it was due until it ran"},
    {HELP_ITEM, "blocked by", "(f) whose slices took most of the late resumes' waiting, with that share"},
    {HELP_ITEM, "p50 p95 p99", "(f) slice length percentiles; late p50...: lateness percentiles"},
    {HELP_ITEM, "alloc, alloc/s", "(f) bytes the task's own slices allocated, and per second (a device that reports memory)"},
    {HELP_ITEM, "gc, gc ms", "(f) garbage collections inside its slices and their time; (gc) in blocked by: one between slices"},
    {HELP_ITEM, "S: own, incl, wall", "a span's time while it was its task's innermost, while it was open, open to close"},
    {HELP_ITEM, "S: alloc, own alloc", "bytes allocated inside the span (its nested spans' included), and while it was "
                                       "the innermost; gc: collections inside it (a device that reports memory)"},
    {HELP_ITEM, "d rate, d %...", "(f, --compare) the change against the base, ~ within the noise"},
    {HELP_ITEM, "-", "not known: lateness from a device that does not report it; these columns in the last "
                     "second (w), as they are cumulative"},
};

static size_t help_entries(const top_view_t *v, help_entry_t *out, size_t max, char *slow, size_t slow_size)
{
    size_t n = 0, nk;
    const top_key_help_t *keys = top_keys_help(&nk);
    out[n++] = (help_entry_t){HELP_HEADING, NULL, "Keys"};
    for (size_t i = 0; i < nk && n < max; i++) {
        out[n++] = (help_entry_t){HELP_ITEM, keys[i].keys, keys[i].what};
    }
    for (size_t i = 0; i < sizeof help_columns / sizeof help_columns[0] && n < max; i++) {
        out[n++] = help_columns[i];
    }
    snprintf(slow, slow_size, "the slow threshold now: slices over %g ms", (double)v->head.slow_us / 1000.0);
    static const char *const legend[] = {
        "dim: zero; red: slices over the slow threshold, errors, or a hog (25 % of the time or more)",
        "\xE2\x89\xA5 (>): the figure may be low, events were lost while the task ran",
        "last second (w): a dim \xE2\x89\xA4 max (<) is the older maximum: no new one was set inside the window",
    };
    if (n + 6 <= max) {
        out[n++] = (help_entry_t){HELP_NOTE, NULL, slow};
        out[n++] = (help_entry_t){HELP_HEADING, NULL, "Colours and marks"};
        for (size_t i = 0; i < 3; i++) {
            const char *s = legend[i];
            if (!v->unicode) {
                s = i == 1 ? "> : the figure may be low, events were lost while the task ran"
                           : i == 2 ? "last second (w): a dim < max is the older maximum: no new one was set inside "
                                      "the window"
                                    : s;
            }
            out[n++] = (help_entry_t){HELP_NOTE, NULL, s};
        }
    }
    /* the timeline's glyphs, in the charset it draws with */
    static const help_entry_t timeline_utf8[] = {
        {HELP_HEADING, NULL, "The timeline (T)"},
        {HELP_ITEM, "\xE2\x96\x88", "the lane's task ran in that cell's time (a slice of it overlaps the cell)"},
        {HELP_ITEM, "\xE2\x96\x93", "a slow slice of it overlaps the cell: its own time over the slow threshold"},
        {HELP_ITEM, "\xE2\x96\x91 \xE2\x96\x92 \xE2\x96\x93", "outside tasks: up to half, half or more, nearly "
                                                    "all of the cell's time no task ran"},
        {HELP_ITEM, "\xC2\xB7", "not known: before the time line began, or older than the last 65,536 slices kept"},
    };
    static const help_entry_t timeline_ascii[] = {
        {HELP_HEADING, NULL, "The timeline (T)"},
        {HELP_ITEM, "=", "the lane's task ran in that cell's time (a slice of it overlaps the cell)"},
        {HELP_ITEM, "#", "a slow slice of it overlaps the cell: its own time over the slow threshold"},
        {HELP_ITEM, ". : %", "outside tasks: up to half, half or more, nearly all of the cell's time no task ran"},
        {HELP_ITEM, "~", "not known: before the time line began, or older than the last 65,536 slices kept"},
    };
    const help_entry_t *tl = v->unicode ? timeline_utf8 : timeline_ascii;
    for (size_t i = 0; i < sizeof timeline_utf8 / sizeof timeline_utf8[0] && n < max; i++) {
        out[n++] = tl[i];
    }
    return n;
}

/* The lines of the help at this width. Returns how many. */
static int help_layout(const top_view_t *v, const help_entry_t *e, size_t n, int kw, help_line_t *out, int max)
{
    int k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        if (e[i].kind == HELP_HEADING && k > 0 && k < max) {
            out[k++] = (help_line_t){NULL, "", 0, 0}; /* a blank line before a heading */
        }
        int room = e[i].kind == HELP_ITEM ? v->width - kw - 3 : v->width - 1;
        const char *p = e[i].text;
        int first = 1;
        do {
            size_t len = top_format_wrap(p, room > 1 ? room : 1);
            if (k < max) {
                out[k++] = (help_line_t){&e[i], p, len, first};
            }
            p += len;
            first = 0;
        } while (*p && k < max);
    }
    return k;
}

void top_draw_help(top_view_t *v)
{
    help_entry_t e[96];
    help_line_t l[HELP_LINES_MAX];
    char slow[64];
    size_t n = help_entries(v, e, sizeof e / sizeof e[0], slow, sizeof slow);
    int kw = 0;
    for (size_t i = 0; i < n; i++) {
        int w = e[i].left != NULL ? (int)strlen(e[i].left) : 0;
        kw = w > kw ? w : kw;
    }
    if (kw > v->width / 3) {
        kw = v->width / 3; /* narrow: the descriptions matter more */
    }
    int total = help_layout(v, e, n, kw, l, HELP_LINES_MAX);
    int y = v->lay.head_lines, bottom = v->lay.footer_y;
    int room = bottom - y - 1;
    if (room < 1) {
        room = 1;
    }
    int first = v->help_scroll < total - room ? v->help_scroll : total - room;
    if (first < 0) {
        first = 0;
    }
    v->help_scroll = first; /* the scroll keys move from what is shown */
    char title[160];
    if (total > room) {
        snprintf(title, sizeof title, "aioprof-top help, lines %d-%d of %d: up, down, PgUp, PgDn scroll; any other key "
                 "closes", first + 1, first + room < total ? first + room : total, total);
    } else {
        snprintf(title, sizeof title, "aioprof-top help: any key closes");
    }
    top_draw_seg(v, y++, 0, title, A_BOLD | A_REVERSE);
    for (int i = first; i < total && y < bottom; i++, y++) {
        char text[512];
        const help_line_t *h = &l[i];
        if (h->e == NULL) {
            continue;
        }
        size_t len = h->len;
        while (len > 0 && h->text[len - 1] == ' ') {
            len--; /* the space a line broke at */
        }
        snprintf(text, sizeof text, "%.*s", (int)len, h->text);
        switch (h->e->kind) {
        case HELP_HEADING: top_draw_seg(v, y, 0, text, A_BOLD | A_UNDERLINE); break;
        case HELP_NOTE: top_draw_seg(v, y, 1, text, A_DIM); break;
        default:
            if (h->first) {
                top_draw_cell(v, y, 1, kw, h->e->left, 0, A_BOLD);
            }
            top_draw_seg(v, y, kw + 3, text, A_NORMAL);
            break;
        }
    }
}
