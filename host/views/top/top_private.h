/* The live table's insides: the view's state and what its files give each other. The files, one
 * concern each (host/views/top/):
 *   top_view.c        lifecycle, and the turn main's loop gives it (keys, rows when due, a draw)
 *   top_rows.c        rows and header figures copied out of the statistics, the window's history
 *   top_table.c       what is shown: grouping, filter, sort, cursor, cell text
 *   top_keys.c        keys to actions
 *   top_draw*.c       drawing (top_draw.h): primitives, header, table, pane and footer, help
 *   top_format.c      pure rendering rules, no state (unit-tested)
 *   top_timeline.c    the timeline's ring of slices and its lanes' cells (unit-tested)
 *   top_hogs.c        --capture-hogs: the hogs' list (H) and a capture opened from it, their keys
 * Nothing outside host/views/top/ includes this file but a unit test (tests/unit/test_stats.c). */
#ifndef AIOPROF_TOP_PRIVATE_H
#define AIOPROF_TOP_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"
#include "top_format.h"
#include "top_timeline.h"
#include "top_view.h"

#define TOP_TEXT_LINES 1000      /* device text kept for the pane: its scrollback */
#define TOP_TEXT_MAX 240         /* bytes of one kept line */
#define TOP_FILTER_MAX 64
#define TOP_MESSAGE_MAX 600
#define TOP_MESSAGE_LINES 3      /* a message is wrapped over at most this many lines */
#define TOP_MESSAGE_US 10000000u /* and shown this long, unless a key or Ctrl-L dismisses it */
#define TOP_HISTORY 8            /* snapshots for the last-second window */
#define TOP_WINDOW_US 1000000u   /* the window: one second of device time */
#define TOP_HISTORY_STEP_US 250000u /* a snapshot every quarter second of host time */

enum { TOP_PANE_NORMAL, TOP_PANE_LARGE, TOP_PANE_HIDDEN };

/* What a key changed, so what must be redone before the next draw. */
enum {
    TOP_REDRAW_NONE = 0,
    TOP_REDRAW_SCREEN = 1, /* draw again (cursor, help, modes shown) */
    TOP_REDRAW_ROWS = 2,   /* filter and sort the rows again, then draw */
    TOP_REDRAW_DATA = 4,   /* take the rows from the statistics again (even when frozen) */
    TOP_REDRAW_LAYOUT = 8, /* place the parts of the screen again (the pane changed size), then draw */
};

/* One row as the view keeps it: copied out of the statistics, so that a frozen view survives
 * whatever the pipeline does next. Strings are offsets into the row set's pool (0 is ""). */
typedef struct top_row {
    uint64_t key;          /* name rows: a hash of kind and name; instance rows: the instance key */
    uint8_t by_inst;       /* keyed by instance (instance rows, unnamed instances among names) */
    uint8_t lower_bound;
    uint8_t named;         /* an instance row whose name is known (not made up as "task #id") */
    uint8_t win_max_known; /* the window's max is exact: a new maximum was set inside it */
    uint32_t id, parent;
    uint64_t instances;
    stats_figures_t cum, win;
    size_t name, label, creator;
    const char *end;       /* stats_end_name(): static text; NULL for name rows */
    /* lateness, cumulative (the window has none: two totals cannot give a maximum or a share) */
    uint8_t late_known;    /* the device reports its lateness */
    uint8_t pct_known;     /* its distributions are known */
    uint64_t late_count, late_total_us, late_max_us;
    uint64_t late_mean_us; /* over every resume (stats_late_mean_us), as the report */
    size_t culprit;        /* the name that took most of its waiting ("" for none) */
    uint32_t culprit_permille; /* its share of the waiting */
    uint64_t slice_pct[STATS_PCTS], late_pct[STATS_PCTS]; /* p50, p95, p99: stats_pcts */
} top_row_t;

typedef struct top_rows {
    top_row_t *rows;
    size_t n, cap;
    char *pool;
    size_t pool_len, pool_cap;
} top_rows_t;

typedef struct top_snap_entry {
    uint64_t key;
    uint64_t by_inst;
    stats_figures_t f;
} top_snap_entry_t;

/* The rows' totals of one grouping at one moment, found by key through slot (index + 1 into e,
 * 0 empty; open addressing). */
typedef struct top_snap {
    uint64_t taken_us; /* host time */
    uint64_t elapsed_us, outside_us, events, bytes;
    int grouping;
    top_snap_entry_t *e;
    size_t n, cap;
    uint32_t *slot;
    size_t mask;
} top_snap_t;

typedef struct top_history {
    top_snap_t snap[TOP_HISTORY];
    size_t head, n; /* snap[(head + i) % TOP_HISTORY], oldest first */
} top_history_t;

/* The header's figures, frozen with the rows. */
typedef struct top_head {
    stats_stream_t stream;
    stats_device_t device;
    uint64_t elapsed_us, outside_us;
    uint64_t win_elapsed_us, win_outside_us; /* over the window */
    double events_per_s, bytes_per_s;        /* per second of device time, over the window */
    double overhead;                         /* < 0: not known */
    uint64_t slow_us;                        /* the statistics' threshold */
    int any_lower;
    int late_known;                          /* the device reports lateness */
} top_head_t;

typedef struct top_layout {
    int head_lines, table_y, rows_y, rows_h, outside_y, pane_y, pane_h, footer_y;
    top_col_t cols[TOP_COL_COUNT_ALL];
    size_t ncols;
    int name_w;
    int blocked_w; /* the blocked-by column's, widened for what it shows (top_draw_table) */
} top_layout_t;

/* A capture opened from the hogs' list: its slices and what its timeline shows (top_hogs.c). */
#define TOP_CAPTURE_LANES 64
typedef struct top_capture {
    int ready;                 /* tl allocated */
    top_timeline_t tl;         /* the capture's slices, on its own time line */
    top_hog_t hog;             /* the hog, its path copied into path */
    char path[4200];
    char err[TOP_MESSAGE_MAX]; /* "" when it was read */
    uint64_t from_us;          /* its first slice's start (UINT64_MAX: none) */
    uint64_t hog_start_us, hog_span_us; /* the hog's slice found in it (span 0: not found) */
    size_t n_lanes;            /* the names with the most own time, the hog's first */
    uint64_t lane_hash[TOP_CAPTURE_LANES];
    char lane_name[TOP_CAPTURE_LANES][STATS_TEXT_MAX];
    uint64_t lane_total_us[TOP_CAPTURE_LANES];
} top_capture_t;

struct top_view {
    top_view_options_t opt;
    void *screen;     /* SCREEN * */
    int colour, unicode;
    int height, width;
    top_layout_t lay;

    /* modes */
    int by_instance, window, frozen, help;
    int help_scroll;               /* help lines scrolled past */
    int pane_mode;                 /* TOP_PANE_NORMAL, TOP_PANE_LARGE, TOP_PANE_HIDDEN */
    int pane_focus;                /* the scroll keys scroll the pane */
    uint64_t pane_end;             /* the line after the pane's last shown (scrolled back), 0 follows */
    int filter_edit;
    char filter[TOP_FILTER_MAX];
    int drilled;                   /* the instances of one name (Enter), by_instance is kept */
    char drill[STATS_TEXT_MAX];
    /* the spans of one task (S, top_spans.c), shown in the rows' area */
    int spans_open, spans_by_inst;
    uint64_t spans_key;            /* its row's key (an instance's when spans_by_inst) */
    char spans_task[STATS_TEXT_MAX]; /* a name row's name */
    char spans_title[STATS_TEXT_MAX * 4 + 64];
    struct stats_span_view *spans; /* taken with the rows (stats_span_rows), n_spans of them */
    size_t n_spans;
    top_col_t sort;
    int invert;
    top_colset_t colset;           /* f: TOP_SET_MAIN, TOP_SET_SLICES, TOP_SET_LATENESS (TOP_SET_DELTA) */
    const struct stats_cmp_side *cmp_now; /* --compare: the session's side when the rows were taken */

    /* the timeline (T): the slices the observer told, drawn over the rows' area */
    int timeline;                  /* shown instead of the table's rows */
    uint64_t tl_span_us;           /* the span it shows (z, Z) */
    uint64_t tl_to_us;             /* its right edge on the device time line, taken with the rows */
    uint64_t tl_reset_us;          /* device time the statistics' resets took from their elapsed time */
    top_timeline_t tl;
    /* --capture-hogs (top_hogs.c): the list over the rows (H), a capture's timeline opened from it */
    int hogs_list, capture_shown;
    size_t hogs_cursor, hogs_scroll; /* in the list, 0 the newest */
    size_t hogs_chosen;            /* the index into status->hogs that Enter opened */
    top_capture_t *cap;            /* allocated at the first capture opened */
    uint8_t *tl_cells, *tl_outside; /* the render's output, and its scratch */
    uint64_t *tl_busy;
    size_t tl_cap;                 /* cells allocated (lanes * width) */

    /* the rows: both groupings, so a frozen view can still be regrouped */
    top_rows_t base[2];
    top_rows_t spare;              /* frozen: the rows built for the window's history only */
    size_t *vis;                   /* the shown rows (filtered, sorted): indices into base[grouping] */
    size_t n_vis, vis_cap;
    size_t cursor, scroll;
    uint64_t cursor_key;
    int cursor_by_inst, cursor_set;
    top_head_t head;
    top_history_t hist;

    char text[TOP_TEXT_LINES][TOP_TEXT_MAX];
    uint64_t text_total, text_frozen; /* lines received; lines received when frozen */
    char message[TOP_MESSAGE_MAX];   /* "" when none is shown */
    int message_new;                 /* set since the last poll: its time starts there */
    uint64_t message_us;

    /* what was seen last, to notice changes */
    uint64_t seen_bytes, seen_events, seen_elapsed, seen_text;
    top_status_t seen_status;
    uint64_t seen_position_ms;
    int pending;                   /* 1: draw again; 2: take the rows again (when due) */
    int keys_pending;              /* keys may be left in ncurses' input: read it without a poll */
    uint64_t interval_us;          /* the refresh period */
    int started;                   /* drawn once */
    uint64_t last_draw_us, last_build_us;

    pipeline_t *p;                 /* during top_view_poll */
    const top_status_t *status;
    top_action_t action;           /* set by a key for top_view_poll to return */
};

/* The device text the pane can show (all of it, or up to the freeze), and the line after its
 * last shown one: the newest, unless scrolled back. */
static inline uint64_t top_pane_shown(const top_view_t *v)
{
    return v->frozen ? v->text_frozen : v->text_total;
}
static inline uint64_t top_pane_end(const top_view_t *v)
{
    uint64_t shown = top_pane_shown(v);
    return v->pane_end != 0 && v->pane_end < shown ? v->pane_end : shown;
}

/* ---- top_spans.c: S, the spans of the row under the cursor ---- */
void top_spans_take(top_view_t *v, const stats_t *s);
unsigned top_spans_key(top_view_t *v, int key);

/* ---- top_rows.c: the rows and the header's figures, taken from the statistics ---- */
void top_rows_free(top_rows_t *r);
int top_rows_build(top_rows_t *r, const stats_t *s, int by_instance, const top_history_t *h);
const char *top_rows_str(const top_rows_t *r, size_t off);
void top_history_free(top_history_t *h);
void top_history_clear(top_history_t *h);
/* Is a snapshot due: a quarter second of host time since the last, or another grouping? */
int top_history_due(const top_history_t *h, int grouping, uint64_t now_us);
/* Takes a snapshot of rows (built for grouping) when due (clears the history when the statistics
 * were reset). */
void top_history_take(top_history_t *h, const top_rows_t *rows, int grouping, const stats_t *s, uint64_t now_us);
void top_head_build(top_head_t *hd, const stats_t *s, const top_history_t *h, int grouping);

/* ---- top_table.c: what is shown of the rows ---- */
int top_table_grouping(const top_view_t *v);
/* The columns shown: the chosen set, the main one with lateness when the device reports it. */
top_colset_t top_table_colset(const top_view_t *v);
/* Filters and sorts the current grouping into v->vis; keeps the cursor on the same row. */
int top_table_select(top_view_t *v);
/* Moves the cursor by delta rows (clamped), scrolling as needed; 0 just makes it valid. */
void top_table_move(top_view_t *v, long delta);
const stats_figures_t *top_table_figures(const top_view_t *v, const top_row_t *r);
const top_row_t *top_table_row(const top_view_t *v, size_t i);

/* The mark that ends a cut text. */
static inline const char *top_cut_mark(const top_view_t *v)
{
    return v->unicode ? "\xE2\x80\xA6" : "~";
}

/* The way the rows go: numbers sort largest first and text A to Z, unless inverted. */
static inline const char *top_sort_mark(const top_view_t *v)
{
    int descending = (top_format_col(v->sort)->left == 0) != (v->invert != 0);
    return descending ? (v->unicode ? "\xE2\x96\xBC" : "v") : (v->unicode ? "\xE2\x96\xB2" : "^");
}

/* The text of a cell (number cells fit `width`), and how loud it is. */
void top_table_cell(const top_view_t *v, const top_row_t *r, top_col_t c, int width, char *out, size_t size,
    top_class_t *cls);
/* The name cell: name, #id and [label] for instances. */
void top_table_name(const top_view_t *v, const top_row_t *r, char *out, size_t size);
int top_table_is_hog(const top_view_t *v, const top_row_t *r);

/* ---- top_hogs.c: the hogs' list and a capture's timeline ---- */
/* H: the list shown or put away (a message without --capture-hogs). */
unsigned top_hogs_key_list(top_view_t *v, int key);
/* The keys while the list or a capture is shown (the other keys do nothing then). */
unsigned top_hogs_keys(top_view_t *v, int key);
void top_hogs_free(top_view_t *v);

/* ---- top_keys.c: keys to actions (it uses top_table.c; nothing here uses it back but the help) ---- */
unsigned top_keys_apply(top_view_t *v, int key);
typedef struct top_key_help {
    const char *keys, *what;
} top_key_help_t;
const top_key_help_t *top_keys_help(size_t *n);

#endif
