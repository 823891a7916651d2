/* --capture-hogs in the live table: the hogs' list (H) over the rows, newest first, and a capture
 * opened from it with Enter: main reads the file into a pipeline of its own, whose observer fills
 * the capture's own timeline here, and the view shows that timeline (the capture's window, its
 * busiest names, the hog's slice marked) until Esc or q; the live rows and header go on meanwhile.
 * Drawn by top_draw_hogs.c. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_private.h"

#define CTRL(c) ((c)&0x1f)

static size_t hogs_count(const top_view_t *v)
{
    return v->status != NULL && v->status->hogs != NULL ? v->status->n_hogs : 0;
}

static void hogs_say(top_view_t *v, const char *msg)
{
    snprintf(v->message, sizeof v->message, "%s", msg);
    v->message_new = 1;
}

unsigned top_hogs_key_list(top_view_t *v, int key)
{
    (void)key;
    if (v->status == NULL || !v->status->hogs_on) {
        hogs_say(v, "H lists the hogs captured: start aioprof-top with --capture-hogs DIR (docs/usage.md, "
                    "\"Capturing hogs\").");
        return TOP_REDRAW_SCREEN;
    }
    v->hogs_list = !v->hogs_list;
    v->hogs_cursor = v->hogs_scroll = 0;
    return TOP_REDRAW_SCREEN;
}

/* Enter: main reads the capture under the cursor (the list shows the newest first). */
static unsigned hogs_open(top_view_t *v)
{
    size_t n = hogs_count(v);
    if (n == 0)
        return TOP_REDRAW_NONE;
    if (v->hogs_cursor >= n)
        v->hogs_cursor = n - 1;
    v->hogs_chosen = n - 1 - v->hogs_cursor;
    v->action = TOP_HOG_OPEN;
    return TOP_REDRAW_SCREEN;
}

static unsigned hogs_move(top_view_t *v, int key)
{
    size_t n = hogs_count(v);
    size_t page = v->lay.rows_h > 2 ? (size_t)v->lay.rows_h - 2 : 1;
    size_t c = v->hogs_cursor;
    switch (key) {
    case KEY_UP: c = c > 0 ? c - 1 : 0; break;
    case KEY_DOWN: c++; break;
    case KEY_PPAGE: c = c > page ? c - page : 0; break;
    case KEY_NPAGE: c += page; break;
    case KEY_HOME: c = 0; break;
    case KEY_END: c = n; break;
    default: return TOP_REDRAW_NONE;
    }
    v->hogs_cursor = n == 0 ? 0 : c < n ? c : n - 1;
    return TOP_REDRAW_SCREEN;
}

unsigned top_hogs_keys(top_view_t *v, int key)
{
    int back = key == 27 || key == 'q' || key == KEY_BACKSPACE || key == 127 || key == CTRL('h');
    if (v->capture_shown) {
        /* Esc, q: back to the live table; H: back to the list it came from */
        if (back || key == 'H') {
            v->capture_shown = 0;
            v->hogs_list = key == 'H';
            return TOP_REDRAW_SCREEN;
        }
        return TOP_REDRAW_NONE;
    }
    if (back || key == 'H') {
        v->hogs_list = 0;
        return TOP_REDRAW_SCREEN;
    }
    if (key == '\n' || key == '\r' || key == KEY_ENTER)
        return hogs_open(v);
    return hogs_move(v, key);
}

/* ---- the capture: its slices through its pipeline's observer ---- */

size_t top_view_hog_chosen(const top_view_t *v)
{
    return v->hogs_chosen;
}

static void capture_on_slice(void *user, const pipeline_slice_t *slice)
{
    top_view_t *v = user;
    top_capture_t *c = v->cap;
    if (c == NULL || !c->ready)
        return;
    top_timeline_add(&c->tl, slice);
    if (slice->start_us < c->from_us)
        c->from_us = slice->start_us;
}

const pipeline_observer_t *top_view_capture_observer(void)
{
    static const pipeline_observer_t observer = {.slice = capture_on_slice};
    return &observer;
}

int top_view_capture_begin(top_view_t *v)
{
    if (v->cap == NULL) {
        v->cap = calloc(1, sizeof *v->cap);
        if (v->cap == NULL || top_timeline_init(&v->cap->tl) != 0) {
            free(v->cap);
            v->cap = NULL;
            hogs_say(v, "out of memory for the capture's timeline.");
            return -1;
        }
        v->cap->ready = 1;
    }
    top_capture_t *c = v->cap;
    top_timeline_clear(&c->tl);
    c->err[0] = '\0';
    c->from_us = UINT64_MAX;
    c->hog_start_us = c->hog_span_us = 0;
    c->n_lanes = 0;
    memset(&c->hog, 0, sizeof c->hog);
    c->path[0] = '\0';
    if (v->hogs_chosen < hogs_count(v)) {
        c->hog = v->status->hogs[v->hogs_chosen];
        snprintf(c->path, sizeof c->path, "%s", c->hog.path != NULL ? c->hog.path : "");
    }
    c->hog.path = c->path;
    return 0;
}

typedef struct lane_pick {
    size_t name;
    uint64_t total_us;
} lane_pick_t;

static int by_total_desc(const void *a, const void *b)
{
    const lane_pick_t *x = a, *y = b;
    return x->total_us < y->total_us ? 1 : x->total_us > y->total_us ? -1 : (x->name > y->name) - (x->name < y->name);
}

/* The hog's slice among the capture's: of its task, with its own time (the capture replays it
 * exactly as the session counted it); the last such if several. */
static void capture_find_hog(top_capture_t *c)
{
    const top_timeline_t *t = &c->tl;
    uint64_t hash = top_timeline_name_hash(c->hog.task);
    uint64_t n = t->added < TOP_TIMELINE_SLICES ? t->added : TOP_TIMELINE_SLICES;
    for (uint64_t k = 0; k < n; k++) {
        const top_timeline_slice_t *s = &t->ring[(t->added - 1 - k) % TOP_TIMELINE_SLICES];
        uint64_t self = c->hog.self_us < UINT32_MAX ? c->hog.self_us : UINT32_MAX;
        if (s->name_hash == hash && s->self_us == self) {
            c->hog_start_us = s->start_us;
            c->hog_span_us = s->span_us ? s->span_us : 1;
            return;
        }
    }
}

void top_view_capture_end(top_view_t *v, const struct stats *s, const char *err)
{
    top_capture_t *c = v->cap;
    if (c == NULL)
        return;
    if (s == NULL) {
        snprintf(c->err, sizeof c->err, "%s", err != NULL ? err : "the capture could not be read.");
        hogs_say(v, c->err);
        return; /* the list stays */
    }
    /* the lanes: the hog's task first, then the names with the most own time */
    lane_pick_t *pick = malloc((s->n_names + 1) * sizeof *pick);
    size_t np = 0;
    for (size_t i = 0; pick != NULL && i < s->n_names; i++) {
        if (s->names[i].f.count == 0)
            continue;
        pick[np].name = i;
        /* the hog's own name goes first whatever its total */
        pick[np].total_us = strcmp(s->names[i].name, c->hog.task) == 0 ? UINT64_MAX : s->names[i].f.total_us;
        np++;
    }
    if (pick != NULL)
        qsort(pick, np, sizeof *pick, by_total_desc);
    for (size_t k = 0; k < np && c->n_lanes < TOP_CAPTURE_LANES; k++) {
        const stats_name_t *nm = &s->names[pick[k].name];
        snprintf(c->lane_name[c->n_lanes], sizeof c->lane_name[0], "%s", nm->name);
        c->lane_hash[c->n_lanes] = top_timeline_name_hash(nm->name);
        c->lane_total_us[c->n_lanes] = nm->f.total_us;
        c->n_lanes++;
    }
    free(pick);
    capture_find_hog(c);
    v->capture_shown = 1;
}

void top_hogs_free(top_view_t *v)
{
    if (v->cap != NULL)
        top_timeline_free(&v->cap->tl);
    free(v->cap);
    v->cap = NULL;
}
