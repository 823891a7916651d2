/* The aggregator's distributions (stats.h, "stats_hist"): log buckets of microseconds, grown to
 * the range of values seen, and their percentiles. */
#include <stdlib.h>
#include <string.h>

#include "stats.h"

const double stats_pcts[STATS_PCTS] = {0.50, 0.95, 0.99};

uint8_t stats_hist_small[STATS_HIST_SMALL];

void stats_hist_small_fill(void)
{
    if (stats_hist_small[STATS_HIST_SMALL - 1u] != 0) {
        return; /* filled: its last bucket is far from 0 */
    }
    for (unsigned v = 0; v < STATS_HIST_SMALL; v++) {
        stats_hist_small[v] = (uint8_t)stats_hist_bucket(v);
    }
}

/* The range allocated made to hold buckets [from, to). 0 when out of memory. */
static int hist_cover(stats_hist_t *h, unsigned from, unsigned to)
{
    if (h->len && from >= h->lo && to <= (unsigned)h->lo + h->len) {
        return 1;
    }
    unsigned lo = h->len && h->lo < from ? h->lo : from;
    unsigned end = h->len && (unsigned)h->lo + h->len > to ? (unsigned)h->lo + h->len : to;
    /* a little room either way, so that a row whose values wander grows rarely */
    lo = lo >= 4u ? lo - 4u : 0u;
    end = end + 4u <= STATS_HIST_BUCKETS ? end + 4u : STATS_HIST_BUCKETS;
    uint32_t *counts = calloc(end - lo, sizeof *counts);
    if (counts == NULL) {
        return 0;
    }
    if (h->len) {
        memcpy(counts + (h->lo - lo), h->counts, h->len * sizeof *counts);
    }
    free(h->counts);
    h->counts = counts;
    h->lo = (uint16_t)lo;
    h->len = (uint16_t)(end - lo);
    return 1;
}

void stats_hist_grow_add(stats_hist_t *h, unsigned bucket)
{
    if (hist_cover(h, bucket, bucket + 1u)) {
        h->counts[bucket - h->lo]++;
    }
}

uint64_t stats_hist_total(const stats_hist_t *h)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < h->len; i++) {
        n += h->counts[i];
    }
    return n;
}

/* The middle of a bucket, in microseconds. */
static uint64_t bucket_middle(unsigned b)
{
    if (b < 8u) {
        return b;
    }
    unsigned e = (b - 8u) / 8u + 3u;
    uint64_t width = 1ull << (e - 3u);
    uint64_t low = (1ull << e) + (uint64_t)((b - 8u) % 8u) * width;
    return low + width / 2u;
}

uint64_t stats_hist_quantile(const stats_hist_t *h, double q, uint64_t min, uint64_t max)
{
    uint64_t n = stats_hist_total(h);
    if (n == 0) {
        return 0;
    }
    /* nearest rank: the smallest value with at least q of them at or below it */
    uint64_t rank = (uint64_t)(q * (double)n);
    if ((double)rank < q * (double)n) {
        rank++;
    }
    if (rank == 0) {
        rank = 1;
    }
    uint64_t seen = 0, v = 0;
    for (unsigned i = 0; i < h->len; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            v = bucket_middle(h->lo + i);
            break;
        }
    }
    return v < min ? min : v > max ? max : v;
}

int stats_hist_merge(stats_hist_t *dst, const stats_hist_t *src)
{
    if (src->len == 0) {
        return 1;
    }
    if (!hist_cover(dst, src->lo, (unsigned)src->lo + src->len)) {
        return 0;
    }
    for (unsigned i = 0; i < src->len; i++) {
        dst->counts[src->lo + i - dst->lo] += src->counts[i];
    }
    return 1;
}

void stats_hist_unmerge(stats_hist_t *dst, const stats_hist_t *src)
{
    for (unsigned i = 0; i < src->len; i++) {
        dst->counts[src->lo + i - dst->lo] -= src->counts[i];
    }
}

void stats_hist_zero(stats_hist_t *h)
{
    if (h->len) {
        memset(h->counts, 0, h->len * sizeof *h->counts);
    }
}

void stats_hist_drop(stats_hist_t *h)
{
    free(h->counts);
    memset(h, 0, sizeof *h);
}
