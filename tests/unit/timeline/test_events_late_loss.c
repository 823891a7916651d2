/* Lateness across what the host did not see (events_late.c, docs/usage.md "Lateness"): the part
 * of a waiting window before the stream began, inside a stretch of lost frames, where events were
 * dropped, or before a device reset is unknown, the rest goes to what ran then, and every window's
 * parts add up to its length. Each stream is built so that the test knows, microsecond for
 * microsecond, what ran when in device time (lateness in microseconds: late_unit 1). */
#include "events_fixture.h"

/* The instance row of `name` that has resumes (the one of the last epoch that ran). */
static const stats_instance_t *late_row(const pipeline_t *p, const char *name)
{
    const stats_t *s = pipeline_stats(p);
    stats_late_settle_all((stats_t *)s); /* the instance rows' lists made, as a view makes them */
    const stats_instance_t *found = NULL;
    for (size_t i = 0; i < s->inst_used; i++) {
        const stats_instance_t *in = &s->inst[i];
        if (in->in_use && in->name >= 0 && strcmp(s->names[in->name].name, name) == 0 && in->late.resumes != 0) {
            found = in;
        }
    }
    assert_non_null(found);
    return found;
}

/* A culprit's time in a row (0: not listed). */
static uint64_t blamed(const pipeline_t *p, const stats_late_t *l, const char *name)
{
    const stats_t *s = pipeline_stats(p);
    for (uint32_t i = 0; i < l->n_blame; i++) {
        if (strcmp(stats_late_who_name(s, l->blame[i].who), name) == 0) {
            return l->blame[i].us;
        }
    }
    return 0;
}

/* The invariant: every microsecond of lateness is on a culprit, on no task, or unknown. */
static void parts_add_up(const stats_late_t *l)
{
    uint64_t sum = l->other_us + l->outside_us + l->unknown_us;
    for (uint32_t i = 0; i < l->n_blame; i++) {
        sum += l->blame[i].us;
    }
    assert_int_equal(sum, l->total_us);
}

static void late_values(fb_t *f, const uint32_t *last_first, size_t n)
{
    uint8_t b[64];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        len += put_varint(b + len, last_first[i]);
    }
    fb_control(f, AIOPROF_OP_LATE, b, len);
}

/* The first frame of every stream here: a HELLO (lateness in microseconds), early (id 1) and
 * victim (id 2) named, early running [100, 1100), then nothing. */
static void first_frame(fb_t *f)
{
    fb_init(f, 32);
    fb_open(f, 0, 0);
    fb_hello_late(f, AIOPROF_HELLO_FLAG_BOOT, 1);
    fb_task(f, AIOPROF_OP_TASK_NEW, 1, 0, "early", NULL);
    fb_task(f, AIOPROF_OP_TASK_NEW, 2, 0, "victim", NULL);
    fb_enter(f, 1, 100);
    fb_exit(f, AIOPROF_EXIT_YIELD, 1000);
    const uint32_t v[] = {0};
    late_values(f, v, 1);
    fb_close(f);
}

/* victim runs [base, base + 200) late by a, then again from base + 200, late by b. */
static void victim_frame(fb_t *f, uint32_t base, int dropped, uint32_t a, uint32_t b)
{
    fb_open(f, base, 0);
    if (dropped) {
        fb_dropped(f, 7);
    }
    fb_enter(f, 2, 0);
    fb_exit(f, AIOPROF_EXIT_YIELD, 200);
    fb_enter(f, 2, 0);
    fb_exit(f, AIOPROF_EXIT_YIELD, 50);
    const uint32_t v[] = {b, a};
    late_values(f, v, 2);
    fb_close(f);
}

/* A window that reaches before the stream's first time point: that part is unknown. */
static void test_before_the_stream(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 1000, 0);
    fb_hello_late(&f, AIOPROF_HELLO_FLAG_BOOT, 1);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "victim", NULL);
    fb_enter(&f, 2, 500); /* 500 us after the first time point, 3000 us late */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    const uint32_t v[] = {3000};
    late_values(&f, v, 1);
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_late_t *l = &late_row(p, "victim")->late;
    assert_int_equal(l->total_us, 3000);
    assert_int_equal(l->outside_us, 500);
    assert_int_equal(l->unknown_us, 2500);
    parts_add_up(l);
    pipeline_free(p);
    free(f.out);
}

/* Frames lost from 1100 to 10000 (device time): a window inside that stretch is unknown, not laid
 * over early's slice before it; one reaching across it gets early's part, the stretch, and what
 * ran after. */
static void test_across_lost_frames(void **state)
{
    (void)state;
    fb_t f;
    first_frame(&f);
    f.seq++; /* a frame lost */
    victim_frame(&f, 10000, 0, 5000, 9600);
    pipeline_t *p = run(&f, 0);
    assert_int_equal(pipeline_stats(p)->stream.lost_frames, 1);
    const stats_late_t *l = &late_row(p, "victim")->late;
    assert_int_equal(l->total_us, 5000 + 9600);
    /* [5000, 10000): lost; [600, 10200): early 500, lost 8900, victim 200 */
    assert_int_equal(blamed(p, l, "early"), 500);
    assert_int_equal(blamed(p, l, "victim"), 200);
    assert_int_equal(l->outside_us, 0);
    assert_int_equal(l->unknown_us, 5000 + 8900);
    parts_add_up(l);
    pipeline_free(p);
    free(f.out);
}

/* Events dropped between the first frame and the next (its first record a DROPPED): what ran from
 * early's end at 1100 to the base at 5000 is unknown, not "outside tasks". Also with a frame lost
 * there as well (the stretch is unknown once). */
static void test_after_dropped_events(void **state)
{
    (void)state;
    for (int lost = 0; lost < 2; lost++) {
        fb_t f;
        first_frame(&f);
        f.seq += (uint8_t)lost;
        victim_frame(&f, 5000, 1, 3000, 4500);
        pipeline_t *p = run(&f, 0);
        assert_int_equal(pipeline_stats(p)->stream.dropped_events, 7);
        const stats_late_t *l = &late_row(p, "victim")->late;
        assert_int_equal(l->total_us, 3000 + 4500);
        /* [2000, 5000): unseen; [700, 5200): early 400, unseen 3900, victim 200 */
        assert_int_equal(blamed(p, l, "early"), 400);
        assert_int_equal(blamed(p, l, "victim"), 200);
        assert_int_equal(l->outside_us, 0);
        assert_int_equal(l->unknown_us, 3000 + 3900);
        parts_add_up(l);
        pipeline_free(p);
        free(f.out);
    }
}

/* The device restarted (a boot HELLO at 20000): its time line starts again, and the part of a
 * window before the restart is unknown, not laid over the boot before. */
static void test_before_a_reset(void **state)
{
    (void)state;
    fb_t f;
    first_frame(&f);
    fb_open(&f, 20000, 0);
    fb_hello_late(&f, AIOPROF_HELLO_FLAG_BOOT, 1);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "victim", NULL);
    fb_enter(&f, 2, 300);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    const uint32_t v[] = {19500};
    late_values(&f, v, 1);
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    assert_int_equal(pipeline_stats(p)->stream.resets, 1);
    const stats_late_t *l = &late_row(p, "victim")->late;
    assert_int_equal(l->total_us, 19500);
    assert_int_equal(blamed(p, l, "early"), 0);
    assert_int_equal(l->outside_us, 300);
    assert_int_equal(l->unknown_us, 19200);
    parts_add_up(l);
    pipeline_free(p);
    free(f.out);
}

/* A HELLO of tick rate hz reporting lateness in late_unit ticks. */
static void hello_hz(fb_t *f, uint32_t hz, uint32_t late_unit)
{
    uint8_t b[64];
    size_t n = 0;
    n += put_varint(b + n, 1);
    n += put_varint(b + n, hz);
    b[n++] = (uint8_t)f->bits;
    n += put_varint(b + n, 4096);
    b[n++] = AIOPROF_HELLO_FLAG_BOOT;
    n += put_varint(b + n, 0);
    n += put_varint(b + n, 0);
    n += put_varint(b + n, 0);
    b[n++] = 4;
    memcpy(b + n, "test", 4);
    n += 4;
    n += put_varint(b + n, hz);
    n += put_varint(b + n, 0);
    n += put_varint(b + n, late_unit);
    fb_control(f, AIOPROF_OP_HELLO, b, n);
}

static int notes;

static void on_note(void *user, const char *sentence)
{
    (void)user;
    notes += strstr(sentence, "lower bounds") != NULL;
}

/* A hostile HELLO: one tick a second, a unit of 2^32 - 1 ticks, and the largest values: each
 * resume counts STATS_LATE_MAX_US (said once), the sums do not wrap. */
static void test_hostile_late_unit(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 0, 0);
    hello_hz(&f, 1, UINT32_MAX);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "victim", NULL);
    for (int i = 0; i < 3; i++) {
        fb_enter(&f, 2, 1);
        fb_exit(&f, AIOPROF_EXIT_YIELD, 1);
    }
    const uint32_t v[] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    late_values(&f, v, 3);
    fb_close(&f);
    pipeline_config_t cfg = {0};
    cfg.note = on_note;
    notes = 0;
    pipeline_t *p = pipeline_new(&cfg);
    assert_non_null(p);
    pipeline_feed(p, f.out, f.len);
    pipeline_finish(p);
    const stats_late_t *l = &late_row(p, "victim")->late;
    assert_int_equal(l->resumes, 3);
    assert_int_equal(l->max_us, STATS_LATE_MAX_US);
    assert_int_equal(l->total_us, 3 * STATS_LATE_MAX_US);
    parts_add_up(l);
    assert_int_equal(notes, 1);
    pipeline_free(p);
    free(f.out);
}

/* A hostile GC record between slices that ends after the next frame's first event (frame one:
 * early runs [100, 1100), then a collection said to run [3100, 6100); frame two begins at 2000):
 * the events after it are pushed to its end on the turns, in the next frame as in its own, so
 * that a window is never blamed for more than it lasted. victim's window of 5500 before its
 * ENTER at 6100: early 500, no task 2000, the collection 3000. */
static void test_gc_past_its_frame(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 0, 0);
    fb_hello_late_mem(&f, AIOPROF_HELLO_FLAG_BOOT, 1, 1, AIOPROF_MEM_GC_COUNT | AIOPROF_MEM_GC_TIME);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "early", NULL);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "victim", NULL);
    fb_enter(&f, 1, 100);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 1000);
    fb_gc(&f, 5000, 3000);
    const uint32_t v0[] = {0};
    late_values(&f, v0, 1);
    fb_close(&f);
    fb_open(&f, 2000, 0);
    fb_enter(&f, 2, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 200);
    const uint32_t v1[] = {5500};
    late_values(&f, v1, 1);
    fb_close(&f);
    for (size_t piece = 0; piece <= 5; piece += 5) {
        pipeline_t *p = run(&f, piece);
        const stats_late_t *l = &late_row(p, "victim")->late;
        assert_int_equal(l->total_us, 5500);
        assert_int_equal(blamed(p, l, "early"), 500);
        assert_int_equal(blamed(p, l, "(gc)"), 3000);
        assert_int_equal(l->outside_us, 2000);
        assert_int_equal(l->unknown_us, 0);
        parts_add_up(l);
        pipeline_free(p);
    }
    free(f.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_before_the_stream),
        cmocka_unit_test(test_across_lost_frames),
        cmocka_unit_test(test_after_dropped_events),
        cmocka_unit_test(test_before_a_reset),
        cmocka_unit_test(test_hostile_late_unit),
        cmocka_unit_test(test_gc_past_its_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
