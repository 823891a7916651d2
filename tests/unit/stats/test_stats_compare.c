/* host/stats/stats_compare.c: a side's windows and totals from the statistics, the windows before a
 * name came (rate and share 0, no slice length), figures a window does not have (NAN, left out of
 * the test), and the test between two sides: windows that differ by a constant are significant,
 * the same windows are not. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stats.h"
#include "stats_compare.h"

/* One window of the statistics: a slice of us for each name given (0: none), over 1 s. */
static void window(stats_t *s, stats_cmp_side_t *side, uint64_t a_us, uint64_t b_us)
{
    stats_reset(s);
    if (a_us) {
        int32_t i = stats_instance_get(s, 1);
        stats_instance_describe(s, i, (const uint8_t *)"alpha", 5, NULL, 0, 0, 1);
        stats_slice(s, &s->inst[i], a_us);
    }
    if (b_us) {
        int32_t i = stats_instance_get(s, 2);
        stats_instance_describe(s, i, (const uint8_t *)"beta", 4, NULL, 0, 0, 1);
        stats_slice(s, &s->inst[i], b_us);
        stats_slice(s, &s->inst[i], b_us);
    }
    s->elapsed_us = 1000000;
    stats_sync(s);
    assert_int_equal(stats_cmp_take_window(side, s), 0);
}

static float win(const stats_cmp_task_t *t, size_t w, stats_cmp_fig_t f)
{
    return t->win[w * STATS_CMP_FIGS + f];
}

static void test_windows(void **state)
{
    (void)state;
    stats_t s;
    stats_cmp_side_t side;
    assert_int_equal(stats_init(&s, 0, 20000), 0);
    stats_cmp_init(&side, 0);
    assert_int_equal(side.window_us, STATS_CMP_WINDOW_US);
    window(&s, &side, 1000, 0);
    window(&s, &side, 2000, 0);
    window(&s, &side, 0, 500); /* beta comes in the third window; alpha has none there */
    assert_int_equal(side.n_windows, 3);
    const stats_cmp_task_t *a = stats_cmp_find(&side, "alpha"), *b = stats_cmp_find(&side, "beta");
    assert_non_null(a);
    assert_non_null(b);
    assert_null(stats_cmp_find(&side, "gamma"));
    assert_float_equal(win(a, 0, STATS_CMP_RATE), 1.0, 1e-6);
    assert_float_equal(win(a, 1, STATS_CMP_MAX), 2000.0, 1e-6);
    assert_float_equal(win(a, 1, STATS_CMP_SHARE), 0.002, 1e-9);
    assert_float_equal(win(a, 2, STATS_CMP_RATE), 0.0, 0);
    assert_true(isnan(win(a, 2, STATS_CMP_MAX)));
    /* the windows before beta came: rate and share 0, no slice length */
    assert_float_equal(win(b, 0, STATS_CMP_RATE), 0.0, 0);
    assert_float_equal(win(b, 1, STATS_CMP_SHARE), 0.0, 0);
    assert_true(isnan(win(b, 0, STATS_CMP_MEAN)));
    assert_float_equal(win(b, 2, STATS_CMP_RATE), 2.0, 1e-6);
    assert_float_equal(win(b, 2, STATS_CMP_MEAN), 500.0, 1e-6);
    /* no lateness reported, no allocation figures: never a made-up number */
    assert_true(isnan(win(a, 0, STATS_CMP_LATE_MAX)));
    assert_true(isnan(win(a, 0, STATS_CMP_ALLOC_RATE)));
    assert_int_equal(stats_cmp_samples(&side, a, STATS_CMP_RATE), 3);
    assert_int_equal(stats_cmp_samples(&side, a, STATS_CMP_MAX), 2);
    assert_float_equal(stats_cmp_median(&side, a, STATS_CMP_MAX), 1500.0, 1e-9);
    assert_true(isnan(stats_cmp_median(&side, a, STATS_CMP_LATE_MAX)));
    stats_cmp_free(&side);
    stats_free(&s);
}

static void test_totals_and_test(void **state)
{
    (void)state;
    stats_t s;
    stats_cmp_side_t base, same, slower;
    assert_int_equal(stats_init(&s, 0, 20000), 0);
    stats_cmp_init(&base, 0);
    stats_cmp_init(&same, 0);
    stats_cmp_init(&slower, 0);
    static const uint64_t us[] = {1000, 1100, 900, 1050, 950, 1000, 1020, 980};
    for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
        window(&s, &base, us[i], 300);
        window(&s, &same, us[i], 300);
        window(&s, &slower, us[i] + 500, 300);
    }
    /* the totals: those of whatever statistics it is given */
    window(&s, &slower, 0, 0);
    slower.n_windows--; /* (that window was for the totals only) */
    assert_int_equal(stats_cmp_take_totals(&slower, &s), 0);
    assert_int_equal(slower.elapsed_us, 1000000);
    stats_mwu_t r;
    const stats_cmp_task_t *ba = stats_cmp_find(&base, "alpha");
    assert_int_equal(stats_cmp_test(&base, ba, &same, stats_cmp_find(&same, "alpha"), STATS_CMP_MAX, &r), 0);
    assert_true(r.p >= 0.99);
    assert_int_equal(stats_cmp_test(&base, ba, &slower, stats_cmp_find(&slower, "alpha"), STATS_CMP_MAX, &r), 0);
    assert_true(r.p < STATS_CMP_ALPHA);
    assert_true(stats_cmp_significant(&r, 8, 8));
    assert_false(stats_cmp_significant(&r, 8, 3)); /* too few windows on a side */
    assert_int_equal(r.exact, 1); /* ties (1000 twice), 12870 splits: every one counted */
    /* beta's rate is the same everywhere: all ties, nothing to tell */
    assert_int_equal(stats_cmp_test(&base, stats_cmp_find(&base, "beta"), &slower, stats_cmp_find(&slower, "beta"),
                                    STATS_CMP_RATE, &r), 0);
    assert_float_equal(r.p, 1.0, 0);
    /* a side without the name: no test */
    assert_int_equal(stats_cmp_test(&base, ba, &slower, NULL, STATS_CMP_MAX, &r), 0);
    assert_float_equal(r.p, 1.0, 0);
    stats_cmp_free(&base);
    stats_cmp_free(&same);
    stats_cmp_free(&slower);
    stats_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_totals_and_test),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
