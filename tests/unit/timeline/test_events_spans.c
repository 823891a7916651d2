/* host/timeline/events_spans.c and host/stats/stats_spans.c through the pipeline: the protocol's
 * example of nested spans across an await (docs/protocol.md, "Spans"), spans closed by their
 * task's end, cut at a loss, and a hostile stream kept bounded (too deep, too many names, exits
 * with nothing open, span records while no task runs), every refusal counted. Frames are built
 * as in test_events.c (events_fixture.h). */
#include "spans_fixture.h"

/* The golden vector's frame: sensors 420 + 47 inclusive, i2c 300 nested in it. */
static void test_protocol_example(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 1000, 0);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "main", NULL);
    fb_enter(&f, 1, 0);
    fb_span_name(&f, 1, "sensors");
    fb_span_enter(&f, 1, 5);
    fb_span_name(&f, 2, "i2c");
    fb_span_enter(&f, 2, 105);
    fb_span_exit(&f, 405);
    fb_span_exit(&f, 425);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 435);
    fb_enter(&f, 1, 1000);
    fb_span_enter(&f, 1, 3);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 10);
    fb_enter(&f, 1, 500);
    fb_span_exit(&f, 40);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 42);
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
    assert_int_equal(a->f.max_us, 420);
    assert_int_equal(b->f.count, 1);
    assert_int_equal(b->f.own_us, 300);
    assert_int_equal(b->f.wall_us, 300);
    assert_int_equal(s->span_counts.refused + s->span_counts.unmatched + s->span_counts.cut, 0);
    free(v);
    pipeline_free(p);
    free(f.out);
}

/* A task that ends inside two spans closes them (unwound); a task whose spans are open at a loss
 * has them cut, counted apart, and the next SPAN_EXIT finds nothing open. */
static void test_end_and_loss(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 1000, 0);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "job", NULL);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 2, 0, "net", NULL);
    fb_span_name(&f, 1, "outer");
    fb_span_name(&f, 2, "inner");
    fb_enter(&f, 1, 10);
    fb_span_enter(&f, 1, 10);
    fb_span_enter(&f, 2, 30);
    fb_exit(&f, AIOPROF_EXIT_RAISE, 100); /* outer inclusive 90, inner 70 */
    fb_enter(&f, 2, 10);
    fb_span_enter(&f, 1, 10);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 20);
    fb_close(&f);
    fb_open(&f, 2000, 0);
    fb_dropped(&f, 5); /* net's span is cut */
    fb_enter(&f, 2, 10);
    fb_span_exit(&f, 10); /* nothing open any more */
    fb_exit(&f, AIOPROF_EXIT_YIELD, 20);
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    size_t n;
    stats_span_view_t *v = stats_span_rows(s, 0, &n);
    const stats_span_view_t *o = span_row(v, n, s, "job", "outer"), *i = span_row(v, n, s, "job", "inner");
    const stats_span_view_t *c = span_row(v, n, s, "net", "outer");
    assert_non_null(o);
    assert_non_null(i);
    assert_non_null(c);
    assert_int_equal(o->f.count, 1);
    assert_int_equal(o->f.unwound, 1);
    assert_int_equal(o->f.inclusive_us, 90);
    assert_int_equal(o->f.own_us, 20);
    assert_int_equal(i->f.inclusive_us, 70);
    assert_int_equal(i->f.unwound, 1);
    assert_int_equal(c->f.count, 0);
    assert_int_equal(c->f.cut, 1);
    assert_int_equal(s->span_counts.cut, 1);
    assert_int_equal(s->span_counts.unmatched, 1);
    free(v);
    pipeline_free(p);
    free(f.out);
}

/* Nesting past EVENTS_SPAN_DEPTH, names past STATS_SPAN_NAME_CAP, exits with nothing open and
 * span records while no task runs: bounded, counted, and the spans kept still right. */
static void test_hostile(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    uint64_t t = 1000;
    fb_open(&f, t, 0);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "deep", NULL);
    fb_span_enter(&f, 1, 0); /* no task runs */
    fb_span_exit(&f, 0);
    fb_close(&f);
    const unsigned deep = EVENTS_SPAN_DEPTH + 40, names = STATS_SPAN_NAME_CAP + 100;
    /* every SPAN_NAME of a distinct name, some frames each */
    for (unsigned i = 0; i < names;) {
        fb_open(&f, t += 10, 0);
        for (unsigned k = 0; k < 40 && i < names; k++, i++) {
            char name[24];
            snprintf(name, sizeof name, "n%u", i);
            fb_span_name(&f, i + 1, name);
        }
        fb_close(&f);
    }
    /* one slice that opens `deep` spans, each of a name, then closes them all and two more */
    fb_open(&f, t += 10, 0);
    fb_enter(&f, 1, 0);
    fb_close(&f);
    for (unsigned i = 0; i < deep; i += 50) {
        fb_open(&f, t, 1);
        for (unsigned k = i; k < deep && k < i + 50; k++) {
            fb_span_enter(&f, names - k, 0); /* the last names: past the cap, "(other spans)" */
        }
        fb_close(&f);
    }
    fb_open(&f, t, 1);
    for (unsigned k = 0; k < deep + 2; k++) {
        fb_span_exit(&f, 100);
    }
    fb_exit(&f, AIOPROF_EXIT_YIELD, 100);
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    assert_int_equal(s->span_counts.refused, deep - EVENTS_SPAN_DEPTH);
    assert_int_equal(s->span_counts.unmatched, 2 + 2);
    assert_int_equal(s->span_counts.other_names, 100);
    size_t n;
    stats_span_view_t *v = stats_span_rows(s, 0, &n);
    uint64_t count = 0;
    for (size_t i = 0; i < n; i++) {
        count += v[i].f.count;
        assert_true(v[i].f.inclusive_us <= 100 * v[i].f.count);
    }
    assert_int_equal(count, EVENTS_SPAN_DEPTH);
    const stats_span_view_t *o = span_row(v, n, s, "deep", "(other spans)");
    assert_non_null(o);
    assert_int_equal(o->f.count, 100 - 40 < EVENTS_SPAN_DEPTH ? 100 - 40 : EVENTS_SPAN_DEPTH);
    free(v);
    pipeline_free(p);
    free(f.out);
}

/* A device's span named as the host's own row ("(other spans)") is shown escaped: only the host's
 * row is in parentheses. */
static void test_pseudo_name(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 1000, 0);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "main", NULL);
    fb_enter(&f, 1, 0);
    fb_span_name(&f, 1, "(other spans)");
    fb_span_enter(&f, 1, 5);
    fb_span_exit(&f, 25);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 30);
    fb_close(&f);
    pipeline_t *p = run(&f, 1);
    const stats_t *s = pipeline_stats(p);
    size_t n;
    stats_span_view_t *v = stats_span_rows(s, 0, &n);
    assert_int_equal(n, 1);
    assert_null(span_row(v, n, s, "main", "(other spans)"));
    const stats_span_view_t *a = span_row(v, n, s, "main", "\\x28other spans)");
    assert_non_null(a);
    assert_int_equal(a->f.own_us, 20);
    free(v);
    pipeline_free(p);
    free(f.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protocol_example),
        cmocka_unit_test(test_end_and_loss),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_pseudo_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
