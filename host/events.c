#include "events.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "aioprof_wire.h"
#include "escape.h"

void events_init(events_t *e, stats_t *stats, void (*text_line)(void *user, const char *line), void *user)
{
    memset(e, 0, sizeof *e);
    e->stats = stats;
    e->text_line = text_line;
    e->user = user;
    e->tick_hz = 1000000u; /* until a HELLO says otherwise */
    e->period_ticks = e->tick_hz;
}

void events_on_note(events_t *e, void (*note)(void *user, const char *sentence))
{
    e->note = note;
}

void events_observe(events_t *e, const pipeline_observer_t *obs, void *user)
{
    e->obs = obs;
    e->obs_user = user;
}

void events_mark(events_t *e, pipeline_mark_t mark, uint64_t count)
{
    if (e->obs && e->obs->mark) {
        e->obs->mark(e->obs_user, mark, e->now_us, count);
    }
}

/* A counted slice, told to the observer with what is known of its task now. */
static void observe_slice(events_t *e, const events_open_t *o, uint64_t self_us, unsigned kind)
{
    const stats_t *s = e->stats;
    const stats_instance_t *in = &s->inst[o->inst];
    pipeline_slice_t sl = {
        .task = {
            .epoch = in->epoch,
            .id = in->id,
            .name = in->name >= 0 ? s->names[in->name].name : NULL,
            .label = in->label,
            .parent = in->parent,
        },
        .start_us = o->start_us,
        .end_us = e->now_us,
        .self_us = self_us,
        .exit_kind = kind,
    };
    sl.task.parent_name = stats_parent_name(s, in);
    e->obs->slice(e->obs_user, &sl);
}

/* ---- the time line ---- */

static inline uint64_t ticks_to_us(uint64_t ticks, uint32_t hz)
{
    if (hz == 1000000u) {
        return ticks;
    }
    /* split so that the product cannot overflow */
    return ticks / hz * 1000000u + ticks % hz * 1000000u / hz;
}

/* The microsecond line restarts from here: after a gap, or when the tick rate changes. */
static void time_reorigin(events_t *e)
{
    e->origin_ticks = e->last_ticks;
    e->origin_us = e->now_us;
}

/* Moves time to t (ticks): device time seen, and outside any task when nothing is known to run. */
static inline void time_advance(events_t *e, uint64_t t)
{
    if (t < e->last_ticks) {
        t = e->last_ticks; /* a clock that stepped back, or a hostile stream: time never goes back */
    }
    uint64_t us = e->origin_us + ticks_to_us(t - e->origin_ticks, e->tick_hz);
    uint64_t dt = us - e->now_us;
    e->stats->elapsed_us += dt;
    if (e->depth == 0 && e->known_bottom) {
        e->stats->outside_us += dt;
    }
    e->now_us = us;
    e->last_ticks = t;
}

/* The first base of a segment: nothing before it can be related to it. (It sits one wrap up the
 * line, so that the clock may step back from it.) */
static void time_start(events_t *e, uint32_t base, unsigned bits)
{
    e->have_time = 1;
    e->tick_bits = bits;
    e->wrap = 1ull << bits;
    e->half = e->wrap / 2u;
    e->pos = e->last_ticks = e->wrap + base;
    time_reorigin(e);
    e->drain_ok = 0;
}

/* The device's clock went back by `back` ticks from pos: counted. Time stands still until the
 * clock is past the latest time point again; after a step of more than a period it goes on from
 * the latest time point at once (a clock set back, not one that glitched). */
static uint64_t time_back(events_t *e, uint64_t back)
{
    e->stats->stream.clock_steps_back++;
    if (back > e->period_ticks || e->pos + e->period_ticks < e->last_ticks + back) {
        return e->last_ticks;
    }
    return e->pos - back;
}

/* A dt in the upper half of the tick range: a step back (or, from a hostile stream, one wider than
 * the ticks, taken modulo their range). */
static void time_step_back(events_t *e, uint32_t dt)
{
    uint64_t d = dt & (e->wrap - 1u);
    e->pos = d < e->half ? e->pos + d : time_back(e, e->wrap - d);
}

/* The next event's dt: one compare on the replay's hot path. */
static inline void time_step(events_t *e, uint32_t dt)
{
    if (dt < e->half) {
        e->pos += dt;
    } else {
        time_step_back(e, dt);
    }
}

/* ---- the running stack ---- */

/* What runs is no longer known: open slices end uncounted. */
static void stack_drop(events_t *e)
{
    for (unsigned i = 0; i < e->depth; i++) {
        e->stats->inst[e->stack[i].inst].on_stack--;
    }
    e->stats->stream.unmatched += e->depth;
    e->depth = 0;
}

static void stack_push(events_t *e, int32_t inst, int known)
{
    events_open_t *o = &e->stack[e->depth++];
    o->inst = inst;
    o->known = (uint8_t)known;
    o->acc_us = 0;
    o->resume_us = o->start_us = e->now_us;
    e->stats->inst[inst].on_stack++;
}

/* Takes the frame header's word for what runs: `running`, started at an unknown time. */
static void stack_resync(events_t *e, uint32_t running)
{
    stack_drop(e);
    if (running == 0) {
        e->known_bottom = 1;
        return;
    }
    e->known_bottom = 0; /* the header names the innermost task only */
    int32_t inst = stats_instance_get(e->stats, running);
    if (inst >= 0) {
        stack_push(e, inst, 0);
    }
}

static uint32_t stack_innermost_id(const events_t *e)
{
    return e->depth ? e->stats->inst[e->stack[e->depth - 1].inst].id : 0u;
}

/* ---- records ---- */

/* Where the frame's base lies: after the device's clock (within half a wrap), or, in the upper
 * half, a step back. Sets *silence to the ticks since the previous frame's last time point. */
static uint64_t time_place(events_t *e, uint32_t base, uint64_t *silence)
{
    uint64_t d = ((uint64_t)base - e->pos) & (e->wrap - 1u);
    *silence = d < e->half ? d : 0;
    return d < e->half ? e->pos + d : time_back(e, e->wrap - d);
}

/* Is the silence before a frame longer than the device allows without losing frames? It sends a
 * frame at least once a period, and two periods and two drain intervals (at most a period each)
 * bound the time from any frame's last event to the next frame's base. Not when the frame says
 * why: its device restarted, it dropped events (its ring was full, no frame could go), or the
 * task that ran before the silence still runs (one long slice). */
static int silence_is_loss(const events_t *e, const aioprof_frame_info_t *f, uint64_t silence)
{
    return silence > (uint64_t)e->period_ticks * EVENTS_SILENCE_PERIODS && !f->boot && !f->drops_first &&
        !(f->running != 0 && f->running == stack_innermost_id(e));
}

void events_frame(void *user, const aioprof_frame_info_t *f)
{
    events_t *e = user;
    unsigned bits = f->tick_bits; /* 1..32: the format byte's five bits plus one */
    e->frames_seen++;
    /* the device said it stopped: it may record again any time later (a MicroPython program that
     * runs asyncio again after its main task ended), so the silence before is no loss */
    int after_stop = e->stopped;
    e->stopped = 0;
    e->frame_new_epoch = 0;
    if (e->relinked) {
        /* the ids from here on may be another device's: they are not mixed with those before */
        e->relinked = 0;
        e->check_device = 1;
        if (e->frames_seen > 1) {
            stats_new_epoch(e->stats);
            e->frame_new_epoch = 1;
        }
    }
    e->frame_base_raw = f->base;
    e->frame_running = f->running;
    e->frame_events = 0;
    e->frame_before_us = e->now_us;
    uint64_t elapsed0 = e->stats->elapsed_us, outside0 = e->stats->outside_us;

    uint64_t lost = f->lost_before;
    if (!e->have_time || bits != e->tick_bits) {
        time_start(e, f->base, bits);
    } else {
        uint64_t silence;
        uint64_t t = time_place(e, f->base, &silence);
        if (lost == 0 && !after_stop && silence_is_loss(e, f, silence)) {
            /* the sequence number wrapped: at least 256 frames are missing */
            lost = 256;
            e->frames_unseen += lost;
        }
        if (lost) {
            /* the time line still holds across lost frames, but what happened in them was not seen */
            if (t > e->last_ticks) {
                e->last_ticks = t;
            }
            time_reorigin(e);
            e->drain_ok = 0;
        }
        time_advance(e, t);
        e->pos = t;
    }
    e->frame_elapsed_us = e->stats->elapsed_us - elapsed0;
    e->frame_outside_us = e->stats->outside_us - outside0;

    if (lost) {
        events_mark(e, PIPELINE_MARK_LOST, lost);
        stats_loss(e->stats);
        stack_resync(e, f->running);
    } else if (stack_innermost_id(e) != f->running) {
        stack_resync(e, f->running);
    } else if (e->depth == 0) {
        e->known_bottom = 1;
    }
}

static inline void on_enter(events_t *e, uint64_t t, uint32_t id)
{
    time_advance(e, t);
    e->stats->stream.events++;
    if (e->obs && e->obs->event) {
        e->obs->event(e->obs_user, e->now_us);
    }
    int32_t inst = stats_instance_lookup(e->stats, id);
    if (inst < 0) {
        return;
    }
    if (e->depth == EVENTS_STACK_MAX) {
        stack_drop(e);
        e->known_bottom = 0;
    }
    if (e->depth > 0) {
        events_open_t *outer = &e->stack[e->depth - 1];
        outer->acc_us += e->now_us - outer->resume_us;
    }
    stack_push(e, inst, 1);
}

static inline void on_exit(events_t *e, uint64_t t, unsigned kind)
{
    time_advance(e, t);
    e->stats->stream.events++;
    if (e->obs && e->obs->event) {
        e->obs->event(e->obs_user, e->now_us);
    }
    if (e->depth == 0) {
        /* an end we cannot place: count it, and stop trusting the idle time until a header */
        e->stats->stream.unmatched++;
        e->known_bottom = 0;
        return;
    }
    events_open_t *o = &e->stack[--e->depth];
    e->stats->inst[o->inst].on_stack--;
    if (o->known) {
        uint64_t self_us = o->acc_us + (e->now_us - o->resume_us);
        stats_slice(e->stats, o->inst, self_us);
        if (e->obs && e->obs->slice) {
            observe_slice(e, o, self_us, kind);
        }
    } else {
        e->stats->stream.unmatched++;
    }
    if (kind != AIOPROF_EXIT_YIELD) {
        /* tested here too: a call per yield would cost the replay a tenth of its speed */
        stats_instance_end(e->stats, o->inst, kind);
    }
    if (e->depth > 0) {
        e->stack[e->depth - 1].resume_us = e->now_us;
    }
}

/* The device started again: its ids and its tick counter restart. */
static void device_reset(events_t *e)
{
    stats_t *s = e->stats;
    s->stream.resets++;
    stack_drop(e);
    stats_loss(s); /* what was still in its ring is gone */
    if (!(e->frame_new_epoch && e->frame_events == 0)) {
        stats_new_epoch(s);
    }
    if (e->frame_events == 0) {
        /* this frame's base is of the new boot: undo placing it on the old time line */
        s->elapsed_us -= e->frame_elapsed_us;
        s->outside_us -= e->frame_outside_us;
        e->now_us = e->frame_before_us;
        e->frame_elapsed_us = e->frame_outside_us = 0;
        time_start(e, e->frame_base_raw, e->tick_bits);
    }
    events_mark(e, PIPELINE_MARK_RESET, 1);
    /* else: events came before the HELLO (no device does that); the time line just continues */
    if (e->frame_running != 0) {
        stack_resync(e, e->frame_running);
    } else {
        e->known_bottom = 1;
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

static void on_hello(events_t *e, const aioprof_hello_t *h)
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
        time_reorigin(e);
        e->tick_hz = h->tick_hz;
    }
    e->period_ticks = hello_period(h);
    /* the device counts its drain time in its own ticks (modulo 2^32): converted here, exactly;
     * its events cost what it says one costs, those it dropped too (the hook ran for them) */
    if (e->drain_ok) {
        d->drain_sum_us += ticks_to_us((uint32_t)(h->drain_ticks - e->drain_prev), e->tick_hz);
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
    d->drain_us = ticks_to_us(h->drain_ticks, e->tick_hz);
    d->dropped_total = h->dropped_total;
    escape_bytes(d->platform, sizeof d->platform, h->platform,
        h->platform_len > AIOPROF_PLATFORM_MAX ? AIOPROF_PLATFORM_MAX : h->platform_len, 0);
}

static void on_dropped(events_t *e, uint32_t count)
{
    if (count == 0) {
        return; /* no event lost: only frames (heartbeats) could not go while the ring was full */
    }
    e->stats->stream.dropped_events += count;
    stats_loss(e->stats);
    events_mark(e, PIPELINE_MARK_DROPPED, count);
    if (e->frame_events == 0) {
        /* the drops came before this frame: its header still tells what runs */
        stack_resync(e, e->frame_running);
    } else {
        stack_drop(e);
        e->known_bottom = 0;
    }
}

void events_record(void *user, const aioprof_record_t *r)
{
    events_t *e = user;
    switch (r->kind) {
    case AIOPROF_REC_ENTER:
        time_step(e, r->dt);
        on_enter(e, e->pos, r->id);
        e->frame_events++;
        e->hello_events++;
        break;
    case AIOPROF_REC_EXIT:
        time_step(e, r->dt);
        on_exit(e, e->pos, r->exit_kind);
        e->frame_events++;
        e->hello_events++;
        break;
    case AIOPROF_REC_HELLO:
        on_hello(e, &r->hello);
        break;
    case AIOPROF_REC_TASK_NEW:
    case AIOPROF_REC_TASK_INFO: {
        int32_t inst = stats_instance_get(e->stats, r->id);
        if (inst >= 0) {
            stats_instance_describe(e->stats, inst, r->name, r->name_len, r->label, r->label_len, r->parent,
                r->kind == AIOPROF_REC_TASK_NEW);
        }
        break;
    }
    case AIOPROF_REC_DROPPED:
        on_dropped(e, r->count);
        break;
    }
}

/* ---- device text ---- */

static void line_emit(events_t *e, int cut)
{
    size_t len = e->line_len;
    while (len > 0 && e->line[len - 1] == '\r') {
        len--;
    }
    size_t n = escape_bytes(e->escaped, sizeof e->escaped - 4, e->line, len, ESCAPE_KEEP_TAB);
    if (cut) {
        memcpy(e->escaped + n, ESCAPE_CUT_MARK, sizeof ESCAPE_CUT_MARK);
    }
    e->stats->stream.text_lines++;
    if (e->text_line) {
        e->text_line(e->user, e->escaped);
    }
    if (e->obs && e->obs->text_line) {
        e->obs->text_line(e->obs_user, e->now_us, e->escaped);
    }
    e->line_len = 0;
}

void events_text(void *user, const uint8_t *text, size_t len)
{
    events_t *e = user;
    while (len > 0) {
        const uint8_t *nl = memchr(text, '\n', len);
        size_t n = nl ? (size_t)(nl - text) : len;
        if (!e->line_cut) {
            size_t room = EVENTS_LINE_MAX - e->line_len;
            if (n <= room) {
                memcpy(e->line + e->line_len, text, n);
                e->line_len += n;
            } else {
                /* too long for one line: show what fits now, skip the rest of it */
                memcpy(e->line + e->line_len, text, room);
                e->line_len += room;
                line_emit(e, 1);
                e->line_cut = 1;
            }
        }
        if (!nl) {
            return;
        }
        if (e->line_cut) {
            e->line_cut = 0;
            e->line_len = 0;
        } else {
            line_emit(e, 0);
        }
        text += n + 1;
        len -= n + 1;
    }
}

/* ---- the stream ---- */

void events_gap(events_t *e)
{
    events_mark(e, PIPELINE_MARK_LINK_DOWN, 1);
    stack_drop(e);
    e->known_bottom = 0;
    e->have_time = 0;
    e->drain_ok = 0;
    stats_loss(e->stats);
}

void events_link_up(events_t *e)
{
    e->relinked = 1;
}

void events_finish(events_t *e)
{
    stack_drop(e);
    e->known_bottom = 0;
    if (e->line_len > 0 && !e->line_cut) {
        line_emit(e, 0);
    }
    e->line_cut = 0;
    e->line_len = 0;
}
