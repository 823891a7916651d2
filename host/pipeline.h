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

typedef struct pipeline pipeline_t;
struct stats;

typedef struct pipeline_config {
    uint64_t slow_us;        /* slices longer than this are "slow" (default 20000) */
    size_t instance_cap;     /* instance rows kept before the oldest finished fold (0: default) */
    /* Called for every complete line of device text, already made safe to print (control
     * characters and escape sequences visible), NUL-terminated, without its newline. May be NULL. */
    void (*text_line)(void *user, const char *line);
    void *user;
} pipeline_config_t;

/* Returns NULL only when out of memory. */
pipeline_t *pipeline_new(const pipeline_config_t *config);
void pipeline_free(pipeline_t *p);

/* Bytes as received; host_us is the host's receive time (monotonic, microseconds). */
void pipeline_feed(pipeline_t *p, const uint8_t *data, size_t len, uint64_t host_us);

/* The link went away (unplugged) or came back: the reader resyncs at the next delimiter, the time
 * line starts a new epoch if needed. Totals are kept. */
void pipeline_link_down(pipeline_t *p, uint64_t host_us);
void pipeline_link_up(pipeline_t *p, uint64_t host_us);

/* The stream ended (end of file, end of session): finishes a buffered segment and closes any open
 * slice as cut off (not counted). */
void pipeline_finish(pipeline_t *p, uint64_t host_us);

/* Resets the statistics (the live table's `r` key); stream counters are kept. */
void pipeline_reset_stats(pipeline_t *p);

const struct stats *pipeline_stats(const pipeline_t *p);

#endif
