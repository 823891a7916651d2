/* The Mann-Whitney U test (the rank-sum test benchstat uses): are two samples from one
 * distribution, or does one tend to be larger? Used by the comparison of two sessions
 * (stats_compare.h) on per-window figures; docs/usage.md, "Comparing sessions", says why and what
 * it assumes. Pure arithmetic: no stats_t, no allocation beyond a sort's scratch. */
#ifndef AIOPROF_STATS_MWU_H
#define AIOPROF_STATS_MWU_H

#include <stddef.h>

/* Samples up to this total size without ties get the exact distribution of U (benchstat does the
 * same); samples with ties whose smaller side can be placed among the pooled values in at most
 * STATS_MWU_SPLITS_MAX ways get the exact distribution of their rank sum, every split counted
 * (one window against many: the normal approximation is far off there); the others the normal
 * approximation with the tie and continuity corrections. */
#define STATS_MWU_EXACT_MAX 50u
#define STATS_MWU_SPLITS_MAX 20000u

typedef struct stats_mwu {
    double u;       /* U of the first sample: pairs (a, b) with a > b, plus half the ties */
    double p;       /* two-sided p-value; 1 when the test cannot tell (an empty side, all equal) */
    double effect;  /* U / (na * nb): the chance that a value of a exceeds one of b, 0.5 for none */
    int exact;      /* p is from the exact distribution (small samples, or a small side) */
} stats_mwu_t;

/* The test of a[0..na) against b[0..nb). Returns 0, or -1 when out of memory (r is then the
 * "cannot tell" result: p 1). */
int stats_mwu(const double *a, size_t na, const double *b, size_t nb, stats_mwu_t *r);

/* The same on samples given as counts of tied values: value[i] seen ca[i] times in a and cb[i]
 * times in b, the values in increasing order (a histogram's buckets: every bucket a tie group).
 * Never allocates. */
void stats_mwu_counts(const double *ca, const double *cb, size_t n, stats_mwu_t *r);

#endif
