/* host/timeline/events.c's reading of the span list (op SPANS, docs/protocol.md "The span list")
 * through the pipeline: each event before the record at its place, the same figures as the same
 * spans sent as ops 5 and 6; the stream's first span name in the middle of a frame (the frame's
 * list found from there on); a list before any name (a reader that joined late); and damaged
 * lists, which make their frame malformed and nothing else. Frames are built as in test_events.c
 * (events_fixture.h), the lists entry by entry. */
#include "spans_fixture.h"

/* A list being built: its entries in time order, each at a place (the frame's body length then). */
typedef struct list_entry {
    unsigned kind;
    size_t place;
    uint32_t dt, dur, id;
} list_entry_t;

typedef struct list {
    list_entry_t e[64];
    size_t n;
    size_t first; /* body offset of the frame's first record */
} list_t;

static void list_begin(list_t *l, const fb_t *f)
{
    l->n = 0;
    l->first = f->body_len;
}

static void list_add(list_t *l, const fb_t *f, unsigned kind, uint32_t dt, uint32_t dur, uint32_t id)
{
    l->e[l->n++] = (list_entry_t){.kind = kind, .place = f->body_len, .dt = dt, .dur = dur, .id = id};
}

/* Encodes one entry (place step from `prev`) into b; returns its length. */
static size_t entry(uint8_t *b, const list_entry_t *e, size_t prev)
{
    size_t step = e->place - prev, n = 1;
    unsigned first = e->kind;
    if (step <= AIOPROF_SPAN_STEP_INLINE_MAX) {
        first |= (unsigned)step << AIOPROF_SPAN_STEP_SHIFT;
    } else {
        first |= 7u << AIOPROF_SPAN_STEP_SHIFT;
        n += put_varint(b + n, (uint32_t)step);
    }
    n += put_varint(b + n, e->dt);
    if (e->kind == AIOPROF_SPAN_ENTRY_PAIR) {
        n += put_varint(b + n, e->dur);
    }
    if (e->kind != AIOPROF_SPAN_ENTRY_EXIT) {
        if (e->id <= AIOPROF_SPAN_ID_INLINE_MAX) {
            first |= e->id;
        } else {
            n += put_varint(b + n, e->id);
        }
    }
    b[0] = (uint8_t)first;
    return n;
}

/* The SPANS record of l, newest entry first. */
static void list_end(list_t *l, fb_t *f)
{
    uint8_t b[256];
    size_t n = 0;
    for (size_t i = l->n; i-- > 0;) {
        n += entry(b + n, &l->e[i], i ? l->e[i - 1].place : l->first);
    }
    fb_control(f, AIOPROF_OP_SPANS, b, n);
}

/* The protocol's example (the golden vector `spans`) as a list: sensors 420 + 47 inclusive across
 * an await, i2c 300 nested in it as one PAIR. The figures are test_events_spans.c's for the same
 * spans as ops 5 and 6. */
static void test_list_example(void **state)
{
    (void)state;
    fb_t f;
    list_t l;
    fb_init(&f, 32);
    fb_open(&f, 1000, 0);
    list_begin(&l, &f);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "main", NULL);
    fb_enter(&f, 1, 0);
    fb_span_name(&f, 1, "sensors");
    list_add(&l, &f, AIOPROF_SPAN_ENTRY_ENTER, 5, 0, 1);
    fb_span_name(&f, 2, "i2c");
    list_add(&l, &f, AIOPROF_SPAN_ENTRY_PAIR, 105, 300, 2);
    list_add(&l, &f, AIOPROF_SPAN_ENTRY_EXIT, 425, 0, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 435);
    fb_enter(&f, 1, 1000);
    list_add(&l, &f, AIOPROF_SPAN_ENTRY_ENTER, 3, 0, 1);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    fb_enter(&f, 1, 500);
    list_add(&l, &f, AIOPROF_SPAN_ENTRY_EXIT, 40, 0, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 42);
    list_end(&l, &f);
    fb_close(&f);
    pipeline_t *p = run(&f, 7);
    const stats_t *s = pipeline_stats(p);
    size_t n;
    stats_span_view_t *v = stats_span_rows(s, 0, &n);
    assert_int_equal(n, 2);
    const stats_span_view_t *a = span_row(v, n, s, "main", "sensors"), *b = span_row(v, n, s, "main", "i2c");
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->f.count, 2);
    assert_int_equal(a->f.inclusive_us, 420 + 47);
    assert_int_equal(a->f.own_us, 420 + 47 - 300);
    assert_int_equal(a->f.wall_us, 420 + 547);
    assert_int_equal(b->f.count, 1);
    assert_int_equal(b->f.inclusive_us, 300);
    assert_int_equal(s->stream.malformed, 0);
    assert_int_equal(s->span_counts.unmatched + s->span_counts.refused + s->span_counts.cut, 0);
    assert_int_equal(row(p, "main")->f.count, 3);
    free(v);
    pipeline_free(p);
    free(f.out);
}

/* The stream's first span name comes after events of its frame (the frame is not searched for a
 * list before it); its list's spans after the name count, and a frame's list before the second
 * frame's events. */
static void test_first_name_mid_frame(void **state)
{
    (void)state;
    fb_t f;
    list_t l;
    fb_init(&f, 32);
    fb_open(&f, 1000, 0);
    list_begin(&l, &f);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "main", NULL);
    fb_enter(&f, 1, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 50);
    fb_enter(&f, 1, 10);
    fb_span_name(&f, 1, "read");
    list_add(&l, &f, AIOPROF_SPAN_ENTRY_PAIR, 2, 20, 1);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 30);
    list_end(&l, &f);
    fb_close(&f);
    fb_open(&f, 2000, 0);
    list_begin(&l, &f);
    list_add(&l, &f, AIOPROF_SPAN_ENTRY_ENTER, 0, 0, 1); /* before the frame's first record: at its base */
    fb_enter(&f, 1, 4);
    list_add(&l, &f, AIOPROF_SPAN_ENTRY_EXIT, 7, 0, 0);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 9);
    list_end(&l, &f);
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    size_t n;
    stats_span_view_t *v = stats_span_rows(s, 0, &n);
    const stats_span_view_t *a = span_row(v, n, s, "main", "read");
    assert_non_null(a);
    /* the second frame's enter came while no task ran: counted, not followed; its exit then has
     * nothing open */
    assert_int_equal(a->f.count, 1);
    assert_int_equal(a->f.inclusive_us, 20);
    assert_int_equal(s->span_counts.unmatched, 2);
    assert_int_equal(s->stream.malformed, 0);
    free(v);
    pipeline_free(p);
    free(f.out);
}

/* A list before any span name (the reader joined late): skipped in that frame, read in the next. */
static void test_list_before_name(void **state)
{
    (void)state;
    fb_t f;
    list_t l;
    fb_init(&f, 32);
    fb_open(&f, 1000, 0);
    list_begin(&l, &f);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "main", NULL);
    fb_enter(&f, 1, 0);
    list_add(&l, &f, AIOPROF_SPAN_ENTRY_PAIR, 2, 20, 1);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 30);
    list_end(&l, &f);
    fb_close(&f);
    fb_open(&f, 2000, 0);
    list_begin(&l, &f);
    fb_enter(&f, 1, 0);
    fb_span_name(&f, 1, "read");
    list_add(&l, &f, AIOPROF_SPAN_ENTRY_PAIR, 3, 11, 1);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 30);
    list_end(&l, &f);
    fb_close(&f);
    pipeline_t *p = run(&f, 3);
    const stats_t *s = pipeline_stats(p);
    size_t n;
    stats_span_view_t *v = stats_span_rows(s, 0, &n);
    const stats_span_view_t *a = span_row(v, n, s, "main", "read");
    assert_non_null(a);
    assert_int_equal(a->f.count, 1);
    assert_int_equal(a->f.inclusive_us, 11);
    assert_int_equal(s->stream.malformed, 0);
    free(v);
    pipeline_free(p);
    free(f.out);
}

/* Damaged lists, each in a frame of its own after a good one: the frame is malformed, its events
 * before the list count, the other frames are read. */
static void test_damaged_lists(void **state)
{
    (void)state;
    static const uint8_t bad[][6] = {
        {3, 0x81, 0x05, 0x80},       /* a PAIR whose duration runs past the list */
        {2, 0xC1, 0x05},             /* kind 3 */
        {2, 0x09, 0x05},             /* a place (1) inside the ENTER's record */
        {3, 0x3F, 0x40, 0x05},       /* a place (64) past the list */
        {3, 0x00, 0x05, 0x00},       /* an id 0 */
        {2, 0x41, 0x05},             /* an EXIT with an id */
        {4, 0x81, 0x05, 0xFF, 0xFF}, /* a varint cut */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        fb_t f;
        fb_init(&f, 32);
        fb_open(&f, 1000, 0);
        fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "main", NULL);
        fb_span_name(&f, 1, "read");
        fb_enter(&f, 1, 0);
        fb_exit(&f, AIOPROF_EXIT_YIELD, 30);
        fb_close(&f);
        fb_open(&f, 2000, 0);
        fb_enter(&f, 1, 100); /* two bytes: place 1 is inside it */
        fb_exit(&f, AIOPROF_EXIT_YIELD, 30);
        fb_control(&f, AIOPROF_OP_SPANS, bad[k] + 1, bad[k][0]);
        fb_close(&f);
        fb_open(&f, 3000, 0);
        fb_enter(&f, 1, 0);
        fb_exit(&f, AIOPROF_EXIT_YIELD, 30);
        fb_close(&f);
        pipeline_t *p = run(&f, 0);
        const stats_t *s = pipeline_stats(p);
        if (s->stream.malformed != 1) {
            fail_msg("damaged list %zu: %llu frames malformed", k, (unsigned long long)s->stream.malformed);
        }
        assert_int_equal(row(p, "main")->f.count, 3);
        size_t n;
        stats_span_view_t *v = stats_span_rows(s, 0, &n);
        assert_null(span_row(v, n, s, "main", "read"));
        free(v);
        pipeline_free(p);
        free(f.out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_example),
        cmocka_unit_test(test_first_name_mid_frame),
        cmocka_unit_test(test_list_before_name),
        cmocka_unit_test(test_damaged_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
