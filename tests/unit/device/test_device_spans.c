/* The hook's span list (docs/protocol.md, "The span list") against the reader: random schedules of
 * tasks with spans (nested, across awaits, left open by a task that returns, entered outside any
 * task, ids past the byte of the entry's first byte, long dt and long spans), with lateness or
 * without, frames flushed at any point. What the reader decodes, every ENTER, EXIT, SPAN_ENTER and
 * SPAN_EXIT with its time, in order, is exactly what the hook was called with; with a small ring
 * and a port that stops taking bytes for a while (full rings, drops), it is what the hook was
 * called with less what it dropped (a subsequence, the times exact), and the drops are counted.
 * Each frame's LATE list still holds one value per ENTER of the frame, the values it was given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "fake_device.h"

#define TASKS 3u
#define SPANS 12u
#define DEPTH 4u
#define STEPS 20000u
#define EVENTS_MAX (4u * STEPS)

typedef struct ev {
    aioprof_rec_kind_t kind;
    uint64_t time;
    uint32_t id;   /* ENTER: the task; SPAN_ENTER: the span */
    uint32_t late; /* ENTER: its lateness */
} ev_t;

typedef struct got {
    aioprof_reader_t reader;
    ev_t ev[EVENTS_MAX];
    size_t n;
    uint64_t frame_time;
    uint32_t last_base;
    int have_base;
    size_t frame_first; /* the frame's first event in ev */
    size_t lates;       /* LATE records checked */
    uint32_t dropped;
} got_t;

static uint32_t rnd(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

static void got_frame(void *user, const aioprof_frame_info_t *f)
{
    got_t *g = user;
    if (!g->have_base) {
        g->frame_time = f->base;
        g->have_base = 1;
    } else {
        g->frame_time += (uint32_t)(f->base - g->last_base); /* 32-bit ticks */
    }
    g->last_base = f->base;
    g->frame_first = g->n;
}

static void got_record(void *user, const aioprof_record_t *r)
{
    got_t *g = user;
    if (r->kind == AIOPROF_REC_DROPPED) {
        g->dropped += r->count;
        return;
    }
    if (r->kind == AIOPROF_REC_LATE) {
        /* one value per ENTER of the frame, the last first */
        size_t enters = 0;
        for (size_t i = g->frame_first; i < g->n; i++) {
            enters += g->ev[i].kind == AIOPROF_REC_ENTER;
        }
        assert_int_equal(r->count, enters);
        size_t at = 0, i = g->n;
        while (at < r->late_len) {
            uint32_t v;
            at += aioprof_varint_get(r->late + at, r->late_len - at, &v);
            while (g->ev[--i].kind != AIOPROF_REC_ENTER) {
            }
            g->ev[i].late = v;
        }
        g->lates++;
        return;
    }
    if (r->kind != AIOPROF_REC_ENTER && r->kind != AIOPROF_REC_EXIT && r->kind != AIOPROF_REC_SPAN_ENTER &&
        r->kind != AIOPROF_REC_SPAN_EXIT) {
        return;
    }
    assert_true(g->n < EVENTS_MAX);
    g->ev[g->n++] = (ev_t){.kind = r->kind, .time = g->frame_time + r->offset,
        .id = r->kind == AIOPROF_REC_ENTER || r->kind == AIOPROF_REC_SPAN_ENTER ? r->id : 0u};
}

typedef struct run {
    fake_device_t *d;
    aioprof_task_t task[TASKS + 1];
    aioprof_span_t span[SPANS];
    char names[SPANS][8];
    unsigned depth[TASKS + 1]; /* open spans per task (0: outside any task) */
    ev_t truth[EVENTS_MAX];
    size_t n;
    uint32_t seed;
} run_t;

static void truth_add(run_t *r, aioprof_rec_kind_t kind, uint32_t id, uint32_t late)
{
    assert_true(r->n < EVENTS_MAX);
    r->truth[r->n++] = (ev_t){.kind = kind, .time = r->d->clock, .id = id, .late = late};
}

/* The clock moves: mostly a few ticks, now and then past a byte, two bytes, 2^14 (what the hook's
 * fast paths keep) or more. */
static void wait(run_t *r)
{
    uint32_t x = rnd(&r->seed) % 100u;
    r->d->clock += x < 70u ? x % 20u : x < 90u ? 100u + x * 7u : x < 98u ? 16000u + x * 30u : 70000u;
}

static void span_in(run_t *r, unsigned task)
{
    if (r->depth[task] < DEPTH) {
        aioprof_span_t *sp = &r->span[rnd(&r->seed) % SPANS];
        aioprof_span_enter(&r->d->prof, sp);
        truth_add(r, AIOPROF_REC_SPAN_ENTER, sp->id, 0);
        r->depth[task]++;
    }
}

static void span_out(run_t *r, unsigned task)
{
    if (r->depth[task] > 0) {
        aioprof_span_exit(&r->d->prof);
        truth_add(r, AIOPROF_REC_SPAN_EXIT, 0, 0);
        r->depth[task]--;
    }
}

/* A slice of task k: spans opened and closed in it, some left open across its await; it returns
 * now and then with spans open (a new instance takes its place). */
static void slice(run_t *r, unsigned k, uint32_t late_unit)
{
    uint32_t late = late_unit ? rnd(&r->seed) % 300u : 0u;
    aioprof_enter_late(&r->d->prof, &r->task[k], late);
    truth_add(r, AIOPROF_REC_ENTER, r->task[k].id, late);
    unsigned ops = rnd(&r->seed) % 6u;
    for (unsigned i = 0; i < ops; i++) {
        wait(r);
        if (rnd(&r->seed) % 2u) {
            span_in(r, k);
        } else {
            span_out(r, k);
        }
    }
    wait(r);
    int ends = rnd(&r->seed) % 20u == 0u;
    aioprof_exit(&r->d->prof, &r->task[k], ends ? AIOPROF_EXIT_RETURN : AIOPROF_EXIT_YIELD);
    truth_add(r, AIOPROF_REC_EXIT, 0, 0);
    if (ends) {
        r->depth[k] = 0; /* its spans end with it */
        aioprof_task_created(&r->d->prof, &r->task[k], "task", 4);
    }
}

/* One random run; returns the events the hook dropped. */
static uint32_t run_one(uint32_t seed, uint32_t ring, uint32_t late_unit, int stalls)
{
    static run_t r;
    static got_t g;
    memset(&r, 0, sizeof r);
    memset(&g, 0, sizeof g);
    r.seed = seed;
    r.d = fake_new_late(32, 1000, ring, late_unit);
    assert_non_null(r.d);
    for (unsigned i = 0; i < SPANS; i++) {
        snprintf(r.names[i], sizeof r.names[i], "s%u", i);
        r.span[i] = (aioprof_span_t){.name = r.names[i], .name_len = (uint8_t)strlen(r.names[i])};
    }
    for (unsigned k = 1; k <= TASKS; k++) {
        aioprof_task_created(&r.d->prof, &r.task[k], "task", 4);
    }
    for (unsigned step = 0; step < STEPS; step++) {
        uint32_t x = rnd(&r.seed) % 100u;
        if (x < 85u) {
            slice(&r, 1u + rnd(&r.seed) % TASKS, late_unit);
        } else if (x < 92u) {
            /* the scheduler's own spans, outside any task */
            wait(&r);
            if (rnd(&r.seed) % 2u) {
                span_in(&r, 0);
            } else {
                span_out(&r, 0);
            }
        } else if (x < 96u) {
            aioprof_flush(&r.d->prof);
        } else if (stalls && x < 97u) {
            r.d->refuse = !r.d->refuse; /* the port stops taking bytes, or takes them again */
        }
        wait(&r);
        aioprof_drain(&r.d->prof);
    }
    r.d->refuse = 0;
    /* the drop count still owed goes with the stop */
    aioprof_close(&r.d->prof);
    for (int i = 0; i < 100000 && !aioprof_idle(&r.d->prof); i++) {
        aioprof_drain(&r.d->prof);
    }
    assert_true(aioprof_idle(&r.d->prof));

    aioprof_reader_sink_t sink = {.frame = got_frame, .record = got_record};
    aioprof_reader_init(&g.reader, &sink, &g);
    aioprof_reader_feed(&g.reader, r.d->out, r.d->out_len);
    aioprof_reader_finish(&g.reader);
    assert_int_equal(g.reader.stats.crc_errors, 0);
    assert_int_equal(g.reader.stats.malformed, 0);
    assert_int_equal(g.reader.stats.unknown_ops, 0);
    assert_int_equal(g.dropped, r.d->prof.dropped_total);
    /* (a hook built without lateness, AIOPROF_LATE=0, sends none) */
    int lates = AIOPROF_LATE && late_unit;
    assert_true(lates ? g.lates > 0 : g.lates == 0);
    /* what was decoded is what the hook was called with, in order, less what it dropped */
    size_t j = 0, spans = 0;
    for (size_t i = 0; i < g.n; i++, j++) {
        const ev_t *e = &g.ev[i];
        while (j < r.n && (r.truth[j].kind != e->kind || r.truth[j].time != e->time || r.truth[j].id != e->id)) {
            assert_true(r.d->prof.dropped_total > 0);
            j++;
        }
        if (j == r.n) {
            fail_msg("decoded event %zu (kind %d at %llu, id %u) is not in the truth after the one before", i,
                (int)e->kind, (unsigned long long)e->time, e->id);
        }
        if (e->kind == AIOPROF_REC_ENTER && lates) {
            assert_int_equal(e->late, r.truth[j].late);
        }
        spans += e->kind == AIOPROF_REC_SPAN_ENTER || e->kind == AIOPROF_REC_SPAN_EXIT;
    }
    if (r.d->prof.dropped_total == 0) {
        assert_int_equal(g.n, r.n);
    }
    assert_true(spans > STEPS / 4u);
    uint32_t dropped = r.d->prof.dropped_total;
    fake_free(r.d);
    return dropped;
}

static void spans_exact(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 4; seed++) {
        assert_int_equal(run_one(0x9E3779B9u * seed, 8192, 0, 0), 0);
    }
}

static void spans_exact_with_lateness(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 4; seed++) {
        assert_int_equal(run_one(0x85EBCA6Bu * seed, 8192, 1000, 0), 0);
    }
}

static void spans_with_drops_and_full_rings(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 4; seed++) {
        assert_true(run_one(0xC2B2AE35u * seed, 256, 0, 1) > 0);
        assert_true(run_one(0x27D4EB2Fu * seed, 300, 1000, 1) > 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spans_exact),
        cmocka_unit_test(spans_exact_with_lateness),
        cmocka_unit_test(spans_with_drops_and_full_rings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
