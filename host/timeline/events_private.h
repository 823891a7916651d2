/* What the files of the events stage share. The calls go one way:
 *   events.c (frames and their records, the stream's gaps and end)
 *     -> events_device.c (HELLO and DROPPED, device resets), events_late.c (waiting windows:
 *        with events_late_sums.c, _cells.c and _observe.c, through events_late_private.h),
 *        events_text.c (device text lines)
 *     -> events_spans.c (the open spans: closed, unwound, cut where what runs is lost)
 *     -> events_line.c (the primitives: the time line's origin, the running stack, what an
 *        observer is told)
 * Not for other stages: they use events.h. */
#ifndef AIOPROF_EVENTS_PRIVATE_H
#define AIOPROF_EVENTS_PRIVATE_H

#include <stdint.h>

#include "events.h"

static inline uint64_t events_ticks_to_us(uint64_t ticks, uint32_t hz)
{
    if (hz == 1000000u) {
        return ticks;
    }
    /* split so that the product cannot overflow */
    return ticks / hz * 1000000u + ticks % hz * 1000000u / hz;
}

/* ---- events_line.c ---- */

/* The microsecond line restarts from here: after a gap, or when the tick rate changes. */
void events_time_reorigin(events_t *e);

/* The first base of a segment of the time line: nothing before it can be related to it. */
void events_time_start(events_t *e, uint32_t base, unsigned bits);

/* What runs is no longer known: open slices end uncounted. */
void events_stack_drop(events_t *e);

/* Takes the frame header's word for what runs: `running`, started at an unknown time. */
void events_stack_resync(events_t *e, uint32_t running);

/* Who runs now, for a turn: the innermost open slice's name, no task, or unknown. */
int32_t events_running_who(const events_t *e);

/* What is known of in's task now, for an observer: inline, since the observer's every slice takes
 * it (the live table at 1 MB/s: 170,000 a second). The creator's name row is looked up by its id
 * only when it was unnamed when in was described (stats_parent_row); else it is in's own. */
static inline void events_task_view(const events_t *e, const stats_instance_t *in, pipeline_task_t *t)
{
    const stats_t *s = e->stats;
    int32_t parent_row = in->parent_name;
    if (parent_row < 0 && in->parent != 0) {
        parent_row = stats_parent_row(s, in);
    }
    t->epoch = in->epoch;
    t->id = in->id;
    t->name = in->name >= 0 ? s->names[in->name].name : NULL;
    t->label = in->label;
    t->parent = in->parent;
    t->parent_name = parent_row >= 0 ? s->names[parent_row].name : NULL;
    /* its description (name, label, creator: stats' hash of them) and its creator's name row (a
     * creator may be named after its child was described) */
    t->version = (in->described ^ (uint32_t)(parent_row + 1) * 0x9E3779B1u) | 1u;
}

/* ---- events_device.c, events_late.c, events_text.c ---- */

/* A HELLO (device resets, another device after the link came back, the drain overhead) and a
 * DROPPED, in the frame being read (events_device.c). */
void events_on_hello(events_t *e, const aioprof_hello_t *h);
void events_on_dropped(events_t *e, uint32_t count);

/* Lateness (events_late.c; events_late_restart in events_late_sums.c): a turn of the time line (who runs from `at` on, on the microsecond
 * line: its turn's time is `at` plus late_shift); the frame's LATE record; the frame read to its
 * end (ok: every record parsed), its ENTERs given their lateness. */
/* who's cell in the running sums, for a turn written now: -1 when who is not numbered yet (the
 * turn is then numbered by late_ck_cells). */
static inline int32_t events_turn_cell(events_t *e, int32_t who)
{
    int32_t cell = e->ck_num[who + 3] - 1;
    if (cell < 0) {
        e->ck_cells_set = 0;
    }
    return cell;
}

static inline void events_turn(events_t *e, uint64_t at, int32_t who)
{
    e->turns[e->n_turns++ % EVENTS_TURNS] =
        (events_turn_t){.at = at + e->late_shift, .who = who, .cell = events_turn_cell(e, who)};
}
/* What ran from the end of the previous frame to this one's base is not known (events were
 * dropped there): an unknown turn put in before this frame's turns. */
void events_late_unseen(events_t *e);
void events_late_record(events_t *e, const aioprof_record_t *r);
void events_late_frame(events_t *e, int ok);
/* The running sums of a stream undone, for the next one (events_init). */
void events_late_restart(events_t *e);

/* Spans (events_spans.c): a SPAN_ENTER, SPAN_EXIT or SPAN_NAME of the frame being read; in ended
 * at now_us (its slice, started at slice_us, counted): its open spans close, unwound; in's slice
 * that started at slice_us yielded: an observer is told its open spans' pieces in it; every open
 * span cut (a loss, what runs no longer known, the end); is any span open; the pool emptied
 * (events_init) and freed. */
void events_span_record(events_t *e, const aioprof_record_t *r);
void events_spans_task_end(events_t *e, stats_instance_t *in, uint64_t slice_us, uint64_t now_us);
void events_spans_slice_end(events_t *e, const stats_instance_t *in, uint64_t slice_us, uint64_t now_us);
void events_spans_cut(events_t *e);
int events_spans_any(const events_t *e);
/* in (running) allocated or collected: its innermost open span's own memory (events_mem.c). */
void events_spans_mem(events_t *e, const stats_instance_t *in, uint64_t alloc, uint64_t gc_count, uint64_t gc_us);
/* What runs is no longer known (before events_stack_drop or _resync: a loss, a reset, the end):
 * the open spans are cut. */
static inline void events_spans_lost(events_t *e)
{
    if (e->spans != NULL) {
        events_spans_cut(e);
    }
}
void events_spans_restart(events_t *e);
void events_spans_free(events_t *e);
/* Memory (events_mem.c): an ALLOC record's amount, a GC record's collection (dt after the last
 * event, its duration in ticks); the frame's turns put in order again if a GC record's were not
 * (called before its late windows are laid on them). */
void events_mem_alloc(events_t *e, uint32_t amount);
void events_mem_gc(events_t *e, uint32_t dt, uint32_t duration);
void events_mem_turns_fix(events_t *e);

/* The stream ended: a partial text line is shown (events_text.c). */
void events_text_finish(events_t *e);

#endif
