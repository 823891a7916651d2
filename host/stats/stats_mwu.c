/* The Mann-Whitney U test (stats_mwu.h): ranks with ties averaged, the exact distribution of U for
 * small samples without ties, the normal approximation with tie and continuity corrections
 * otherwise. */
#include "stats_mwu.h"

#include <math.h>
#include <stdlib.h>

typedef struct mwu_item {
    double v;
    int from_a;
} mwu_item_t;

static int mwu_item_cmp(const void *x, const void *y)
{
    const mwu_item_t *a = x, *b = y;
    return a->v < b->v ? -1 : a->v > b->v;
}

static void mwu_none(stats_mwu_t *r)
{
    r->u = 0;
    r->p = 1.0;
    r->effect = 0.5;
    r->exact = 0;
}

/* P(U <= k) when na and nb values without ties are ranked at random: the coefficients of the
 * Gaussian binomial [na + nb choose na] in q, the number of arrangements of each U, built as the
 * product of (1 - q^(nb + i)) / (1 - q^i) for i = 1..na. Exact in doubles up to 2^53 arrangements
 * (C(50, 25) is 1.3e14). */
static double mwu_exact_cdf(size_t na, size_t nb, double k)
{
    size_t top = na * nb;
    double c[(STATS_MWU_EXACT_MAX / 2u) * (STATS_MWU_EXACT_MAX / 2u) + 1u];
    for (size_t u = 0; u <= top; u++) {
        c[u] = u == 0 ? 1.0 : 0.0;
    }
    for (size_t i = 1; i <= na; i++) {
        /* times (1 - q^(nb + i)), highest power first; then over (1 - q^i), lowest first */
        for (size_t u = top; u >= nb + i && u <= top; u--) {
            c[u] -= c[u - (nb + i)];
        }
        for (size_t u = i; u <= top; u++) {
            c[u] += c[u - i];
        }
    }
    double below = 0, all = 0;
    for (size_t u = 0; u <= top; u++) {
        all += c[u];
        if ((double)u <= k) {
            below += c[u];
        }
    }
    return below / all;
}

/* The smaller side of a split counted one by one: C(2k, k) passes STATS_MWU_SPLITS_MAX long
 * before (at k = 9). */
#define MWU_SPLIT_SIDE_MAX 16u

/* C(n, k), or a number above cap when it is larger. */
static double mwu_choose_capped(size_t n, size_t k, double cap)
{
    double c = 1;
    for (size_t i = 1; i <= k; i++) {
        c = c * (double)(n - k + i) / (double)i;
        if (c > cap) {
            return cap + 1;
        }
    }
    return c;
}

/* The exact two-sided p of a rank sum: of every way of taking k of the n pooled ranks (ties
 * given their mean rank), the share whose sum is at least as far from its mean as sum is. */
static double mwu_splits_p(const double *rank, size_t n, size_t k, double sum)
{
    size_t idx[MWU_SPLIT_SIDE_MAX];
    double mean = (double)k * ((double)n + 1.0) / 2.0, far = fabs(sum - mean) - 1e-9;
    double all = 0, as_far = 0;
    for (size_t i = 0; i < k; i++) {
        idx[i] = i;
    }
    for (;;) {
        double s = 0;
        for (size_t i = 0; i < k; i++) {
            s += rank[idx[i]];
        }
        all++;
        as_far += fabs(s - mean) >= far;
        /* the next k-subset in lexicographic order */
        size_t i = k;
        while (i > 0 && idx[i - 1] == n - k + i - 1) {
            i--;
        }
        if (i == 0) {
            break;
        }
        idx[i - 1]++;
        for (size_t j = i; j < k; j++) {
            idx[j] = idx[j - 1] + 1;
        }
    }
    return as_far / all;
}

/* The p-value of rank sum ra of na values among na + nb; ties: sum of t^3 - t over tie groups;
 * rank (NULL: not at hand) the pooled values' ranks, in order. */
static void mwu_finish(double ra, double na, double nb, double ties, const double *rank, stats_mwu_t *r)
{
    mwu_none(r);
    if (na == 0 || nb == 0) {
        return;
    }
    double n = na + nb;
    r->u = ra - na * (na + 1.0) / 2.0;
    r->effect = r->u / (na * nb);
    double mean = na * nb / 2.0;
    if (ties == 0 && n <= STATS_MWU_EXACT_MAX) {
        double k = r->u < na * nb - r->u ? r->u : na * nb - r->u;
        double p = 2.0 * mwu_exact_cdf((size_t)na, (size_t)nb, k);
        r->p = p > 1.0 ? 1.0 : p;
        r->exact = 1;
        return;
    }
    size_t k = na <= nb ? (size_t)na : (size_t)nb;
    if (rank != NULL && k <= MWU_SPLIT_SIDE_MAX &&
        mwu_choose_capped((size_t)n, k, STATS_MWU_SPLITS_MAX) <= STATS_MWU_SPLITS_MAX) {
        /* the smaller side's rank sum: that of a, or the rest of the total */
        double sum = na <= nb ? ra : n * (n + 1.0) / 2.0 - ra;
        r->p = mwu_splits_p(rank, (size_t)n, k, sum);
        r->exact = 1;
        return;
    }
    double var = na * nb / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if (var <= 0) {
        return; /* every value equal: nothing to tell them apart */
    }
    double d = fabs(r->u - mean) - 0.5;
    if (d <= 0) {
        return;
    }
    double p = erfc(d / sqrt(var) / sqrt(2.0));
    r->p = p > 1.0 ? 1.0 : p;
}

int stats_mwu(const double *a, size_t na, const double *b, size_t nb, stats_mwu_t *r)
{
    mwu_none(r);
    if (na == 0 || nb == 0) {
        return 0;
    }
    size_t n = na + nb;
    mwu_item_t *it = malloc(n * sizeof *it);
    if (it == NULL) {
        return -1;
    }
    for (size_t i = 0; i < na; i++) {
        it[i] = (mwu_item_t){a[i], 1};
    }
    for (size_t i = 0; i < nb; i++) {
        it[na + i] = (mwu_item_t){b[i], 0};
    }
    qsort(it, n, sizeof *it, mwu_item_cmp);
    double *rank = malloc(n * sizeof *rank);
    if (rank == NULL) {
        free(it);
        return -1;
    }
    double ra = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i, in_a = 0;
        while (j < n && it[j].v == it[i].v) {
            in_a += (size_t)it[j].from_a;
            j++;
        }
        double t = (double)(j - i);
        /* ranks i + 1 .. j, each value of the group given their mean */
        ra += (double)in_a * ((double)i + (t + 1.0) / 2.0);
        ties += t * t * t - t;
        for (size_t g = i; g < j; g++) {
            rank[g] = (double)i + (t + 1.0) / 2.0;
        }
        i = j;
    }
    free(it);
    mwu_finish(ra, (double)na, (double)nb, ties, rank, r);
    free(rank);
    return 0;
}

void stats_mwu_counts(const double *ca, const double *cb, size_t n, stats_mwu_t *r)
{
    double pos = 0, ra = 0, ties = 0, na = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
        double t = ca[i] + cb[i];
        if (t <= 0) {
            continue;
        }
        ra += ca[i] * (pos + (t + 1.0) / 2.0);
        ties += t * t * t - t;
        pos += t;
        na += ca[i];
        nb += cb[i];
    }
    mwu_finish(ra, na, nb, ties, NULL, r);
}
