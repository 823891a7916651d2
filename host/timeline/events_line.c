/* The events stage's primitives (events_private.h): the time line's origin and start, the running
 * stack dropped or taken from a frame header, who runs now, and what an observer is told of a
 * hole (of a task: events_task_view, inline in events_private.h). The frame loop (events.c), the
 * device's own records (events_device.c) and lateness (events_late.c) move the time line through
 * these; nothing here calls back into them. */
#include <stddef.h>

#include "events_private.h"

void events_mark(events_t *e, pipeline_mark_t mark, uint64_t count)
{
    if (e->obs && e->obs->mark) {
        e->obs->mark(e->obs_user, mark, e->now_us, count);
    }
}

void events_time_reorigin(events_t *e)
{
    e->origin_ticks = e->last_ticks;
    e->origin_us = e->now_us;
}

/* (The base sits one wrap up the line, so that the clock may step back from it.) */
void events_time_start(events_t *e, uint32_t base, unsigned bits)
{
    e->have_time = 1;
    e->tick_bits = bits;
    e->wrap = 1ull << bits;
    e->half = e->wrap / 2u;
    e->pos = e->last_ticks = e->wrap + base;
    events_time_reorigin(e);
    e->drain_ok = 0;
    e->late_floor = e->now_us + e->late_shift; /* how long the time before lasted is not known */
}

void events_stack_drop(events_t *e)
{
    e->stats->stream.unmatched += e->depth;
    e->depth = 0;
}

/* A slice of in starts at now_us; known: its start is seen (it can be counted). */
static inline void stack_push(events_open_t *o, stats_instance_t *in, uint32_t known, uint64_t now_us)
{
    o->in = in;
    o->known = known;
    o->acc_us = 0;
    o->resume_us = o->start_us = now_us;
}

void events_stack_resync(events_t *e, uint32_t running)
{
    events_stack_drop(e);
    if (running == 0) {
        e->known_bottom = 1;
        return;
    }
    e->known_bottom = 0; /* the header names the innermost task only */
    int32_t inst = stats_instance_get(e->stats, running);
    if (inst >= 0) {
        stack_push(&e->stack[e->depth++], &e->stats->inst[inst], 0, e->now_us);
    }
}

int32_t events_running_who(const events_t *e)
{
    return e->depth ? e->stack[e->depth - 1].in->name : e->known_bottom ? EVENTS_WHO_OUTSIDE : EVENTS_WHO_UNKNOWN;
}
