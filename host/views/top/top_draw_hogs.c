/* --capture-hogs in the live table, drawn over the rows' area: the hogs' list (H), newest first,
 * or the timeline of a capture opened from it (top_hogs.c keeps both), its hog's slice marked. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "top_draw.h"

static const char *base_name(const char *path)
{
    const char *slash = path != NULL ? strrchr(path, '/') : NULL;
    return slash != NULL ? slash + 1 : path != NULL ? path : "";
}

/* ---- the list ---- */

enum { W_WHEN = 10, W_AT = 11, W_MS = 11 };

static void draw_list(top_view_t *v)
{
    const top_layout_t *l = &v->lay;
    const top_status_t *st = v->status;
    size_t n = st != NULL && st->hogs != NULL ? st->n_hogs : 0;
    attr_t head = top_attr_pair(v, PAIR_THEAD, A_REVERSE);
    int task_w = v->width / 4 < 16 ? 16 : v->width / 4;
    int x = 0;
    x = top_draw_cell(v, l->table_y, x, W_WHEN, "time UTC", 0, head);
    x = top_draw_cell(v, l->table_y, x, W_AT, "at s ", 1, head);
    x = top_draw_cell(v, l->table_y, x, 1, "", 0, head);
    x = top_draw_cell(v, l->table_y, x, task_w, "task", 0, head);
    x = top_draw_cell(v, l->table_y, x, W_MS, "slice ms ", 1, head);
    top_draw_cell(v, l->table_y, x, v->width - x, "file", 0, head);

    if (v->hogs_cursor >= n)
        v->hogs_cursor = n ? n - 1 : 0;
    size_t rows = l->rows_h > 0 ? (size_t)l->rows_h : 1;
    if (v->hogs_cursor < v->hogs_scroll)
        v->hogs_scroll = v->hogs_cursor;
    if (v->hogs_cursor >= v->hogs_scroll + rows)
        v->hogs_scroll = v->hogs_cursor - rows + 1;
    attr_t sel = top_attr_pair(v, PAIR_SORTED, A_REVERSE);
    char buf[64];
    for (size_t i = 0; i < rows && v->hogs_scroll + i < n; i++) {
        size_t at = v->hogs_scroll + i;
        const top_hog_t *h = &st->hogs[n - 1 - at]; /* newest first */
        int y = l->rows_y + (int)i;
        attr_t a = at == v->hogs_cursor ? sel : A_NORMAL;
        x = top_draw_cell(v, y, 0, W_WHEN, h->when, 0, a);
        snprintf(buf, sizeof buf, "%" PRIu64 ".%03" PRIu64 " ", h->at_us / 1000000u, h->at_us / 1000u % 1000u);
        x = top_draw_cell(v, y, x, W_AT, buf, 1, a);
        x = top_draw_cell(v, y, x, 1, "", 0, a);
        x = top_draw_cell(v, y, x, task_w, h->task, 0, a);
        snprintf(buf, sizeof buf, "%.3f ", (double)h->self_us / 1e3);
        x = top_draw_cell(v, y, x, W_MS, buf, 1, at == v->hogs_cursor ? sel : top_attr_class(v, TOP_CLASS_ALERT));
        top_draw_cell(v, y, x, v->width - x, base_name(h->path), 0, a);
    }
    char line[300];
    if (n == 0) {
        snprintf(line, sizeof line, "no hog captured yet (slices of %.3f ms or more, --hog-ms)",
            st != NULL ? st->hogs_ms : 0.0);
        top_draw_seg(v, l->rows_y, 1, line, A_DIM);
    }
    uint64_t missed = st != NULL ? st->hogs_missed : 0;
    if (missed)
        snprintf(line, sizeof line, "%zu captured, %" PRIu64 " missed (past --hog-max, or not written)%s"
                 "Enter: its timeline%sEsc: back", n, missed, top_sep(v), top_sep(v));
    else
        snprintf(line, sizeof line, "%zu captured%sEnter: its timeline%sEsc: back", n, top_sep(v), top_sep(v));
    top_draw_seg(v, l->outside_y, 0, line, missed ? A_BOLD : A_DIM);
}

/* ---- a capture's timeline ---- */

/* The hog's slice in its lane (the first, at y): the cells its lane draws of it reversed. Returns
 * the first of them, where the axis marks it, or -1 when none is drawn. */
static int draw_hog_slice(const top_view_t *v, const top_capture_t *c, int y, int lw, int ncells, uint64_t from,
    uint64_t span)
{
    if (!c->hog_span_us || c->hog_start_us < from) {
        return -1;
    }
    uint64_t s = c->hog_start_us - from, e = s + c->hog_span_us;
    int i0 = (int)(s * (uint64_t)ncells / span), i1 = (int)((e > span ? span : e) * (uint64_t)ncells / span);
    i0 = i0 >= ncells ? ncells - 1 : i0;
    i1 = i1 >= ncells ? ncells - 1 : i1 < i0 ? i0 : i1;
    attr_t mark = top_attr_class(v, TOP_CLASS_ALERT) | A_REVERSE | A_BOLD;
    int first = -1;
    for (int i = i0; i <= i1; i++) {
        uint8_t cell = v->tl_cells[i];
        if (cell != TOP_CELL_RAN && cell != TOP_CELL_SLOW)
            continue; /* the slice's edges: cells whose middle it does not cover */
        first = first < 0 ? i : first;
        const char *g = cell == TOP_CELL_SLOW ? (v->unicode ? "\xE2\x96\x93" : "#")
                                              : (v->unicode ? "\xE2\x96\x88" : "=");
        top_draw_cell(v, y, lw + 1 + i, 1, g, 0, mark);
    }
    return first;
}

static void draw_capture(top_view_t *v)
{
    const top_layout_t *l = &v->lay;
    const top_capture_t *c = v->cap;
    int lw = v->width / 4 < 16 ? 16 : v->width / 4;
    lw = lw > 40 ? 40 : lw;
    int ncells = v->width - lw - 1;
    if (ncells > (int)TOP_TIMELINE_CELLS_MAX)
        ncells = (int)TOP_TIMELINE_CELLS_MAX;
    if (ncells < 4) {
        top_draw_seg(v, l->rows_y, 1, "too narrow for the capture's timeline (Esc comes back)", A_DIM);
        return;
    }
    uint64_t to = c->tl.latest_us, from = c->from_us < to ? c->from_us : to;
    uint64_t span = to - from > 0 ? to - from : 1;

    char info[STATS_TEXT_MAX + sizeof((top_capture_t *)0)->path + 200];
    snprintf(info, sizeof info, "hog %s %.3f ms at %" PRIu64 ".%03" PRIu64 " s%s%s%s%s%sEsc: back, H: the list",
        c->hog.task, (double)c->hog.self_us / 1e3, c->hog.at_us / 1000000u, c->hog.at_us / 1000u % 1000u, top_sep(v),
        c->hog_span_us ? (v->unicode ? "its slice \xE2\x96\xBC marked" : "its slice marked v") : "its slice not found",
        top_sep(v), base_name(c->path), top_sep(v));
    top_draw_seg(v, l->rows_y, 0, info, A_BOLD);

    /* the lanes: what fits between the info line and the outside-tasks lane */
    size_t room = l->rows_h > 1 ? (size_t)l->rows_h - 1 : 0;
    size_t n = c->n_lanes < room ? c->n_lanes : room;
    top_timeline_lane_t lanes[TOP_CAPTURE_LANES];
    for (size_t i = 0; i < n; i++)
        lanes[i] = (top_timeline_lane_t){.key = c->lane_hash[i], .by_inst = 0};
    if (top_draw_timeline_room(v, n, ncells) != 0) {
        top_draw_timeline_axis(v, l->table_y, lw, ncells, span, "capture: lanes", "end", -1);
        top_draw_seg(v, l->rows_y + 1, 1, "out of memory for the timeline", A_DIM);
        return;
    }
    top_timeline_render(&c->tl, to, span, v->head.slow_us, lanes, n, ncells, v->tl_cells, v->tl_outside, v->tl_busy);
    int hog_lane = n > 0 && strcmp(c->lane_name[0], c->hog.task) == 0 ? 0 : -1;
    attr_t sel = top_attr_pair(v, PAIR_SORTED, A_REVERSE);
    for (size_t i = 0; i < n; i++) {
        int y = l->rows_y + 1 + (int)i;
        top_draw_cell(v, y, 0, lw, c->lane_name[i], 0, (int)i == hog_lane ? sel : A_NORMAL);
        top_draw_lane(v, y, lw + 1, v->tl_cells + i * (size_t)ncells, ncells, 0);
    }
    top_draw_cell(v, l->outside_y, 0, lw, "(outside tasks)", 0, A_DIM);
    top_draw_lane(v, l->outside_y, lw + 1, v->tl_outside, ncells, 1);
    if (n == 0)
        top_draw_seg(v, l->rows_y + 1, 1, "no slice in the capture", A_DIM);

    /* the hog's slice reversed in its lane, and a mark over its first cell on the axis, which
     * leaves room for it */
    int mark = hog_lane == 0 ? draw_hog_slice(v, c, l->rows_y + 1, lw, ncells, from, span) : -1;
    top_draw_timeline_axis(v, l->table_y, lw, ncells, span, "capture: lanes", "end", mark);
}

void top_draw_hogs(top_view_t *v)
{
    if (v->capture_shown && v->cap != NULL)
        draw_capture(v);
    else
        draw_list(v);
}
