/* Memory per span (docs/usage.md, "Memory per span"), through the pipeline: an ALLOC or GC record
 * goes to the running task's innermost open span (own) and, when that span closes, into its outer
 * span's inclusive figures; not to a span of a task that does not run (a task nested in the
 * slice allocates for itself), not to a span that is cut, and only what the HELLO says is measured
 * (in bytes: the unit multiplies). Frames are built as in test_events.c (events_fixture.h). */
#include "spans_fixture.h"

static void fb_hello_mem(fb_t *f, uint32_t mem)
{
    fb_hello_late_mem(f, 0, 0, 1, mem);
}

static void fb_alloc(fb_t *f, uint32_t amount)
{
    uint8_t b[8];
    fb_control(f, AIOPROF_OP_ALLOC, b, put_varint(b, amount));
}

#define MEM_ALL (AIOPROF_MEM_ALLOC_EXACT | AIOPROF_MEM_GC_COUNT | AIOPROF_MEM_GC_TIME)

/* worker: 5 bytes before its span outer; outer 7, inner (nested) 100 and a collection of 4 us,
 * outer 11 more; an await inside outer; next slice: other resumed inside worker's slice allocates
 * 500 (its own), worker 13 more in outer, which closes. other's own slice: 1000, no span. */
static void build(fb_t *f, uint32_t mem)
{
    fb_init(f, 32);
    fb_open(f, 1000, 0);
    fb_hello_mem(f, mem);
    fb_task(f, AIOPROF_OP_TASK_NEW, 1, 0, "worker", NULL);
    fb_task(f, AIOPROF_OP_TASK_NEW, 2, 0, "other", NULL);
    fb_span_name(f, 1, "outer");
    fb_span_name(f, 2, "inner");
    fb_enter(f, 1, 10);
    fb_alloc(f, 5);
    fb_span_enter(f, 1, 10);
    fb_alloc(f, 7);
    fb_span_enter(f, 2, 20);
    fb_alloc(f, 100);
    fb_gc(f, 30, 4);
    fb_span_exit(f, 40);
    fb_alloc(f, 11);
    fb_exit(f, AIOPROF_EXIT_YIELD, 50);
    fb_enter(f, 2, 10);
    fb_alloc(f, 1000);
    fb_exit(f, AIOPROF_EXIT_YIELD, 20);
    fb_enter(f, 1, 10);
    fb_enter(f, 2, 10); /* other, nested in worker's slice */
    fb_alloc(f, 500);
    fb_exit(f, AIOPROF_EXIT_YIELD, 10);
    fb_alloc(f, 13);
    fb_span_exit(f, 5);
    fb_exit(f, AIOPROF_EXIT_YIELD, 10);
    fb_close(f);
}

static void test_own_and_inclusive(void **state)
{
    (void)state;
    fb_t f;
    build(&f, MEM_ALL | 1u << AIOPROF_MEM_UNIT_SHIFT);
    for (size_t piece = 0; piece <= 7; piece += 7) {
        pipeline_t *p = run(&f, piece);
        const stats_t *s = pipeline_stats(p);
        size_t n;
        stats_span_view_t *v = stats_span_rows(s, 0, &n);
        const stats_span_view_t *o = span_row(v, n, s, "worker", "outer"), *i = span_row(v, n, s, "worker", "inner");
        assert_non_null(o);
        assert_non_null(i);
        assert_int_equal(i->f.own_mem.alloc, 100);
        assert_int_equal(i->f.incl_mem.alloc, 100);
        assert_int_equal(i->f.own_mem.gc_count, 1);
        assert_int_equal(i->f.incl_mem.gc_us, 4);
        assert_int_equal(o->f.own_mem.alloc, 7 + 11 + 13);
        assert_int_equal(o->f.incl_mem.alloc, 7 + 11 + 13 + 100);
        assert_int_equal(o->f.own_mem.gc_count, 0);
        assert_int_equal(o->f.incl_mem.gc_count, 1);
        assert_int_equal(o->f.incl_mem.gc_us, 4);
        /* the task rows: worker's own bytes, the 5 outside its spans included; other's 1500 */
        assert_int_equal(row(p, "worker")->f.alloc, 5 + 7 + 100 + 11 + 13);
        assert_int_equal(row(p, "other")->f.alloc, 1500);
        assert_null(span_row(v, n, s, "other", "outer"));
        /* what a view shows: bytes, the rate over the time seen */
        stats_figures_t fi = stats_span_mem_figures(&o->f.incl_mem);
        stats_mem_t m;
        stats_mem_of(s, &fi, &m);
        assert_true(m.alloc_known && m.gc_known && m.gc_timed);
        assert_int_equal(m.alloc_bytes, 131);
        free(v);
        pipeline_free(p);
    }
    free(f.out);
}

/* In MicroPython's 16-byte blocks, a lower bound, collections not timed: bytes, marked, no time. */
static void test_unit_and_flags(void **state)
{
    (void)state;
    fb_t f;
    build(&f, AIOPROF_MEM_ALLOC_LOWER | AIOPROF_MEM_GC_SOME | 16u << AIOPROF_MEM_UNIT_SHIFT);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    size_t n;
    stats_span_view_t *v = stats_span_rows(s, 0, &n);
    const stats_span_view_t *o = span_row(v, n, s, "worker", "outer");
    assert_non_null(o);
    stats_figures_t fi = stats_span_mem_figures(&o->f.incl_mem);
    stats_mem_t m;
    stats_mem_of(s, &fi, &m);
    assert_true(m.alloc_known && m.alloc_lower && m.gc_at_least);
    assert_false(m.gc_timed);
    assert_int_equal(m.alloc_bytes, 131u * 16u);
    assert_int_equal(m.gc_count, 1);
    assert_int_equal(m.gc_us, 0);
    free(v);
    pipeline_free(p);
    free(f.out);
}

/* A device that reports no memory: its (hostile) ALLOC and GC records give no span any. */
static void test_not_measured(void **state)
{
    (void)state;
    fb_t f;
    build(&f, 0);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    size_t n;
    stats_span_view_t *v = stats_span_rows(s, 0, &n);
    const stats_span_view_t *o = span_row(v, n, s, "worker", "outer");
    assert_non_null(o);
    assert_int_equal(o->f.incl_mem.alloc, 0);
    assert_int_equal(o->f.incl_mem.gc_count, 0);
    free(v);
    pipeline_free(p);
    free(f.out);
}

/* A span open at a loss is cut: what it allocated is in no span's figures (its task's stay). */
static void test_cut(void **state)
{
    (void)state;
    fb_t f;
    fb_init(&f, 32);
    fb_open(&f, 1000, 0);
    fb_hello_mem(&f, MEM_ALL | 1u << AIOPROF_MEM_UNIT_SHIFT);
    fb_task(&f, AIOPROF_OP_TASK_NEW, 1, 0, "worker", NULL);
    fb_span_name(&f, 1, "outer");
    fb_enter(&f, 1, 10);
    fb_span_enter(&f, 1, 10);
    fb_alloc(&f, 40);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 20);
    fb_close(&f);
    fb_open(&f, 2000, 0);
    fb_dropped(&f, 3);
    fb_enter(&f, 1, 10);
    fb_span_enter(&f, 1, 10);
    fb_alloc(&f, 2);
    fb_span_exit(&f, 20);
    fb_exit(&f, AIOPROF_EXIT_YIELD, 30);
    fb_close(&f);
    pipeline_t *p = run(&f, 0);
    const stats_t *s = pipeline_stats(p);
    size_t n;
    stats_span_view_t *v = stats_span_rows(s, 0, &n);
    const stats_span_view_t *o = span_row(v, n, s, "worker", "outer");
    assert_non_null(o);
    assert_int_equal(o->f.cut, 1);
    assert_int_equal(o->f.count, 1);
    assert_int_equal(o->f.incl_mem.alloc, 2);
    assert_int_equal(o->f.own_mem.alloc, 2);
    free(v);
    pipeline_free(p);
    free(f.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_and_inclusive),
        cmocka_unit_test(test_unit_and_flags),
        cmocka_unit_test(test_not_measured),
        cmocka_unit_test(test_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
