/* Spans on the time line (docs/protocol.md and docs/usage.md, "Spans"): the open spans of every
 * task, opened and closed by the span records of the running task, timed against its own time
 * (the instance's run_us and its open slice), closed by its end, cut at a loss. Part of the events
 * stage (events_private.h): its figures go to stats_spans.h.
 *
 * Bounded: at most EVENTS_SPANS_OPEN open spans of all tasks together, EVENTS_SPAN_DEPTH of one
 * task, EVENTS_SPAN_TASKS tasks with open spans; a SPAN_ENTER past them is refused (counted), and
 * its SPAN_EXIT then closes nothing of the spans kept (the depth it refused is remembered per task,
 * up to a count). The pool is taken at the first span record of a session and kept. */
#include <stdlib.h>
#include <string.h>

#include "aioprof_wire.h"
#include "events_private.h"
#include "stats_spans.h"

typedef struct events_span {
    int32_t name;         /* span name index */
    int32_t outer;        /* the task's next outer open span, -1 none */
    uint64_t opened_us;   /* on the microsecond line: its wall time's start */
    uint64_t own_at_open; /* its task's own time then */
    uint64_t children_us; /* the inclusive time of the spans nested in it, closed so far */
    stats_span_mem_t own_mem;      /* allocated and collected while it was the innermost */
    stats_span_mem_t children_mem; /* ... inside the spans nested in it, closed so far */
} events_span_t;

/* A task with open spans. */
typedef struct events_span_task {
    uint64_t key;         /* its instance's key */
    stats_instance_t *in;
    int32_t top;          /* its innermost open span */
    uint32_t depth;
    uint32_t refused;     /* SPAN_ENTERs refused inside its innermost kept span, still open */
} events_span_task_t;

struct events_spans {
    events_span_t open[EVENTS_SPANS_OPEN];
    int32_t free_list[EVENTS_SPANS_OPEN];
    uint32_t n_free;
    events_span_task_t tasks[EVENTS_SPAN_TASKS];
    uint32_t n_tasks;
};

static void spans_clear(events_spans_t *sp)
{
    sp->n_free = EVENTS_SPANS_OPEN;
    for (uint32_t i = 0; i < EVENTS_SPANS_OPEN; i++) {
        sp->free_list[i] = (int32_t)(EVENTS_SPANS_OPEN - 1u - i);
    }
    sp->n_tasks = 0;
}

void events_spans_restart(events_t *e)
{
    if (e->spans) {
        spans_clear(e->spans);
    }
}

void events_spans_free(events_t *e)
{
    free(e->spans);
    e->spans = NULL;
}

static events_spans_t *spans_get(events_t *e)
{
    if (e->spans == NULL) {
        e->spans = malloc(sizeof *e->spans);
        if (e->spans) {
            spans_clear(e->spans);
        }
    }
    return e->spans;
}

/* in's entry among the tasks with open spans, or NULL. */
static events_span_task_t *task_find(events_spans_t *sp, const stats_instance_t *in)
{
    for (uint32_t i = 0; i < sp->n_tasks; i++) {
        if (sp->tasks[i].in == in && sp->tasks[i].key == in->key) {
            return &sp->tasks[i];
        }
    }
    return NULL;
}

static void task_remove(events_spans_t *sp, events_span_task_t *t)
{
    *t = sp->tasks[--sp->n_tasks];
}

/* The running task's own time at now_us: what its slices counted, and its open slice's. */
static uint64_t own_now(const events_open_t *o, uint64_t now_us)
{
    return o->in->run_us + o->acc_us + (now_us > o->resume_us ? now_us - o->resume_us : 0);
}

/* Tells the observer x's piece in the slice that started at slice_us, up to now_us (its last, with
 * the memory of the whole span, incl, when it closes). */
static void span_piece(events_t *e, const events_span_task_t *t, const events_span_t *x, uint32_t depth,
    uint64_t slice_us, uint64_t now_us, int last, int unwound, const stats_span_mem_t *incl)
{
    pipeline_span_t p = {
        .name = stats_span_name_text(e->stats, x->name),
        .start_us = x->opened_us > slice_us ? x->opened_us : slice_us,
        .end_us = now_us,
        .depth = depth,
        .last = last,
        .unwound = unwound,
    };
    if (p.start_us > p.end_us) {
        p.start_us = p.end_us;
    }
    if (incl && stats_mem_known(e->stats)) {
        stats_figures_t f = stats_span_mem_figures(incl);
        stats_mem_t m;
        stats_mem_of(e->stats, &f, &m);
        p.alloc_known = m.alloc_known;
        p.alloc_bytes = m.alloc_bytes;
        p.gc_known = m.gc_known;
        p.gc_count = m.gc_count;
        p.gc_timed = m.gc_timed;
        p.gc_us = m.gc_us;
    }
    events_task_view(e, t->in, &p.task);
    e->obs->span(e->obs_user, &p);
}

/* The innermost open span of t closed at now_us (own: its task's own time then; slice_us: when
 * the slice it closes in started, for an observer). */
static void span_close(events_t *e, events_span_task_t *t, uint64_t own, uint64_t now_us, int unwound,
    uint64_t slice_us)
{
    events_spans_t *sp = e->spans;
    int32_t at = t->top;
    events_span_t *x = &sp->open[at];
    stats_span_mem_t incl = x->own_mem;
    stats_span_mem_add(&incl, &x->children_mem);
    if (e->obs && e->obs->span) {
        span_piece(e, t, x, t->depth - 1u, slice_us, now_us, 1, unwound, &incl);
    }
    uint64_t inclusive = own > x->own_at_open ? own - x->own_at_open : 0;
    uint64_t self = inclusive > x->children_us ? inclusive - x->children_us : 0;
    uint64_t wall = now_us > x->opened_us ? now_us - x->opened_us : 0;
    stats_span_close(e->stats, t->in, x->name, self, inclusive, wall, unwound, &x->own_mem, &incl);
    t->top = x->outer;
    t->depth--;
    sp->free_list[sp->n_free++] = at;
    if (t->top >= 0) {
        sp->open[t->top].children_us += inclusive;
        stats_span_mem_add(&sp->open[t->top].children_mem, &incl);
    }
}

/* Where a span record lies: span_dt ticks after the frame's last event (never before it: a
 * span record out of order in a hostile stream makes a span of 0, never a negative one). */
static uint64_t span_time(events_t *e, uint32_t span_dt)
{
    uint64_t t = e->pos + span_dt;
    if (t < e->last_ticks) {
        t = e->last_ticks;
    }
    uint64_t us = e->origin_us + events_ticks_to_us(t - e->origin_ticks, e->tick_hz);
    return us < e->now_us ? e->now_us : us;
}

static void span_enter(events_t *e, const aioprof_record_t *r)
{
    events_spans_t *sp = spans_get(e);
    stats_span_counts_t *c = &e->stats->span_counts;
    if (sp == NULL) {
        c->refused++;
        return;
    }
    if (e->depth == 0 || !e->stack[e->depth - 1].known) {
        /* no task runs, or its slice's start is unknown: its own time cannot be read */
        c->unmatched += e->depth == 0;
        c->refused += e->depth != 0;
        return;
    }
    const events_open_t *o = &e->stack[e->depth - 1];
    uint64_t now = span_time(e, r->span_dt);
    int32_t name = stats_span_name_of(e->stats, r->id);
    events_span_task_t *t = task_find(sp, o->in);
    if (t == NULL && sp->n_tasks < EVENTS_SPAN_TASKS && name >= 0) {
        t = &sp->tasks[sp->n_tasks++];
        *t = (events_span_task_t){.key = o->in->key, .in = o->in, .top = -1};
    }
    if (t == NULL || name < 0 || t->refused || t->depth == EVENTS_SPAN_DEPTH || sp->n_free == 0) {
        c->refused++;
        if (t) {
            t->refused++; /* its exit is this one's, not a kept span's */
        }
        return;
    }
    int32_t at = sp->free_list[--sp->n_free];
    sp->open[at] = (events_span_t){.name = name, .outer = t->top, .opened_us = now,
        .own_at_open = own_now(o, now)};
    t->top = at;
    t->depth++;
}

static void span_exit(events_t *e, const aioprof_record_t *r)
{
    events_spans_t *sp = e->spans;
    stats_span_counts_t *c = &e->stats->span_counts;
    events_span_task_t *t = sp && e->depth ? task_find(sp, e->stack[e->depth - 1].in) : NULL;
    if (t == NULL) {
        c->unmatched++;
        return;
    }
    if (t->refused) {
        t->refused--;
        return;
    }
    const events_open_t *o = &e->stack[e->depth - 1];
    uint64_t now = span_time(e, r->span_dt);
    if (!o->known) {
        /* its own time is not known here: cut (no span survives a loss, so this takes a hostile
         * stream) */
        c->cut++;
        stats_span_cut(e->stats, t->in, sp->open[t->top].name);
        sp->free_list[sp->n_free++] = t->top;
        t->top = sp->open[t->top].outer;
        t->depth--;
    } else {
        span_close(e, t, own_now(o, now), now, 0, o->start_us);
    }
    if (t->depth == 0) {
        task_remove(sp, t);
    }
}

void events_span_record(events_t *e, const aioprof_record_t *r)
{
    switch (r->kind) {
    case AIOPROF_REC_SPAN_NAME:
        stats_span_name_set(e->stats, r->id, r->name, r->name_len);
        break;
    case AIOPROF_REC_SPAN_ENTER:
        span_enter(e, r);
        break;
    case AIOPROF_REC_SPAN_EXIT:
        span_exit(e, r);
        break;
    default:
        break;
    }
}

void events_spans_task_end(events_t *e, stats_instance_t *in, uint64_t slice_us, uint64_t now_us)
{
    events_spans_t *sp = e->spans;
    events_span_task_t *t = task_find(sp, in);
    if (t == NULL) {
        return;
    }
    /* its last slice is counted in run_us already: its own time stands there */
    while (t->depth) {
        span_close(e, t, in->run_us, now_us, 1, slice_us);
    }
    task_remove(sp, t);
}

void events_spans_slice_end(events_t *e, const stats_instance_t *in, uint64_t slice_us, uint64_t now_us)
{
    events_spans_t *sp = e->spans;
    events_span_task_t *t = task_find(sp, in);
    if (t == NULL || !e->obs || !e->obs->span) {
        return;
    }
    uint32_t depth = t->depth;
    for (int32_t at = t->top; at >= 0; at = sp->open[at].outer) {
        span_piece(e, t, &sp->open[at], --depth, slice_us, now_us, 0, 0, NULL);
    }
}

void events_spans_cut(events_t *e)
{
    events_spans_t *sp = e->spans;
    if (sp == NULL) {
        return;
    }
    for (uint32_t i = 0; i < sp->n_tasks; i++) {
        events_span_task_t *t = &sp->tasks[i];
        for (int32_t at = t->top; at >= 0; at = sp->open[at].outer) {
            e->stats->span_counts.cut++;
            stats_span_cut(e->stats, t->in, sp->open[at].name);
        }
    }
    spans_clear(sp);
}

void events_spans_mem(events_t *e, const stats_instance_t *in, uint64_t alloc, uint64_t gc_count, uint64_t gc_us)
{
    events_spans_t *sp = e->spans;
    events_span_task_t *t = sp ? task_find(sp, in) : NULL;
    if (t == NULL) {
        return; /* no span of in is open */
    }
    /* the innermost kept one's (a span refused inside it is part of it, as its time is) */
    stats_span_mem_t m = {.alloc = alloc, .gc_count = gc_count, .gc_us = gc_us};
    stats_span_mem_add(&sp->open[t->top].own_mem, &m);
}

int events_spans_any(const events_t *e)
{
    return e->spans != NULL && e->spans->n_tasks != 0;
}
