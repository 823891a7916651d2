/* The events stage's lateness (events.h, docs/usage.md "Lateness"): the time line of who ran (one
 * turn per event, kept by the events loop while the device reports lateness) and, at the end of
 * each frame, its ENTERs' lateness from its LATE record: each late resume's waiting window, the
 * `late` before its ENTER, laid on the turns and blamed on the names that ran, on no task, or on
 * what the host did not see. Work per late resume: the turns its window spans. */
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
    uint64_t *us = realloc(e->blame_us, need * sizeof *us);
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

/* A window's time per culprit is gathered in the scratch (window_walk or window_sums), then
 * handed to the rows (window_flush). */

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

/* The window's time, gathered in the scratch, to the rows of in (and its name), and to an
 * observer with the window's own culprit. */
static void window_flush(events_t *e, stats_instance_t *in, const int32_t *list, size_t n, uint64_t from,
    uint64_t until)
{
    stats_t *s = e->stats;
    uint64_t *acc = e->blame_us;
    stats_late_blame_window(s, in, list, n, acc + 3);
    int32_t top = STATS_LATE_NONE;
    uint64_t top_us = 0;
    int observed = e->obs && e->obs->late;
    for (size_t i = 0; i < n; i++) {
        int32_t who = list[i];
        uint64_t us = acc[who + 3];
        acc[who + 3] = 0;
        if (who < STATS_WHO_UNNAMED) {
            stats_late_gap(s, in, who == EVENTS_WHO_OUTSIDE, us);
        } else if (observed && (top == STATS_LATE_NONE || us > top_us ||
                   (us == top_us && strcmp(stats_late_who_name(s, who), stats_late_who_name(s, top)) < 0))) {
            top = who;
            top_us = us;
        }
    }
    if (observed) {
        pipeline_late_t l = {
            .start_us = from,
            .end_us = until,
            .blocked_by = top == STATS_LATE_NONE ? NULL : stats_late_who_name(s, top),
            .blocked_us = top_us,
        };
        events_task_view(e, in, &l.task);
        e->obs->late(e->obs_user, &l);
    }
}

/* The last turn in [lo, hi) that begins at or before t (lo when none does). */
static uint64_t turn_at(const events_t *e, uint64_t lo, uint64_t hi, uint64_t t)
{
    while (hi - lo > 1u) {
        uint64_t mid = lo + (hi - lo) / 2u;
        if (e->turns[mid & (EVENTS_TURNS - 1u)].at <= t) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* A frame's windows overlap (busy: each spans sixty events, and forty end in a frame): the time
 * of each culprit is summed once over the turns they span, a row per turn (prefix sums), and a
 * window is then a difference of two rows. At most this many cells; past it, each window walks. */
#define EVENTS_SUMS_MAX (1u << 18)

/* The prefix sums of the turns [k0, k1): sums[(k - k0) * names + c] is culprit c's time in the
 * turns [k0, k). The culprits are numbered in e->local (who + 3 -> number + 1) and listed in
 * e->blamed[0 .. *names). Returns 0 when the sums would be too large or out of memory (each window
 * then walks); either way window_sums_clear undoes the numbering. */
static int window_sums_build(events_t *e, uint64_t k0, uint64_t k1, size_t *count)
{
    size_t names = 0;
    for (uint64_t k = k0; k < k1; k++) {
        size_t at = (size_t)(e->turns[k & (EVENTS_TURNS - 1u)].who + 3);
        if (e->local[at] == 0) {
            e->blamed[names++] = (int32_t)at - 3;
            e->local[at] = (int32_t)names;
        }
    }
    *count = names;
    size_t cells = (size_t)(k1 - k0 + 1u) * names;
    if (names == 0 || cells > EVENTS_SUMS_MAX) {
        return 0;
    }
    if (cells > e->sums_cap) {
        uint64_t *grown = realloc(e->sums, cells * sizeof *grown);
        if (grown == NULL) {
            return 0;
        }
        e->sums = grown;
        e->sums_cap = cells;
    }
    uint64_t *row = e->sums;
    memset(row, 0, names * sizeof *row);
    for (uint64_t k = k0; k < k1; k++) {
        const events_turn_t *t = &e->turns[k & (EVENTS_TURNS - 1u)];
        uint64_t *next = row + names;
        memcpy(next, row, names * sizeof *row);
        next[e->local[t->who + 3] - 1] += e->turns[(k + 1u) & (EVENTS_TURNS - 1u)].at - t->at;
        row = next;
    }
    return 1;
}

/* The numbering of window_sums_build undone (the culprits are in e->blamed[0 .. names)). */
static void window_sums_clear(events_t *e, size_t names)
{
    for (size_t c = 0; c < names; c++) {
        e->local[e->blamed[c] + 3] = 0;
    }
}

/* The window [from, ...) of the resume whose ENTER is turn `turn`, from the prefix sums of
 * [k0, ...): into the scratch, as window_walk gathers it. Returns the culprits it touched, listed
 * in e->blamed from index `names` on (the first `names` are the sums' numbering). */
static size_t window_sums(events_t *e, size_t names, uint64_t k0, uint64_t turn, uint64_t from, uint64_t s_turn)
{
    uint64_t *acc = e->blame_us;
    int32_t *touched = e->blamed + names;
    size_t n = 0;
    uint64_t first = e->turns[k0 & (EVENTS_TURNS - 1u)].at;
    uint64_t s = k0;
    uint64_t before = 0; /* of turn s, the time before the window */
    if (from < first) {
        /* older than the turns kept: unknown */
        touched[n++] = EVENTS_WHO_UNKNOWN;
        acc[0] += first - from;
    } else {
        s = s_turn; /* the last turn that begins at or before from */
        before = from - e->turns[s & (EVENTS_TURNS - 1u)].at;
    }
    const uint64_t *lo = e->sums + (size_t)(s - k0) * names;
    const uint64_t *hi = e->sums + (size_t)(turn - k0) * names;
    int32_t first_who = e->turns[s & (EVENTS_TURNS - 1u)].who;
    for (size_t c = 0; c < names; c++) {
        int32_t who = e->blamed[c];
        uint64_t us = hi[c] - lo[c] - (who == first_who ? before : 0u);
        if (us != 0) {
            if (acc[who + 3] == 0) {
                touched[n++] = who;
            }
            acc[who + 3] += us;
        }
    }
    return n;
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
    uint64_t late_us[EVENTS_FRAME_ENTERS], first[EVENTS_FRAME_ENTERS];
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0;
    uint64_t k0 = UINT64_MAX, k1 = 0;
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
            uint64_t from = late_us[i] < until ? until - late_us[i] : 0;
            uint64_t k = turn_at(e, oldest, en->turn, from);
            first[i] = k;
            k0 = k < k0 ? k : k0;
            k1 = en->turn > k1 ? en->turn : k1;
        }
    }
    if (k0 == UINT64_MAX || !blame_room(e)) {
        return;
    }
    size_t names = 0;
    int sums = window_sums_build(e, k0, k1, &names);
    for (uint32_t i = 0; i < n; i++) {
        events_enter_t *en = &e->enters[i];
        if (late_us[i] == 0 || en->turn < oldest) {
            continue;
        }
        uint64_t until = e->turns[en->turn & (EVENTS_TURNS - 1u)].at;
        uint64_t from = late_us[i] < until ? until - late_us[i] : 0;
        if (sums) {
            size_t touched = window_sums(e, names, k0, en->turn, from, first[i]);
            window_flush(e, en->in, e->blamed + names, touched, from, until);
        } else {
            window_sums_clear(e, names);
            names = 0;
            window_flush(e, en->in, e->blamed, window_walk(e, en->turn, from, until), from, until);
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
