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

/* What main knows and the view shows in its header. Read during top_view_poll only. */
typedef struct top_status {
    const char *source;          /* "/dev/ttyACM0 @ 115200", "session.aiop (replay)" */
    int link;                    /* TOP_LINK_CONNECTED, TOP_LINK_WAITING, TOP_LINK_ENDED (a replay at its end) */
    const char *record_path;     /* NULL when not recording */
    uint64_t record_bytes;
    int replay;
    double replay_speed;         /* 0: as fast as possible */
    int replay_paused;
    double replay_position_s;
} top_status_t;

typedef enum top_action {
    TOP_CONTINUE,
    TOP_QUIT,
    TOP_REPLAY_PAUSE_TOGGLE,
    TOP_REPLAY_FASTER,
    TOP_REPLAY_SLOWER,
    TOP_DEVICE_INTERRUPT, /* --run: Ctrl-C to the program on the board */
    TOP_DEVICE_RESET,     /* --run: a soft reset of the board (its main.py runs) */
} top_action_t;

typedef struct top_view_options {
    int unicode;        /* a UTF-8 locale: box drawing and arrows; otherwise ASCII only */
    int colour;         /* colours allowed (0 when NO_COLOR is set); monochrome terminals are detected */
    int sort;           /* the initial sort: a stats_sort_t (total, count, max, mean, name) */
    int by_instance;    /* start with one row per task instance (--instances) */
} top_view_options_t;

/* Takes over the terminal (stdin and stdout). Returns NULL after one sentence on stderr when
 * either is not a terminal or the terminal cannot be used; also when out of memory. The terminal
 * is restored at exit (atexit) even if top_view_close is never reached. */
top_view_t *top_view_open(const top_view_options_t *o);

/* Non-blocking: applies the keys waiting on stdin, takes new data from the pipeline unless
 * frozen, and redraws when a key changed something or, at most every 100 ms, when the data or
 * the status did. Returns what main has to do (quit, replay control), TOP_CONTINUE otherwise. */
top_action_t top_view_poll(top_view_t *v, pipeline_t *p, const top_status_t *s, uint64_t now_us);

/* The descriptor main polls for keys (standard input). */
int top_view_fd(const top_view_t *v);

/* A line of device text for the text pane (pipeline_config.text_line routes here, with the view
 * as user). The last lines are kept in a fixed ring: memory is bounded. NULL v is ignored. */
void top_view_text_line(top_view_t *v, const char *line);
void top_view_text_line_cb(void *v, const char *line); /* the same, with the callback's signature */

/* A one-line message from main ("the port went away; waiting for it"), shown until replaced;
 * NULL clears it. The view must not be drawn over with stderr while it is open. */
void top_view_message(top_view_t *v, const char *msg);

/* Gives the terminal back (endwin) and frees the view. NULL is accepted; calling it after the
 * atexit handler ran is harmless. Call it once per view, from ordinary code (main's loop sees the
 * signal flag and ends normally; endwin is not async-signal-safe). */
void top_view_close(top_view_t *v);

#endif
