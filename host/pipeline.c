#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

#include "aioprof_frame_reader.h"
#include "events.h"
#include "stats.h"

struct pipeline {
    aioprof_reader_t reader;
    events_t events;
    stats_t stats;
    int link_down;
};

static const aioprof_reader_sink_t pipeline_sink = {events_frame, events_record, events_text};

pipeline_t *pipeline_new(const pipeline_config_t *config)
{
    pipeline_t *p = calloc(1, sizeof *p);
    if (!p) {
        return NULL;
    }
    uint64_t slow_us = config && config->slow_us ? config->slow_us : 20000u;
    if (stats_init(&p->stats, config ? config->instance_cap : 0, slow_us) < 0) {
        free(p);
        return NULL;
    }
    events_init(&p->events, &p->stats, config ? config->text_line : NULL, config ? config->user : NULL);
    aioprof_reader_init(&p->reader, &pipeline_sink, &p->events);
    return p;
}

void pipeline_free(pipeline_t *p)
{
    if (!p) {
        return;
    }
    stats_free(&p->stats);
    free(p);
}

/* The reader's counters are the stream's; a reader reset must not lose them. */
static void pipeline_sync_counters(pipeline_t *p)
{
    const aioprof_reader_stats_t *r = &p->reader.stats;
    stats_stream_t *s = &p->stats.stream;
    s->bytes = r->bytes;
    s->frames = r->frames;
    s->crc_errors = r->crc_errors;
    s->lost_frames = r->lost_frames;
    s->malformed = r->malformed;
    s->unsupported = r->unsupported;
}

void pipeline_feed(pipeline_t *p, const uint8_t *data, size_t len, uint64_t host_us)
{
    (void)host_us;
    uint64_t crc_before = p->reader.stats.crc_errors + p->reader.stats.malformed;
    aioprof_reader_feed(&p->reader, data, len);
    if (p->reader.stats.crc_errors + p->reader.stats.malformed != crc_before) {
        /* damage is a loss even before the next frame's sequence number shows it */
        stats_loss(&p->stats);
    }
    pipeline_sync_counters(p);
}

void pipeline_link_down(pipeline_t *p, uint64_t host_us)
{
    (void)host_us;
    if (p->link_down) {
        return;
    }
    p->link_down = 1;
    /* a segment cut by the unplugging is neither a frame nor text we want: drop it, keep counting */
    aioprof_reader_stats_t keep = p->reader.stats;
    aioprof_reader_init(&p->reader, &pipeline_sink, &p->events);
    p->reader.stats = keep;
    events_gap(&p->events);
    pipeline_sync_counters(p);
}

void pipeline_link_up(pipeline_t *p, uint64_t host_us)
{
    (void)host_us;
    if (!p->link_down) {
        return;
    }
    p->link_down = 0;
    p->stats.stream.reconnects++;
}

void pipeline_finish(pipeline_t *p, uint64_t host_us)
{
    (void)host_us;
    aioprof_reader_finish(&p->reader);
    events_finish(&p->events);
    pipeline_sync_counters(p);
}

void pipeline_reset_stats(pipeline_t *p)
{
    stats_reset(&p->stats);
}

const struct stats *pipeline_stats(const pipeline_t *p)
{
    return &p->stats;
}
