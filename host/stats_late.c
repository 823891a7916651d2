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

/* us more on who in l's list (a new entry while there is room, else other_us). */
static void blame_add(stats_late_t *l, int32_t who, uint64_t us)
{
    for (uint32_t i = 0; i < l->n_blame; i++) {
        if (l->blame[i].who == who) {
            l->blame[i].us += us;
            return;
        }
    }
    if (l->n_blame == l->cap_blame) {
        uint32_t cap = l->cap_blame ? l->cap_blame * 2u : 4u;
        stats_blame_t *grown = cap <= STATS_BLAME_MAX ? realloc(l->blame, cap * sizeof *grown) : NULL;
        if (grown == NULL) {
            l->other_us += us; /* out of room (or memory): counted, not named */
            return;
        }
        l->blame = grown;
        l->cap_blame = cap;
    }
    l->blame[l->n_blame++] = (stats_blame_t){.who = who, .us = us};
}

void stats_late_blame(stats_t *s, stats_instance_t *in, int32_t who, uint64_t us)
{
    stats_late_t *n = name_late(s, in);
    blame_add(&in->late, who, us);
    if (n != NULL) {
        blame_add(n, who, us);
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
    free(l->blame);
    memset(l, 0, sizeof *l);
}
