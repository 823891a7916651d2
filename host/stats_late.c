/* The aggregator's lateness figures (stats.h, "lateness"): per instance row and per name row, how
 * late its resumes were and whose slices took its waiting time. Not on the per-event path: the
 * events stage calls in once per late resume (events_late.c), after its frame. */
#include <stdlib.h>
#include <string.h>

#include "stats_private.h"

static void late_add(stats_late_t *l, uint64_t late_us)
{
    stats_hist_add(&l->hist, late_us);
    l->resumes++;
    if (late_us == 0) {
        return;
    }
    l->count++;
    l->total_us += late_us;
    if (late_us > l->max_us) {
        l->max_us = late_us;
    }
}

/* The name row that holds in's lateness too, or NULL while in has no name. */
static stats_late_t *name_late(stats_t *s, const stats_instance_t *in)
{
    return in->name >= 0 ? &s->names[in->name].late : NULL;
}

void stats_late_resume(stats_t *s, stats_instance_t *in, uint64_t late_us)
{
    stats_late_t *n = name_late(s, in);
    late_add(&in->late, late_us);
    if (n != NULL) {
        late_add(n, late_us);
    }
}

/* Where who is in l's list: a direct-mapped index of BLAME_INDEX bytes (position + 1, 0 none)
 * before the entries, in the same block; checked, and searched on a miss. */
#define BLAME_INDEX 64u

static uint8_t *blame_index(const stats_late_t *l)
{
    return (uint8_t *)l->blame - BLAME_INDEX;
}

static void blame_new(stats_late_t *l, int32_t who, uint64_t us);

/* us more on who in l's list (a new entry while there is room, else other_us). */
static inline __attribute__((always_inline)) void blame_add(stats_late_t *l, int32_t who, uint64_t us)
{
    uint32_t slot = (uint32_t)(who + 3) & (BLAME_INDEX - 1u);
    if (l->n_blame != 0) {
        uint8_t *index = blame_index(l);
        uint32_t at = index[slot];
        if (at != 0 && l->blame[at - 1u].who == who) {
            l->blame[at - 1u].us += us;
            return;
        }
        for (uint32_t i = 0; i < l->n_blame; i++) {
            if (l->blame[i].who == who) {
                l->blame[i].us += us;
                index[slot] = (uint8_t)(i + 1u);
                return;
            }
        }
    }
    blame_new(l, who, us);
}

/* who's first entry in l's list (grown to hold it). */
static void blame_new(stats_late_t *l, int32_t who, uint64_t us)
{
    uint32_t slot = (uint32_t)(who + 3) & (BLAME_INDEX - 1u);
    if (l->n_blame == l->cap_blame) {
        uint32_t cap = l->cap_blame ? l->cap_blame * 2u : 4u;
        char *old = l->blame ? (char *)blame_index(l) : NULL;
        char *block = cap <= STATS_BLAME_MAX ? realloc(old, BLAME_INDEX + cap * sizeof *l->blame) : NULL;
        if (block == NULL) {
            l->other_us += us; /* out of room (or memory): counted, not named */
            return;
        }
        if (old == NULL) {
            memset(block, 0, BLAME_INDEX);
        }
        l->blame = (stats_blame_t *)(void *)(block + BLAME_INDEX);
        l->cap_blame = cap;
    }
    blame_index(l)[slot] = (uint8_t)(l->n_blame + 1u);
    l->blame[l->n_blame++] = (stats_blame_t){.who = who, .us = us};
}

void stats_late_window(stats_t *s, stats_instance_t *in, const int32_t *who, const uint64_t *us, size_t n)
{
    stats_late_t *l = &in->late, *nl = name_late(s, in);
    for (size_t i = 0; i < n; i++) {
        uint64_t t = us[i];
        if (t == 0) {
            continue;
        }
        int32_t w = who[i];
        if (w >= STATS_WHO_UNNAMED) {
            blame_add(l, w, t);
            if (nl != NULL) {
                blame_add(nl, w, t);
            }
        } else {
            stats_late_gap(s, in, w == STATS_WHO_OUTSIDE, t);
        }
    }
}

void stats_late_gap(stats_t *s, stats_instance_t *in, int outside, uint64_t us)
{
    stats_late_t *n = name_late(s, in);
    uint64_t *mine = outside ? &in->late.outside_us : &in->late.unknown_us;
    *mine += us;
    if (n != NULL) {
        *(outside ? &n->outside_us : &n->unknown_us) += us;
    }
}

const char *stats_late_who_name(const stats_t *s, int32_t who)
{
    return who >= 0 && (size_t)who < s->n_names ? s->names[who].name : "(unnamed tasks)";
}

int32_t stats_late_culprit(const stats_t *s, const stats_late_t *l, uint64_t *us)
{
    int32_t best = STATS_LATE_NONE;
    uint64_t most = 0;
    for (uint32_t i = 0; i < l->n_blame; i++) {
        const stats_blame_t *b = &l->blame[i];
        if (b->us == 0) {
            continue;
        }
        if (best == STATS_LATE_NONE || b->us > most ||
            (b->us == most && strcmp(stats_late_who_name(s, b->who), stats_late_who_name(s, best)) < 0)) {
            best = b->who;
            most = b->us;
        }
    }
    *us = most;
    return best;
}

void stats_late_merge(stats_late_t *dst, const stats_late_t *src)
{
    dst->resumes += src->resumes;
    dst->count += src->count;
    dst->total_us += src->total_us;
    if (src->max_us > dst->max_us) {
        dst->max_us = src->max_us;
    }
    dst->outside_us += src->outside_us;
    dst->unknown_us += src->unknown_us;
    dst->other_us += src->other_us;
    for (uint32_t i = 0; i < src->n_blame; i++) {
        blame_add(dst, src->blame[i].who, src->blame[i].us);
    }
    stats_hist_merge(&dst->hist, &src->hist);
}

void stats_late_drop(stats_late_t *l)
{
    stats_hist_drop(&l->hist);
    free(l->blame ? (char *)blame_index(l) : NULL);
    memset(l, 0, sizeof *l);
}
