/* host/stats/stats_mwu.c: U and its two-sided p-value against values worked out independently
 * (tests/unit/stats/mwu_reference.py: U by counting pairs, the exact p by enumerating every
 * split of the pooled values, the normal approximation's variance from the tie groups). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats_mwu.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check(const double *a, size_t na, const double *b, size_t nb, double u, double p, int exact)
{
    stats_mwu_t r;
    assert_int_equal(stats_mwu(a, na, b, nb, &r), 0);
    assert_float_equal(r.u, u, 1e-9);
    assert_float_equal(r.p, p, 1e-9);
    assert_int_equal(r.exact, exact);
    if (na && nb) {
        assert_float_equal(r.effect, u / ((double)na * (double)nb), 1e-12);
    }
}

/* No ties, small: the exact distribution. */
static void test_exact(void **state)
{
    (void)state;
    const double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    check(a, N(a), b, N(b), 0, 0.007936507936507936, 1); /* 2 of C(10, 5) = 252 splits */
    check(b, N(b), a, N(a), 25, 0.007936507936507936, 1);
    const double c[] = {1.5, 3, 8, 9, 12}, d[] = {2, 4, 5, 6, 7, 10};
    check(c, N(c), d, N(d), 17, 0.7922077922077922, 1);
    const double e[] = {10, 20, 30}, f[] = {15, 25, 35};
    check(e, N(e), f, N(f), 3, 0.7, 1);
    /* three against three can never be significant at 0.05: the smallest p is 2/20 */
    const double g[] = {1, 2, 3}, h[] = {4, 5, 6};
    check(g, N(g), h, N(h), 0, 0.1, 1);
}

/* Ties, few splits: every split counted (the normal approximation would say 0.00873 for the first). */
static void test_ties(void **state)
{
    (void)state;
    const double a[] = {1, 2, 2, 3, 3, 3}, b[] = {3, 4, 4, 5, 5, 6};
    check(a, N(a), b, N(b), 1.5, 0.008658008658008658, 1);
    const double c[] = {5, 5, 5, 5};
    check(c, N(c), c, N(c), 8, 1.0, 1); /* all equal: nothing to tell */
    /* one window against nineteen equal ones: at best 1 in 20 (the approximation said 0.0077) */
    double d[19], e[] = {10.05}, f[10], g[] = {10.05, 10.05};
    for (int i = 0; i < 19; i++) {
        d[i] = 10;
    }
    check(e, 1, d, 19, 19, 0.05, 1);
    check(d, 19, e, 1, 0, 0.05, 1);
    for (int i = 0; i < 10; i++) {
        f[i] = i < 9 ? 10 : 11;
    }
    check(g, 2, f, 10, 18, 0.045454545454545456, 1);
}

/* Ties and many splits: the normal approximation with the tie and continuity corrections; the
 * counts form (a histogram's buckets) gives what the values give. */
static void test_counts(void **state)
{
    (void)state;
    double a[40], b[40];
    for (int i = 0; i < 40; i++) {
        a[i] = i < 30 ? 1 : 2;
        b[i] = i < 10 ? 1 : 2;
    }
    check(a, 40, b, 40, 400, 9.057027575782208e-06, 0);
    const double ca[] = {30, 10}, cb[] = {10, 30};
    stats_mwu_t r;
    stats_mwu_counts(ca, cb, 2, &r);
    assert_float_equal(r.u, 400, 1e-9);
    assert_float_equal(r.p, 9.057027575782208e-06, 1e-12);
    /* an empty bucket changes nothing */
    const double ca2[] = {30, 0, 10}, cb2[] = {10, 0, 30};
    stats_mwu_counts(ca2, cb2, 3, &r);
    assert_float_equal(r.p, 9.057027575782208e-06, 1e-12);
}

/* Large samples without ties take the approximation; an empty side cannot be told. */
static void test_edges(void **state)
{
    (void)state;
    double a[30], b[30];
    for (int i = 0; i < 30; i++) {
        a[i] = 2 * i;
        b[i] = 2 * i + 1;
    }
    stats_mwu_t r;
    assert_int_equal(stats_mwu(a, 30, b, 30, &r), 0);
    assert_int_equal(r.exact, 0);
    assert_float_equal(r.u, 435, 1e-9); /* a[i] beats b[j] for j < i: 29 * 30 / 2 */
    assert_float_equal(r.p, 0.8302552839111963, 1e-9);
    check(a, 30, b, 0, 0, 1.0, 0);
    check(NULL, 0, b, 3, 0, 1.0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_ties),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
