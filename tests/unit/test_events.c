/* host/events.c through the pipeline: the time line (wraps), slices (nesting, exclusive time),
 * resyncs after losses, device resets, late attach and text lines. Frames are built with the
 * frame writer, so every field (base, running, seq, dt) is under the test's control, and the
 * expected figures come from the test's own bookkeeping of what it wrote. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frame_builder.h"
#include "pipeline.h"
#include "stats.h"

typedef struct fb {
    uint8_t body[AIOPROF_BODY_MAX];
    size_t body_len;
    uint8_t seq;
    unsigned bits;
    uint8_t *out;
    size_t len, cap;
} fb_t;

static void fb_init(fb_t *f, unsigned bits)
{
    memset(f, 0, sizeof *f);
    f->bits = bits;
    f->cap = 1 << 16;
    f->out = malloc(f->cap);
}

static void fb_append(fb_t *f, const uint8_t *d, size_t n)
{
    if (f->len + n > f->cap) {
        f->cap = (f->len + n) * 2;
        f->out = realloc(f->out, f->cap);
    }
    memcpy(f->out + f->len, d, n);
    f->len += n;
}

static void fb_open(fb_t *f, uint64_t base, uint32_t running)
{
    uint32_t mask = f->bits == 32 ? 0xFFFFFFFFu : (1u << f->bits) - 1u;
    f->body_len = put_header(f->body, f->seq++, f->bits, (uint32_t)base & mask, running);
}

static void fb_close(fb_t *f)
{
    uint8_t enc[AIOPROF_COBS_MAX(AIOPROF_BODY_MAX + 2) + 2];
    assert_true(f->body_len + 2 <= AIOPROF_BODY_MAX);
    fb_append(f, enc, put_frame(enc, f->body, f->body_len));
}

static void fb_enter(fb_t *f, uint32_t id, uint32_t dt)
{
    f->body_len += put_enter(f->body + f->body_len, id, dt);
}

static void fb_exit(fb_t *f, unsigned kind, uint32_t dt)
{
    f->body_len += put_exit(f->body + f->body_len, kind, dt);
}

static void fb_control(fb_t *f, unsigned op, const uint8_t *b, size_t n)
{
    f->body_len += put_control(f->body + f->body_len, op, b, n);
}

static void fb_text(fb_t *f, const char *s)
{
    fb_append(f, (const uint8_t *)s, strlen(s));
}

/* A HELLO with the device's period in ticks, or without the field (period 0: an older device). */
static void fb_hello_period(fb_t *f, unsigned flags, uint32_t boot, uint32_t drain, uint32_t hz, uint32_t period);

static void fb_hello(fb_t *f, unsigned flags, uint32_t boot, uint32_t drain, uint32_t hz)
{
    fb_hello_period(f, flags, boot, drain, hz, 0);
}

static void fb_hello_period(fb_t *f, unsigned flags, uint32_t boot, uint32_t drain, uint32_t hz, uint32_t period)
{
    uint8_t b[64];
    size_t n = 0;
    n += put_varint(b + n, 1);
    n += put_varint(b + n, hz);
    b[n++] = (uint8_t)f->bits;
    n += put_varint(b + n, 4096);
    b[n++] = (uint8_t)flags;
    n += put_varint(b + n, boot);
    n += put_varint(b + n, drain);
    n += put_varint(b + n, 0);
    b[n++] = 4;
    memcpy(b + n, "test", 4);
    n += 4;
    if (period != 0) {
        n += put_varint(b + n, period);
    }
    fb_control(f, AIOPROF_OP_HELLO, b, n);
}

/* A HELLO with every field up to what an event costs the device (in 1/1024 tick). */
static void fb_hello_cost(fb_t *f, unsigned flags, uint32_t drain, uint32_t dropped, uint32_t hz, uint32_t cost)
{
    uint8_t b[64];
    size_t n = 0;
    n += put_varint(b + n, 1);
    n += put_varint(b + n, hz);
    b[n++] = (uint8_t)f->bits;
    n += put_varint(b + n, 4096);
    b[n++] = (uint8_t)flags;
    n += put_varint(b + n, 0);
    n += put_varint(b + n, drain);
    n += put_varint(b + n, dropped);
    b[n++] = 4;
    memcpy(b + n, "test", 4);
    n += 4;
    n += put_varint(b + n, hz);
    n += put_varint(b + n, cost);
    fb_control(f, AIOPROF_OP_HELLO, b, n);
}

static void fb_task(fb_t *f, unsigned op, uint32_t id, uint32_t parent, const char *name, const char *label)
{
    uint8_t b[256];
    size_t n = 0, nl = strlen(name), ll = label ? strlen(label) : 0;
    n += put_varint(b + n, id);
    n += put_varint(b + n, parent);
    n += put_varint(b + n, (uint32_t)nl);
    memcpy(b + n, name, nl);
    n += nl;
    memcpy(b + n, label ? label : "", ll);
    n += ll;
    fb_control(f, op, b, n);
}

static void fb_dropped(fb_t *f, uint32_t count)
{
    uint8_t b[8];
    fb_control(f, AIOPROF_OP_DROPPED, b, put_varint(b, count));
}

/* ---- helpers on the results ---- */

static char lines[16][1200];
static int nlines;

static void on_line(void *user, const char *line)
{
    (void)user;
    if (nlines < 16) {
        snprintf(lines[nlines], sizeof lines[nlines], "%s", line);
    }
    nlines++;
}

static pipeline_t *run(fb_t *f, size_t piece)
{
    pipeline_config_t cfg = {0};
    cfg.text_line = on_line;
    nlines = 0;
    pipeline_t *p = pipeline_new(&cfg);
    assert_non_null(p);
    if (piece == 0) {
        piece = f->len ? f->len : 1;
    }
    for (size_t i = 0; i < f->len; i += piece) {
        pipeline_feed(p, f->out + i, f->len - i < piece ? f->len - i : piece);
    }
    pipeline_finish(p);
    return p;
}

static const stats_name_t *row(const pipeline_t *p, const char *name)
{
    const stats_t *s = pipeline_stats(p);
    for (size_t i = 0; i < s->n_names; i++) {
        if (strcmp(s->names[i].name, name) == 0) {
            return &s->names[i];
        }
    }
    return NULL;
}

static int row_lower(const pipeline_t *p, const char *name)
{
    size_t n;
    stats_row_t *rows = stats_rows(pipeline_stats(p), 0, STATS_SORT_NAME, &n);
    int lb = -1;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].name, name) == 0) {
            lb = rows[i].lower_bound;
        }
    }
    free(rows);
    return lb;
}

/* ---- tests ---- */

static void test_simple_slices(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 30);
    fb_open(&f, 1000, 0);
    fb_hello(&f, AIOPROF_HELLO_FLAG_BOOT, 1000, 0, 1000000);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "main", NULL);
    fb_enter(&f, 1, 100);   /* t 1100 */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 50);  /* 1150: 50 */
    fb_enter(&f, 1, 850);   /* 2000 */
    fb_exit(&f, AIOPROF_EXIT_RAISE, 30);   /* 2030: 30, raised */
    fb_close(&f);
    fb_open(&f, 5000, 0);
    fb_close(&f);
    pipeline_t *p = run(&f, 3);
    const stats_t *s = pipeline_stats(p);
    const stats_name_t *m = row(p, "main");
    assert_non_null(m);
    assert_int_equal(m->f.count, 2);
    assert_int_equal(m->f.total_us, 80);
    assert_int_equal(m->f.max_us, 50);
    assert_int_equal(m->f.min_us, 30);
    assert_int_equal(m->f.errors, 1);
    assert_int_equal(m->instances, 1);
    assert_int_equal(s->elapsed_us, 4000);
    assert_int_equal(s->outside_us, 4000 - 80);
    assert_int_equal(s->stream.events, 4);
    assert_int_equal(s->stream.frames, 2);
    assert_int_equal(s->stream.unmatched, 0);
    assert_int_equal(s->stream.resets, 0);
    assert_int_equal(row_lower(p, "main"), 0);
    assert_string_equal(s->device.platform, "test");
    pipeline_free(p);
    free(f.out);
}

/* The device's drain time comes in its own ticks: the host converts with tick_hz (here 2 MHz),
 * for the running total and for the overhead between two HELLOs of one boot. */
static void test_drain_ticks_converted(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 0, 0);
    fb_hello(&f, AIOPROF_HELLO_FLAG_BOOT, 0, 7000, 2000000);
    fb_close(&f);
    fb_open(&f, 2000000, 0); /* one second later */
    fb_hello(&f, 0, 0, 27000, 2000000);
    fb_close(&f);
    pipeline_t *p = run(&f, 5);
    const stats_t *s = pipeline_stats(p);
    assert_int_equal(s->device.tick_hz, 2000000);
    assert_int_equal(s->device.drain_us, 13500);
    assert_int_equal(s->device.drain_sum_us, 10000);
    assert_int_equal(s->device.drain_span_us, 1000000);
    pipeline_free(p);
    free(f.out);
}

/* A HELLO of a device that reports lateness in late_unit ticks (1 MHz). */
static void fb_hello_late(fb_t *f, unsigned flags, uint32_t late_unit)
{
    uint8_t b[64];
    size_t n = 0;
    n += put_varint(b + n, 1);
    n += put_varint(b + n, 1000000);
    b[n++] = (uint8_t)f->bits;
    n += put_varint(b + n, 4096);
    b[n++] = (uint8_t)flags;
    n += put_varint(b + n, 0);
    n += put_varint(b + n, 0);
    n += put_varint(b + n, 0);
    b[n++] = 4;
    memcpy(b + n, "test", 4);
    n += 4;
    n += put_varint(b + n, 1000000);
    n += put_varint(b + n, 0);
    n += put_varint(b + n, late_unit);
    fb_control(f, AIOPROF_OP_HELLO, b, n);
}

/* Lateness from hand-made frames (docs/protocol.md, "Lateness"): a frame's LATE values, last ENTER
 * first, in late_unit ticks; a frame without one is on time; one whose count is not the frame's
 * ENTERs is ignored (its resumes unknown); the window is blamed on what ran in it, and on "no task"
 * between slices. */
static void test_lateness(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 0, 0);
    fb_hello_late(&f, AIOPROF_HELLO_FLAG_BOOT, 1000);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "hog", NULL);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "victim", NULL);
    /* hog runs 0..5000, nothing 5000..6000, victim enters at 6000 5 ms late: hog 4000 us of its
     * window [1000, 6000), no task 1000 us; then hog again, on time */
    fb_enter(&f, 1, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 5000);
    fb_enter(&f, 2, 1000);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 100);
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    const uint8_t late[] = {0, 5, 0}; /* last ENTER first: hog 0, victim 5, hog 0 */
    fb_control(&f, AIOPROF_OP_LATE, late, sizeof late);
    fb_close(&f);
    /* no LATE: every ENTER on time */
    fb_open(&f, 7000, 0);
    fb_enter(&f, 2, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    fb_close(&f);
    /* a LATE with one value for two ENTERs: ignored */
    fb_open(&f, 8000, 0);
    fb_enter(&f, 2, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    fb_enter(&f, 1, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    const uint8_t short_list[] = {7};
    fb_control(&f, AIOPROF_OP_LATE, short_list, sizeof short_list);
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    size_t n = 0;
    stats_row_t *rows = stats_rows(s, 0, STATS_SORT_NAME, &n);
    assert_int_equal(n, 2);
    const stats_late_t *hog = rows[0].late, *victim = rows[1].late;
    assert_string_equal(rows[1].name, "victim");
    assert_non_null(hog);
    assert_non_null(victim);
    assert_int_equal(hog->resumes, 2);
    assert_int_equal(hog->count, 0);
    assert_int_equal(victim->resumes, 2);
    assert_int_equal(victim->count, 1);
    assert_int_equal(victim->max_us, 5000);
    assert_int_equal(victim->total_us, 5000);
    assert_int_equal(victim->outside_us, 1000);
    assert_int_equal(victim->unknown_us, 0);
    uint64_t us = 0;
    int32_t who = stats_late_culprit(s, victim, &us);
    assert_string_equal(stats_late_who_name(s, who), "hog");
    assert_int_equal(us, 4000);
    /* p50 of its two resumes (0 and 5 ms): 0; p95 and p99: 5 ms, within the bucket's 1/16 */
    assert_int_equal(rows[1].late_pct[0], 0);
    assert_true(rows[1].late_pct[2] >= 5000 - 5000 / 16 && rows[1].late_pct[2] <= 5000);
    free(rows);
    pipeline_free(p);
    free(f.out);
}

/* The hook's whole overhead: its drain time and its events, received and dropped, at the cost per
 * event the device sent (1/1024 tick units; at 2 MHz, 2048 is a microsecond). */
static void test_event_cost_overhead(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 0, 0);
    fb_hello_cost(&f, AIOPROF_HELLO_FLAG_BOOT, 0, 0, 2000000, 2048);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "a", NULL);
    fb_close(&f);
    for (int i = 0; i < 100; i++) { /* 200 events */
        fb_open(&f, 10000 + 10000 * (uint64_t)i, 0);
        fb_enter(&f, 1, 0);
        fb_exit(&f, AIOPROF_EXIT_YIELD, 100);
        fb_close(&f);
    }
    fb_open(&f, 2000000, 0); /* one second after the first HELLO; 10 events were dropped */
    fb_dropped(&f, 10);
    fb_hello_cost(&f, 0, 20000, 10, 2000000, 2048);
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    assert_int_equal(s->device.drain_span_us, 1000000);
    assert_true(stats_event_cost_ns(s) > 999.9 && stats_event_cost_ns(s) < 1000.1);
    double drain = 10000.0 / 1e6, events = 210.0 / 1e6;
    assert_true(fabs(stats_overhead_part(s, 1, 0) - drain) < 1e-9);
    assert_true(fabs(stats_overhead_part(s, 0, 1) - events) < 1e-9);
    assert_true(fabs(stats_overhead(s) - (drain + events)) < 1e-9);
    pipeline_free(p);
    free(f.out);

    /* a device that does not say what an event costs: the drain time alone, the cost unknown */
    fb_init(&f, 32);
    fb_open(&f, 0, 0);
    fb_hello(&f, AIOPROF_HELLO_FLAG_BOOT, 0, 0, 2000000);
    fb_close(&f);
    fb_open(&f, 2000000, 0);
    fb_hello(&f, 0, 0, 20000, 2000000);
    fb_close(&f);
    p = run(&f, 0);
    s = pipeline_stats(p);
    assert_true(stats_event_cost_ns(s) < 0);
    assert_true(fabs(stats_overhead(s) - drain) < 1e-9);
    pipeline_free(p);
    free(f.out);
}

/* A damaged frame is a loss for the tasks seen before it, not for one first seen after it, whether
 * the bytes come in one read or one at a time. */
static void test_damage_taints_only_what_came_before(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 1000, 0);
    fb_hello(&f, AIOPROF_HELLO_FLAG_BOOT, 1000, 0, 1000000);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "a", NULL);
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 5);
    fb_close(&f);
    size_t damaged = f.len;
    fb_open(&f, 2000, 0);
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 5);
    fb_close(&f);
    f.out[damaged + 5] ^= 0x40; /* inside the second frame: its CRC fails */
    fb_open(&f, 3000, 0);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "b", NULL);
    fb_enter(&f, 2, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 7);
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 5);
    fb_close(&f);
    for (size_t piece = 0; piece <= 1; piece++) {
        pipeline_t *p = run(&f, piece); /* 0: the whole stream in one read */
        const stats_t *s = pipeline_stats(p);
        assert_int_equal(s->stream.crc_errors, 1);
        assert_int_equal(row(p, "b")->f.total_us, 7);
        assert_int_equal(row_lower(p, "b"), 0);
        assert_int_equal(row_lower(p, "a"), 1);
        pipeline_free(p);
    }
    free(f.out);
}

/* A long run across several wraps: slices start before a wrap and end after it, frames are a
 * second apart, and some frames carry events whose offsets pass the wrap on their own. */
static void wraps(unsigned bits, uint64_t start)
{
    fb_t f;
    fb_init(&f, bits);
    uint64_t wrap = 1ull << bits;
    uint64_t t = start;
    uint64_t want_total = 0, want_max = 0, want_count = 0;
    uint32_t rng = 99;
    fb_open(&f, t, 0);
    fb_hello(&f, AIOPROF_HELLO_FLAG_BOOT, (uint32_t)t, 0, 1000000);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 7, 0, "worker", NULL);
    fb_close(&f);
    uint64_t first = t;
    while (t < start + 3 * wrap + wrap / 2) {
        uint64_t base = t;
        fb_open(&f, base, 0);
        uint64_t last = base;
        for (int k = 0; k < 20; k++) {
            rng = rng * 1664525u + 1013904223u;
            uint64_t gap = rng % 40000;
            uint64_t len = 1 + (rng >> 8) % 60000;
            fb_enter(&f, 7, (uint32_t)(t + gap - last));
            t += gap;
            fb_exit(&f, AIOPROF_EXIT_YIELD, (uint32_t)len);
            t += len;
            last = t;
            want_total += len;
            want_count++;
            want_max = len > want_max ? len : want_max;
        }
        fb_close(&f);
        t += 1000000 - (t - base) % 1000000; /* the next frame a little later */
    }
    /* one frame whose single slice is the longest there can be, just under half a wrap (a longer
     * difference is a step back): offsets carry it past the wrap */
    fb_open(&f, t, 0);
    fb_enter(&f, 7, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, (uint32_t)(wrap / 2 - 1));
    fb_close(&f);
    want_total += wrap / 2 - 1;
    want_max = wrap / 2 - 1 > want_max ? wrap / 2 - 1 : want_max;
    want_count++;
    t += 10 + wrap / 2 - 1 + 500;
    fb_open(&f, t, 0);
    fb_close(&f);

    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    const stats_name_t *w = row(p, "worker");
    assert_non_null(w);
    assert_int_equal(w->f.count, want_count);
    assert_int_equal(w->f.total_us, want_total);
    assert_int_equal(w->f.max_us, want_max);
    assert_int_equal(s->elapsed_us, t - first);
    assert_int_equal(s->outside_us + want_total, t - first);
    assert_int_equal(s->stream.unmatched, 0);
    assert_int_equal(s->stream.lost_frames, 0);
    pipeline_free(p);
    free(f.out);
}

static void test_wrap_30(void **state)
{
    (void)state;
    wraps(30, (1ull << 30) - 1500000);
}

static void test_wrap_32(void **state)
{
    (void)state;
    wraps(32, (1ull << 32) - 777);
}

/* The device's clock steps back (MicroPython's qemu port reads its millisecond counter and SysTick
 * apart; real boards' tick readers race with interrupts): a dt, or a frame's base, in the upper
 * half of the tick range. Counted; the slice gets nothing for the step, never a huge number, and
 * elapsed time is the latest time point's. A step of more than a period is a clock set back: time
 * goes on from where it was at once. */
static void steps_back(unsigned bits)
{
    fb_t f;
    fb_init(&f, bits);
    uint64_t wrap = 1ull << bits, b = wrap - 3000; /* across a wrap too */
    fb_open(&f, b, 0);
    fb_hello(&f, AIOPROF_HELLO_FLAG_BOOT, (uint32_t)b, 0, 1000000);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "a", NULL);
    fb_enter(&f, 1, 0);                                   /* b */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 5000);                /* b+5000: 5000 */
    fb_enter(&f, 1, 100);                                 /* b+5100 */
    fb_exit(&f, AIOPROF_EXIT_YIELD, (uint32_t)(wrap - 1000)); /* back to b+4100: 0 */
    fb_enter(&f, 1, 2000);                                /* b+6100: outside 1000 */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 400);                 /* b+6500: 400 */
    fb_close(&f);
    fb_open(&f, b + 6000, 0);                             /* the base 500 back */
    fb_enter(&f, 1, 1000);                                /* b+7000: outside 500 */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 300);                 /* b+7300: 300 */
    fb_enter(&f, 1, (uint32_t)(wrap - 10000000));         /* set back 10 s: stays at b+7300 */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 200);                 /* b+7500: 200 */
    fb_close(&f);
    pipeline_t *p = run(&f, 3);
    const stats_t *s = pipeline_stats(p);
    const stats_name_t *a = row(p, "a");
    assert_int_equal(s->stream.clock_steps_back, 3);
    assert_int_equal(a->f.count, 5);
    assert_int_equal(a->f.total_us, 5000 + 0 + 400 + 300 + 200);
    assert_int_equal(a->f.max_us, 5000);
    assert_int_equal(a->f.min_us, 0);
    assert_int_equal(s->elapsed_us, 7500);
    assert_int_equal(s->outside_us, 100 + 1000 + 500);
    assert_int_equal(s->stream.lost_frames, 0);
    assert_int_equal(s->stream.unmatched, 0);
    assert_int_equal(row_lower(p, "a"), 0);
    pipeline_free(p);
    free(f.out);
}

static void test_steps_back_30(void **state)
{
    (void)state;
    steps_back(30);
}

static void test_steps_back_32(void **state)
{
    (void)state;
    steps_back(32);
}

/* Half a wrap is where a slice ends and a step back begins. */
static void test_half_wrap_boundary(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 30);
    uint64_t half = 1ull << 29;
    fb_open(&f, 100, 0);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "hog", NULL);
    fb_enter(&f, 1, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, (uint32_t)(half - 1)); /* the longest slice */
    fb_enter(&f, 1, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, (uint32_t)half);        /* a step back of half a wrap */
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    assert_int_equal(row(p, "hog")->f.count, 2);
    assert_int_equal(row(p, "hog")->f.total_us, half - 1);
    assert_int_equal(s->stream.clock_steps_back, 1);
    assert_int_equal(s->elapsed_us, half - 1);
    pipeline_free(p);
    free(f.out);
}

/* Frames one period (here 100 ms, from the HELLO) apart; `lost` of them (a multiple of 256) never
 * arrive, so the sequence number shows nothing: the silence does. */
static void silence(unsigned lost, uint32_t period, int long_slice, int drops)
{
    fb_t f;
    fb_init(&f, 32);
    uint64_t t = 1000;
    fb_open(&f, t, 0);
    fb_hello_period(&f, AIOPROF_HELLO_FLAG_BOOT, 1000, 0, 1000000, period);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "a", NULL);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "b", NULL);
    fb_close(&f);
    uint64_t want = 0;
    unsigned n = 200 + lost;
    for (unsigned i = 0; i < n; i++) {
        int gone = i >= 100 && i < 100 + lost;
        fb_t *to = &f;
        fb_t sink;
        if (gone) {
            /* made (so that the sequence numbers run on) but not kept */
            fb_init(&sink, 32);
            sink.seq = f.seq;
            to = &sink;
        }
        t += period ? period : 1000000;
        fb_open(to, t, long_slice && i == 100 + lost ? 2 : 0);
        if (long_slice && i == 99) {
            fb_enter(to, 2, 10); /* b runs on across the silence */
        } else if (long_slice && i == 100 + lost) {
            fb_exit(to, AIOPROF_EXIT_YIELD, 10);
        } else if (!(long_slice && gone)) {
            fb_enter(to, 1, 10);
            fb_exit(to, AIOPROF_EXIT_YIELD, 50);
            want += !gone;
        }
        if (drops && i == 100 + lost) {
            /* this frame starts with the count of what the device could not record */
            to->body_len = put_header(to->body, (uint8_t)(to->seq - 1), 32, (uint32_t)t, 0);
            fb_dropped(to, drops == 1 ? 99 : 0);
            fb_enter(to, 1, 10);
            fb_exit(to, AIOPROF_EXIT_YIELD, 50);
        }
        fb_close(to);
        if (gone) {
            f.seq = sink.seq;
            free(sink.out);
        }
    }
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    uint64_t step = period ? period : 1000000;
    if (lost && !long_slice && !drops) {
        assert_int_equal(s->stream.lost_frames, 256);
        assert_int_equal(row(p, "a")->f.count, want);
        assert_int_equal(row_lower(p, "a"), 1);
        /* the silence is not elapsed time */
        assert_true(s->elapsed_us < (n - lost + 2) * step);
    } else {
        assert_int_equal(s->stream.lost_frames, 0);
        assert_int_equal(s->elapsed_us, n * step + 60);
    }
    if (long_slice) {
        assert_int_equal(row(p, "b")->f.count, 1);
        assert_int_equal(row(p, "b")->f.max_us, (lost + 1) * step);
    }
    if (drops == 2) {
        /* nothing was lost: nothing marked, nothing counted dropped */
        assert_int_equal(s->stream.dropped_events, 0);
        assert_int_equal(row_lower(p, "a"), 0);
    }
    pipeline_free(p);
    free(f.out);
}

static void test_silence_256(void **state)
{
    (void)state;
    silence(256, 0, 0, 0);      /* an older device's HELLO: a second */
    silence(512, 100000, 0, 0); /* a period of 100 ms */
    silence(0, 100000, 0, 0);   /* nothing lost: nothing counted */
}

static void test_silence_explained(void **state)
{
    (void)state;
    silence(256, 100000, 1, 0); /* one long slice */
    silence(256, 100000, 0, 1); /* the ring was full: events dropped */
    silence(256, 100000, 0, 2); /* the ring was full: heartbeats only (a DROPPED of 0 events) */
}

static void test_nested_exclusive(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 0, 0);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "outer", NULL);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 1, "inner", NULL);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 3, 2, "innermost", NULL);
    fb_enter(&f, 1, 100);  /* 100 outer */
    fb_enter(&f, 2, 10);   /* 110 inner (outer ran 10) */
    fb_enter(&f, 3, 5);    /* 115 innermost (inner ran 5) */
    fb_exit(&f, AIOPROF_EXIT_RETURN, 20); /* 135 innermost: 20 */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 7);   /* 142 inner: 5 + 7 = 12 */
    fb_close(&f);
    /* the frame header agrees: outer is running */
    fb_open(&f, 150, 1);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 8);   /* 158 outer: 10 + 16 = 26 */
    fb_close(&f);
    fb_open(&f, 300, 0);
    fb_close(&f);
    pipeline_t *p = run(&f, 1);
    const stats_t *s = pipeline_stats(p);
    assert_int_equal(row(p, "outer")->f.total_us, 26);
    assert_int_equal(row(p, "outer")->f.count, 1);
    assert_int_equal(row(p, "inner")->f.total_us, 12);
    assert_int_equal(row(p, "innermost")->f.total_us, 20);
    assert_int_equal(s->elapsed_us, 300);
    assert_int_equal(s->outside_us, 300 - 58);
    assert_int_equal(s->stream.unmatched, 0);
    /* the creator of innermost is inner */
    size_t n;
    stats_row_t *rows = stats_rows(s, 1, STATS_SORT_NAME, &n);
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].inst->id == 3) {
            assert_string_equal(rows[i].parent_name, "inner");
            assert_string_equal(stats_end_name(s, rows[i].inst), "returned");
            found = 1;
        }
    }
    assert_true(found);
    free(rows);
    pipeline_free(p);
    free(f.out);
}

/* A frame is lost: the slice open across it is dropped, the task running after it has an
 * unknown start, both rows become lower bounds; a task created after the loss is exact. */
static void test_lost_frame_resync(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 30);
    fb_open(&f, 0, 0);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "a", NULL);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "b", NULL);
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 5);    /* a: 5, counted */
    fb_enter(&f, 1, 10);                   /* a open at 25 */
    fb_close(&f);
    fb_open(&f, 100, 1);                             /* this frame is lost */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 5);
    fb_enter(&f, 2, 5);
    fb_close(&f);
    f.len -= 0; /* keep the bytes, then cut them out below */
    size_t lost_at = 0;
    {
        /* find the start of the second frame: the third delimiter-separated segment */
        int zeros = 0;
        for (size_t i = 0; i < f.len; i++) {
            if (f.out[i] == 0 && ++zeros == 3) {
                lost_at = i;
                break;
            }
        }
    }
    f.len = lost_at + 1; /* drop the lost frame's bytes */
    fb_open(&f, 200, 2);                             /* b runs, start unknown */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);   /* not counted */
    fb_task(&f, AIOPROF_OP_TASK_NEW, 3, 0, "c", NULL);
    fb_enter(&f, 3, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 20);   /* c: 20, exact */
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 3);    /* a: 3 */
    fb_close(&f);
    pipeline_t *p = run(&f, 7);
    const stats_t *s = pipeline_stats(p);
    assert_int_equal(s->stream.lost_frames, 1);
    assert_int_equal(row(p, "a")->f.count, 2);
    assert_int_equal(row(p, "a")->f.total_us, 8);
    assert_int_equal(row(p, "b")->f.count, 0);
    assert_int_equal(row(p, "c")->f.total_us, 20);
    assert_int_equal(s->stream.unmatched, 2); /* a's open slice, b's exit */
    assert_int_equal(row_lower(p, "a"), 1);
    assert_int_equal(row_lower(p, "b"), 1);
    assert_int_equal(row_lower(p, "c"), 0);
    /* the lost stretch (25..200) is not elapsed time */
    assert_int_equal(s->elapsed_us, 25 + (253 - 200));
    pipeline_free(p);
    free(f.out);
}

static void test_dropped_lower_bound(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 30);
    fb_open(&f, 0, 0);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "busy", NULL);
    fb_enter(&f, 1, 10);
    fb_close(&f);
    fb_open(&f, 1000, 1); /* header says busy runs: but events were dropped before */
    fb_dropped(&f, 17);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 100); /* start unknown: not counted */
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 40);  /* counted: 40 */
    fb_dropped(&f, 3);                              /* mid-frame */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 5);   /* nothing open: unmatched */
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    assert_int_equal(s->stream.dropped_events, 20);
    assert_int_equal(row(p, "busy")->f.count, 1);
    assert_int_equal(row(p, "busy")->f.total_us, 40);
    assert_int_equal(row_lower(p, "busy"), 1);
    assert_int_equal(s->stream.unmatched, 3);
    pipeline_free(p);
    free(f.out);
}

/* The device restarts: ids start again; the old instance keeps its name, the new id 1 is
 * another task; totals continue; the reset's time jump is not elapsed time. */
static void test_reset_epoch(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 30);
    fb_open(&f, 5000, 0);
    fb_hello(&f, AIOPROF_HELLO_FLAG_BOOT, 5000, 0, 1000000);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "old", NULL);
    fb_enter(&f, 1, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 100);
    fb_enter(&f, 1, 0);                    /* open at the reset */
    fb_close(&f);
    f.seq = 0;
    fb_open(&f, 10, 0);                              /* a new boot: ticks restart */
    fb_hello(&f, AIOPROF_HELLO_FLAG_BOOT, 10, 0, 1000000);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "new", NULL);
    fb_enter(&f, 1, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 40);
    fb_close(&f);
    /* a reset whose boot HELLO was missed: only the boot_ticks of a periodic HELLO tell */
    f.seq = 0;
    fb_open(&f, 77, 0);
    fb_hello(&f, 0, 70, 0, 1000000);
    fb_task(&f, AIOPROF_OP_TASK_INFO, 1, 0, "third", NULL);
    fb_enter(&f, 1, 3);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 9);
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    assert_int_equal(s->stream.resets, 2);
    assert_int_equal(s->epoch, 2);
    assert_int_equal(row(p, "old")->f.total_us, 100);
    assert_int_equal(row(p, "new")->f.total_us, 40);
    assert_int_equal(row(p, "third")->f.total_us, 9);
    assert_int_equal(s->elapsed_us, 100 + 40 + 12);
    assert_int_equal(s->stream.unmatched, 1);
    size_t n;
    stats_row_t *rows = stats_rows(s, 1, STATS_SORT_NAME, &n);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].inst->id, 1);
        if (strcmp(rows[i].name, "old") == 0) {
            assert_int_equal(rows[i].inst->epoch, 0);
            assert_string_equal(stats_end_name(s, rows[i].inst), "unknown");
        }
    }
    free(rows);
    pipeline_free(p);
    free(f.out);
}

/* Joined late: no HELLO, a task running at the first frame, names only from TASK_INFO. */
static void test_late_attach(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 30);
    fb_text(&f, "\x05garbage tail of a frame");
    fb_open(&f, 1000, 4);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 50);  /* start unknown */
    fb_enter(&f, 5, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 30);  /* task #5: 30 */
    fb_close(&f);
    fb_open(&f, 2000, 0);
    fb_enter(&f, 5, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 70);  /* task #5: 70 */
    fb_close(&f);
    /* before the name arrives: an unnamed row */
    pipeline_t *p = run(&f, 0);
    size_t n;
    stats_row_t *rows = stats_rows(pipeline_stats(p), 0, STATS_SORT_TOTAL, &n);
    assert_true(n >= 1);
    assert_string_equal(rows[0].name, "task #5");
    assert_int_equal(rows[0].f.total_us, 100);
    free(rows);
    pipeline_free(p);

    fb_open(&f, 3000, 0);
    fb_task(&f, AIOPROF_OP_TASK_INFO, 5, 4, "sensor", "left");
    fb_enter(&f, 5, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 20);
    fb_task(&f, AIOPROF_OP_TASK_INFO, 5, 4, "sensor", "left"); /* repeated: no change */
    fb_close(&f);
    p = run(&f, 5);
    const stats_name_t *r = row(p, "sensor");
    assert_non_null(r);
    assert_int_equal(r->f.count, 3);
    assert_int_equal(r->f.total_us, 120);
    assert_int_equal(r->f.max_us, 70);
    assert_int_equal(r->instances, 1);
    rows = stats_rows(pipeline_stats(p), 0, STATS_SORT_TOTAL, &n);
    for (size_t i = 0; i < n; i++) {
        assert_string_not_equal(rows[i].name, "task #5");
    }
    free(rows);
    rows = stats_rows(pipeline_stats(p), 1, STATS_SORT_TOTAL, &n);
    assert_int_equal(n, 2); /* sensor #5 and the unnamed #4 */
    assert_string_equal(rows[0].inst->label, "left");
    assert_int_equal(rows[0].inst->parent, 4);
    free(rows);
    assert_int_equal(pipeline_stats(p)->stream.unmatched, 1);
    pipeline_free(p);
    free(f.out);
}

static void test_text_lines(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 30);
    fb_open(&f, 0, 0);
    fb_close(&f);
    fb_text(&f, "hel");
    fb_open(&f, 10, 0);
    fb_close(&f);
    fb_text(&f, "lo\r\nwor");
    fb_open(&f, 20, 0);
    fb_close(&f);
    fb_text(&f, "ld\n\x1B[2J\x07 bad \xC3\x28 csi \xC2\x9B" "1m\n");
    char big[2000];
    memset(big, 'y', sizeof big);
    big[sizeof big - 1] = '\0';
    fb_text(&f, big);
    fb_text(&f, "\nafter\npartial");
    for (size_t piece = 1; piece <= 4096; piece *= 8) {
        pipeline_t *p = run(&f, piece);
        assert_int_equal(nlines, 6);
        assert_string_equal(lines[0], "hello");
        assert_string_equal(lines[1], "world");
        assert_string_equal(lines[2], "\\e[2J\\x07 bad \\xC3( csi \\xC2\\x9B1m");
        assert_int_equal(strlen(lines[3]), 512 + 3);
        assert_memory_equal(lines[3] + 512, "\xE2\x80\xA6", 3);
        assert_string_equal(lines[4], "after");
        assert_string_equal(lines[5], "partial");
        assert_int_equal(pipeline_stats(p)->stream.text_lines, 6);
        pipeline_free(p);
    }
    free(f.out);
}

/* Link down and up: the gap is not elapsed time, slices open across it are not counted; the ids
 * after it are counted apart (a new epoch: they may be another device's) until the device says
 * who it is, and named by its announcements. */
static void test_link_gap(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 30);
    fb_open(&f, 0, 0);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "t", NULL);
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    fb_enter(&f, 1, 10);
    fb_close(&f);
    size_t half = f.len;
    fb_open(&f, 500, 1);  /* cut off by the unplugging */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    fb_close(&f);
    size_t cut = f.len - 4;
    fb_open(&f, 900000000, 1);  /* long after: a base that would unwrap to anything */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    fb_task(&f, AIOPROF_OP_TASK_INFO, 1, 0, "t", NULL);
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 15);
    fb_close(&f);
    pipeline_config_t cfg = {0};
    pipeline_t *p = pipeline_new(&cfg);
    pipeline_feed(p, f.out, cut);
    pipeline_link_down(p);
    pipeline_link_up(p);
    /* after the link came back, the rest of the cut frame arrives: skipped, not damage */
    pipeline_feed(p, f.out + cut, f.len - cut);
    (void)half;
    pipeline_finish(p);
    const stats_t *s = pipeline_stats(p);
    assert_int_equal(s->stream.reconnects, 1);
    assert_int_equal(s->stream.crc_errors, 0);
    assert_int_equal(s->stream.frames, 2);
    assert_non_null(row(p, "t"));
    assert_int_equal(row(p, "t")->f.count, 2);
    assert_int_equal(row(p, "t")->f.total_us, 25);
    assert_int_equal(s->elapsed_us, 30 + 35);
    assert_int_equal(row_lower(p, "t"), 1);
    assert_int_equal(s->epoch, 1);
    assert_int_equal(row(p, "t")->instances, 2);
    pipeline_free(p);
    free(f.out);
}

/* The end of a recording: when the device never said it stopped, the tasks live at the end may
 * have had events still in its ring (lower bounds, said once); a task that finished did not. When
 * its last HELLO said "stopped", or when the session was ended by its user, nothing is marked. */
static void ends(int stopped, int end_of_input)
{
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 0, 0);
    fb_hello(&f, AIOPROF_HELLO_FLAG_BOOT, 0, 0, 1000000);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "lives", NULL);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "returns", NULL);
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    fb_enter(&f, 2, 10);
    fb_exit(&f, AIOPROF_EXIT_RETURN, 10);
    if (stopped) {
        fb_hello(&f, AIOPROF_HELLO_FLAG_STOPPED, 0, 0, 1000000);
    }
    fb_close(&f);
    pipeline_config_t cfg = {0};
    pipeline_t *p = pipeline_new(&cfg);
    pipeline_feed(p, f.out, f.len);
    if (end_of_input) {
        pipeline_end_of_input(p);
    } else {
        pipeline_finish(p);
    }
    const stats_t *s = pipeline_stats(p);
    int cut = end_of_input && !stopped;
    assert_int_equal(s->stream.ended_before_stop, cut);
    assert_int_equal(row_lower(p, "lives"), cut);
    assert_int_equal(row_lower(p, "returns"), 0);
    assert_int_equal(row(p, "lives")->f.count, 1);
    pipeline_free(p);
    free(f.out);
}

static void test_end_before_stop(void **state)
{
    (void)state;
    ends(0, 1);
    ends(1, 1);
    ends(0, 0);
    ends(1, 0);
}

/* A device that said it stopped and then records again (a MicroPython program whose main task
 * ended, and which then runs asyncio again): the silence between is the device's choice, not lost
 * frames, however long; the figures go on and nothing is marked. */
static void test_resume_after_stop(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    uint32_t period = 100000;
    fb_open(&f, 1000, 0);
    fb_hello_period(&f, AIOPROF_HELLO_FLAG_BOOT, 1000, 0, 1000000, period);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "first", NULL);
    fb_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_RETURN, 50);
    fb_hello_period(&f, AIOPROF_HELLO_FLAG_STOPPED, 1000, 0, 1000000, period);
    fb_close(&f);
    /* a minute without frames: 600 periods */
    uint64_t t = 1000 + 60 + 60000000;
    fb_open(&f, t, 0);
    fb_hello_period(&f, 0, 1000, 0, 1000000, period);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "second", NULL);
    fb_enter(&f, 2, 0);
    fb_exit(&f, AIOPROF_EXIT_RETURN, 70);
    fb_hello_period(&f, AIOPROF_HELLO_FLAG_STOPPED, 1000, 0, 1000000, period);
    fb_close(&f);
    pipeline_config_t cfg = {0};
    pipeline_t *p = pipeline_new(&cfg);
    pipeline_feed(p, f.out, f.len);
    pipeline_end_of_input(p);
    const stats_t *s = pipeline_stats(p);
    assert_int_equal(s->stream.lost_frames, 0);
    assert_int_equal(s->stream.ended_before_stop, 0);
    assert_int_equal(row(p, "first")->f.total_us, 50);
    assert_int_equal(row(p, "second")->f.total_us, 70);
    assert_int_equal(row_lower(p, "first"), 0);
    assert_int_equal(row_lower(p, "second"), 0);
    assert_int_equal(s->elapsed_us, 60 + 60000000 + 70);
    pipeline_free(p);
    free(f.out);
}

static void test_hostile_records(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 0, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10); /* nothing runs */
    fb_task(&f, AIOPROF_OP_TASK_NEW, 9, 0, "\x1B]0;pwned\x07\x1B[2J", "\x9B" "31m");
    for (int i = 0; i < 200; i++) {
        fb_enter(&f, 9, 1); /* nesting deeper than the stack */
    }
    fb_close(&f);
    fb_open(&f, 1000, 0);
    for (int i = 0; i < 100; i++) {
        fb_exit(&f, AIOPROF_EXIT_CANCEL, 1);
    }
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    assert_non_null(row(p, "\\e]0;pwned\\x07\\e[2J"));
    for (size_t i = 0; i < s->n_names; i++) {
        assert_null(strchr(s->names[i].name, 0x1B));
    }
    assert_true(s->stream.unmatched > 0);
    pipeline_free(p);
    free(f.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_slices),
        cmocka_unit_test(test_drain_ticks_converted),
        cmocka_unit_test(test_damage_taints_only_what_came_before),
        cmocka_unit_test(test_wrap_30),
        cmocka_unit_test(test_wrap_32),
        cmocka_unit_test(test_steps_back_30),
        cmocka_unit_test(test_steps_back_32),
        cmocka_unit_test(test_half_wrap_boundary),
        cmocka_unit_test(test_silence_256),
        cmocka_unit_test(test_silence_explained),
        cmocka_unit_test(test_resume_after_stop),
        cmocka_unit_test(test_event_cost_overhead),
        cmocka_unit_test(test_nested_exclusive),
        cmocka_unit_test(test_lost_frame_resync),
        cmocka_unit_test(test_dropped_lower_bound),
        cmocka_unit_test(test_reset_epoch),
        cmocka_unit_test(test_late_attach),
        cmocka_unit_test(test_lateness),
        cmocka_unit_test(test_text_lines),
        cmocka_unit_test(test_link_gap),
        cmocka_unit_test(test_end_before_stop),
        cmocka_unit_test(test_hostile_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
