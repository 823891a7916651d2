/* host/timeline/events.c through the pipeline: the time line (wraps), slices (nesting, exclusive time),
 * resyncs after losses, device resets, late attach and text lines. Frames are built with the
 * frame writer, so every field (base, running, seq, dt) is under the test's control, and the
 * expected figures come from the test's own bookkeeping of what it wrote. */
#include <math.h>

#include "events_fixture.h"
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
        cmocka_unit_test(test_event_cost_overhead),
        cmocka_unit_test(test_nested_exclusive),
        cmocka_unit_test(test_lateness),
        cmocka_unit_test(test_text_lines),
        cmocka_unit_test(test_hostile_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
