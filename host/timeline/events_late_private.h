/* What the lateness files of the events stage share (events_private.h says where they sit):
 *   events_late.c        each frame's LATE values made into waiting windows, and routed: to the
 *                        rows' cells (events_late_cells.c) while every culprit has a slot there,
 *                        else through the running sums to each window's own list, else walked
 *                        over its turns
 *   events_late_sums.c   the running sums of each culprit's time over the turns, their
 *                        checkpoints and numbering, a window's two ends from them, and the
 *                        search for the turn a window begins in
 *   events_late_cells.c  the frame's windows straight into their instance rows' cells
 *   events_late_observe.c  what an observer of the windows is told
 * The calls go one way: events_late.c -> events_late_cells.c -> events_late_sums.c and
 * events_late_observe.c (events_late.c calls those two as well). Not for the rest of the stage:
 * it uses events_private.h. */
#ifndef AIOPROF_EVENTS_LATE_PRIVATE_H
#define AIOPROF_EVENTS_LATE_PRIVATE_H

#include <stdint.h>
#include <string.h>

#include "events_private.h"

/* ---- events_late_observe.c ---- */

/* The window [from, until) of in told to the observer, with its culprit: on who[i] (named
 * culprits) hi[i] - lo[i], or hi[i] when lo is NULL; `before` of it lies before the time line. */
void late_window_observe(events_t *e, const stats_instance_t *in, const int32_t *who, const uint64_t *hi,
    const uint64_t *lo, size_t n, uint64_t from, uint64_t until, uint64_t before);

/* ---- events_late_sums.c ---- */

/* The last turn in [lo, hi) that begins at or before t (lo when none does). */
uint64_t late_turn_at(const events_t *e, uint64_t lo, uint64_t hi, uint64_t t);

/* The frame's culprits numbered in the running sums, and each turn told its cell: 0 when the sums
 * cannot be kept (too many culprits, or no memory). Before late_ck_advance_to. */
int late_ck_cells(events_t *e);

/* The sums advanced over every turn that has ended, with the sums at each late window's ENTER
 * (win[0 .. n_win), ENTERs in time order) that they had not passed, from *snapped on: snapshots
 * (cells NULL), or added to cells[j] (n_cells of them). 0 when the snapshots find no memory. */
int late_ck_advance_to(events_t *e, const uint32_t *win, uint32_t n_win, uint32_t *snapped,
    uint64_t *const *cells, size_t n_cells);

/* late_ck_cells, then late_ck_advance_to's snapshots: 0 when the sums cannot be kept. */
int late_ck_advance(events_t *e, const uint32_t *win, uint32_t n_win, uint32_t *snapped);

/* The sums at the two ends of a window (ENTER turn u, first turn s, from its start): 0 when they
 * cannot give it, and it is walked. */
int late_ck_ends(const events_t *e, uint64_t u, uint64_t *snap_u, uint64_t s, uint64_t from,
    uint64_t *restrict hi_buf, const uint64_t **hi, const uint64_t **lo, uint64_t *unknown);

/* Up to this many windows a frame's are sorted by their start, in place on the stack. */
#define WINDOWS_SORTED 64u

/* The first turn of each of the frame's windows: first[i] = late_turn_at(e, oldest, its ENTER's
 * turn, from[i]). */
void late_windows_first(const events_t *e, uint64_t oldest, const uint32_t *win, uint32_t n_win,
    const uint64_t *from, uint64_t *first);

/* The checkpoints: every ck_every(e) turns, ck_slots(e) of them in a ring, ck_stride cells each,
 * then the running sums (ck_sums) and two vectors of scratch. */
#define CK_EVERY_LOG2 5u
_Static_assert((1u << CK_EVERY_LOG2) == EVENTS_CK_EVERY, "EVENTS_CK_EVERY is 1 << CK_EVERY_LOG2");

static inline uint64_t ck_every(const events_t *e)
{
    return (uint64_t)EVENTS_CK_EVERY << e->scratch.ck_wide;
}

static inline size_t ck_slots(const events_t *e)
{
    return (size_t)(EVENTS_TURNS / EVENTS_CK_EVERY) >> e->scratch.ck_wide;
}

/* The checkpoint of turn k (a multiple of ck_every), in the ring of ck_slots. */
static inline size_t ck_place(const events_t *e, uint64_t k)
{
    return (size_t)(k >> (e->scratch.ck_wide + CK_EVERY_LOG2)) & (ck_slots(e) - 1u);
}

/* The running sums (after the checkpoints). */
static inline uint64_t *ck_sums(const events_t *e)
{
    return e->scratch.ck + ck_slots(e) * e->scratch.ck_stride;
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

static inline __attribute__((always_inline)) void cells_add(uint64_t *restrict acc, const uint64_t *restrict v, size_t n)
{
    cells_op(acc, v, n, CELLS_ADD);
}

static inline __attribute__((always_inline)) void cells_sub(uint64_t *restrict acc, const uint64_t *restrict v, size_t n)
{
    cells_op(acc, v, n, CELLS_SUB);
}

static inline __attribute__((always_inline)) void cells_copy(uint64_t *restrict acc, const uint64_t *restrict v, size_t n)
{
    cells_op(acc, v, n, CELLS_COPY);
}

/* ---- events_late_cells.c ---- */

/* The frame's windows straight into their rows' cells: 0 (nothing done) when they cannot be. */
int late_windows_fused(events_t *e, uint64_t oldest, const uint32_t *win, uint32_t n_win,
    const uint64_t *from, const uint64_t *before);

/* Each culprit's time in the turns [a, b) added to acc, or taken off when negate (the arithmetic
 * is modulo 2^64, and a window's cells end non-negative): the walk both the cells (events_late_cells.c)
 * and the checkpoints (events_late_sums.c) take over the frame's turns. */
static inline void late_turns_walk(const events_t *e, uint64_t a, uint64_t b, int negate, uint64_t *restrict acc)
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

#endif
