/* The events stage's memory (docs/usage.md, "Memory"; docs/protocol.md, "Memory"): an ALLOC
 * record's amount goes to what ran since the frame's last event (the innermost slice, or the
 * scheduler between slices), a GC record's collection to the slice it came in, or, between slices,
 * to the scheduler's figures and, when the device reports lateness, onto the turns as the culprit
 * "(gc)" for the time it took. Only from a device whose HELLO says it measures them. */
#include "events_private.h"

/* The innermost slice, when its start was seen (a slice taken from a frame's header may have
 * allocated before it, in frames not seen); NULL between slices or when that is not known.
 * The amount and the collection belong as well to the innermost open span of this slice's task
 * (events_spans_mem): the device sends what was allocated before each span record too, so the
 * span open when an ALLOC comes is the one that ran (docs/usage.md, "Memory per span"). */
static stats_instance_t *mem_owner(const events_t *e, int *outside)
{
    *outside = e->depth == 0 && e->known_bottom;
    if (e->depth == 0) {
        return NULL;
    }
    const events_open_t *o = &e->stack[e->depth - 1];
    return o->known ? o->in : NULL;
}

void events_mem_alloc(events_t *e, uint32_t amount)
{
    stats_t *s = e->stats;
    int outside;
    if ((s->device.mem & (AIOPROF_MEM_ALLOC_EXACT | AIOPROF_MEM_ALLOC_LOWER)) == 0) {
        return; /* the device did not say it counts them: nothing to show */
    }
    stats_instance_t *in = mem_owner(e, &outside);
    if (in != NULL) {
        stats_figures_mem(&in->f, amount, 0, 0);
        stats_dirty(s, in);
        if (e->spans) {
            events_spans_mem(e, in, amount, 0, 0);
        }
    } else if (outside) {
        stats_figures_mem(&s->mem_outside, amount, 0, 0);
    }
}

void events_mem_gc(events_t *e, uint32_t dt, uint32_t duration)
{
    stats_t *s = e->stats;
    int outside;
    if ((s->device.mem & (AIOPROF_MEM_GC_COUNT | AIOPROF_MEM_GC_SOME)) == 0) {
        return;
    }
    /* its time only when the device measures it (else 0: the count alone is shown) */
    uint64_t us = (s->device.mem & AIOPROF_MEM_GC_TIME) ? events_ticks_to_us(duration, e->tick_hz) : 0u;
    stats_instance_t *in = mem_owner(e, &outside);
    if (in != NULL) {
        stats_figures_mem(&in->f, 0, 1, us);
        stats_dirty(s, in);
        if (e->spans) {
            events_spans_mem(e, in, 0, 1, us);
        }
        return;
    }
    if (!outside) {
        return;
    }
    stats_figures_mem(&s->mem_outside, 0, 1, us);
    if (e->late_unit == 0 || us == 0) {
        return;
    }
    /* on the turns: "(gc)" from its start (not before the last event: a device's duration that
     * says so is cut there) to its end, then no task again */
    uint64_t end = e->now_us + events_ticks_to_us(dt, e->tick_hz);
    uint64_t start = end - e->now_us > us ? end - us : e->now_us;
    events_turn(e, start, stats_gc_row(s));
    events_turn(e, end, EVENTS_WHO_OUTSIDE);
    e->frame_gc = 1;
    e->gc_until = end + e->late_shift;
}

void events_mem_turns_fix(events_t *e)
{
    /* a hostile GC record may end after the events that follow it, in its frame or in the next
     * ones: the turns kept in order from the one before the frame on (the windows' sums take
     * differences of them), a no-op for any device that tells the truth */
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0;
    uint64_t k = e->frame_turn > oldest ? e->frame_turn : oldest + 1u;
    if (!e->frame_gc && (e->frame_turn >= e->n_turns || e->turns[e->frame_turn % EVENTS_TURNS].at >= e->gc_until)) {
        return;
    }
    e->frame_gc = 0;
    for (; k < e->n_turns; k++) {
        const events_turn_t *prev = &e->turns[(k - 1u) % EVENTS_TURNS];
        events_turn_t *t = &e->turns[k % EVENTS_TURNS];
        if (t->at < prev->at) {
            t->at = prev->at;
        }
    }
}
