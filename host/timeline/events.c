/* The events stage's core (events.h): a frame placed on the time line and its records read in
 * one loop (the replay's hot path: docs/building.md, "Benchmarks"), the running stack's slices
 * counted, and the stream's gaps and end. Calls down into events_line.c (the primitives),
 * events_device.c, events_late.c and events_text.c; none of them calls back. */
#include <stddef.h>
#include <string.h>

#include "aioprof_records.h"
#include "aioprof_wire.h"
#include "events_private.h"

/* Has in a slice open? Then its row must not be folded (stats.h: pinned). */
static int events_pinned(void *user, const stats_instance_t *in)
{
    const events_t *e = user;
    for (unsigned i = 0; i < e->depth; i++) {
        if (e->stack[i].in == in) {
            return 1;
        }
    }
    return 0;
}

void events_init(events_t *e, stats_t *stats, void (*text_line)(void *user, const char *line), void *user)
{
    /* the lateness scratch is kept for the next stream, its numbering undone; the frame's ENTERs
     * and the turns are written before they are read (a megabyte not cleared at every restart) */
    events_late_restart(e);
    events_scratch_t scratch = e->scratch;
    events_spans_t *spans = e->spans;
    memset(e, 0, offsetof(events_t, enters));
    e->scratch = scratch;
    e->spans = spans;
    events_spans_restart(e);
    memset(e->line, 0, sizeof *e - offsetof(events_t, line));
    e->stats = stats;
    stats->pinned = events_pinned;
    stats->pinned_user = e;
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

/* A counted slice of in from start_us to now_us, told to the observer with what is known of its
 * task now. */
static void observe_slice(events_t *e, const stats_instance_t *in, uint64_t start_us, uint64_t self_us,
    unsigned kind, uint64_t now_us)
{
    pipeline_slice_t sl; /* every member set (not zeroed first: this is per slice) */
    sl.start_us = start_us;
    sl.end_us = now_us;
    sl.self_us = self_us;
    sl.exit_kind = kind;
    events_task_view(e, in, &sl.task);
    e->obs->slice(e->obs_user, &sl);
}

/* ---- the time line ---- */

/* Moves time to t (ticks): device time seen, and outside any task when nothing is known to run. */
static inline void time_advance(events_t *e, uint64_t t)
{
    if (t < e->last_ticks) {
        t = e->last_ticks; /* a clock that stepped back, or a hostile stream: time never goes back */
    }
    uint64_t us = e->origin_us + events_ticks_to_us(t - e->origin_ticks, e->tick_hz);
    uint64_t dt = us - e->now_us;
    e->stats->elapsed_us += dt;
    if (e->depth == 0 && e->known_bottom) {
        e->stats->outside_us += dt;
    }
    e->now_us = us;
    e->last_ticks = t;
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

/* ---- the running stack ---- */

static uint32_t stack_innermost_id(const events_t *e)
{
    return e->depth ? e->stack[e->depth - 1].in->id : 0u;
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

/* A frame taken: its base placed on the time line, what runs checked against its header. */
static void frame_start(events_t *e, const aioprof_frame_info_t *f)
{
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
    e->frame_shift = e->late_shift;
    e->frame_turn = e->n_turns;
    uint64_t elapsed0 = e->stats->elapsed_us, outside0 = e->stats->outside_us;

    uint64_t lost = f->lost_before, cut_us = 0;
    if (!e->have_time || bits != e->tick_bits) {
        events_time_start(e, f->base, bits);
    } else {
        uint64_t silence;
        uint64_t t = time_place(e, f->base, &silence);
        if (lost == 0 && !after_stop && silence_is_loss(e, f, silence)) {
            /* the sequence number wrapped: at least 256 frames are missing */
            lost = 256;
            e->frames_unseen += lost;
        }
        if (lost) {
            /* the time line still holds across lost frames, but what happened in them was not seen:
             * cut out of the microsecond line, kept in the windows' as unknown */
            if (t > e->last_ticks) {
                cut_us = events_ticks_to_us(t - e->last_ticks, e->tick_hz);
                e->last_ticks = t;
            }
            events_time_reorigin(e);
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
        if (e->late_unit) {
            events_turn(e, e->frame_before_us, EVENTS_WHO_UNKNOWN); /* the frames lost */
        }
        e->late_shift += cut_us;
        events_spans_lost(e);
        events_stack_resync(e, f->running);
    } else if (stack_innermost_id(e) != f->running) {
        events_spans_lost(e);
        events_stack_resync(e, f->running);
    } else if (e->depth == 0) {
        e->known_bottom = 1;
    }
    if (e->late_unit) {
        events_turn(e, e->now_us, events_running_who(e));
    }
}

/* A control record: HELLO, TASK_NEW, TASK_INFO, DROPPED. */
static void on_control(events_t *e, const aioprof_record_t *r)
{
    switch (r->kind) {
    case AIOPROF_REC_HELLO:
        events_on_hello(e, &r->hello);
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
        events_on_dropped(e, r->count);
        break;
    case AIOPROF_REC_LATE:
        events_late_record(e, r);
        break;
    case AIOPROF_REC_SPAN_ENTER:
    case AIOPROF_REC_SPAN_EXIT:
    case AIOPROF_REC_SPAN_NAME:
        events_span_record(e, r);
        break;
    case AIOPROF_REC_ALLOC:
        events_mem_alloc(e, r->count);
        break;
    case AIOPROF_REC_GC:
        events_mem_gc(e, r->span_dt, r->duration);
        break;
    default:
        break;
    }
}

/* Resumes and their yields from p on, while the stream is nothing else (aioprof_rec_pair): no
 * task runs before each, time runs on, and the task's row is in the lookup cache. Each is a
 * slice of its yield's dt; the resume's dt passed outside any task. What the events loop would
 * do with them, less the stack (the task's slice opens and closes in the pair) and the time
 * line's clamp (the caller checks that time is not standing still after a step back, and that a
 * pair's dts, at most 2^12, are below half the tick range). Returns where it stopped. */
typedef struct pairs_run {
    uint64_t pos;     /* the time line, in ticks */
    uint64_t outside; /* microseconds outside any task, added */
    uint32_t events;  /* records read, added */
    /* lateness reported: the turns and the frame's ENTERs, kept as the events loop keeps them */
    uint64_t turns;   /* turns so far */
    uint32_t enters;  /* the frame's ENTERs so far */
    uint64_t at_base; /* a turn's time: this plus the tick (the frame's base and late_shift) */
    uint64_t us_base; /* a tick's microsecond: this plus the tick */
} pairs_run_t;

/* The pairs' loop; with late, each pair's two turns (its task from the resume on, no task from
 * the yield on: the pair begins and ends with no task running) and its ENTER kept too. */
static inline __attribute__((always_inline)) const uint8_t *pairs_loop(events_t *e, stats_t *s, const uint8_t *p,
    const uint8_t *end, pairs_run_t *run, const int late, const int observed)
{
    const uint64_t epoch = (uint64_t)s->epoch << 32, slow_us = s->slow_us;
    stats_instance_t *const *recent = s->recent;
    uint64_t t = run->pos, out = run->outside;
    uint32_t n = 0;
    events_turn_t *restrict turns = late ? e->turns : NULL;
    events_enter_t *restrict enters = late ? e->enters : NULL;
    uint64_t k = run->turns, at_base = run->at_base;
    uint32_t m = run->enters;
    /* the turns' cells (events_turn_cell): -1 for a culprit not numbered yet, told after the loop */
    const int32_t *restrict ck_num = e->ck_num;
    const int32_t outside_cell = ck_num[EVENTS_WHO_OUTSIDE + 3] - 1;
    int32_t unnumbered = outside_cell;
    for (;;) {
        uint32_t enter_dt, id, yield_dt;
        const uint8_t *next = aioprof_rec_pair(p, end, &enter_dt, &id, &yield_dt);
        if (next == NULL) {
            break;
        }
        uint64_t key = epoch | id;
        stats_instance_t *in = recent[key % STATS_RECENT];
        if (in->key != key || (late && m == EVENTS_FRAME_ENTERS)) {
            break; /* the row is looked up (and may be made) by the events loop */
        }
        p = next;
        n++;
        out += enter_dt;
        t += enter_dt;
        if (observed && e->obs->event) {
            /* the resume and the yield, before the slice, in the order the events loop tells them */
            e->obs->event(e->obs_user, run->us_base + t);
            e->obs->event(e->obs_user, run->us_base + t + yield_dt);
        }
        if (late) {
            int32_t cell = ck_num[in->name + 3] - 1;
            unnumbered |= cell;
            turns[k % EVENTS_TURNS] = (events_turn_t){.at = at_base + t, .who = in->name, .cell = cell};
            enters[m++] = (events_enter_t){.in = in, .key = key, .turn = k};
            turns[(k + 1u) % EVENTS_TURNS] =
                (events_turn_t){.at = at_base + t + yield_dt, .who = EVENTS_WHO_OUTSIDE, .cell = outside_cell};
            k += 2u;
        }
        if (observed && e->obs->slice) {
            observe_slice(e, in, run->us_base + t, yield_dt, AIOPROF_EXIT_YIELD, run->us_base + t + yield_dt);
        }
        t += yield_dt;
        in->run_us += yield_dt;
        stats_figures_add(&in->f, yield_dt, slow_us);
        stats_hist_add_small(&in->slices, yield_dt); /* below 2^12 */
        stats_dirty(s, in);
    }
    run->pos = t;
    run->outside = out;
    run->events += 2u * n;
    run->turns = k;
    run->enters = m;
    if (late && n != 0 && unnumbered < 0) {
        e->ck_cells_set = 0;
    }
    return p;
}

/* Out of the events loop's function: their own registers for the hottest loop of a replay. */
static __attribute__((noinline)) const uint8_t *events_pairs(events_t *e, const uint8_t *p, const uint8_t *end,
    pairs_run_t *run)
{
    return pairs_loop(e, e->stats, p, end, run, 0, 0);
}

static __attribute__((noinline)) const uint8_t *events_pairs_late(events_t *e, const uint8_t *p, const uint8_t *end,
    pairs_run_t *run)
{
    return pairs_loop(e, e->stats, p, end, run, 1, 0);
}

static __attribute__((noinline)) const uint8_t *events_pairs_late_observed(events_t *e, const uint8_t *p, const uint8_t *end,
    pairs_run_t *run)
{
    return pairs_loop(e, e->stats, p, end, run, 1, 1);
}

static __attribute__((noinline)) const uint8_t *events_pairs_observed(events_t *e, const uint8_t *p, const uint8_t *end,
    pairs_run_t *run)
{
    return pairs_loop(e, e->stats, p, end, run, 0, 1);
}

/* Where the events loop stands: what it takes in and gives back. */
typedef struct run {
    const uint8_t *p;
    uint32_t events;    /* ENTER and EXIT records read */
    unsigned tag;       /* the tag it stopped at: a control record's */
    int bad;            /* it stopped at a damaged record */
} run_t;

/* Events from u->p on, until a control record, a damaged record or end: the replay's hot loop,
 * with the time line and the stack's depth in locals, written back before any call that reads
 * them and at the end. observed and mhz are constants: the loop is made for each (with and
 * without the observer's calls; ticks of a microsecond, or converted). */
static inline __attribute__((always_inline)) void events_run(events_t *e, run_t *u, const uint8_t *end,
    const int observed, const int mhz)
{
    stats_t *s = e->stats;
    const uint8_t *p = u->p;
    const uint64_t slow_us = s->slow_us, half = e->half;
    uint64_t pos = e->pos, last = e->last_ticks, now = e->now_us, outside = 0;
    /* microseconds of a tick point at 1 MHz: the frame's time base plus the tick */
    const uint64_t base = e->origin_us - e->origin_ticks;
    unsigned depth = e->depth;
    int known_bottom = e->known_bottom;
    uint32_t events = 0;
    unsigned tag = 0;
    /* lateness reported: who runs after each event, and the frame's ENTERs (events_late.c) */
    const int late = e->late_unit != 0;
    const uint64_t shift = e->late_shift; /* the turns' time line: set at a frame's start only */
    uint64_t turns = e->n_turns;
    uint32_t enters = e->n_enters;
    /* the resumes and yields of a report: in pairs, where time runs on (pos is not behind last)
     * at the microsecond the loop keeps (now is the time of last) */
    /* with an observer too, when it has no slices' spans to be told of (the spans are looked at
     * before each run of pairs: one may have opened since); one told of every event (the trace's
     * events-per-second counter) is told of the pair's two in the pairs' loop */
    const int pairs = mhz && half > (1u << 12);
    while (p < end) {
        if (pairs && depth == 0 && known_bottom && pos == last && now == base + last &&
            !(observed && e->spans != NULL && events_spans_any(e))) {
            pairs_run_t run = {pos, outside, events, turns, enters, base + shift, base};
            p = observed ? (late ? events_pairs_late_observed(e, p, end, &run) : events_pairs_observed(e, p, end, &run))
                         : late ? events_pairs_late(e, p, end, &run) : events_pairs(e, p, end, &run);
            pos = run.pos;
            outside = run.outside;
            events = run.events;
            turns = run.turns;
            enters = run.enters;
            last = pos;
            now = base + pos;
            if (p >= end) {
                break;
            }
        }
        tag = *p;
        if (!AIOPROF_TAG_IS_ENTER(tag) && AIOPROF_TAG_IS_CONTROL(tag)) {
            break;
        }
        uint32_t dt, id = 0;
        const uint8_t *next = aioprof_rec_event(p + 1, end, tag, &dt, &id);
        if (next == NULL) {
            u->bad = 1;
            break;
        }
        p = next;
        events++;
        if (dt < half) {
            pos += dt;
        } else {
            e->pos = pos;
            e->last_ticks = last;
            time_step_back(e, dt);
            pos = e->pos;
        }
        /* time never goes back: a clock that stepped back stands still until it is past */
        uint64_t t = pos < last ? last : pos;
        uint64_t us = mhz ? base + t : e->origin_us + events_ticks_to_us(t - e->origin_ticks, e->tick_hz);
        if (depth == 0 && known_bottom) {
            outside += us - now;
        }
        now = us;
        last = t;
        if (observed && e->obs->event) {
            e->obs->event(e->obs_user, now);
        }
        if (AIOPROF_TAG_IS_ENTER(tag)) {
            uint64_t key = (uint64_t)s->epoch << 32 | id;
            stats_instance_t *in = s->recent[key % STATS_RECENT];
            if (in->key != key) {
                /* a row made or looked up may fold another: it must see what runs */
                e->depth = depth;
                in = stats_instance_miss(s, id);
                if (in == NULL) {
                    if (late) {
                        e->turns[turns % EVENTS_TURNS] = (events_turn_t){
                            .at = now + shift, .who = EVENTS_WHO_UNKNOWN, .cell = events_turn_cell(e, EVENTS_WHO_UNKNOWN)};
                        if (enters < EVENTS_FRAME_ENTERS) {
                            e->enters[enters++] = (events_enter_t){.in = NULL, .turn = turns};
                        }
                        turns++;
                    }
                    continue;
                }
            }
            if (late) {
                e->turns[turns % EVENTS_TURNS] =
                    (events_turn_t){.at = now + shift, .who = in->name, .cell = events_turn_cell(e, in->name)};
                if (enters < EVENTS_FRAME_ENTERS) {
                    e->enters[enters++] = (events_enter_t){.in = in, .key = key, .turn = turns};
                }
                turns++;
            }
            if (depth == EVENTS_STACK_MAX) {
                e->depth = depth;
                events_spans_lost(e);
                events_stack_drop(e);
                depth = 0;
                known_bottom = 0;
            }
            if (depth > 0) {
                events_open_t *outer = &e->stack[depth - 1];
                outer->acc_us += now - outer->resume_us;
            }
            events_open_t *o = &e->stack[depth++];
            o->in = in;
            o->known = 1;
            o->acc_us = 0;
            o->resume_us = now;
            if (observed) {
                o->start_us = now; /* its wall span is the observer's only */
            }
            continue;
        }
        if (depth == 0) {
            /* an end we cannot place: count it, and stop trusting the idle time until a header */
            s->stream.unmatched++;
            known_bottom = 0;
            if (late) {
                e->turns[turns++ % EVENTS_TURNS] = (events_turn_t){
                    .at = now + shift, .who = EVENTS_WHO_UNKNOWN, .cell = events_turn_cell(e, EVENTS_WHO_UNKNOWN)};
            }
            continue;
        }
        events_open_t *o = &e->stack[--depth];
        stats_instance_t *in = o->in;
        if (o->known) {
            uint64_t self_us = o->acc_us + (now - o->resume_us);
            in->run_us += self_us;
            stats_figures_add(&in->f, self_us, slow_us);
            stats_hist_add(&in->slices, self_us);
            stats_dirty(s, in);
            if (observed && e->obs->slice) {
                observe_slice(e, in, o->start_us, self_us, AIOPROF_TAG_EXIT_KIND(tag), now);
            }
            if (observed && tag < AIOPROF_TAG_EXIT_RETURN && e->spans != NULL && events_spans_any(e)) {
                events_spans_slice_end(e, in, o->start_us, now); /* its open spans' pieces in it */
            }
        } else {
            s->stream.unmatched++;
        }
        if (tag >= AIOPROF_TAG_EXIT_RETURN) {
            e->depth = depth; /* ending it may fold another: what runs is up to date */
            if (e->spans != NULL && events_spans_any(e)) {
                events_spans_task_end(e, in, o->start_us, now); /* its spans still open end with it */
            }
            stats_instance_end(s, in, AIOPROF_TAG_EXIT_KIND(tag));
        }
        if (depth > 0) {
            e->stack[depth - 1].resume_us = now;
        }
        if (late) {
            int32_t who = depth > 0 ? e->stack[depth - 1].in->name : known_bottom ? EVENTS_WHO_OUTSIDE : EVENTS_WHO_UNKNOWN;
            e->turns[turns++ % EVENTS_TURNS] = (events_turn_t){.at = now + shift, .who = who, .cell = events_turn_cell(e, who)};
        }
    }
    e->n_turns = turns;
    e->n_enters = enters;
    s->elapsed_us += now - e->now_us;
    s->outside_us += outside;
    e->pos = pos;
    e->last_ticks = last;
    e->now_us = now;
    e->depth = depth;
    e->known_bottom = known_bottom;
    s->stream.events += events;
    e->frame_events += events;
    e->hello_events += events;
    u->p = p;
    u->tag = tag;
    u->events = events;
}

/* The loop for each kind of session: no observer at 1 MHz (a report), an observer (the trace
 * export), another tick rate. */
static __attribute__((noinline)) void events_run_plain(events_t *e, run_t *u, const uint8_t *end)
{
    events_run(e, u, end, 0, 1);
}

static __attribute__((noinline)) void events_run_observed(events_t *e, run_t *u, const uint8_t *end)
{
    events_run(e, u, end, 1, 1);
}

static __attribute__((noinline)) void events_run_converted(events_t *e, run_t *u, const uint8_t *end)
{
    if (e->obs) {
        events_run(e, u, end, 1, 0);
    } else {
        events_run(e, u, end, 0, 0);
    }
}

/* The frame's span list (docs/protocol.md, "The span list"): its events, read where they took
 * place, before the record there. */
typedef struct span_list {
    const uint8_t *first; /* the frame's first record: places count from it */
    long n;               /* its events in e->span_ev; -1: the list is damaged */
    long next;            /* the next one to take */
    long at;              /* the list record's place, -1: none */
} span_list_t;

static void span_list_find(events_t *e, span_list_t *l, const uint8_t *end)
{
    l->n = aioprof_frame_span_events(l->first, end, e->span_ev, &l->at);
    l->next = 0;
    e->span_lists |= l->at >= 0;
}

/* The list's events at p, as the SPAN_ENTER and SPAN_EXIT records they stand for. Returns how
 * many. */
static long span_list_take(events_t *e, span_list_t *l, const uint8_t *p)
{
    long k = 0;
    for (; l->next < l->n && l->first + e->span_ev[l->next].at == p; l->next++, k++) {
        const aioprof_span_event_t *ev = &e->span_ev[l->next];
        aioprof_record_t rec = {.kind = ev->id ? AIOPROF_REC_SPAN_ENTER : AIOPROF_REC_SPAN_EXIT, .id = ev->id,
            .span_dt = ev->dt};
        events_span_record(e, &rec);
    }
    return k;
}

long events_frame_records(void *user, aioprof_reader_t *r, const aioprof_frame_info_t *frame, const uint8_t *p,
    const uint8_t *end)
{
    events_t *e = user;
    long n = 0;
    span_list_t spans = {.first = p, .at = -1};
    frame_start(e, frame);
    if (e->span_lists) {
        span_list_find(e, &spans, end);
    }
    for (;;) {
        run_t u = {.p = p};
        /* events until the next span event's place, if any */
        const uint8_t *stop = spans.next < spans.n ? spans.first + e->span_ev[spans.next].at : end;
        /* the tick rate can change at a HELLO: chosen again after every control record */
        if (e->tick_hz != 1000000u) {
            events_run_converted(e, &u, stop);
        } else if (e->obs) {
            events_run_observed(e, &u, stop);
        } else {
            events_run_plain(e, &u, stop);
        }
        n += u.events;
        p = u.p;
        if (u.bad) {
            events_late_frame(e, 0);
            return -1 - n;
        }
        if (spans.next < spans.n && p == stop) {
            n += span_list_take(e, &spans, p);
            continue;
        }
        if (p >= end) {
            events_late_frame(e, 1);
            return n;
        }
        if (spans.n < 0 && spans.at >= 0 && p == spans.first + spans.at) {
            events_late_frame(e, 0); /* a damaged list: what came before it counts */
            return -1 - n;
        }
        aioprof_record_t rec;
        unsigned op = u.tag & 0x0Fu;
        p++;
        int rc = aioprof_reader_control(r, &p, end, op, &rec);
        if (rc < 0) {
            events_late_frame(e, 0);
            return -1 - n;
        }
        if (rc == 0) {
            on_control(e, &rec);
            n++;
            if (op == AIOPROF_OP_SPAN_NAME && !e->span_lists) {
                /* the first span name of the stream: the frame's list, if it has one, from here on
                 * (a device sends a name before the span's first event) */
                span_list_find(e, &spans, end);
                while (spans.next < spans.n && spans.first + e->span_ev[spans.next].at < p) {
                    spans.next++;
                }
            }
        } else if (op == AIOPROF_OP_SPANS && spans.at < 0) {
            /* a list before any span name (a reader that joined late): the frames that follow have
             * theirs looked for; this one's spans have no name yet (a damaged one still makes its
             * frame malformed) */
            e->span_lists = 1;
            if (aioprof_frame_span_events(spans.first, end, e->span_ev, NULL) < 0) {
                events_late_frame(e, 0);
                return -1 - n;
            }
        }
    }
}

/* ---- the stream ---- */

void events_gap(events_t *e)
{
    events_mark(e, PIPELINE_MARK_LINK_DOWN, 1);
    if (e->late_unit) {
        events_turn(e, e->now_us, EVENTS_WHO_UNKNOWN);
    }
    events_spans_lost(e);
    events_stack_drop(e);
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
    events_spans_lost(e);
    events_stack_drop(e);
    e->known_bottom = 0;
    events_text_finish(e);
}
