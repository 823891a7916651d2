/* From records to happenings: the device time line, the running stack and its slices, device
 * resets and link gaps (epochs), and device text cut into safe lines. Feeds stats.c.
 *
 * Time: each frame's base is unwrapped onto a 64-bit tick line (docs/protocol.md section 4) and
 * turned into microseconds with the HELLO's tick_hz. Gaps (lost frames, a link that went down, a
 * device reset) are cut out of the microsecond line, so elapsed time is time actually seen. A
 * difference in the upper half of the tick range is the device's clock stepping back: time stands
 * still until the clock passes the latest time point again (a step of more than a period starts
 * from there at once), so a glitch costs a slice its step and never becomes a huge one. A base
 * further past the previous frame than the device's heartbeat allows is a loss of 256 frames (or
 * a multiple), which the sequence number cannot show.
 *
 * Slices: ENTER pushes, EXIT ends the innermost; a nested enter pauses the outer slice, so every
 * slice is exclusive time. Whenever what runs is uncertain (frames lost, events dropped, a frame
 * header disagreeing), the open slices are dropped uncounted and the frame's `running` task
 * continues with its start unknown, so its end is not counted either (stats: unmatched). */
#ifndef AIOPROF_EVENTS_H
#define AIOPROF_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "aioprof_frame_reader.h"
#include "observer.h"
#include "stats.h"

#define EVENTS_STACK_MAX 64u /* deeper nesting is treated as lost track */
#define EVENTS_LINE_MAX 512u /* longer device text lines are cut, with ESCAPE_CUT_MARK */
/* Spans (events_spans.c): open spans of all tasks together, of one task, tasks with open spans. */
#define EVENTS_SPANS_OPEN 1024u
#define EVENTS_SPAN_DEPTH 32u
#define EVENTS_SPAN_TASKS 256u
typedef struct events_spans events_spans_t;

/* A silence between frames longer than this many of the device's periods is a loss (events.c). */
#define EVENTS_SILENCE_PERIODS 4u

/* Lateness (events_late.c): the time line of who ran, kept for the waiting windows, and the
 * frame's ENTERs, which its LATE record (at its end) gives a lateness each. */
#define EVENTS_TURNS (1u << 16)        /* turns kept: a window reaching further back is partly unknown */
#define EVENTS_FRAME_ENTERS AIOPROF_BODY_MAX /* an ENTER takes at least one byte of a body */
#define EVENTS_WHO_OUTSIDE STATS_WHO_OUTSIDE /* no task ran (the scheduler, the drain, idle) */
#define EVENTS_WHO_UNKNOWN STATS_WHO_UNKNOWN /* what ran is not known (lost frames, dropped events) */

/* From `at` on, `who` ran: a name row, STATS_WHO_UNNAMED, or EVENTS_WHO_*. */
typedef struct events_turn {
    uint64_t at;
    int32_t who;
    int32_t cell; /* who's cell in the running sums (events_late_sums.c), set when they number it */
} events_turn_t;

/* The lateness scratch (events_late*.c), allocated once and kept for the next stream: a window's
 * time per culprit while it is walked, and the running sums of each culprit's time with their
 * checkpoints. */
#define EVENTS_CK_EVERY 32u   /* turns between checkpoints of the running sums, up to 256 culprits */
#define EVENTS_CK_FLAT 256u  /* past this many cells per checkpoint, the checkpoints thin out (as
                                many fewer as the cells are more): their memory stays 4 MB */
#define EVENTS_CK_MAX (STATS_NAME_CAP + 8u) /* culprits the sums number: every name row there may be */
typedef struct events_scratch {
    uint64_t *blame_us;     /* a window's time per culprit, at who + 3, then the walk's list's */
    int32_t *blamed;        /* the culprits a walk touched */
    size_t blame_cap;       /* cells of blame_us / 2 and of blamed */
    uint64_t *ck;           /* the checkpoints (EVENTS_TURNS / their spacing, of ck_stride cells),
                               then the running sums, then a window's two ends */
    size_t ck_stride;
    unsigned ck_wide;       /* the checkpoints' spacing is EVENTS_CK_EVERY << ck_wide turns (events_late.c) */
    uint64_t *snap;         /* the sums at each of a frame's late ENTERs (snap_cap cells) */
    size_t snap_cap;
} events_scratch_t;

typedef struct events_enter {
    stats_instance_t *in; /* NULL: an ENTER whose task got no row */
    uint64_t key;         /* in's key then: a row folded and placed again since is not its */
    uint64_t turn;        /* its turn */
} events_enter_t;

typedef struct events_open {
    stats_instance_t *in; /* its instance row (rows never move) */
    uint32_t known;     /* its start was seen: its slice can be counted */
    uint64_t acc_us;    /* exclusive time before the last pause */
    uint64_t resume_us; /* when it last started or resumed */
    uint64_t start_us;  /* when it started: its wall span, for an observer */
} events_open_t;

typedef struct events {
    stats_t *stats;
    void (*text_line)(void *user, const char *line);
    void (*note)(void *user, const char *sentence);
    void *user;
    const pipeline_observer_t *obs; /* NULL: nobody watches (the hot path only tests it) */
    void *obs_user;

    /* the time line */
    int have_time;          /* inside a time segment: the next base can be unwrapped */
    unsigned tick_bits;
    uint64_t wrap;          /* 2^tick_bits */
    uint64_t half;          /* wrap / 2: differences at or above it are steps back */
    uint64_t pos;           /* where the device's clock is, ticks: the last event (or base) it stamped */
    uint64_t last_ticks;    /* the latest time point, ticks: pos or, after a step back, ahead of it */
    uint64_t origin_ticks;  /* ticks that map to origin_us: set at every gap or tick_hz change */
    uint64_t origin_us;
    uint64_t now_us;        /* the latest time point on the gapless microsecond line */
    uint32_t tick_hz;
    uint32_t period_ticks;  /* the device's period (its HELLO's, else a second) */
    uint64_t frames_unseen; /* lost frames only the time line showed: 256 per silence too long */

    /* the open frame */
    uint32_t frame_base_raw;
    uint32_t frame_running;
    uint32_t frame_events;  /* ENTER/EXIT records so far in this frame */
    uint64_t frame_before_us; /* now_us before the frame's base was placed */
    uint64_t frame_elapsed_us, frame_outside_us; /* what placing the base added */
    uint64_t frames_seen;

    /* the running stack */
    events_open_t stack[EVENTS_STACK_MAX];
    unsigned depth;
    int known_bottom;       /* nothing runs below the stack: idle time there is outside tasks */

    /* HELLOs: device resets and the drain overhead */
    int stopped;            /* the last frame ended with a HELLO saying the device stopped */
    int relinked;           /* the link came back: the next frame starts an epoch (its ids may be
                               another device's), and the next HELLO says whose they are */
    int check_device;       /* the next HELLO is compared with the device seen before the link went */
    int frame_new_epoch;    /* this frame started the epoch: a reset in it needs no other */
    int drain_ok;           /* the previous HELLO is of this boot and this gapless stretch */
    uint32_t drain_prev;
    uint64_t drain_prev_us;
    uint64_t hello_events;  /* ENTER and EXIT records since the previous HELLO */
    uint32_t dropped_prev;  /* its dropped_total */

    /* lateness (events_late.c) */
    uint32_t late_unit;     /* ticks per unit of the device's lateness (its HELLO); 0: not reported */
    uint64_t n_turns;       /* turns so far: turns[] holds the last EVENTS_TURNS */
    uint32_t n_enters;      /* the frame's ENTERs so far */
    const uint8_t *late;    /* the frame's LATE record: its values, count of them; NULL: none */
    size_t late_len;
    uint32_t late_count;
    uint64_t late_shift;    /* a turn's time is now_us plus this: the lost stretches cut out of the
                               microsecond line, put back for the windows (device time) */
    uint64_t late_floor;    /* turns' time where the time line last started (a reset, a link gap):
                               a window's part before it is unknown */
    uint64_t frame_shift;   /* late_shift before this frame's base was placed */
    uint64_t frame_turn;    /* the frame's first turn */
    int frame_gc;           /* a GC record of this frame put turns in (events_mem.c) */
    uint64_t gc_until;      /* where the last GC record's turns end, on the turns' time line */
    int late_capped;        /* a lateness too long to count was cut to STATS_LATE_MAX_US (said once) */
    uint32_t bucket_unit;   /* late_unit whose one-byte values' buckets late_bucket holds; 0: none */
    uint8_t late_bucket[128]; /* a one-byte LATE value v at 1 MHz: stats_hist_bucket(v * late_unit) */
    uint64_t ck_turn;       /* the running sums cover the turns before it (events_late.c) */
    size_t ck_n;            /* culprits numbered in the sums */
    int ck_off;             /* no memory for the sums: every window walks its turns */
    int ck_cells_set;       /* every turn from ck_turn on was written with its cell (its culprit
                               numbered then): late_ck_cells has none to number */
    events_scratch_t scratch; /* kept by events_init: its memory is reused, its numbering undone */
    events_spans_t *spans;  /* the open spans (events_spans.c), NULL until a span record; kept too */
    int span_lists;         /* the stream has span lists (SPANS records): every frame's is looked
                               for before its records are read (events.c) */
    events_enter_t enters[EVENTS_FRAME_ENTERS];
    int32_t ck_who[EVENTS_CK_MAX]; /* number -> culprit */
    uint8_t ck_slot[EVENTS_CK_MAX]; /* number -> its slot in the rows' indexes (stats_late_slot) */
    /* who + 3 -> its number in the running sums (its cell + 1; 0: none), for every name row there
     * may be (STATS_NAME_CAP + 4 with the special rows) and the three below: a turn is written
     * with its cell */
    int32_t ck_num[EVENTS_CK_MAX + 3u];
    events_turn_t turns[EVENTS_TURNS];
    aioprof_span_event_t span_ev[AIOPROF_SPAN_EVENTS_MAX]; /* the frame's span list, in time order:
                                                              written before it is read */

    /* device text */
    uint8_t line[EVENTS_LINE_MAX];
    size_t line_len;
    int line_cut;           /* the current line was cut and shown: skip to its end */
    char escaped[EVENTS_LINE_MAX * 4 + 8];
} events_t;

/* Never fails; stats must outlive e. text_line may be NULL. */
void events_init(events_t *e, stats_t *stats, void (*text_line)(void *user, const char *line), void *user);

/* Who is told, in one sentence, of another device on the link (user is the one of events_init).
 * NULL: nobody. */
void events_on_note(events_t *e, void (*note)(void *user, const char *sentence));

/* Lets an observer see the slices, marks and text lines from now on (NULL: none). */
void events_observe(events_t *e, const pipeline_observer_t *obs, void *user);

/* Tells the observer about a hole found before the events (damaged frames): at the latest time. */
void events_mark(events_t *e, pipeline_mark_t mark, uint64_t count);

/* The reader's sink functions (user is the events_t): a frame and its records, read here in one
 * loop (aioprof_reader_sink_t.frame_records), and device text. */
long events_frame_records(void *user, aioprof_reader_t *r, const aioprof_frame_info_t *frame, const uint8_t *p,
    const uint8_t *end);
void events_text(void *user, const uint8_t *text, size_t len);

/* The link went down: open slices are dropped, the time line ends (the gap cannot be measured). */
void events_gap(events_t *e);

/* The link is back: what comes next may be another device (docs/usage.md, "Health counters"). */
void events_link_up(events_t *e);

/* The stream ended: open slices are dropped as cut off, a partial text line is shown. */
void events_finish(events_t *e);

/* Frees what e allocated (it holds no more than its lateness scratch). */
void events_free(events_t *e);

#endif
