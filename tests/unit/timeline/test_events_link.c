/* host/timeline/events.c through the pipeline, when the link fails or the device changes: lost frames and
 * silences of 256, dropped events, device resets, a reader that attaches late, link gaps, a
 * capture that ends before the device stopped, and recording again after a stop. Frames are built
 * as in test_events.c (events_fixture.h). */
#include "events_fixture.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_silence_256),
        cmocka_unit_test(test_silence_explained),
        cmocka_unit_test(test_resume_after_stop),
        cmocka_unit_test(test_lost_frame_resync),
        cmocka_unit_test(test_dropped_lower_bound),
        cmocka_unit_test(test_reset_epoch),
        cmocka_unit_test(test_late_attach),
        cmocka_unit_test(test_link_gap),
        cmocka_unit_test(test_end_before_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
