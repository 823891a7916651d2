/* Bytes in, statistics out: the part of aioprof-top that live and replay share, after the read.
 *
 *   source (serial, pty, file) -> recorder taps raw bytes -> pipeline_feed()
 *     -> proto reader (frames, records, text) -> events (time line, slices, epochs, text lines)
 *     -> stats (per name, per instance) -> views (text report, JSON, live table)
 *
 * The I/O side (main.c, sources, recorder) only calls the functions below. */
#ifndef AIOPROF_PIPELINE_H
#define AIOPROF_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "observer.h"

typedef struct pipeline pipeline_t;
struct stats;

typedef struct pipeline_config {
    uint64_t slow_us;        /* slices longer than this are "slow" (default 20000) */
    size_t instance_cap;     /* instance rows kept before the oldest finished fold (0: default) */
    /* Called for every complete line of device text, already made safe to print (control
     * characters and escape sequences visible), NUL-terminated, without its newline. May be NULL. */
    void (*text_line)(void *user, const char *line);
    /* Called, with the same user, with one sentence about something the user should know of the
     * stream at once (another device on the link). May be NULL. */
    void (*note)(void *user, const char *sentence);
    void *user;
    /* Sees every slice, loss and text line (the trace export). NULL costs nothing. */
    const pipeline_observer_t *observer;
    void *observer_user;
} pipeline_config_t;

/* Returns NULL only when out of memory. */
pipeline_t *pipeline_new(const pipeline_config_t *config);
void pipeline_free(pipeline_t *p);

/* As if just made by pipeline_new with the same config, its memory kept: the fuzzers run many
 * streams through one pipeline, as allocating one per input took most of their time. */
void pipeline_restart(pipeline_t *p);

/* Bytes as received. (Timing is the device's: the host's receive time is the recorder's business.) */
void pipeline_feed(pipeline_t *p, const uint8_t *data, size_t len);

/* The link went away (unplugged) or came back: the reader resyncs at the next delimiter, the time
 * line starts a new epoch if needed. Totals are kept. */
void pipeline_link_down(pipeline_t *p);
void pipeline_link_up(pipeline_t *p);

/* Part of the input could not be read here (a damaged recording): what follows may not continue
 * what came before, so the figures from here on are marked as possibly low. The bytes themselves
 * still go through pipeline_feed, whose decoder counts what it cannot read. */
void pipeline_input_damaged(pipeline_t *p);

/* The stream ended (end of file, end of session): finishes a buffered segment and closes any open
 * slice as cut off (not counted). */
void pipeline_finish(pipeline_t *p);

/* The input ended by itself (the end of a recording or capture), not because the user ended the
 * session: pipeline_finish, and when the device never said it stopped, its last events may still
 * have been in its ring: the tasks live at the end become lower bounds (stream.ended_before_stop). */
void pipeline_end_of_input(pipeline_t *p);

/* Would the bytes fed since the last 0x00 be device text, were the segment to end now (not a
 * frame, nor what looks like a damaged one: docs/protocol.md section 1)? 0 when there are none.
 * --run watches there for the end of MicroPython's raw REPL output, which no delimiter follows. */
int pipeline_pending_is_text(const pipeline_t *p);

/* Resets the statistics (the live table's `r` key); stream counters are kept. */
void pipeline_reset_stats(pipeline_t *p);

/* The statistics, their name rows up to date with every slice so far. Call it again after more
 * bytes went through: the name rows are brought up to date here (struct stats: stats_sync). */
const struct stats *pipeline_stats(const pipeline_t *p);
/* The device time the statistics have seen (struct stats: elapsed_us), without bringing the name
 * rows up to date: cheap enough for every read (a replay's pace). */
uint64_t pipeline_elapsed_us(const pipeline_t *p);

#endif
