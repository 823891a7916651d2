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

/* The scratch of one window: time per culprit, indexed by who + 3 (EVENTS_WHO_UNKNOWN is -3), for
 * every name row there may be. 0 when out of memory. */
static int blame_room(events_t *e)
{
    size_t need = e->stats->names_cap + 3u;
    if (need <= e->blame_cap) {
        return 1;
    }
    uint64_t *us = realloc(e->blame_us, 2u * need * sizeof *us);
    if (us == NULL) {
        return 0;
    }
    e->blame_us = us;
    /* the culprits listed: the prefix sums' numbering, then a window's */
    int32_t *who = realloc(e->blamed, 2u * need * sizeof *who);
    if (who == NULL) {
        return 0;
    }
    e->blamed = who;
    int32_t *local = realloc(e->local, need * sizeof *local);
    if (local == NULL) {
        return 0;
    }
    e->local = local;
    memset(e->blame_us + e->blame_cap, 0, (need - e->blame_cap) * sizeof *us);
    memset(e->local + e->blame_cap, 0, (need - e->blame_cap) * sizeof *local);
    e->blame_cap = need;
    return 1;
}

/* A window's time per culprit comes from the frame's running sums (window_sums) or, when they
 * cannot be kept, from a walk back over its turns (window_walk), and goes to the rows
 * (window_flush). */

/* The window [from, until) (until: the time of turn `turn`, the resume's ENTER), walked back over
 * the turns before it. Returns the culprits it touched (in e->blamed). */
static size_t window_walk(events_t *e, uint64_t turn, uint64_t from, uint64_t until)
{
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0;
    uint64_t *restrict acc = e->blame_us;
    int32_t *restrict blamed = e->blamed;
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

/* The window [from, until)'s time: us[i] on who[i] (named culprits, 0: none), outside_us while no
 * task ran, unknown_us unseen; to the rows of in (and its name), and to an observer with the
 * window's own culprit. */
static void window_flush(events_t *e, stats_instance_t *in, const int32_t *who, const uint8_t *slot,
    const uint64_t *us, size_t n, uint64_t outside_us, uint64_t unknown_us, uint64_t from, uint64_t until)
{
    stats_t *s = e->stats;
    stats_late_window(s, in, who, slot, us, n, outside_us, unknown_us);
    if (!e->obs || !e->obs->late) {
        return;
    }
    int32_t top = STATS_LATE_NONE;
    uint64_t top_us = 0;
    for (size_t i = 0; i < n; i++) {
        if (us[i] != 0 && (top == STATS_LATE_NONE || us[i] > top_us ||
                              (us[i] == top_us && strcmp(stats_late_who_name(s, who[i]), stats_late_who_name(s, top)) < 0))) {
            top = who[i];
            top_us = us[i];
        }
    }
    pipeline_late_t l = {
        .start_us = from,
        .end_us = until,
        .blocked_by = top == STATS_LATE_NONE ? NULL : stats_late_who_name(s, top),
        .blocked_us = top_us,
    };
    events_task_view(e, in, &l.task);
    e->obs->late(e->obs_user, &l);
}

/* The window walked (window_walk): its named culprits' time moved from the scratch into a list
 * in the order they were touched, its gaps summed, and flushed. */
static void window_walk_flush(events_t *e, stats_instance_t *in, uint64_t turn, uint64_t from, uint64_t until)
{
    size_t n = window_walk(e, turn, from, until), named = 0;
    uint64_t *us = e->blame_us + e->blame_cap;
    uint64_t gap[2] = {0, 0}; /* unknown, outside */
    for (size_t i = 0; i < n; i++) {
        int32_t who = e->blamed[i];
        uint64_t *acc = &e->blame_us[who + 3];
        if (who < STATS_WHO_UNNAMED) {
            gap[who - STATS_WHO_UNKNOWN] += *acc;
        } else {
            e->blamed[named] = who;
            us[named++] = *acc;
        }
        *acc = 0;
    }
    window_flush(e, in, e->blamed, NULL, us, named, gap[1], gap[0], from, until);
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
/* A frame's windows overlap (busy: each spans sixty events, and forty end in a frame): the time
 * of each culprit is summed once over the turns they span, as a running sum kept only at the
 * turns a window begins or ends in (snapshots), and a window is the difference of two of them with
 * the part of its first turn before it taken off. At most this many cells of snapshots; past it,
 * each window walks. */
#define EVENTS_SUMS_MAX (1u << 18)
#define SNAP_NONE UINT32_MAX

/* The snapshots of the running sums over the turns [k0, k1] that the frame's windows (their first
 * turns first[i] and ENTERs' turns, for the late ones) need: e->sums holds, per turn k - k0, the
 * number of its snapshot (SNAP_NONE: none), then the snapshots, names cells each; a snapshot at k
 * is each culprit's time in the turns [k0, k). The culprits are numbered in e->local (who + 3 ->
 * number + 1) and listed in e->blamed[0 .. *names). Returns where the snapshots begin, NULL when
 * they would be too large or out of memory (each window then walks); either way
 * window_sums_clear undoes the numbering. */
static uint64_t *window_sums_build(events_t *e, uint64_t k0, uint64_t k1, const uint64_t *late_us,
    const uint64_t *first, uint32_t n, size_t *count)
{
    const events_turn_t *restrict turns = e->turns;
    int32_t *restrict local = e->local;
    /* no task and unknown first, always: a window's gaps are its first two culprits */
    e->blamed[0] = EVENTS_WHO_UNKNOWN;
    e->blamed[1] = EVENTS_WHO_OUTSIDE;
    local[EVENTS_WHO_UNKNOWN + 3] = 1;
    local[EVENTS_WHO_OUTSIDE + 3] = 2;
    size_t names = 2;
    for (uint64_t k = k0; k < k1; k++) {
        size_t at = (size_t)(turns[k & (EVENTS_TURNS - 1u)].who + 3);
        if (local[at] == 0) {
            e->blamed[names++] = (int32_t)at - 3;
            local[at] = (int32_t)names;
        }
    }
    *count = names;
    size_t span = (size_t)(k1 - k0 + 1u);
    size_t index_cells = (span + 1u) / 2u; /* a uint32_t per turn */
    size_t snap_cells = 2u * n * names;
    if (snap_cells > EVENTS_SUMS_MAX) {
        return NULL;
    }
    size_t cells = index_cells + snap_cells + names;
    if (cells > e->sums_cap) {
        uint64_t *grown = realloc(e->sums, cells * sizeof *grown);
        if (grown == NULL) {
            return NULL;
        }
        e->sums = grown;
        e->sums_cap = cells;
    }
    uint32_t *restrict snap_of = (uint32_t *)(void *)e->sums;
    uint64_t *restrict snaps = e->sums + index_cells;
    memset(snap_of, 0xFF, span * sizeof *snap_of);
    for (uint32_t i = 0; i < n; i++) {
        if (late_us[i] != 0 && e->enters[i].turn >= k0) {
            snap_of[first[i] - k0] = 0;
            snap_of[e->enters[i].turn - k0] = 0;
        }
    }
    uint64_t *restrict sum = snaps + snap_cells;
    memset(sum, 0, names * sizeof *sum);
    uint32_t taken = 0;
    for (uint64_t k = k0;; k++) {
        uint32_t *snap = &snap_of[k - k0];
        if (*snap != SNAP_NONE) {
            *snap = taken;
            memcpy(snaps + (size_t)taken++ * names, sum, names * sizeof *sum);
        }
        if (k == k1) {
            break;
        }
        const events_turn_t *t = &turns[k & (EVENTS_TURNS - 1u)];
        sum[local[t->who + 3] - 1] += turns[(k + 1u) & (EVENTS_TURNS - 1u)].at - t->at;
    }
    return snaps;
}

/* The numbering of window_sums_build undone (the culprits are in e->blamed[0 .. names)). */
static void window_sums_clear(events_t *e, size_t names)
{
    for (size_t c = 0; c < names; c++) {
        e->local[e->blamed[c] + 3] = 0;
    }
}

/* The window [from, ...) of the resume whose ENTER is turn `turn`, and whose first turn is s, from
 * the snapshots of window_sums_build (the turns from k0 on): each culprit's time in
 * us[0 .. names) (their numbering). Returns the part of the window older than the turns kept
 * (unknown). */
static uint64_t window_sums(const events_t *e, const uint64_t *snaps, size_t names, uint64_t k0, uint64_t turn,
    uint64_t from, uint64_t s, uint64_t *restrict us)
{
    const uint32_t *snap_of = (const uint32_t *)(const void *)e->sums;
    const events_turn_t *t = &e->turns[s & (EVENTS_TURNS - 1u)];
    const uint64_t *restrict lo = snaps + (size_t)snap_of[s - k0] * names;
    const uint64_t *restrict hi = snaps + (size_t)snap_of[turn - k0] * names;
    for (size_t c = 0; c < names; c++) {
        us[c] = hi[c] - lo[c];
    }
    if (from < t->at) {
        return t->at - from; /* s is the oldest turn kept, and began after from */
    }
    us[e->local[t->who + 3] - 1] -= from - t->at; /* the part of turn s before the window */
    return 0;
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

void events_late_record(events_t *e, const aioprof_record_t *r)
{
    e->late = r->late;
    e->late_len = r->late_len;
    e->late_count = r->count;
}

void events_late_frame(events_t *e, int ok)
{
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
            at += aioprof_varint_get(late + at, len - at, &value[i]);
        }
    }
    /* the frame's late windows: [from, until) before each late ENTER; the turns they span */
    uint64_t late_us[EVENTS_FRAME_ENTERS], first[EVENTS_FRAME_ENTERS], from[EVENTS_FRAME_ENTERS];
    uint32_t win[EVENTS_FRAME_ENTERS], n_win = 0;
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0;
    for (uint32_t i = 0; i < n; i++) {
        events_enter_t *en = &e->enters[i];
        stats_instance_t *in = en->in;
        late_us[i] = 0;
        if (in == NULL || in->key != en->key || !in->in_use) {
            continue;
        }
        late_us[i] = events_ticks_to_us((uint64_t)value[i] * e->late_unit, e->tick_hz);
        stats_late_resume(s, in, late_us[i]);
        if (late_us[i] != 0 && en->turn >= oldest) {
            uint64_t until = e->turns[en->turn & (EVENTS_TURNS - 1u)].at;
            from[i] = late_us[i] < until ? until - late_us[i] : 0;
            win[n_win++] = i;
        }
    }
    if (n_win == 0 || !blame_room(e)) {
        return;
    }
    windows_first(e, oldest, win, n_win, from, first);
    uint64_t k0 = UINT64_MAX, k1 = 0;
    for (uint32_t j = 0; j < n_win; j++) {
        uint32_t i = win[j];
        k0 = first[i] < k0 ? first[i] : k0;
        k1 = e->enters[i].turn > k1 ? e->enters[i].turn : k1;
    }
    size_t names = 0;
    const uint64_t *snaps = window_sums_build(e, k0, k1, late_us, first, n, &names);
    uint64_t *us = e->blame_us + e->blame_cap;
    /* the culprits' slots in the rows' indexes (stats_late_slot) */
    uint8_t *slots = (uint8_t *)(void *)(e->blamed + e->blame_cap);
    for (size_t c = 2; c < names; c++) {
        slots[c] = stats_late_slot(s, e->blamed[c]);
    }
    for (uint32_t i = 0; i < n; i++) {
        events_enter_t *en = &e->enters[i];
        if (late_us[i] == 0 || en->turn < oldest) {
            continue;
        }
        uint64_t until = e->turns[en->turn & (EVENTS_TURNS - 1u)].at;
        if (snaps != NULL) {
            uint64_t unknown = window_sums(e, snaps, names, k0, en->turn, from[i], first[i], us);
            window_flush(e, en->in, e->blamed + 2, slots + 2, us + 2, names - 2, us[1], us[0] + unknown, from[i],
                until);
        } else {
            window_sums_clear(e, names);
            names = 0;
            window_walk_flush(e, en->in, en->turn, from[i], until);
        }
    }
    window_sums_clear(e, names);
}

void events_free(events_t *e)
{
    free(e->blame_us);
    free(e->blamed);
    free(e->local);
    free(e->sums);
    e->blame_us = NULL;
    e->blamed = NULL;
    e->local = NULL;
    e->sums = NULL;
    e->blame_cap = e->sums_cap = 0;
}
