/* HELLO and DROPPED records, in the frame being read: device resets (a new epoch, the time line
 * restarted), another device on the link after it came back (said once, counted apart), the
 * device's drain overhead, and events the device dropped. Part of the events stage (events.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "aioprof_wire.h"
#include "escape.h"
#include "events_private.h"

/* The device started again: its ids and its tick counter restart. */
static void device_reset(events_t *e)
{
    stats_t *s = e->stats;
    s->stream.resets++;
    events_spans_lost(e);
    events_stack_drop(e);
    stats_loss(s); /* what was still in its ring is gone */
    if (!(e->frame_new_epoch && e->frame_events == 0)) {
        stats_new_epoch(s);
    }
    if (e->frame_events == 0) {
        /* this frame's base is of the new boot: undo placing it on the old time line */
        s->elapsed_us -= e->frame_elapsed_us;
        s->outside_us -= e->frame_outside_us;
        e->now_us = e->frame_before_us;
        e->late_shift += e->frame_elapsed_us; /* the turns' time line never goes back */
        e->frame_elapsed_us = e->frame_outside_us = 0;
        events_time_start(e, e->frame_base_raw, e->tick_bits);
    }
    events_mark(e, PIPELINE_MARK_RESET, 1);
    /* else: events came before the HELLO (no device does that); the time line just continues */
    if (e->frame_running != 0) {
        events_spans_lost(e);
        events_stack_resync(e, e->frame_running);
    } else {
        e->known_bottom = 1;
    }
    if (e->late_unit) {
        events_turn(e, e->now_us, events_running_who(e));
    }
}

/* The device's period as it works with it: a device older than the field has the default, a
 * second. */
static uint32_t hello_period(const aioprof_hello_t *h)
{
    return h->period_ticks ? h->period_ticks : h->tick_hz;
}

/* "platform", Hz, tick width, period: what tells one device from another. */
static void device_describe(char *out, size_t size, const char *platform, uint32_t hz, uint32_t bits, uint32_t period)
{
    snprintf(out, size, "\"%s\", %" PRIu32 " Hz, %" PRIu32 "-bit ticks, a period of %" PRIu32 " ticks", platform, hz,
        bits, period);
}

/* The first HELLO after the link came back: is it the device seen before? (A restart of the same
 * one is an ordinary reset.) Another one is said once, and marked; its tasks are in the epoch the
 * link's return started. Returns 1 for another device. */
static int device_check(events_t *e, const aioprof_hello_t *h)
{
    const stats_device_t *d = &e->stats->device;
    char platform[STATS_PLATFORM_MAX];
    escape_bytes(platform, sizeof platform, h->platform,
        h->platform_len > AIOPROF_PLATFORM_MAX ? AIOPROF_PLATFORM_MAX : h->platform_len, 0);
    if (strcmp(platform, d->platform) == 0 && h->tick_hz == d->tick_hz && h->tick_bits == d->tick_bits &&
        hello_period(h) == d->period_ticks) {
        return 0;
    }
    if (e->note) {
        char was[STATS_PLATFORM_MAX + 96], now[STATS_PLATFORM_MAX + 96], sentence[2 * sizeof was + 160];
        device_describe(was, sizeof was, d->platform, d->tick_hz, d->tick_bits, d->period_ticks);
        device_describe(now, sizeof now, platform, h->tick_hz, h->tick_bits, hello_period(h));
        snprintf(sentence, sizeof sentence, "another device is on the link since it came back: %s (before: %s); "
            "its tasks are counted apart, as a new epoch.", now, was);
        e->note(e->user, sentence);
    }
    events_mark(e, PIPELINE_MARK_NEW_DEVICE, 1);
    return 1;
}

void events_on_hello(events_t *e, const aioprof_hello_t *h)
{
    stats_device_t *d = &e->stats->device;
    int boot = (h->flags & AIOPROF_HELLO_FLAG_BOOT) != 0;
    int other = 0;
    /* d still holds the previous HELLO's figures here */
    if (e->check_device) {
        e->check_device = 0;
        other = d->have_hello && device_check(e, h);
    }
    if (!other && ((boot && e->frames_seen > 1) || (!boot && d->have_hello && h->boot_ticks != d->boot_ticks))) {
        device_reset(e);
    }
    if (h->tick_hz != e->tick_hz) { /* never 0: the reader refuses such a HELLO */
        events_time_reorigin(e);
        e->tick_hz = h->tick_hz;
    }
    e->period_ticks = hello_period(h);
    /* the device counts its drain time in its own ticks (modulo 2^32): converted here, exactly;
     * its events cost what it says one costs, those it dropped too (the hook ran for them) */
    if (e->drain_ok) {
        d->drain_sum_us += events_ticks_to_us((uint32_t)(h->drain_ticks - e->drain_prev), e->tick_hz);
        d->drain_span_us += e->now_us - e->drain_prev_us;
        uint64_t events = e->hello_events + (uint32_t)(h->dropped_total - e->dropped_prev);
        d->event_sum_us += (double)events * (double)h->event_cost * 1e6 / 1024.0 / (double)h->tick_hz;
    }
    e->drain_ok = 1;
    e->drain_prev = h->drain_ticks;
    e->drain_prev_us = e->now_us;
    e->hello_events = 0;
    e->dropped_prev = h->dropped_total;
    d->event_cost = h->event_cost;
    /* lateness from the next ENTER on (the turns begin here: nothing before is on them) */
    if (h->late_unit != 0 && e->late_unit == 0) {
        events_turn(e, e->now_us, events_running_who(e));
    }
    e->late_unit = h->late_unit;
    d->late_unit = h->late_unit;
    d->mem = h->mem;

    if (h->flags & AIOPROF_HELLO_FLAG_STOPPED) {
        e->stopped = 1; /* the last thing it sends: nothing was left in its ring */
    }
    d->have_hello = 1;
    d->version = h->version;
    d->tick_hz = h->tick_hz;
    d->tick_bits = h->tick_bits;
    d->period_ticks = e->period_ticks;
    d->ring_bytes = h->ring_bytes;
    d->boot_ticks = h->boot_ticks;
    d->drain_us = events_ticks_to_us(h->drain_ticks, e->tick_hz);
    d->dropped_total = h->dropped_total;
    escape_bytes(d->platform, sizeof d->platform, h->platform,
        h->platform_len > AIOPROF_PLATFORM_MAX ? AIOPROF_PLATFORM_MAX : h->platform_len, 0);
}

void events_on_dropped(events_t *e, uint32_t count)
{
    if (count == 0) {
        return; /* no event lost: only frames (heartbeats) could not go while the ring was full */
    }
    e->stats->stream.dropped_events += count;
    stats_loss(e->stats);
    events_mark(e, PIPELINE_MARK_DROPPED, count);
    if (e->frame_events == 0) {
        /* the drops came before this frame: its header still tells what runs, but not what ran
         * from the previous frame's last event to its base */
        if (e->late_unit) {
            events_late_unseen(e);
        }
        events_spans_lost(e);
        events_stack_resync(e, e->frame_running);
    } else {
        events_spans_lost(e);
        events_stack_drop(e);
        e->known_bottom = 0;
    }
    if (e->late_unit) {
        events_turn(e, e->now_us, events_running_who(e));
    }
}
