#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

#include "aioprof_frame_reader.h"
#include "events.h"
#include "stats.h"

struct pipeline {
    pipeline_config_t config;
    aioprof_reader_t reader;
    events_t events;
    stats_t stats;
    int link_down;
    uint64_t marked_crc, marked_malformed; /* damage already taken as a loss */
};

/* Damage (a frame with a bad CRC, a malformed one) is a loss as soon as the reader has counted it,
 * when the bad segment ends: before the next good frame is placed. So the time line still stands
 * where it happened for the observer's mark, and tasks first seen after it are not taken as seen
 * across it, however the bytes were cut into reads. */
static void pipeline_damage(pipeline_t *p)
{
    const aioprof_reader_stats_t *r = &p->reader.stats;
    if (r->crc_errors == p->marked_crc && r->malformed == p->marked_malformed) {
        return;
    }
    stats_loss(&p->stats);
    if (r->crc_errors != p->marked_crc) {
        events_mark(&p->events, PIPELINE_MARK_CRC, r->crc_errors - p->marked_crc);
        p->marked_crc = r->crc_errors;
    }
    if (r->malformed != p->marked_malformed) {
        events_mark(&p->events, PIPELINE_MARK_MALFORMED, r->malformed - p->marked_malformed);
        p->marked_malformed = r->malformed;
    }
}

static long pipeline_frame_records(void *user, aioprof_reader_t *r, const aioprof_frame_info_t *frame,
    const uint8_t *records, const uint8_t *end)
{
    pipeline_t *p = user;
    pipeline_damage(p);
    return events_frame_records(&p->events, r, frame, records, end);
}

static void pipeline_text(void *user, const uint8_t *text, size_t len)
{
    events_text(&((pipeline_t *)user)->events, text, len);
}

static const aioprof_reader_sink_t pipeline_sink = {.frame_records = pipeline_frame_records, .text = pipeline_text};

/* Everything but the statistics' memory, as at the start of a stream. */
static void pipeline_start(pipeline_t *p)
{
    const pipeline_config_t *c = &p->config;
    events_init(&p->events, &p->stats, c->text_line, c->user);
    events_on_note(&p->events, c->note);
    if (c->observer) {
        events_observe(&p->events, c->observer, c->observer_user);
    }
    aioprof_reader_init(&p->reader, &pipeline_sink, p);
    p->link_down = 0;
    p->marked_crc = p->marked_malformed = 0;
}

pipeline_t *pipeline_new(const pipeline_config_t *config)
{
    pipeline_t *p = calloc(1, sizeof *p);
    if (!p) {
        return NULL;
    }
    if (config) {
        p->config = *config;
    }
    uint64_t slow_us = p->config.slow_us ? p->config.slow_us : 20000u;
    if (stats_init(&p->stats, p->config.instance_cap, slow_us) < 0) {
        free(p);
        return NULL;
    }
    pipeline_start(p);
    return p;
}

void pipeline_restart(pipeline_t *p)
{
    stats_clear(&p->stats);
    pipeline_start(p);
}

void pipeline_free(pipeline_t *p)
{
    if (!p) {
        return;
    }
    stats_free(&p->stats);
    events_free(&p->events);
    free(p);
}

/* The reader's counters are the stream's: copied into the statistics, which is all the views see. */
static void pipeline_sync_counters(pipeline_t *p)
{
    const aioprof_reader_stats_t *r = &p->reader.stats;
    stats_stream_t *s = &p->stats.stream;
    s->bytes = r->bytes;
    s->frames = r->frames;
    s->crc_errors = r->crc_errors;
    s->lost_frames = r->lost_frames + p->events.frames_unseen;
    s->malformed = r->malformed;
    s->unsupported = r->unsupported;
    s->duplicates = r->duplicates;
    s->skipped_bytes = r->skipped_bytes;
    s->unknown_ops = r->unknown_ops;
    s->unknown_op_mask = r->unknown_op_mask;
}

void pipeline_feed(pipeline_t *p, const uint8_t *data, size_t len)
{
    aioprof_reader_feed(&p->reader, data, len);
    pipeline_damage(p); /* a loss even before the next frame's sequence number shows it */
    pipeline_sync_counters(p);
}

void pipeline_link_down(pipeline_t *p)
{
    if (p->link_down) {
        return;
    }
    p->link_down = 1;
    /* a segment cut by the unplugging is neither a frame nor text we want: drop it, keep counting */
    aioprof_reader_stats_t keep = p->reader.stats;
    aioprof_reader_init(&p->reader, &pipeline_sink, p);
    p->reader.stats = keep;
    events_gap(&p->events);
    pipeline_sync_counters(p);
}

void pipeline_link_up(pipeline_t *p)
{
    if (!p->link_down) {
        return;
    }
    p->link_down = 0;
    p->stats.stream.reconnects++;
    events_link_up(&p->events);
}

void pipeline_input_damaged(pipeline_t *p)
{
    p->stats.stream.recording_damage++;
    stats_loss(&p->stats);
    events_mark(&p->events, PIPELINE_MARK_INPUT_DAMAGED, 1);
}

void pipeline_finish(pipeline_t *p)
{
    aioprof_reader_finish(&p->reader);
    pipeline_damage(p);
    events_finish(&p->events);
    pipeline_sync_counters(p);
}

void pipeline_end_of_input(pipeline_t *p)
{
    pipeline_finish(p);
    if (p->events.frames_seen > 0 && !p->events.stopped && !p->stats.stream.ended_before_stop) {
        stats_loss(&p->stats);
        p->stats.stream.ended_before_stop = 1;
    }
}

int pipeline_pending_is_text(const pipeline_t *p)
{
    const aioprof_reader_t *r = &p->reader;
    if (r->long_text) {
        return 1;
    }
    if (r->long_damage || r->seg_len == 0) {
        return 0;
    }
    return !aioprof_reader_looks_like_frame(r, r->seg, r->seg_len);
}

void pipeline_reset_stats(pipeline_t *p)
{
    stats_reset(&p->stats);
}

const struct stats *pipeline_stats(const pipeline_t *p)
{
    /* the name rows take in their instances' latest figures now, for the one who looks: taking
     * them in after every read of the port cost a report of 4,000 tasks a tenth of its time. The
     * pipeline is only ever made by pipeline_new: changing it here is allowed (its figures do not
     * change, only where they are summed). */
    stats_sync(&((pipeline_t *)p)->stats);
    return &p->stats;
}

uint64_t pipeline_elapsed_us(const pipeline_t *p)
{
    return p->stats.elapsed_us;
}
