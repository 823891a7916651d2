/* The aggregator's lateness figures (stats.h, "lateness"): per instance row and per name row, how
 * late its resumes were and whose slices took its waiting time. Not on the per-event path: the
 * events stage calls in once per late resume (events_late.c), after its frame. A window's culprits
 * go to its instance's row only; a name row sums its instances' lists when a view is made
 * (stats_late_sync, from stats_rows), which halves the work per culprit. */
#include <stdlib.h>
#include <string.h>

#include "stats_private.h"

/* in's name row marked to be summed again (stats_late_sync), if it has one. */
static inline void name_stale(stats_t *s, const stats_instance_t *in)
{
    if (in->name >= 0) {
        s->names[in->name].late_stale = 1;
        s->late_stale = 1;
    }
}

uint8_t stats_late_slot(stats_t *s, int32_t who)
{
    uint8_t *slot = who >= 0 ? &s->names[who].late_slot : &s->late_unnamed_slot;
    if (*slot == 0) {
        if (s->late_slots == STATS_LATE_SLOTS) {
            return STATS_LATE_NO_SLOT;
        }
        s->late_slot_who[s->late_slots] = who;
        *slot = (uint8_t)++s->late_slots;
    }
    return (uint8_t)(*slot - 1u);
}

/* Where a culprit with a slot is in l's list: an index of BLAME_INDEX bytes (position + 1, 0
 * none; the last, STATS_LATE_NO_SLOT's, always 0) before the entries, in the same block. The
 * others are searched for. */
#define BLAME_INDEX (STATS_LATE_SLOTS + 1u)

static uint8_t *blame_index(const stats_late_t *l)
{
    return (uint8_t *)l->blame - BLAME_INDEX;
}

/* who's first entry in l's list (grown to hold it). */
static void blame_new(stats_late_t *l, int32_t who, uint8_t slot, uint64_t us)
{
    if (l->n_blame == l->cap_blame) {
        uint32_t cap = l->cap_blame ? l->cap_blame * 2u : 4u;
        char *old = l->blame ? (char *)blame_index(l) : NULL;
        char *block = cap <= STATS_BLAME_MAX ? realloc(old, BLAME_INDEX + cap * sizeof *l->blame) : NULL;
        if (block == NULL) {
            l->other_us = stats_sat_add(l->other_us, us); /* out of room (or memory): counted, not named */
            return;
        }
        if (old == NULL) {
            memset(block, 0, BLAME_INDEX);
        }
        l->blame = (stats_blame_t *)(void *)(block + BLAME_INDEX);
        l->cap_blame = cap;
    }
    if (slot != STATS_LATE_NO_SLOT) {
        blame_index(l)[slot] = (uint8_t)(l->n_blame + 1u);
    }
    l->blame[l->n_blame++] = (stats_blame_t){.who = who, .us = us};
}

/* us more on who (its slot given) in l's list (a new entry while there is room, else other_us). */
static void blame_add(stats_late_t *l, int32_t who, uint8_t slot, uint64_t us)
{
    if (l->n_blame != 0) {
        if (slot != STATS_LATE_NO_SLOT) {
            uint32_t at = blame_index(l)[slot];
            if (at != 0) {
                l->blame[at - 1u].us = stats_sat_add(l->blame[at - 1u].us, us);
                return;
            }
        } else {
            for (uint32_t i = 0; i < l->n_blame; i++) {
                if (l->blame[i].who == who) {
                    l->blame[i].us = stats_sat_add(l->blame[i].us, us);
                    return;
                }
            }
        }
    }
    blame_new(l, who, slot, us);
}

/* Culprit i's time in a window: us[i], or hi[i] - lo[i] (diff: the running sums at its two ends). */
static inline __attribute__((always_inline)) uint64_t window_us(const uint64_t *restrict hi,
    const uint64_t *restrict lo, size_t i, int diff)
{
    return diff ? hi[i] - lo[i] : hi[i];
}

/* A window's culprits to one row: first what goes to culprits it has (through
 * its index, held in registers), then, in the order given, the others (blame_add): the same list
 * as one pass in that order, since adding to an entry it has changes neither the list nor its
 * room, and each culprit comes once. */
static inline __attribute__((always_inline)) void late_window_add(stats_t *s, stats_late_t *l, const int32_t *who,
    const uint8_t *slot, const uint64_t *restrict hi, const uint64_t *restrict lo, size_t n, int diff)
{
    int indexed = l->n_blame != 0 && slot != NULL;
    if (indexed) {
        stats_blame_t *restrict b = l->blame;
        const uint8_t *restrict index = blame_index(l);
        int missed = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t at = index[slot[i]];
            uint64_t us = window_us(hi, lo, i, diff);
            if (at != 0) {
                b[at - 1u].us = stats_sat_add(b[at - 1u].us, us);
            } else {
                missed |= us != 0;
            }
        }
        if (!missed) {
            return;
        }
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t us = window_us(hi, lo, i, diff);
        if (us == 0) {
            continue;
        }
        uint8_t sl = slot != NULL ? slot[i] : stats_late_slot(s, who[i]);
        if (indexed && sl != STATS_LATE_NO_SLOT && blame_index(l)[sl] != 0) {
            continue; /* added above */
        }
        blame_add(l, who[i], sl, us);
    }
}

/* ---- an instance row's windows per culprit slot (stats_late_settle): one fused subtract and
 * add per culprit a window, the list made when it is read. Only while at most STATS_BLAME_MAX
 * slots are given: every culprit ever blamed then has a slot, so the list takes every culprit
 * with time whatever the order they come in, with the time the windows one by one would give it
 * (other_us stays 0); only the list's order differs, which no figure depends on (a row's culprit
 * is the most time, ties by name; a name row's sums are by time). The sums are modulo 2^64 and
 * taken in (saturating) once per DENSE_SETTLE windows at most, so that they cannot wrap (a
 * window is at most 2^42 us). ---- */

#define DENSE_SETTLE (1u << 20)
#define DENSE_GAPS 2u /* cells 0 and 1: unknown and outside; slot k at cell DENSE_GAPS + k */

typedef struct stats_late_dense {
    uint32_t windows; /* kept since the list was made */
    uint32_t cells;   /* cells it has room for: the gaps' and the slots' */
    uint64_t us[];    /* per cell */
} late_dense_t;

/* l's cells, room for the first `cells` (their sums kept): NULL when out of memory. */
static late_dense_t *dense_grow(stats_late_t *l, uint32_t cells);

static inline late_dense_t *dense_room(stats_late_t *l, uint32_t cells)
{
    late_dense_t *d = l->dense;
    return d != NULL && d->cells >= cells ? d : dense_grow(l, cells);
}

static late_dense_t *dense_grow(stats_late_t *l, uint32_t cells)
{
    late_dense_t *d = l->dense;
    uint32_t old = d != NULL ? d->cells : 0;
    uint32_t want = cells < 16u ? 16u : (cells + 1u) & ~1u;
    d = realloc(d, sizeof *d + want * sizeof d->us[0]);
    if (d == NULL) {
        return NULL;
    }
    if (l->dense == NULL) {
        d->windows = 0;
    }
    memset(d->us + old, 0, (want - old) * sizeof d->us[0]);
    d->cells = want;
    l->dense = d;
    return d;
}

void stats_late_settle(stats_t *s, stats_late_t *l)
{
    late_dense_t *d = l->dense;
    if (d == NULL || d->windows == 0) {
        return;
    }
    /* the gaps first (cells 0 and 1), then the slots */
    l->unknown_us = stats_sat_add(l->unknown_us, d->us[0]);
    l->outside_us = stats_sat_add(l->outside_us, d->us[1]);
    d->us[0] = d->us[1] = 0;
    for (uint32_t k = DENSE_GAPS; k < d->cells; k++) {
        if (d->us[k] != 0) {
            blame_add(l, s->late_slot_who[k - DENSE_GAPS], (uint8_t)(k - DENSE_GAPS), d->us[k]);
            d->us[k] = 0;
        }
    }
    d->windows = 0;
}

void stats_late_settle_all(stats_t *s)
{
    for (size_t i = 0; i < s->inst_used; i++) {
        stats_late_settle(s, &s->inst[i].late);
    }
}

/* A window's time per culprit (hi[i] - lo[i], or hi[i] when lo is NULL) kept in l's slots: 0
 * when it cannot be (out of memory), and nothing is. */
static int dense_window(stats_t *s, stats_late_t *l, const uint8_t *restrict slot, const uint64_t *restrict hi,
    const uint64_t *restrict lo, size_t n)
{
    late_dense_t *d = dense_room(l, s->late_slots + DENSE_GAPS);
    if (d == NULL) {
        return 0;
    }
    uint64_t *restrict us = d->us + DENSE_GAPS;
    if (lo != NULL) {
        for (size_t i = 0; i < n; i++) {
            us[slot[i]] += hi[i] - lo[i];
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            us[slot[i]] += hi[i];
        }
    }
    if (++d->windows >= DENSE_SETTLE) {
        stats_late_settle(s, l);
    }
    return 1;
}

size_t stats_late_window_cells(stats_t *s, stats_instance_t *const *in, size_t n, size_t cells, uint64_t **out)
{
    if (s->late_slots > STATS_BLAME_MAX || cells > STATS_LATE_CELLS) {
        return 0;
    }
    for (size_t j = 0; j < n; j++) {
        late_dense_t *d = dense_room(&in[j]->late, (uint32_t)cells);
        if (d == NULL) {
            return j;
        }
        /* taken in while its cells hold whole windows only: before the caller adds this one */
        if (d->windows >= DENSE_SETTLE) {
            stats_late_settle(s, &in[j]->late);
        }
        /* its name row was marked to be summed again by this resume's stats_late_resume */
        d->windows++;
        out[j] = d->us;
    }
    return n;
}

/* The window's gaps to in's row (its name row marked to be summed again). */
static void late_window_gaps(stats_t *s, stats_instance_t *in, uint64_t outside_us, uint64_t unknown_us)
{
    stats_late_gap(s, in, 1, outside_us);
    stats_late_gap(s, in, 0, unknown_us);
}

void stats_late_window(stats_t *s, stats_instance_t *in, const int32_t *who, const uint8_t *slot,
    const uint64_t *us, size_t n, uint64_t outside_us, uint64_t unknown_us)
{
    late_window_gaps(s, in, outside_us, unknown_us);
    stats_late_settle(s, &in->late);
    late_window_add(s, &in->late, who, slot, us, NULL, n, 0);
}

void stats_late_window_sums(stats_t *s, stats_instance_t *in, const int32_t *who, const uint8_t *slot,
    const uint64_t *hi, const uint64_t *lo, size_t n, uint64_t outside_us, uint64_t unknown_us)
{
    late_window_gaps(s, in, outside_us, unknown_us);
    /* every culprit has a slot (the events stage asks for them first), and they all fit */
    if (slot != NULL && s->late_slots <= STATS_BLAME_MAX && dense_window(s, &in->late, slot, hi, lo, n)) {
        return;
    }
    stats_late_settle(s, &in->late);
    late_window_add(s, &in->late, who, slot, hi, lo, n, 1);
}

void stats_late_gap(stats_t *s, stats_instance_t *in, int outside, uint64_t us)
{
    uint64_t *gap = outside ? &in->late.outside_us : &in->late.unknown_us;
    *gap = stats_sat_add(*gap, us);
    name_stale(s, in);
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

/* src's resumes' figures (not the waiting's culprits, outside nor unknown) taken in by dst: 1, or 0
 * when its histogram could not be (out of memory), and then the others only when !whole. */
static int resumes_add(stats_late_t *dst, const stats_late_t *src, int whole)
{
    int ok = stats_hist_merge(&dst->hist, &src->hist);
    if (!ok && whole) {
        return 0;
    }
    if (src->resumes != 0 && (dst->resumes == 0 || src->min_us < dst->min_us)) {
        dst->min_us = src->min_us;
    }
    dst->resumes += src->resumes;
    dst->count += src->count;
    dst->total_us = stats_sat_add(dst->total_us, src->total_us);
    if (src->max_us > dst->max_us) {
        dst->max_us = src->max_us;
    }
    return ok;
}

void stats_late_merge(stats_late_t *dst, const stats_late_t *src)
{
    resumes_add(dst, src, 0);
    dst->outside_us = stats_sat_add(dst->outside_us, src->outside_us);
    dst->unknown_us = stats_sat_add(dst->unknown_us, src->unknown_us);
}

/* ---- a name row's blocked by: its instances' culprits summed, the STATS_BLAME_MAX that took the
 * most kept (docs/usage.md, "Lateness") ---- */

/* Room in the sums for every culprit (a name row or STATS_WHO_UNNAMED, at who + 1): 0, or -1 when
 * out of memory. The sums are all 0 between uses. */
static int sums_room(stats_t *s)
{
    size_t need = s->n_names + 1;
    if (need <= s->late_sums_cap) {
        return 0;
    }
    size_t cap = need < 64 ? 64 : need * 2;
    uint64_t *sums = calloc(cap, sizeof *sums);
    int32_t *seen = malloc(cap * sizeof *seen);
    if (!sums || !seen) {
        free(sums);
        free(seen);
        return -1;
    }
    free(s->late_sums);
    free(s->late_seen);
    s->late_sums = sums;
    s->late_seen = seen;
    s->late_sums_cap = cap;
    return 0;
}

/* l's culprits added to the sums. */
static void sums_add(stats_t *s, const stats_late_t *l)
{
    for (uint32_t i = 0; i < l->n_blame; i++) {
        const stats_blame_t *b = &l->blame[i];
        uint64_t *sum = &s->late_sums[b->who + 1];
        if (*sum == 0 && b->us != 0) {
            s->late_seen[s->n_late_seen++] = b->who;
        }
        *sum = stats_sat_add(*sum, b->us);
    }
}

/* qsort has no context argument in C11: the aggregator whose sums are sorted (one thread) */
static const stats_t *sums_of;

/* The most time first; among equals, the first in byte order of their names. */
static int sums_compare(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    uint64_t ux = sums_of->late_sums[x + 1], uy = sums_of->late_sums[y + 1];
    if (ux != uy) {
        return ux < uy ? 1 : -1;
    }
    int c = strcmp(stats_late_who_name(sums_of, x), stats_late_who_name(sums_of, y));
    return c != 0 ? c : (x > y) - (x < y);
}

/* l's list becomes the sums, the STATS_BLAME_MAX culprits that took the most (the others' time in
 * other_us, with other_us given); the sums are 0 again. */
static void sums_keep(stats_t *s, stats_late_t *l, uint64_t other_us)
{
    size_t n = s->n_late_seen;
    if (n > STATS_BLAME_MAX) {
        sums_of = s;
        qsort(s->late_seen, n, sizeof *s->late_seen, sums_compare);
    }
    l->n_blame = 0;
    l->other_us = other_us;
    for (size_t i = 0; i < n; i++) {
        uint64_t *sum = &s->late_sums[s->late_seen[i] + 1];
        if (i < STATS_BLAME_MAX) {
            blame_new(l, s->late_seen[i], STATS_LATE_NO_SLOT, *sum);
        } else {
            l->other_us = stats_sat_add(l->other_us, *sum);
        }
        *sum = 0;
    }
    s->n_late_seen = 0;
}

void stats_late_fold(stats_t *s, stats_name_t *nm, const stats_late_t *src)
{
    stats_late_settle(s, (stats_late_t *)src); /* an instance row's, or settled */
    nm->late_stale = 1;
    s->late_stale = 1;
    stats_late_merge(&nm->folded, src);
    if (src->n_blame == 0 && src->other_us == 0) {
        return;
    }
    if (sums_room(s) < 0) {
        /* out of memory: counted, not named */
        nm->folded.other_us = stats_sat_add(nm->folded.other_us, src->other_us);
        for (uint32_t i = 0; i < src->n_blame; i++) {
            nm->folded.other_us = stats_sat_add(nm->folded.other_us, src->blame[i].us);
        }
        return;
    }
    sums_add(s, &nm->folded);
    sums_add(s, src);
    sums_keep(s, &nm->folded, stats_sat_add(nm->folded.other_us, src->other_us));
}

void stats_late_unend(stats_t *s, stats_instance_t *in)
{
    stats_name_t *nm = &s->names[in->name];
    stats_late_t *e = &nm->ended;
    const stats_late_t *l = &in->late;
    stats_hist_unmerge(&e->hist, &l->hist);
    e->resumes -= l->resumes;
    e->count -= l->count;
    /* a sum that reached the most is kept there: the name row's sum, of more, stays at the most
     * too. Its least and most stay: the instance's are still in the row's, from itself. */
    if (e->total_us != UINT64_MAX) {
        e->total_us -= l->total_us;
    }
    in->late_ended = 0;
    nm->late_stale = 1;
    s->late_stale = 1;
}

void stats_late_sync(stats_t *s)
{
    if (!s->late_stale) {
        return;
    }
    /* the live instances of each name row to be summed, as lists through next[] */
    int32_t *first = malloc(s->n_names * sizeof *first);
    int32_t *next = malloc((s->inst_used + 1) * sizeof *next);
    if (!first || !next || sums_room(s) < 0) {
        free(first);
        free(next);
        return; /* out of memory: the name rows keep the culprits of their last sum */
    }
    for (size_t i = 0; i < s->n_names; i++) {
        first[i] = -1;
    }
    for (size_t i = s->inst_used; i-- > 0;) {
        const stats_instance_t *in = &s->inst[i];
        if (in->in_use && in->name >= 0 && s->names[in->name].late_stale) {
            next[i] = first[in->name];
            first[in->name] = (int32_t)i;
        }
    }
    for (size_t r = 0; r < s->n_names; r++) {
        stats_name_t *nm = &s->names[r];
        if (!nm->late_stale) {
            continue;
        }
        /* its figures: those of its instances folded away, and of its live ones */
        stats_late_t *l = &nm->late;
        l->resumes = l->count = l->total_us = l->min_us = l->max_us = l->outside_us = l->unknown_us = 0;
        stats_hist_zero(&l->hist);
        stats_late_merge(l, &nm->folded);
        uint64_t other_us = nm->folded.other_us;
        sums_add(s, &nm->folded);
        for (int32_t i = first[r]; i >= 0; i = next[i]) {
            stats_instance_t *in = &s->inst[i];
            stats_late_settle(s, &in->late);
            /* one that never runs again has its resumes summed in ended once, not at every view */
            if (!in->late_ended && stats_instance_over(s, in) && in->late.resumes != 0 &&
                resumes_add(&nm->ended, &in->late, 1)) {
                in->late_ended = 1;
            }
            if (in->late_ended) {
                /* the waiting its windows still bring is summed here */
                l->outside_us = stats_sat_add(l->outside_us, in->late.outside_us);
                l->unknown_us = stats_sat_add(l->unknown_us, in->late.unknown_us);
            } else {
                stats_late_merge(l, &in->late);
            }
            sums_add(s, &in->late);
            other_us = stats_sat_add(other_us, in->late.other_us);
        }
        resumes_add(l, &nm->ended, 0);
        sums_keep(s, l, other_us);
        nm->late_stale = 0;
    }
    s->late_stale = 0;
    free(first);
    free(next);
}

void stats_late_free(stats_t *s)
{
    free(s->late_sums);
    free(s->late_seen);
    s->late_sums = NULL;
    s->late_seen = NULL;
    s->late_sums_cap = 0;
    s->n_late_seen = 0;
}

void stats_late_drop(stats_late_t *l)
{
    stats_hist_drop(&l->hist);
    free(l->blame ? (char *)blame_index(l) : NULL);
    free(l->dense);
    memset(l, 0, sizeof *l);
}
