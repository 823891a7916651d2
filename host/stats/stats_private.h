/* What the files of the aggregator share (stats.c: instance rows; stats_names.c: name rows and
 * their totals). Not for other stages: they use stats.h. */
#ifndef AIOPROF_STATS_PRIVATE_H
#define AIOPROF_STATS_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

static inline uint32_t stats_fnv_add(uint32_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h;
}

/* The row of an escaped name, created when new; past the cap, "(other names)". */
int32_t stats_name_row(stats_t *s, const char *name);

/* A special row (*row, made the first time it is needed) of the kind, saying text. */
int32_t stats_special_row(stats_t *s, int32_t *row, stats_row_kind_t kind, const char *text);

/* One instance's name row up to date (before it is folded, renamed or reset). */
void stats_instance_sync(stats_t *s, stats_instance_t *in);
/* A named instance that never runs again (it ended, or its device restarted): its slice lengths
 * go to its name row's, kept in its moved; a view then sums only the instances that may still
 * run. */
void stats_instance_settle(stats_t *s, stats_instance_t *in);

/* An instance that never runs again by what the stream said: it ended, or its device restarted
 * since (its id is no longer looked up); "(tasks past the cap)" runs on. */
static inline int stats_instance_over(const stats_t *s, const stats_instance_t *in)
{
    return (in->end != STATS_END_LIVE || in->epoch != s->epoch) && (int32_t)(in - s->inst) != s->past_cap;
}

#endif
