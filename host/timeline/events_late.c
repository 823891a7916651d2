/* The events stage's lateness (events.h, docs/usage.md "Lateness"): the time line of who ran (one
 * turn per event, kept by the events loop while the device reports lateness) and, at the end of
 * each frame, its ENTERs' lateness from its LATE record: each late resume's waiting window, the
 * `late` before its ENTER, laid on the turns and blamed on the names that ran, on no task, or on
 * what the host did not see. Work per frame: the turns its windows span, once; per late resume:
 * the culprits of the frame, for its window and its two rows. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "aioprof_varint.h"
#include "events_late_private.h"

/* The scratch of one window, walked: time per culprit, indexed by who + 3 (EVENTS_WHO_UNKNOWN is
 * -3), for every name row there may be. 0 when out of memory. */
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
    memset(m->blame_us + m->blame_cap, 0, (need - m->blame_cap) * sizeof *us);
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
        late_window_observe(e, in, who, hi, lo, n, from, until, before);
    }
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
    turns[k & (EVENTS_TURNS - 1u)] =
        (events_turn_t){.at = at, .who = EVENTS_WHO_UNKNOWN, .cell = events_turn_cell(e, EVENTS_WHO_UNKNOWN)};
    e->n_turns++;
}

/* Every one of the len bytes at p below 0x80: each a whole varint. */
static int late_bytes_small(const uint8_t *p, size_t len)
{
    uint64_t any = 0;
    size_t i = 0;
    for (; i + 8u <= len; i += 8u) {
        uint64_t w;
        memcpy(&w, p + i, sizeof w);
        any |= w;
    }
    for (; i < len; i++) {
        any |= p[i];
    }
    return (any & 0x8080808080808080ull) == 0;
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
    /* the values come last ENTER first. Most frames' are one byte each (n values in n bytes, no
     * byte with its top bit set): ENTER i's is byte n - 1 - i, and at 1 MHz it is value * unit
     * (below 2^7 * 2^32 us, never cut). Else read into the ENTERs' order. */
    uint32_t value[EVENTS_FRAME_ENTERS];
    const uint8_t *small = late != NULL && n != 0 && len == n && late_bytes_small(late, len) ? late + n - 1u : NULL;
    const int fast = (late == NULL || small != NULL) && e->tick_hz == 1000000u;
    const uint64_t unit = e->late_unit;
    if (fast && e->bucket_unit != unit) {
        for (uint32_t v = 0; v < 128u; v++) {
            e->late_bucket[v] = (uint8_t)stats_hist_bucket(v * unit);
        }
        e->bucket_unit = (uint32_t)unit;
    }
    size_t at = 0;
    for (uint32_t i = n; late != NULL && small == NULL && i-- > 0;) {
        if (at < len && late[at] < 0x80u) {
            value[i] = late[at++];
        } else {
            at += aioprof_varint_get(late + at, len - at, &value[i]);
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
        uint32_t v = late == NULL ? 0 : small != NULL ? small[-(ptrdiff_t)i] : value[i];
        if (fast) {
            late_us[i] = v * unit;
            stats_late_resume_bucket(s, in, late_us[i], e->late_bucket[v]);
        } else {
            late_us[i] = late_of(e, v);
            stats_late_resume(s, in, late_us[i]);
        }
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
    if (late_windows_fused(e, oldest, win, n_win, from, before)) {
        return;
    }
    late_windows_first(e, oldest, win, n_win, from, first);
    uint32_t snapped = 0;
    int sums = late_ck_advance(e, win, n_win, &snapped);
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
        if (sums && late_ck_ends(e, en->turn, snap_u, first[i], from[i], hi_buf, &hi, &lo, &unknown)) {
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
    free(m->ck);
    free(m->snap);
    memset(m, 0, sizeof *m);
    e->ck_n = 0;
}
