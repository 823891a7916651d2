/* The events stage's lateness (events.h, docs/usage.md "Lateness"): the time line of who ran (one
 * turn per event, kept by the events loop while the device reports lateness) and, at the end of
 * each frame, its ENTERs' lateness from its LATE record: each late resume's waiting window, the
 * `late` before its ENTER, laid on the turns and blamed on the names that ran, on no task, or on
 * what the host did not see. Work per frame: the turns its windows span, once; per late resume:
 * the culprits of the frame, for its window and its two rows. */
#include <stdlib.h>
#include <string.h>

#include "aioprof_varint.h"
#include "events_private.h"

/* The scratch of one window, walked: time per culprit, indexed by who + 3 (EVENTS_WHO_UNKNOWN is
 * -3), for every name row there may be; and the running sums' numbering. 0 when out of memory. */
static int blame_room(events_t *e)
{
    events_scratch_t *m = &e->scratch;
    size_t need = e->stats->names_cap + 3u;
    if (need <= m->blame_cap) {
        return 1;
    }
    uint64_t *us = realloc(m->blame_us, 2u * need * sizeof *us);
    if (us == NULL) {
        return 0;
    }
    m->blame_us = us;
    int32_t *who = realloc(m->blamed, need * sizeof *who);
    if (who == NULL) {
        return 0;
    }
    m->blamed = who;
    int32_t *num = realloc(m->num, need * sizeof *num);
    if (num == NULL) {
        return 0;
    }
    m->num = num;
    memset(m->blame_us + m->blame_cap, 0, (need - m->blame_cap) * sizeof *us);
    memset(m->num + m->blame_cap, 0, (need - m->blame_cap) * sizeof *num);
    m->blame_cap = need;
    return 1;
}

/* A window's time per culprit comes from the running sums (ck_window) or, when they cannot be
 * kept, from a walk back over its turns (window_walk), and goes to the rows (window_flush). */

/* The window [from, until) (until: the time of turn `turn`, the resume's ENTER), walked back over
 * the turns before it. Returns the culprits it touched (in e->scratch.blamed). */
static size_t window_walk(events_t *e, uint64_t turn, uint64_t from, uint64_t until)
{
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0;
    uint64_t *restrict acc = e->scratch.blame_us;
    int32_t *restrict blamed = e->scratch.blamed;
    const events_turn_t *restrict turns = e->turns;
    size_t n = 0;
    for (uint64_t k = turn; k-- > oldest && until > from;) {
        const events_turn_t *t = &turns[k & (EVENTS_TURNS - 1u)];
        uint64_t start = t->at > from ? t->at : from;
        if (start >= until) {
            continue;
        }
        /* a name row made since the scratch was sized cannot be in a turn: turns name rows as
         * they are when the event is read, and the scratch was sized after */
        size_t at = (size_t)(t->who + 3);
        blamed[n] = t->who;
        n += acc[at] == 0;
        acc[at] += until - start;
        until = start;
    }
    if (until > from) {
        blamed[n] = EVENTS_WHO_UNKNOWN;
        n += acc[0] == 0;
        acc[0] += until - from;
    }
    return n;
}

static void window_observe(events_t *e, const stats_instance_t *in, const int32_t *who, const uint64_t *hi,
    const uint64_t *lo, size_t n, uint64_t from, uint64_t until, uint64_t before);

/* The window [from, until)'s time (on the turns' time line), and `before` of it that lies before
 * the time line's start: on who[i] (named culprits, 0: none) hi[i] - lo[i], or hi[i] when lo is
 * NULL; outside_us while no task ran, unknown_us unseen; to the rows of in (and its name), and to
 * an observer with the window's own culprit, on the microsecond line. */
static void window_flush(events_t *e, stats_instance_t *in, const int32_t *who, const uint8_t *slot,
    const uint64_t *hi, const uint64_t *lo, size_t n, uint64_t outside_us, uint64_t unknown_us, uint64_t from,
    uint64_t until, uint64_t before)
{
    stats_t *s = e->stats;
    if (lo != NULL) {
        stats_late_window_sums(s, in, who, slot, hi, lo, n, outside_us, unknown_us);
    } else {
        stats_late_window(s, in, who, slot, hi, n, outside_us, unknown_us);
    }
    if (e->obs && e->obs->late) {
        window_observe(e, in, who, hi, lo, n, from, until, before);
    }
}

/* The window [from, until) of in (as window_flush's) told to the observer, with its culprit. */
static void window_observe(events_t *e, const stats_instance_t *in, const int32_t *who, const uint64_t *hi,
    const uint64_t *lo, size_t n, uint64_t from, uint64_t until, uint64_t before)
{
    const stats_t *s = e->stats;
    int32_t top = STATS_LATE_NONE;
    uint64_t top_us = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t us = lo != NULL ? hi[i] - lo[i] : hi[i];
        if (us != 0 && (top == STATS_LATE_NONE || us > top_us ||
                           (us == top_us && strcmp(stats_late_who_name(s, who[i]), stats_late_who_name(s, top)) < 0))) {
            top = who[i];
            top_us = us;
        }
    }
    /* the ENTER is of this frame, whose turns are late_shift after the microsecond line */
    uint64_t end_us = until - e->late_shift, len = until - from + before;
    pipeline_late_t l = {
        .start_us = len < end_us ? end_us - len : 0,
        .end_us = end_us,
        .blocked_by = top == STATS_LATE_NONE ? NULL : stats_late_who_name(s, top),
        .blocked_us = top_us,
    };
    events_task_view(e, in, &l.task);
    e->obs->late(e->obs_user, &l);
}

/* The window walked (window_walk): its named culprits' time moved from the scratch into a list
 * in the order they were touched, its gaps summed, and flushed. */
static void window_walk_flush(events_t *e, stats_instance_t *in, uint64_t turn, uint64_t from, uint64_t until,
    uint64_t before)
{
    size_t n = window_walk(e, turn, from, until), named = 0;
    events_scratch_t *m = &e->scratch;
    uint64_t *us = m->blame_us + m->blame_cap;
    uint64_t gap[2] = {0, 0}; /* unknown, outside */
    for (size_t i = 0; i < n; i++) {
        int32_t who = m->blamed[i];
        uint64_t *acc = &m->blame_us[who + 3];
        if (who < STATS_WHO_UNNAMED) {
            gap[who - STATS_WHO_UNKNOWN] += *acc;
        } else {
            m->blamed[named] = who;
            us[named++] = *acc;
        }
        *acc = 0;
    }
    window_flush(e, in, m->blamed, NULL, us, NULL, named, gap[1], gap[0] + before, from, until, before);
}

/* The last turn in [lo, hi) that begins at or before t (lo when none does): a window spans tens
 * of turns and the ring 65,536, so searched back from hi with a step that doubles, then halved. */
static uint64_t turn_at(const events_t *e, uint64_t lo, uint64_t hi, uint64_t t)
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
/* ---- the running sums: each culprit's time over the turns since the stream began, numbered in
 * the order the culprits first ran (no task and unknown first), advanced once per frame and kept
 * at every ck_every-th turn (a checkpoint). A window's time per culprit is the difference
 * of the sums at its two ends, each a checkpoint and the few turns between it and the end: the
 * same work however many turns the window spans (a busy device with 4,000 tasks: 4,000). ---- */

/* The checkpoints' spacing in turns, for stride cells each: EVENTS_CK_EVERY up to EVENTS_CK_FLAT
 * cells, then as much wider as the cells are more (at most 256 turns, for 8,192 cells), so that
 * they take 16 MB at most; a window's ends cost the walk of half a spacing each. */
static uint64_t ck_every_of(size_t stride)
{
    return stride <= EVENTS_CK_FLAT ? EVENTS_CK_EVERY : EVENTS_CK_EVERY * (stride / EVENTS_CK_FLAT);
}

#define CK_EVERY_LOG2 3u
_Static_assert((1u << CK_EVERY_LOG2) == EVENTS_CK_EVERY, "EVENTS_CK_EVERY is 1 << CK_EVERY_LOG2");

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

static uint64_t ck_every(const events_t *e)
{
    return (uint64_t)EVENTS_CK_EVERY << e->scratch.ck_wide;
}

static size_t ck_slots(const events_t *e)
{
    return (size_t)(EVENTS_TURNS / EVENTS_CK_EVERY) >> e->scratch.ck_wide;
}

/* The checkpoint of turn k (a multiple of ck_every), in the ring of ck_slots. */
static size_t ck_place(const events_t *e, uint64_t k)
{
    return (size_t)(k >> (e->scratch.ck_wide + CK_EVERY_LOG2)) & (ck_slots(e) - 1u);
}

/* The running sums (after the checkpoints). */
static uint64_t *ck_sums(const events_t *e)
{
    return e->scratch.ck + ck_slots(e) * e->scratch.ck_stride;
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
    m->num[who + 3] = (int32_t)++e->ck_n;
    e->ck_who[e->ck_n - 1u] = who;
    return 1;
}

void events_late_restart(events_t *e)
{
    for (size_t c = 0; c < e->ck_n; c++) {
        e->scratch.num[e->ck_who[c] + 3] = 0;
    }
    if (e->scratch.ck != NULL) {
        memset(ck_sums(e), 0, e->scratch.ck_stride * sizeof *e->scratch.ck);
    }
    e->ck_n = 0;
    e->ck_turn = 0;
    e->ck_off = 0;
}

/* The frame's culprits numbered in the running sums (the sums grown to hold them): 0 when they
 * cannot be kept, too many culprits (ck_off) or no memory. Before ck_advance_to. */
static int ck_cells(events_t *e)
{
    events_scratch_t *m = &e->scratch;
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
     * turn told its culprit's cell, for the sums and the walks between checkpoints. The turns
     * walked as the ring holds them, in at most two runs. */
    for (uint64_t k = e->ck_turn; k < end;) {
        events_turn_t *t = &e->turns[k & (EVENTS_TURNS - 1u)];
        uint64_t run = EVENTS_TURNS - (k & (EVENTS_TURNS - 1u));
        run = run < end - k ? run : end - k;
        k += run;
        for (events_turn_t *stop = t + run; t < stop; t++) {
            int32_t num = m->num[t->who + 3];
            if (num == 0) {
                if (!ck_number(e, t->who)) {
                    e->ck_off = 1;
                    return 0;
                }
                num = m->num[t->who + 3];
            }
            t->cell = num - 1;
        }
    }
    return 1;
}

/* n cells of v added to acc, taken off, or copied (modulo 2^64); n even (the arrays have room for
 * it): two cells an instruction. Up to STATS_LATE_CELLS (a fused frame's n, fixed for the frame),
 * unrolled by the pair count: no loop to run and no branch to miss beyond the jump in. */
typedef uint64_t cell_pair_t __attribute__((vector_size(16)));

static inline cell_pair_t pair_at(const uint64_t *p)
{
    cell_pair_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

enum { CELLS_ADD, CELLS_SUB, CELLS_COPY };

static inline __attribute__((always_inline)) void cell_pair_op(uint64_t *restrict acc, const uint64_t *restrict v,
    size_t c, const int op)
{
    cell_pair_t b = pair_at(v + c);
    if (op != CELLS_COPY) {
        cell_pair_t a = pair_at(acc + c);
        b = op == CELLS_SUB ? a - b : a + b;
    }
    memcpy(acc + c, &b, sizeof b);
}

#define CELLS_PAIR(k) cell_pair_op(acc, v, 2u * (k), op)
_Static_assert(STATS_LATE_CELLS <= 34u, "cells_op unrolls at most 17 pairs");

static inline __attribute__((always_inline)) void cells_op(uint64_t *restrict acc, const uint64_t *restrict v,
    size_t n, const int op)
{
    if (n > STATS_LATE_CELLS) {
        for (size_t c = 0; c < n; c += 2u) {
            cell_pair_op(acc, v, c, op);
        }
        return;
    }
    switch (n / 2u) {
    case 17: CELLS_PAIR(16); /* fallthrough */
    case 16: CELLS_PAIR(15); /* fallthrough */
    case 15: CELLS_PAIR(14); /* fallthrough */
    case 14: CELLS_PAIR(13); /* fallthrough */
    case 13: CELLS_PAIR(12); /* fallthrough */
    case 12: CELLS_PAIR(11); /* fallthrough */
    case 11: CELLS_PAIR(10); /* fallthrough */
    case 10: CELLS_PAIR(9); /* fallthrough */
    case 9: CELLS_PAIR(8); /* fallthrough */
    case 8: CELLS_PAIR(7); /* fallthrough */
    case 7: CELLS_PAIR(6); /* fallthrough */
    case 6: CELLS_PAIR(5); /* fallthrough */
    case 5: CELLS_PAIR(4); /* fallthrough */
    case 4: CELLS_PAIR(3); /* fallthrough */
    case 3: CELLS_PAIR(2); /* fallthrough */
    case 2: CELLS_PAIR(1); /* fallthrough */
    case 1: CELLS_PAIR(0); /* fallthrough */
    default: break;
    }
}

static inline void cells_add(uint64_t *restrict acc, const uint64_t *restrict v, size_t n)
{
    cells_op(acc, v, n, CELLS_ADD);
}

static inline void cells_sub(uint64_t *restrict acc, const uint64_t *restrict v, size_t n)
{
    cells_op(acc, v, n, CELLS_SUB);
}

static inline void cells_copy(uint64_t *restrict acc, const uint64_t *restrict v, size_t n)
{
    cells_op(acc, v, n, CELLS_COPY);
}

/* The sums taken over every turn that has ended (all but the last), a checkpoint kept at each
 * ck_every-th, and at each late window's ENTER (win[0 .. n_win), in time order) that the sums had
 * not passed, from j = *snapped on (the windows before it have none): a snapshot of them (cells
 * NULL: snap[j] for win[j]), or the sums added straight to the window's cells (cells[j], n_cells
 * of them). After ck_cells. 0 when the snapshots find no memory. */
static int ck_advance_to(events_t *e, const uint32_t *win, uint32_t n_win, uint32_t *snapped,
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

/* ck_cells and ck_advance_to's snapshots: 0 when the sums cannot be kept. */
static int ck_advance(events_t *e, const uint32_t *win, uint32_t n_win, uint32_t *snapped)
{
    return ck_cells(e) && ck_advance_to(e, win, n_win, snapped, NULL, 0);
}

/* Each culprit's time in the turns [a, b) added to acc (subtracted when negate: the arithmetic is
 * modulo 2^64, and a window's cells end non-negative). */
static void ck_walk(const events_t *e, uint64_t a, uint64_t b, int negate, uint64_t *restrict acc)
{
    const events_turn_t *restrict turns = e->turns;
    uint64_t at = turns[a & (EVENTS_TURNS - 1u)].at;
    for (uint64_t k = a; k < b; k++) {
        const events_turn_t *t = &turns[k & (EVENTS_TURNS - 1u)];
        uint64_t next = turns[(k + 1u) & (EVENTS_TURNS - 1u)].at;
        acc[t->cell] += negate ? at - next : next - at;
        at = next;
    }
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
        ck_walk(e, lo, k, 0, sums);
    } else {
        ck_walk(e, k, hi, 1, sums);
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
        ck_walk(e, lo, k, 1, hi); /* the sums before k are *at and these turns: taken off hi */
    } else {
        ck_walk(e, k, up_to, 0, hi); /* *at less these turns: added to hi */
    }
    return 1;
}

/* The running sums at the two ends of the window [from, until) of the resume whose ENTER is turn u,
 * and whose first turn is s: *hi before u (snap_u, or made in hi_buf; either is changed), *lo at
 * from (a checkpoint near s, the turns between them and the part of turn s before the window taken
 * into *hi); each culprit's time in the window is their difference. A window of a few turns is
 * walked: its time in hi_buf, and *lo NULL. Returns 0 when the sums cannot give it (it is walked),
 * else 1 with *unknown the part of the window older than the turns kept. */
static int ck_ends(const events_t *e, uint64_t u, uint64_t *snap_u, uint64_t s, uint64_t from,
    uint64_t *restrict hi_buf, const uint64_t **hi, const uint64_t **lo, uint64_t *unknown)
{
    size_t n = e->ck_n;
    uint64_t *fix = hi_buf; /* where the part of turn s before the window is taken off */
    if (u - s <= ck_every(e)) {
        memset(hi_buf, 0, n * sizeof *hi_buf);
        ck_walk(e, s, u, 0, hi_buf);
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
 * where window i begins): first[i] = turn_at(e, oldest, its ENTER's turn, from[i]). The windows
 * sorted by from, one search finds the first one's and the others' follow by stepping forward:
 * the turns are in time order, and a window never begins after its ENTER. Past WINDOWS_SORTED
 * windows (a frame's worth, not sorted in place), each is searched. */
#define WINDOWS_SORTED 64u

static void windows_first(const events_t *e, uint64_t oldest, const uint32_t *win, uint32_t n_win,
    const uint64_t *from, uint64_t *first)
{
    const events_turn_t *turns = e->turns;
    if (n_win == 0) {
        return;
    }
    if (n_win > WINDOWS_SORTED) {
        for (uint32_t j = 0; j < n_win; j++) {
            first[win[j]] = turn_at(e, oldest, e->enters[win[j]].turn, from[win[j]]);
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
    uint64_t k = turn_at(e, oldest, e->enters[order[0]].turn, from[order[0]]);
    for (uint32_t j = 0; j < n_win; j++) {
        uint32_t i = order[j];
        uint64_t end = e->enters[i].turn;
        if (k >= end) {
            /* a window that ends where it begins (at time 0), or an ENTER at the oldest turn */
            first[i] = turn_at(e, oldest, end, from[i]);
            continue;
        }
        while (k + 1u < end && turns[(k + 1u) & (EVENTS_TURNS - 1u)].at <= from[i]) {
            k++;
        }
        first[i] = k;
    }
}

/* Each culprit's time in the turns [a, b) added to acc, or taken off (ck_walk without its
 * choice in the loop). */
static inline void turns_op(const events_t *e, uint64_t a, uint64_t b, uint64_t *restrict acc, const int sub)
{
    const events_turn_t *restrict turns = e->turns;
    uint64_t at = turns[a & (EVENTS_TURNS - 1u)].at;
    for (uint64_t k = a; k < b; k++) {
        const events_turn_t *t = &turns[k & (EVENTS_TURNS - 1u)];
        uint64_t next = turns[(k + 1u) & (EVENTS_TURNS - 1u)].at;
        acc[t->cell] += sub ? at - next : next - at;
        at = next;
    }
}

/* The running sums before turn k, once the sums are past k (after ck_advance_to): taken off acc's
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
        turns_op(e, lo, k, acc, sub); /* the sums at lo and the turns from lo to k */
    } else {
        turns_op(e, k, up_to, acc, !sub); /* those at up_to less the turns from k to up_to */
    }
}

/* The start of window i (its first turn k, [from, until) its time) taken off acc: the sums
 * before k in r, with the part of turn k before the window, and what lies before the turns. */
static inline void window_start_off(const events_t *e, uint64_t *restrict acc, const uint64_t *restrict r,
    size_t n, uint64_t k, uint64_t from, uint64_t before)
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

/* The frame's windows' starts taken off their cells (after ck_advance_to), in the order they
 * begin: their first turns found as windows_first finds them, and the sums before each made from
 * the one before, walking the turns between (or from a checkpoint, when far or behind). At most
 * WINDOWS_SORTED windows. */
static void windows_starts_off(events_t *e, uint64_t oldest, const uint32_t *win, uint32_t n_win,
    const uint64_t *from, const uint64_t *before, uint64_t *const *cells, size_t n)
{
    const events_turn_t *restrict turns = e->turns;
    uint32_t order[WINDOWS_SORTED]; /* j, by from[win[j]] */
    if (n_win == 0) {
        return;
    }
    for (uint32_t j = 0; j < n_win; j++) {
        uint32_t at = j;
        for (; at > 0 && from[win[order[at - 1u]]] > from[win[j]]; at--) {
            order[at] = order[at - 1u];
        }
        order[at] = j;
    }
    /* r: the sums before turn k, the stepping's turn, walked with it */
    uint64_t *restrict r = ck_sums(e) + e->scratch.ck_stride, *restrict t_r = r + e->scratch.ck_stride;
    uint64_t k = turn_at(e, oldest, e->enters[win[order[0]]].turn, from[win[order[0]]]);
    ck_before_op(e, k, r, n, 0);
    uint64_t at = turns[k & (EVENTS_TURNS - 1u)].at;
    for (uint32_t q = 0; q < n_win; q++) {
        uint32_t j = order[q], i = win[j];
        uint64_t end = e->enters[i].turn;
        if (k >= end) {
            /* as windows_first: this one searched for, and the stepping stays */
            uint64_t first = turn_at(e, oldest, end, from[i]);
            ck_before_op(e, first, t_r, n, 0);
            window_start_off(e, cells[j], t_r, n, first, from[i], before[i]);
            continue;
        }
        for (;;) {
            const events_turn_t *t = &turns[k & (EVENTS_TURNS - 1u)];
            uint64_t next = turns[(k + 1u) & (EVENTS_TURNS - 1u)].at;
            if (k + 1u >= end || next > from[i]) {
                break;
            }
            r[t->cell] += next - at;
            at = next;
            k++;
        }
        window_start_off(e, cells[j], r, n, k, from[i], before[i]);
    }
}

/* The frame's windows straight into their rows' cells (stats_late_window_cells), when the sums
 * are kept, their numbering is the rows' slots' (cell c for slot c - 2, the gaps first), and
 * nobody watches the windows one by one: each window's cells take the sums at its ENTER as the
 * sums pass it, then lose those at its start (a checkpoint and the turns between). Returns 0
 * (nothing done) when it cannot be done so. */
static int windows_fused(events_t *e, uint64_t oldest, const uint32_t *win, uint32_t n_win,
    const uint64_t *from, const uint64_t *before)
{
    stats_t *s = e->stats;
    if (!ck_cells(e) || e->ck_n > STATS_LATE_CELLS) {
        return 0;
    }
    for (size_t c = 2; c < e->ck_n; c++) {
        uint8_t slot = stats_late_slot(s, e->ck_who[c]);
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
    if (!ck_advance_to(e, win, n_win, &snapped, watched ? NULL : cells, n)) {
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
    if (n_win <= WINDOWS_SORTED) {
        windows_starts_off(e, oldest, win, n_win, from, before, vec, n);
    } else {
        uint64_t first[EVENTS_FRAME_ENTERS];
        windows_first(e, oldest, win, n_win, from, first);
        for (uint32_t j = 0; j < n_win; j++) {
            uint32_t i = win[j];
            ck_before_op(e, first[i], tmp, n, 0);
            window_start_off(e, vec[j], tmp, n, first[i], from[i], before[i]);
        }
    }
    for (uint32_t j = 0; watched && j < n_win; j++) {
        events_enter_t *en = &e->enters[win[j]];
        cells_add(cells[j], vec[j], n);
        window_observe(e, en->in, e->ck_who + 2, vec[j] + 2, NULL, e->ck_n - 2u, from[win[j]],
            e->turns[en->turn & (EVENTS_TURNS - 1u)].at, before[win[j]]);
    }
    return 1;
}

void events_late_unseen(events_t *e)
{
    uint64_t k = e->frame_turn, at = e->frame_before_us + e->frame_shift;
    events_turn_t *turns = e->turns;
    if (k < e->n_turns && turns[k & (EVENTS_TURNS - 1u)].who == EVENTS_WHO_UNKNOWN &&
        turns[k & (EVENTS_TURNS - 1u)].at == at) {
        return; /* frames were lost there too: already unknown */
    }
    /* the frame's turns so far (no event yet: a few) one later; the sums have not reached them */
    for (uint64_t j = e->n_turns; j > k; j--) {
        turns[j & (EVENTS_TURNS - 1u)] = turns[(j - 1u) & (EVENTS_TURNS - 1u)];
    }
    turns[k & (EVENTS_TURNS - 1u)] = (events_turn_t){.at = at, .who = EVENTS_WHO_UNKNOWN};
    e->n_turns++;
}

/* A LATE value in microseconds, at most STATS_LATE_MAX_US: a longer one (a hostile HELLO's unit or
 * value) is cut to it, so that no sum of lateness can wrap, and that is said once. */
static uint64_t late_of(events_t *e, uint32_t value)
{
    uint64_t ticks = (uint64_t)value * e->late_unit; /* < 2^64 */
    /* ticks / tick_hz < L, without a division: L * tick_hz < 2^55 */
    if (ticks < STATS_LATE_MAX_US / 1000000u * (uint64_t)e->tick_hz) {
        return events_ticks_to_us(ticks, e->tick_hz);
    }
    if (!e->late_capped && e->note) {
        e->note(e->user, "the device reported a task more than 50 days late (2^42 us; its HELLO's late_unit or a LATE "
                         "value is not a real one): counted as 2^42 us, so the lateness figures are lower bounds.");
    }
    e->late_capped = 1;
    return STATS_LATE_MAX_US;
}

void events_late_record(events_t *e, const aioprof_record_t *r)
{
    e->late = r->late;
    e->late_len = r->late_len;
    e->late_count = r->count;
}

void events_late_frame(events_t *e, int ok)
{
    events_mem_turns_fix(e);
    uint32_t n = e->n_enters;
    const uint8_t *late = e->late;
    size_t len = e->late_len;
    e->n_enters = 0;
    e->late = NULL;
    /* lateness known: the device reports it (its HELLO said so before this frame's ENTERs were
     * read), the frame read whole, and its LATE record, if any, has a value for each ENTER */
    if (e->late_unit == 0 || !ok || (late != NULL && e->late_count != n)) {
        return;
    }
    stats_t *s = e->stats;
    /* the values come last ENTER first: read into the ENTERs' order, then taken in time order */
    uint32_t value[EVENTS_FRAME_ENTERS];
    size_t at = 0;
    for (uint32_t i = n; i-- > 0;) {
        value[i] = 0;
        if (late != NULL) {
            if (at < len && late[at] < 0x80u) {
                value[i] = late[at++]; /* most are one byte */
            } else {
                at += aioprof_varint_get(late + at, len - at, &value[i]);
            }
        }
    }
    /* the frame's late windows: [from, until) before each late ENTER; the turns they span */
    uint64_t late_us[EVENTS_FRAME_ENTERS], first[EVENTS_FRAME_ENTERS], from[EVENTS_FRAME_ENTERS];
    uint64_t before[EVENTS_FRAME_ENTERS]; /* the part of each window before the time line began */
    uint32_t win[EVENTS_FRAME_ENTERS], n_win = 0;
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0;
    for (uint32_t i = 0; i < n; i++) {
        events_enter_t *en = &e->enters[i];
        stats_instance_t *in = en->in;
        late_us[i] = 0;
        if (in == NULL || in->key != en->key || !in->in_use) {
            continue;
        }
        late_us[i] = late_of(e, value[i]);
        stats_late_resume(s, in, late_us[i]);
        if (late_us[i] != 0 && en->turn >= oldest) {
            /* what lies before late_floor (the stream's start, a reset, a link gap) is unknown */
            uint64_t until = e->turns[en->turn & (EVENTS_TURNS - 1u)].at;
            uint64_t seen = until > e->late_floor ? until - e->late_floor : 0;
            from[i] = until - (late_us[i] < seen ? late_us[i] : seen);
            before[i] = late_us[i] - (until - from[i]);
            win[n_win++] = i;
        }
    }
    if (n_win == 0 || !blame_room(e)) {
        return;
    }
    if (windows_fused(e, oldest, win, n_win, from, before)) {
        return;
    }
    windows_first(e, oldest, win, n_win, from, first);
    uint32_t snapped = 0;
    int sums = ck_advance(e, win, n_win, &snapped);
    /* the culprits' slots in the rows' indexes (stats_late_slot); a window's time after the sums */
    for (size_t c = 2; sums && c < e->ck_n; c++) {
        e->ck_slot[c] = stats_late_slot(s, e->ck_who[c]);
    }
    uint64_t *hi_buf = sums ? ck_sums(e) + e->scratch.ck_stride : NULL;
    for (uint32_t j = 0; j < n_win; j++) {
        uint32_t i = win[j];
        events_enter_t *en = &e->enters[i];
        uint64_t until = e->turns[en->turn & (EVENTS_TURNS - 1u)].at, unknown;
        uint64_t *snap_u = j >= snapped ? e->scratch.snap + (size_t)j * e->scratch.ck_stride : NULL;
        const uint64_t *hi, *lo;
        if (sums && ck_ends(e, en->turn, snap_u, first[i], from[i], hi_buf, &hi, &lo, &unknown)) {
            uint64_t gap[2] = {hi[0], hi[1]}; /* unknown, outside */
            if (lo != NULL) {
                gap[0] -= lo[0];
                gap[1] -= lo[1];
            }
            window_flush(e, en->in, e->ck_who + 2, e->ck_slot + 2, hi + 2, lo != NULL ? lo + 2 : NULL, e->ck_n - 2u,
                gap[1], gap[0] + unknown + before[i], from[i], until, before[i]);
        } else {
            window_walk_flush(e, en->in, en->turn, from[i], until, before[i]);
        }
    }
}

void events_free(events_t *e)
{
    events_spans_free(e);
    events_scratch_t *m = &e->scratch;
    free(m->blame_us);
    free(m->blamed);
    free(m->num);
    free(m->ck);
    free(m->snap);
    memset(m, 0, sizeof *m);
    e->ck_n = 0;
}
