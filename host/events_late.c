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
    int32_t *who = realloc(e->blamed, need * sizeof *who);
    if (who == NULL) {
        return 0;
    }
    e->blamed = who;
    memset(e->blame_us + e->blame_cap, 0, (need - e->blame_cap) * sizeof *us);
    e->blame_cap = need;
    return 1;
}

/* The waiting window [at - late_us, at) of a resume whose ENTER is turn `turn`, blamed on the
 * turns before it. */
static void window_blame(events_t *e, stats_instance_t *in, uint64_t turn, uint64_t late_us)
{
    stats_t *s = e->stats;
    uint64_t until = e->turns[turn % EVENTS_TURNS].at;
    uint64_t from = late_us < until ? until - late_us : 0;
    uint64_t oldest = e->n_turns > EVENTS_TURNS ? e->n_turns - EVENTS_TURNS : 0;
    if (!blame_room(e)) {
        stats_late_gap(s, in, 0, late_us);
        return;
    }
    size_t n = 0;
    for (uint64_t k = turn; k-- > oldest && until > from;) {
        const events_turn_t *t = &e->turns[k % EVENTS_TURNS];
        if (t->at >= until) {
            continue;
        }
        uint64_t start = t->at > from ? t->at : from;
        /* a name row made since the scratch was sized cannot be in a turn: turns name rows as
         * they are when the event is read, and the scratch was sized after */
        size_t at = (size_t)(t->who + 3);
        if (e->blame_us[at] == 0) {
            e->blamed[n++] = t->who;
        }
        e->blame_us[at] += until - start;
        until = start;
    }
    if (until > from) {
        if (e->blame_us[0] == 0) {
            e->blamed[n++] = EVENTS_WHO_UNKNOWN;
        }
        e->blame_us[0] += until - from;
    }
    /* the window's own culprit, for an observer: as a row's (stats_late_culprit) */
    int32_t top = STATS_LATE_NONE;
    uint64_t top_us = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t who = e->blamed[i];
        uint64_t us = e->blame_us[who + 3];
        e->blame_us[who + 3] = 0;
        if (who >= STATS_WHO_UNNAMED) {
            stats_late_blame(s, in, who, us);
            if (top == STATS_LATE_NONE || us > top_us ||
                (us == top_us && strcmp(stats_late_who_name(s, who), stats_late_who_name(s, top)) < 0)) {
                top = who;
                top_us = us;
            }
        } else {
            stats_late_gap(s, in, who == EVENTS_WHO_OUTSIDE, us);
        }
    }
    if (e->obs && e->obs->late) {
        pipeline_late_t l = {
            .start_us = e->turns[turn % EVENTS_TURNS].at - late_us,
            .end_us = e->turns[turn % EVENTS_TURNS].at,
            .blocked_by = top == STATS_LATE_NONE ? NULL : stats_late_who_name(s, top),
            .blocked_us = top_us,
        };
        if (late_us > l.end_us) {
            l.start_us = 0;
        }
        events_task_view(e, in, &l.task);
        e->obs->late(e->obs_user, &l);
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
    for (uint32_t i = 0; i < n; i++) {
        events_enter_t *en = &e->enters[i];
        stats_instance_t *in = en->in;
        if (in == NULL || in->key != en->key || !in->in_use) {
            continue;
        }
        uint64_t late_us = events_ticks_to_us((uint64_t)value[i] * e->late_unit, e->tick_hz);
        stats_late_resume(s, in, late_us);
        if (late_us != 0) {
            window_blame(e, in, en->turn, late_us);
        }
    }
}

void events_free(events_t *e)
{
    free(e->blame_us);
    free(e->blamed);
    e->blame_us = NULL;
    e->blamed = NULL;
    e->blame_cap = 0;
}
