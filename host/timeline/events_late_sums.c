/* The events stage's lateness (events_late_private.h): the running sums of each culprit's time
 * over the turns, their checkpoints, and a window's ends from them. */
#include <stdlib.h>
#include <string.h>

#include "events_late_private.h"

/* ---- the running sums: each culprit's time over the turns since the stream began, numbered in
 * the order the culprits first ran (no task and unknown first), advanced once per frame and kept
 * at every ck_every-th turn (a checkpoint). A window's time per culprit is the difference
 * of the sums at its two ends, each a checkpoint and the few turns between it and the end: the
 * same work however many turns the window spans (a busy device with 4,000 tasks: 4,000). ---- */

/* The checkpoints' spacing in turns, for stride cells each: EVENTS_CK_EVERY up to EVENTS_CK_FLAT
 * cells, then as much wider as the cells are more (at most 1,024 turns, for 8,192 cells), so that
 * they take 4 MB at most; a window's ends cost the walk of half a spacing each. Every 32 turns,
 * not fewer: the copies are written as the sums pass and seldom read, and more of them push the
 * rows out of the L1 cache. */
static uint64_t ck_every_of(size_t stride)
{
    return stride <= EVENTS_CK_FLAT ? EVENTS_CK_EVERY : EVENTS_CK_EVERY * (stride / EVENTS_CK_FLAT);
}

/* ck_every_of(stride) is EVENTS_CK_EVERY << ck_wide_of(stride): the spacing, the checkpoints'
 * count and a turn's checkpoint are shifts and masks, not divisions (a window's ends take three). */
static unsigned ck_wide_of(size_t stride)
{
    unsigned wide = 0;
    while (((uint64_t)EVENTS_CK_EVERY << wide) < ck_every_of(stride)) {
        wide++;
    }
    return wide;
}

/* who numbered in the sums (their cells and the checkpoints grown to hold it): 0 when there are
 * too many culprits, or no memory. */
static int ck_number(events_t *e, int32_t who)
{
    events_scratch_t *m = &e->scratch;
    if (e->ck_n == EVENTS_CK_MAX) {
        return 0;
    }
    if (e->ck_n == m->ck_stride) {
        size_t old = m->ck_stride, stride = old ? old * 2u : 16u;
        size_t old_slots = (size_t)(EVENTS_TURNS / ck_every_of(old));
        size_t slots = (size_t)(EVENTS_TURNS / ck_every_of(stride));
        uint64_t *ck = realloc(m->ck, (slots + 3u) * stride * sizeof *ck);
        if (ck == NULL) {
            return 0;
        }
        if (slots == old_slots) {
            /* twice the cells per checkpoint: each moved to its new place, the last first */
            for (size_t j = slots + 3u; j-- > 0;) {
                memmove(ck + j * stride, ck + j * old, old * sizeof *ck);
                memset(ck + j * stride + old, 0, (stride - old) * sizeof *ck);
            }
        } else {
            /* and half as many: checkpoint j is the old 2j, in place (slots * stride is the same,
             * so are the sums'), the old 2j + 1 its new cells */
            for (size_t j = 0; j <= slots; j++) {
                memset(ck + j * stride + old, 0, (stride - old) * sizeof *ck);
            }
        }
        m->ck = ck;
        m->ck_stride = stride;
        m->ck_wide = ck_wide_of(stride);
    }
    e->ck_num[who + 3] = (int32_t)++e->ck_n;
    e->ck_who[e->ck_n - 1u] = who;
    return 1;
}

void events_late_restart(events_t *e)
{
    for (size_t c = 0; c < e->ck_n; c++) {
        e->ck_num[e->ck_who[c] + 3] = 0;
    }
    if (e->scratch.ck != NULL) {
        memset(ck_sums(e), 0, e->scratch.ck_stride * sizeof *e->scratch.ck);
    }
    e->ck_n = 0;
    e->ck_turn = 0;
    e->ck_off = 0;
}

/* The frame's culprits numbered in the running sums (the sums grown to hold them): 0 when they
 * cannot be kept, too many culprits (ck_off) or no memory. Before late_ck_advance_to. */
int late_ck_cells(events_t *e)
{
    uint64_t end = e->n_turns ? e->n_turns - 1u : 0;
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0;
    if (e->ck_off || (e->ck_n == 0 && (!ck_number(e, EVENTS_WHO_UNKNOWN) || !ck_number(e, EVENTS_WHO_OUTSIDE)))) {
        e->ck_off = 1;
        return 0;
    }
    if (e->ck_turn < oldest) {
        /* turns gone before they were summed (frames with no late resume are not summed): the
         * sums go on without them, and only checkpoints from here on (never older) are used */
        e->ck_turn = oldest;
    }
    /* the new culprits numbered first: the cells of the sums stay where they are below; each
     * turn told its culprit's cell, for the sums and the walks between checkpoints. Only when a
     * turn was written before its culprit had a number (the turns are written with their cells):
     * walked as the ring holds them, in at most two runs. */
    for (uint64_t k = e->ck_cells_set ? end : e->ck_turn; k < end;) {
        events_turn_t *t = &e->turns[k & (EVENTS_TURNS - 1u)];
        uint64_t run = EVENTS_TURNS - (k & (EVENTS_TURNS - 1u));
        run = run < end - k ? run : end - k;
        k += run;
        for (events_turn_t *stop = t + run; t < stop; t++) {
            int32_t num = e->ck_num[t->who + 3];
            if (num == 0) {
                if (!ck_number(e, t->who)) {
                    e->ck_off = 1;
                    return 0;
                }
                num = e->ck_num[t->who + 3];
            }
            t->cell = num - 1;
        }
    }
    /* the last turn (not yet ended: numbered with the next frame's) may still be without */
    e->ck_cells_set = e->n_turns == 0 || e->turns[end & (EVENTS_TURNS - 1u)].cell >= 0;
    return 1;
}

/* The sums taken over every turn that has ended (all but the last), a checkpoint kept at each
 * ck_every-th, and at each late window's ENTER (win[0 .. n_win), in time order) that the sums had
 * not passed, from j = *snapped on (the windows before it have none): a snapshot of them (cells
 * NULL: snap[j] for win[j]), or the sums added straight to the window's cells (cells[j], n_cells
 * of them). After late_ck_cells. 0 when the snapshots find no memory. */
int late_ck_advance_to(events_t *e, const uint32_t *win, uint32_t n_win, uint32_t *snapped,
    uint64_t *const *cells, size_t n_cells)
{
    events_scratch_t *m = &e->scratch;
    uint64_t end = e->n_turns ? e->n_turns - 1u : 0;
    events_turn_t *restrict turns = e->turns;
    size_t stride = m->ck_stride, n = e->ck_n;
    const uint64_t every = ck_every(e);
    if (cells == NULL && (size_t)n_win * stride > m->snap_cap) {
        uint64_t *snap = realloc(m->snap, (size_t)n_win * stride * sizeof *snap);
        if (snap == NULL) {
            return 0;
        }
        m->snap = snap;
        m->snap_cap = (size_t)n_win * stride;
    }
    uint32_t j = 0;
    while (j < n_win && e->enters[win[j]].turn < e->ck_turn) {
        j++;
    }
    *snapped = j;
    uint64_t *restrict sums = ck_sums(e);
    uint64_t next_u = j < n_win ? e->enters[win[j]].turn : UINT64_MAX; /* the next window's ENTER */
    for (uint64_t k = e->ck_turn;; k++) {
        for (; next_u == k; next_u = ++j < n_win ? e->enters[win[j]].turn : UINT64_MAX) {
            if (cells != NULL) {
                cells_add(cells[j], sums, n_cells);
            } else {
                cells_copy(m->snap + (size_t)j * stride, sums, (n + 1u) & ~(size_t)1u);
            }
        }
        if (k >= end) {
            break;
        }
        if ((k & (every - 1u)) == 0) {
            cells_copy(m->ck + ck_place(e, k) * stride, sums, stride);
        }
        const events_turn_t *t = &turns[k & (EVENTS_TURNS - 1u)];
        sums[t->cell] += turns[(k + 1u) & (EVENTS_TURNS - 1u)].at - t->at;
    }
    e->ck_turn = end > e->ck_turn ? end : e->ck_turn;
    return 1;
}

/* late_ck_cells and late_ck_advance_to's snapshots: 0 when the sums cannot be kept. */
int late_ck_advance(events_t *e, const uint32_t *win, uint32_t n_win, uint32_t *snapped)
{
    return late_ck_cells(e) && late_ck_advance_to(e, win, n_win, snapped, NULL, 0);
}

/* Each culprit's time in the turns before k (k at most ck_turn), in sums: the nearest checkpoint
 * (or the sums themselves, at ck_turn) and the turns between it and k. 0 when none near k can be
 * used (k within ck_every turns of the oldest turn kept, and the sums far ahead). */
static int ck_at(const events_t *e, uint64_t k, uint64_t *restrict sums)
{
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0, every = ck_every(e);
    uint64_t lo = k & ~(every - 1u), hi = lo + every;
    hi = hi < e->ck_turn ? hi : e->ck_turn;
    int lo_ok = lo >= oldest && lo < e->ck_turn;
    int hi_ok = hi >= k;
    if (!lo_ok && !hi_ok) {
        return 0;
    }
    int up = !hi_ok || (lo_ok && k - lo <= hi - k); /* from lo, forward; else from hi, back */
    uint64_t near = up ? lo : hi;
    const uint64_t *at = near == e->ck_turn
        ? ck_sums(e)
        : e->scratch.ck + ck_place(e, near) * e->scratch.ck_stride;
    memcpy(sums, at, e->ck_n * sizeof *sums);
    if (up) {
        late_turns_walk(e, lo, k, 0, sums);
    } else {
        late_turns_walk(e, k, hi, 1, sums);
    }
    return 1;
}

/* The running sums before turn k as they were at a checkpoint (or are now, at ck_turn), *at, with
 * the turns between it and k taken into hi instead: hi - (sums before k) = hi' - *at. 0 (hi as it
 * was) when none near k can be used, as ck_at. */
static int ck_at_into(const events_t *e, uint64_t k, uint64_t *restrict hi, const uint64_t **at)
{
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0, every = ck_every(e);
    uint64_t lo = k & ~(every - 1u), up_to = lo + every;
    up_to = up_to < e->ck_turn ? up_to : e->ck_turn;
    int lo_ok = lo >= oldest && lo < e->ck_turn;
    int hi_ok = up_to >= k;
    if (!lo_ok && !hi_ok) {
        return 0;
    }
    int up = !hi_ok || (lo_ok && k - lo <= up_to - k); /* from lo, forward; else from up_to, back */
    uint64_t near = up ? lo : up_to;
    *at = near == e->ck_turn ? ck_sums(e) : e->scratch.ck + ck_place(e, near) * e->scratch.ck_stride;
    if (up) {
        late_turns_walk(e, lo, k, 1, hi); /* the sums before k are *at and these turns: taken off hi */
    } else {
        late_turns_walk(e, k, up_to, 0, hi); /* *at less these turns: added to hi */
    }
    return 1;
}

/* The running sums at the two ends of the window [from, until) of the resume whose ENTER is turn u,
 * and whose first turn is s: *hi before u (snap_u, or made in hi_buf; either is changed), *lo at
 * from (a checkpoint near s, the turns between them and the part of turn s before the window taken
 * into *hi); each culprit's time in the window is their difference. A window of a few turns is
 * walked: its time in hi_buf, and *lo NULL. Returns 0 when the sums cannot give it (it is walked),
 * else 1 with *unknown the part of the window older than the turns kept. */
int late_ck_ends(const events_t *e, uint64_t u, uint64_t *snap_u, uint64_t s, uint64_t from,
    uint64_t *restrict hi_buf, const uint64_t **hi, const uint64_t **lo, uint64_t *unknown)
{
    size_t n = e->ck_n;
    uint64_t *fix = hi_buf; /* where the part of turn s before the window is taken off */
    if (u - s <= ck_every(e)) {
        memset(hi_buf, 0, n * sizeof *hi_buf);
        late_turns_walk(e, s, u, 0, hi_buf);
        *hi = hi_buf;
        *lo = NULL;
    } else {
        if (snap_u == NULL) {
            if (!ck_at(e, u, hi_buf)) {
                return 0;
            }
            snap_u = hi_buf;
        }
        if (!ck_at_into(e, s, snap_u, lo)) {
            return 0;
        }
        *hi = snap_u;
        fix = snap_u;
    }
    const events_turn_t *t = &e->turns[s & (EVENTS_TURNS - 1u)];
    *unknown = 0;
    if (from < t->at) {
        *unknown = t->at - from; /* s is the oldest turn kept, and began after from */
    } else {
        fix[t->cell] -= from - t->at;
    }
    return 1;
}

/* The first turn of each of the frame's windows (win[0 .. n_win), ENTERs in time order, from[i]
 * where window i begins): first[i] = late_turn_at(e, oldest, its ENTER's turn, from[i]). The windows
 * sorted by from, one search finds the first one's and the others' follow by stepping forward:
 * the turns are in time order, and a window never begins after its ENTER. Past WINDOWS_SORTED
 * windows (a frame's worth, not sorted in place), each is searched. */
void late_windows_first(const events_t *e, uint64_t oldest, const uint32_t *win, uint32_t n_win,
    const uint64_t *from, uint64_t *first)
{
    const events_turn_t *turns = e->turns;
    if (n_win == 0) {
        return;
    }
    if (n_win > WINDOWS_SORTED) {
        for (uint32_t j = 0; j < n_win; j++) {
            first[win[j]] = late_turn_at(e, oldest, e->enters[win[j]].turn, from[win[j]]);
        }
        return;
    }
    uint32_t order[WINDOWS_SORTED];
    for (uint32_t j = 0; j < n_win; j++) {
        uint32_t i = win[j], at = j;
        for (; at > 0 && from[order[at - 1u]] > from[i]; at--) {
            order[at] = order[at - 1u];
        }
        order[at] = i;
    }
    uint64_t k = late_turn_at(e, oldest, e->enters[order[0]].turn, from[order[0]]);
    for (uint32_t j = 0; j < n_win; j++) {
        uint32_t i = order[j];
        uint64_t end = e->enters[i].turn;
        if (k >= end) {
            /* a window that ends where it begins (at time 0), or an ENTER at the oldest turn */
            first[i] = late_turn_at(e, oldest, end, from[i]);
            continue;
        }
        while (k + 1u < end && turns[(k + 1u) & (EVENTS_TURNS - 1u)].at <= from[i]) {
            k++;
        }
        first[i] = k;
    }
}

/* The last turn in [lo, hi) that begins at or before t (lo when none does): a window spans tens
 * of turns and the ring 65,536, so searched back from hi with a step that doubles, then halved. */
uint64_t late_turn_at(const events_t *e, uint64_t lo, uint64_t hi, uint64_t t)
{
    const events_turn_t *turns = e->turns;
    uint64_t top = hi; /* hi, or a turn that begins after t */
    for (uint64_t step = 1; hi - lo > step; step *= 2u) {
        uint64_t k = hi - step;
        if (turns[k & (EVENTS_TURNS - 1u)].at <= t) {
            lo = k;
            break;
        }
        top = k;
    }
    while (top - lo > 1u) {
        uint64_t mid = lo + (top - lo) / 2u;
        if (turns[mid & (EVENTS_TURNS - 1u)].at <= t) {
            lo = mid;
        } else {
            top = mid;
        }
    }
    return lo;
}
