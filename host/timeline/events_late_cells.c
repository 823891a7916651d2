/* The events stage's lateness (events_late_private.h): a frame's windows straight into their
 * instance rows' cells, while every culprit has a slot there (stats_late_window_cells). Per
 * window: the sums at its ENTER added as the sums pass it (events_late_sums.c), those at its start
 * taken off, walking the turns from one start to the next (in the ENTERs' order). */
#include <string.h>

#include "events_late_private.h"

/* The running sums before turn k, once the sums are past k (after late_ck_advance_to): taken off acc's
 * n cells (sub), or made acc's n cells (sub 0). From the checkpoint nearest k (or the sums
 * themselves, at ck_turn) and the turns between it and k: either checkpoint around k is there
 * (the one above is at most ck_turn, and k is a turn kept). */
static inline void ck_before_op(const events_t *e, uint64_t k, uint64_t *restrict acc, size_t n, const int sub)
{
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0, every = ck_every(e);
    uint64_t lo = k & ~(every - 1u), up_to = lo + every;
    up_to = up_to < e->ck_turn ? up_to : e->ck_turn;
    int from_lo = lo >= oldest && k - lo <= up_to - k;
    uint64_t near = from_lo ? lo : up_to;
    const uint64_t *at = near == e->ck_turn ? ck_sums(e) : e->scratch.ck + ck_place(e, near) * e->scratch.ck_stride;
    if (sub) {
        cells_sub(acc, at, n);
    } else {
        cells_copy(acc, at, n);
    }
    if (from_lo) {
        late_turns_walk(e, lo, k, sub, acc); /* the sums at lo and the turns from lo to k */
    } else {
        late_turns_walk(e, k, up_to, !sub, acc); /* those at up_to less the turns from k to up_to */
    }
}

/* The start of window i (its first turn k, [from, until) its time) taken off acc: the sums
 * before k in r, with the part of turn k before the window, and what lies before the turns. */
static inline __attribute__((always_inline)) void window_start_off(const events_t *e, uint64_t *restrict acc,
    const uint64_t *restrict r, size_t n, uint64_t k, uint64_t from, uint64_t before)
{
    cells_sub(acc, r, n);
    const events_turn_t *t = &e->turns[k & (EVENTS_TURNS - 1u)];
    if (from < t->at) {
        acc[0] += t->at - from; /* k is the oldest turn kept, and began after the window */
    } else {
        acc[t->cell] -= from - t->at; /* the part of turn k before the window */
    }
    acc[0] += before;
}

/* The frame's windows' starts taken off their cells (after late_ck_advance_to), in their ENTERs'
 * order: the sums before each one's first turn made from the one before's, walking the turns
 * between, forward or back. A window's first turn is late_turn_at(e, oldest, its ENTER's turn,
 * from): the windows' starts are sorted within each value of lateness (a later ENTER with the
 * same late begins later), and a frame's few values interleave them, so the walk goes back a
 * few turns now and then instead of the windows being sorted by start. The turns walked are
 * never at or past the window's ENTER: that of the one before comes no later. */
static void windows_starts_off(events_t *e, uint64_t oldest, const uint32_t *win, uint32_t n_win,
    const uint64_t *from, const uint64_t *before, uint64_t *const *cells, size_t n)
{
    const events_turn_t *restrict turns = e->turns;
    if (n_win == 0) {
        return;
    }
    /* r: the sums before turn k, the walk's turn, which begins at `at` */
    uint64_t *restrict r = ck_sums(e) + e->scratch.ck_stride;
    uint64_t k = late_turn_at(e, oldest, e->enters[win[0]].turn, from[win[0]]);
    ck_before_op(e, k, r, n, 0);
    uint64_t at = turns[k & (EVENTS_TURNS - 1u)].at;
    /* a walk longer than a checkpoints' spacing is cut short: the window's first turn searched
     * for and its sums made from a checkpoint, so that a frame whose windows jump to and fro over
     * the ring (a hostile stream's lateness) costs at most that much per window */
    const uint64_t far = ck_every(e);
    for (uint32_t j = 0; j < n_win; j++) {
        uint32_t i = win[j];
        uint64_t end = e->enters[i].turn, f = from[i], steps = 0;
        int jump = 0;
        if (at > f) {
            /* back to the last turn that begins at or before f (or the oldest kept) */
            while (k > oldest && at > f && !(jump = steps++ == far)) {
                k--;
                uint64_t prev = turns[k & (EVENTS_TURNS - 1u)].at;
                r[turns[k & (EVENTS_TURNS - 1u)].cell] -= at - prev;
                at = prev;
            }
        } else {
            /* forward over the turns that begin at or before f, short of the ENTER */
            for (; k + 1u < end; k++) {
                uint64_t next = turns[(k + 1u) & (EVENTS_TURNS - 1u)].at;
                if (next > f || (jump = steps++ == far)) {
                    break;
                }
                r[turns[k & (EVENTS_TURNS - 1u)].cell] += next - at;
                at = next;
            }
        }
        if (jump) {
            k = late_turn_at(e, oldest, end, f);
            ck_before_op(e, k, r, n, 0);
            at = turns[k & (EVENTS_TURNS - 1u)].at;
        }
        window_start_off(e, cells[j], r, n, k, f, before[i]);
    }
}

/* The frame's windows straight into their rows' cells (stats_late_window_cells), when the sums
 * are kept, their numbering is the rows' slots' (cell c for slot c - 2, the gaps first), and
 * nobody watches the windows one by one: each window's cells take the sums at its ENTER as the
 * sums pass it, then lose those at its start (a checkpoint and the turns between). Returns 0
 * (nothing done) when it cannot be done so. */
int late_windows_fused(events_t *e, uint64_t oldest, const uint32_t *win, uint32_t n_win,
    const uint64_t *from, const uint64_t *before)
{
    stats_t *s = e->stats;
    if (!late_ck_cells(e) || e->ck_n > STATS_LATE_CELLS) {
        return 0;
    }
    for (size_t c = 2; c < e->ck_n; c++) {
        /* the slot given already read from the rows' list of them (a culprit has one slot) */
        uint8_t slot = c - 2u < s->late_slots && s->late_slot_who[c - 2u] == e->ck_who[c]
            ? (uint8_t)(c - 2u)
            : stats_late_slot(s, e->ck_who[c]);
        e->ck_slot[c] = slot;
        if (slot != c - 2u) {
            return 0;
        }
    }
    size_t n = (e->ck_n + 1u) & ~(size_t)1u;
    uint64_t *cells[EVENTS_FRAME_ENTERS];
    stats_instance_t *ins[EVENTS_FRAME_ENTERS];
    for (uint32_t j = 0; j < n_win; j++) {
        ins[j] = e->enters[win[j]].in;
    }
    if (stats_late_window_cells(s, ins, n_win, n, cells) != n_win) {
        return 0; /* the windows given cells hold nothing yet: taken as the others are */
    }
    /* watched: each window's own time is wanted, for its culprit: made in a snapshot of the
     * sums at its ENTER (vec[j]), then added to its cells; else made in its cells directly */
    int watched = e->obs != NULL && e->obs->late != NULL;
    uint64_t *vec_at[EVENTS_FRAME_ENTERS];
    uint64_t *const *vec = cells;
    uint32_t snapped = 0;
    if (!late_ck_advance_to(e, win, n_win, &snapped, watched ? NULL : cells, n)) {
        return 0; /* no memory for the snapshots (the sums have not moved) */
    }
    if (watched) {
        for (uint32_t j = 0; j < n_win; j++) {
            vec_at[j] = e->scratch.snap + (size_t)j * e->scratch.ck_stride;
        }
        vec = vec_at;
    }
    uint64_t *tmp = ck_sums(e) + e->scratch.ck_stride;
    for (uint32_t j = 0; j < snapped; j++) {
        /* an ENTER the sums had passed: its sums from the checkpoints (they are past it, so one
         * near it is there) */
        ck_before_op(e, e->enters[win[j]].turn, tmp, n, 0);
        if (watched) {
            cells_copy(vec[j], tmp, n);
        } else {
            cells_add(cells[j], tmp, n);
        }
    }
    windows_starts_off(e, oldest, win, n_win, from, before, vec, n);
    for (uint32_t j = 0; watched && j < n_win; j++) {
        events_enter_t *en = &e->enters[win[j]];
        cells_add(cells[j], vec[j], n);
        late_window_observe(e, en->in, e->ck_who + 2, vec[j] + 2, NULL, e->ck_n - 2u, from[win[j]],
            e->turns[en->turn & (EVENTS_TURNS - 1u)].at, before[win[j]]);
    }
    return 1;
}

