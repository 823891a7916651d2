/* metrics_text: the OpenMetrics figures of a pipeline fed a known stream: the counters, the
 * histograms' buckets exact at their bounds (a slice of 2^k - 1 us is below the bound, one of 2^k
 * above), names with quotes and backslashes escaped in the labels, both formats; the gauge of the
 * last 10 s's longest slice (metrics_window) as device time passes, the session's beside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics_text.h"
#include "stats_gen.h"

/* the generator's stream built to exhaust the rows is not used here */
__attribute__((unused)) static gen_t *(*const unused_past_cap)(past_cap_t *) = past_cap_stream;

static gen_t *stream(void)
{
    pipeline_config_t cfg = {0};
    gen_t *g = calloc(1, sizeof *g);
    g->p = pipeline_new(&cfg);
    gen_task(g, 1, "a\"b\\c");
    gen_task(g, 2, "plain");
    /* task 1: 7, 8, 15, 16, 1000 us; task 2: 3 us twice */
    static const uint32_t len1[] = {7, 8, 15, 16, 1000};
    for (size_t i = 0; i < sizeof len1 / sizeof len1[0]; i++) {
        gen_slice(g, 1, 10, len1[i], AIOPROF_EXIT_YIELD);
    }
    gen_slice(g, 2, 10, 3, AIOPROF_EXIT_YIELD);
    gen_slice(g, 2, 10, 3, AIOPROF_EXIT_RETURN);
    gen_flush(g);
    return g;
}

/* The value of the sample whose line starts with prefix, or -1. */
static double sample(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, prefix, n) == 0 && l[n] == ' ') {
            return atof(l + n + 1);
        }
    }
    return -1;
}

/* task 1's label: the stats show its backslash as "\\\\" (escape.h), whose two are escaped again */
#define T1 "a\\\"b\\\\\\\\c"
#define DEV "board=\"b\\\"1\",platform=\"\""

static void test_counters_and_buckets(void **state)
{
    (void)state;
    gen_t *g = stream();
    size_t len = 0;
    char *t = metrics_text((stats_t *)pipeline_stats(g->p), NULL, "b\"1", 1, &len);
    assert_non_null(t);
    assert_int_equal(strlen(t), len);
    assert_true(len > 7 && strcmp(t + len - 6, "# EOF\n") == 0);
    assert_true(sample(t, "aioprof_task_slices_total{" DEV ",task=\"" T1 "\"}") == 5);
    assert_true(sample(t, "aioprof_task_slices_total{" DEV ",task=\"plain\"}") == 2);
    assert_true(sample(t, "aioprof_task_running_seconds_total{" DEV ",task=\"" T1 "\"}") == 0.001046);
    assert_true(sample(t, "aioprof_task_session_slice_max_seconds{" DEV ",task=\"" T1 "\"}") == 0.001);
    assert_null(strstr(t, "aioprof_task_slice_max_seconds")); /* no window given: no such family */
    assert_true(sample(t, "aioprof_task_errors_total{" DEV ",task=\"plain\"}") == 0);
#define B(le) "aioprof_task_slice_seconds_bucket{" DEV ",task=\"" T1 "\",le=\"" le "\"}"
    assert_true(sample(t, B("0.000007")) == 1);  /* 7 */
    assert_true(sample(t, B("0.000015")) == 3);  /* 7, 8, 15 */
    assert_true(sample(t, B("0.000031")) == 4);  /* and 16 */
    assert_true(sample(t, B("0.000511")) == 4);
    assert_true(sample(t, B("0.001023")) == 5);  /* and 1000 */
    assert_true(sample(t, B("+Inf")) == 5);
    assert_true(sample(t, "aioprof_task_slice_seconds_count{" DEV ",task=\"" T1 "\"}") == 5);
    assert_true(sample(t, "aioprof_task_slice_seconds_sum{" DEV ",task=\"" T1 "\"}") == 0.001046);
    assert_true(sample(t, "aioprof_task_slice_seconds_bucket{" DEV ",task=\"plain\",le=\"0.000007\"}") == 2);
    assert_true(sample(t, "aioprof_stream_events_total{" DEV "}") == 14);
    assert_non_null(strstr(t, "# UNIT aioprof_task_running_seconds seconds\n"));
    assert_non_null(strstr(t, "# TYPE aioprof_task_slices counter\n"));
    free(t);
    /* the older text format: the counters' TYPE names their _total, no UNIT, no EOF */
    t = metrics_text((stats_t *)pipeline_stats(g->p), NULL, "b\"1", 0, &len);
    assert_non_null(t);
    assert_non_null(strstr(t, "# TYPE aioprof_task_slices_total counter\n"));
    assert_null(strstr(t, "# UNIT"));
    assert_null(strstr(t, "# EOF"));
    assert_true(sample(t, "aioprof_task_slices_total{" DEV ",task=\"plain\"}") == 2);
    free(t);
    pipeline_free(g->p);
    free(g);
}

/* The gauges of task "a" (recent, session) and task "b"'s recent one (-1: no sample) after a scrape. */
typedef struct gauges {
    double a_recent, a_session, b_recent, late_recent;
} gauges_t;

static gauges_t scrape(gen_t *g, const metrics_window_t *w)
{
    gen_flush(g);
    size_t len = 0;
    char *t = metrics_text((stats_t *)pipeline_stats(g->p), w, "b", 1, &len);
    assert_non_null(t);
#define G(f, task) sample(t, f "{board=\"b\",platform=\"\",task=\"" task "\"}")
    gauges_t r = {G("aioprof_task_slice_max_seconds", "a"), G("aioprof_task_session_slice_max_seconds", "a"),
        G("aioprof_task_slice_max_seconds", "b"), G("aioprof_task_slice_max_seconds", "late")};
#undef G
    free(t);
    return r;
}

static void test_recent_max(void **state)
{
    (void)state;
    metrics_window_t *w = metrics_window_new();
    assert_non_null(w);
    pipeline_config_t cfg = {.observer = metrics_window_observer(w, NULL, NULL), .observer_user = w};
    gen_t *g = calloc(1, sizeof *g);
    g->p = pipeline_new(&cfg);
    gen_task(g, 1, "a");
    gen_task(g, 2, "b");
    /* a: 500 us at 0 s, 200 us at 5 s, 100 us at 12 s: the window is seconds 3 to 12 */
    gen_slice(g, 1, 10, 500, AIOPROF_EXIT_YIELD);
    gen_slice(g, 1, 5000000, 200, AIOPROF_EXIT_YIELD);
    gen_slice(g, 1, 7000000, 100, AIOPROF_EXIT_YIELD);
    gauges_t r = scrape(g, w);
    assert_true(r.a_recent == 0.0002);
    assert_true(r.a_session == 0.0005);
    assert_true(r.b_recent == 0); /* named, never ran: 0 */
    /* a second scrape does not take anything away: the window is device time, not scrapes */
    r = scrape(g, w);
    assert_true(r.a_recent == 0.0002);
    assert_int_equal(metrics_window_max(w, "a"), 200);
    /* 16 s: seconds 7 to 16 hold the 100 us and a 50 us */
    gen_slice(g, 1, 4000000, 50, AIOPROF_EXIT_YIELD);
    r = scrape(g, w);
    assert_true(r.a_recent == 0.0001);
    assert_true(r.a_session == 0.0005);
    /* 36 s: only b ran lately; a's gauge falls to 0, its session max stays */
    gen_slice(g, 2, 20000000, 30, AIOPROF_EXIT_YIELD);
    r = scrape(g, w);
    assert_true(r.a_recent == 0);
    assert_true(r.a_session == 0.0005);
    assert_true(r.b_recent == 0.00003);
    /* a task that ran before its name came: its recent maximum is not known, so not said */
    gen_slice(g, 3, 10, 40, AIOPROF_EXIT_YIELD);
    gen_task_op(g, AIOPROF_OP_TASK_INFO, 3, "late");
    r = scrape(g, w);
    assert_true(r.late_recent == -1);
    assert_int_equal(metrics_window_max(w, "nobody"), -1);
    /* a seek back: the input starts again, nothing kept */
    metrics_window_clear(w);
    assert_int_equal(metrics_window_max(w, "a"), -1);
    pipeline_free(g->p);
    free(g);
    metrics_window_free(w);
}

/* More names than the window keeps: the ones past it have no figure, the first ones keep theirs. */
static void test_window_names_bound(void **state)
{
    (void)state;
    metrics_window_t *w = metrics_window_new();
    assert_non_null(w);
    char name[32];
    for (unsigned i = 0; i < METRICS_WINDOW_NAMES + 10; i++) {
        snprintf(name, sizeof name, "t%u", i);
        metrics_window_slice(w, name, 1000000u + i, i + 1);
    }
    assert_int_equal(metrics_window_max(w, "t0"), 1);
    snprintf(name, sizeof name, "t%u", METRICS_WINDOW_NAMES - 1);
    assert_int_equal(metrics_window_max(w, name), METRICS_WINDOW_NAMES);
    snprintf(name, sizeof name, "t%u", METRICS_WINDOW_NAMES);
    assert_int_equal(metrics_window_max(w, name), -1);
    metrics_window_free(w);
}

static void test_accept(void **state)
{
    (void)state;
    assert_true(metrics_wants_openmetrics("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: "
                                          "application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\n\r\n"));
    assert_false(metrics_wants_openmetrics("GET /metrics HTTP/1.1\r\nAccept: */*\r\n\r\n"));
    assert_false(metrics_wants_openmetrics("GET /metrics HTTP/1.1\r\nX: application/openmetrics-text\r\n\r\n"));
    assert_false(metrics_wants_openmetrics(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_and_buckets),
        cmocka_unit_test(test_recent_max),
        cmocka_unit_test(test_window_names_bound),
        cmocka_unit_test(test_accept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
