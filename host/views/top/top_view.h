/* The live table of aioprof-top: an htop-like screen over the pipeline's statistics.
 *
 *   main loop: source_read -> pipeline_feed ... top_view_poll() (keys, then a redraw when due)
 *
 * The view never reads the link itself and never blocks: main polls top_view_fd() beside the
 * source and calls top_view_poll() every time round its loop. Freezing the view stops taking new
 * data into it, not the reading or the recording. */
#ifndef AIOPROF_TOP_VIEW_H
#define AIOPROF_TOP_VIEW_H

#include <stdint.h>

#include "pipeline.h"

typedef struct top_view top_view_t;

enum { TOP_LINK_CONNECTED, TOP_LINK_WAITING, TOP_LINK_ENDED };

/* --capture-hogs: one capture written, as the hogs' list (H) shows it. */
typedef struct top_hog {
    char when[24];      /* the UTC wall time it was written, "06:59:01" */
    char task[200];     /* the hog's task name (escaped) */
    uint64_t self_us;   /* the hog's own time */
    uint64_t at_us;     /* where it began on the session's device time line */
    const char *path;   /* the capture's file */
} top_hog_t;

/* What main knows and the view shows in its header. Read during top_view_poll only. */
typedef struct top_status {
    const char *source;          /* "/dev/ttyACM0 @ 115200", "session.aiop (replay)" */
    int link;                    /* TOP_LINK_CONNECTED, TOP_LINK_WAITING, TOP_LINK_ENDED (a replay at its end) */
    const char *record_path;     /* NULL when not recording */
    uint64_t record_bytes;
    int replay;
    double replay_speed;         /* 0: as fast as possible */
    int replay_paused;
    int replay_seeking;          /* reading as fast as possible to a seek's target */
    double replay_position_s;
    double replay_length_s;      /* < 0: not known (yet) */
    /* --capture-hogs: captures written, and hogs not captured (past --hog-max, or no room) */
    int hogs_on;
    uint64_t hogs_captured, hogs_missed;
    const top_hog_t *hogs; /* the captures written, oldest first */
    size_t n_hogs;
    double hogs_ms;        /* the threshold (--hog-ms) */
} top_status_t;

typedef enum top_action {
    TOP_CONTINUE,
    TOP_QUIT,
    TOP_REPLAY_PAUSE_TOGGLE,
    TOP_REPLAY_FASTER,
    TOP_REPLAY_SLOWER,
    TOP_REPLAY_BACK,      /* seek 10 s back */
    TOP_REPLAY_FORWARD,   /* seek 10 s forward */
    TOP_REPLAY_START,     /* seek to the start */
    TOP_REPLAY_END,       /* seek to the end */
    TOP_DEVICE_INTERRUPT, /* --run: Ctrl-C to the program on the board */
    TOP_DEVICE_RESET,     /* --run: a soft reset of the board (its main.py runs) */
    TOP_HOG_OPEN,         /* Enter in the hogs' list: main reads top_view_hog_chosen()'s capture */
} top_action_t;

typedef struct top_view_options {
    int unicode;        /* a UTF-8 locale: box drawing and arrows; otherwise ASCII only */
    int colour;         /* colours allowed (0 when NO_COLOR is set); monochrome terminals are detected */
    int sort;           /* the initial sort: a sort_key_t (--sort) */
    int by_instance;    /* start with one row per task instance (--instances) */
    uint64_t interval_us; /* the refresh period (--interval); 0: TOP_INTERVAL_DEFAULT_US */
    /* --compare BASE: the base, and the session's side as it goes; the column key (f) then has a
     * set of their changes (NULL: none) */
    const struct stats_cmp_side *cmp_base;
    struct compare_feed *cmp_live;
} top_view_options_t;

#define TOP_INTERVAL_DEFAULT_US 100000u

/* Takes over the terminal (stdin and stdout). Returns NULL after one sentence on stderr when
 * either is not a terminal or the terminal cannot be used (TERM unknown, or one that cannot move
 * the cursor): then *usage is 1, the live table cannot run here; also when out of memory (*usage
 * 0). The terminal is restored at exit (atexit) even if top_view_close is never reached. */
top_view_t *top_view_open(const top_view_options_t *o, int *usage);

/* Non-blocking: applies the keys waiting on stdin (it looks only when poll says some are there),
 * takes new data from the pipeline unless frozen, and redraws when a key changed something or,
 * at most once per refresh period, when the data or the status did. Returns what main has to do
 * (quit, replay control), TOP_CONTINUE otherwise. */
top_action_t top_view_poll(top_view_t *v, pipeline_t *p, const top_status_t *s, uint64_t now_us);

/* The descriptor main polls for keys (standard input). */
int top_view_fd(const top_view_t *v);

/* The pipeline was restarted (a replay read again from its start, to seek back): the rows, the
 * window's history and the device text go; the modes (grouping, sort, filter) stay. */
void top_view_restart(top_view_t *v);

/* A line of device text (escaped) for the text pane: main's text line callback routes it here.
 * The last lines are kept in a fixed ring: memory is bounded. NULL v is ignored. */
void top_view_text_line(top_view_t *v, const char *line);

/* A message from main (stderr's lines while the table is open), shown whole at the bottom of the
 * screen over up to three lines, until a key (or Ctrl-L) puts it away or ten seconds pass; a new
 * one replaces it, NULL clears it. The view must not be drawn over with stderr while it is open. */
void top_view_message(top_view_t *v, const char *msg);

/* The observer that feeds the timeline (pipeline_config_t.observer, with the view as its user).
 * It keeps the last slices in a fixed ring whether the timeline is shown or not, so that showing
 * it shows the last seconds at once, even at the end of a replay. */
const pipeline_observer_t *top_view_observer(void);

/* ---- --capture-hogs: a capture opened from the hogs' list (top_hogs.c) ----
 * On TOP_HOG_OPEN main reads the capture of status->hogs[top_view_hog_chosen()] through a pipeline
 * of its own whose observer is top_view_capture_observer() (user: the view), between
 * top_view_capture_begin and top_view_capture_end; the view then shows that capture's timeline,
 * the hog marked, over the rows' area until Esc or q, while the live session goes on. */
size_t top_view_hog_chosen(const top_view_t *v);
const pipeline_observer_t *top_view_capture_observer(void);
/* Forgets the last capture shown. Returns 0, or -1 when out of memory (said on the screen). */
int top_view_capture_begin(top_view_t *v);
/* The capture was read (s: its statistics), or could not be (s NULL, err one sentence). */
void top_view_capture_end(top_view_t *v, const struct stats *s, const char *err);

/* Gives the terminal back (endwin) and frees the view. NULL is accepted; calling it after the
 * atexit handler ran is harmless. Call it once per view, from ordinary code (main's loop sees the
 * signal flag and ends normally; endwin is not async-signal-safe). */
void top_view_close(top_view_t *v);

#endif
