/* Each name's longest slice in the last seconds of device time (metrics_window.h). */
#include "metrics_window.h"

#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define SLOTS (2u * METRICS_WINDOW_NAMES) /* open addressing, at most half full */

typedef struct win_name {
    char name[STATS_TEXT_MAX];
    uint64_t second[METRICS_WINDOW_S]; /* the device second + 1 whose maximum max[i] is; 0: none */
    uint64_t max[METRICS_WINDOW_S];
} win_name_t;

struct metrics_window {
    win_name_t *names;
    size_t n, cap;
    uint32_t slot[SLOTS]; /* index + 1 into names, 0 empty */
    uint64_t now_us;
    const pipeline_observer_t *next;
    void *next_user;
    pipeline_observer_t watch;
};

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* The index of the slot holding name, or of the empty one where it would go. */
static uint32_t find_slot(const metrics_window_t *w, const char *name)
{
    uint32_t i = name_hash(name) % SLOTS;
    while (w->slot[i] != 0 && strcmp(w->names[w->slot[i] - 1].name, name) != 0)
        i = (i + 1) % SLOTS;
    return i;
}

metrics_window_t *metrics_window_new(void)
{
    return calloc(1, sizeof(metrics_window_t));
}

void metrics_window_free(metrics_window_t *w)
{
    if (w != NULL)
        free(w->names);
    free(w);
}

void metrics_window_clear(metrics_window_t *w)
{
    w->n = 0;
    w->now_us = 0;
    memset(w->slot, 0, sizeof w->slot);
}

void metrics_window_now(metrics_window_t *w, uint64_t at_us)
{
    if (at_us > w->now_us)
        w->now_us = at_us;
}

void metrics_window_slice(metrics_window_t *w, const char *name, uint64_t end_us, uint64_t self_us)
{
    metrics_window_now(w, end_us);
    uint32_t *slot = &w->slot[find_slot(w, name)];
    if (*slot == 0) {
        if (w->n == METRICS_WINDOW_NAMES || strlen(name) >= STATS_TEXT_MAX)
            return;
        if (w->n == w->cap) {
            size_t cap = w->cap ? w->cap * 2 : 16;
            win_name_t *b = realloc(w->names, cap * sizeof *b);
            if (b == NULL)
                return;
            w->names = b;
            w->cap = cap;
        }
        win_name_t *nm = &w->names[w->n];
        memset(nm, 0, sizeof *nm);
        memcpy(nm->name, name, strlen(name) + 1);
        *slot = (uint32_t)++w->n;
    }
    win_name_t *nm = &w->names[*slot - 1];
    uint64_t sec = end_us / 1000000u;
    unsigned i = (unsigned)(sec % METRICS_WINDOW_S);
    if (nm->second[i] != sec + 1) {
        nm->second[i] = sec + 1;
        nm->max[i] = 0;
    }
    if (self_us > nm->max[i])
        nm->max[i] = self_us;
}

int64_t metrics_window_max(const metrics_window_t *w, const char *name)
{
    uint32_t slot = w->slot[find_slot(w, name)];
    if (slot == 0)
        return -1;
    const win_name_t *nm = &w->names[slot - 1];
    uint64_t now = w->now_us / 1000000u, max = 0;
    for (unsigned i = 0; i < METRICS_WINDOW_S; i++) {
        uint64_t sec = nm->second[i];
        /* the current second and the ones before it inside the window (never a later one) */
        if (sec != 0 && sec - 1 <= now && sec - 1 + METRICS_WINDOW_S > now && nm->max[i] > max)
            max = nm->max[i];
    }
    return (int64_t)max;
}

/* ---- the observer: the slices and the time reached, everything passed on ---- */

static void watch_slice(void *user, const pipeline_slice_t *sl)
{
    metrics_window_t *w = user;
    if (sl->task.name != NULL)
        metrics_window_slice(w, sl->task.name, sl->end_us, sl->self_us);
    else
        metrics_window_now(w, sl->end_us);
    if (w->next != NULL && w->next->slice != NULL)
        w->next->slice(w->next_user, sl);
}

static void watch_event(void *user, uint64_t at_us)
{
    metrics_window_t *w = user;
    metrics_window_now(w, at_us);
    if (w->next != NULL && w->next->event != NULL)
        w->next->event(w->next_user, at_us);
}

static void watch_mark(void *user, pipeline_mark_t mark, uint64_t at_us, uint64_t count)
{
    metrics_window_t *w = user;
    metrics_window_now(w, at_us);
    if (w->next != NULL && w->next->mark != NULL)
        w->next->mark(w->next_user, mark, at_us, count);
}

static void watch_text_line(void *user, uint64_t at_us, const char *line)
{
    metrics_window_t *w = user;
    w->next->text_line(w->next_user, at_us, line);
}

static void watch_late(void *user, const pipeline_late_t *late)
{
    metrics_window_t *w = user;
    w->next->late(w->next_user, late);
}

static void watch_span(void *user, const pipeline_span_t *span)
{
    metrics_window_t *w = user;
    w->next->span(w->next_user, span);
}

_Static_assert(sizeof(pipeline_observer_t) == 6 * sizeof(void (*)(void)),
    "pipeline_observer_t has a member the metrics' window does not pass on");

const pipeline_observer_t *metrics_window_observer(metrics_window_t *w, const pipeline_observer_t *next,
    void *next_user)
{
    w->next = next;
    w->next_user = next_user;
    /* the time reached comes with every event; the others only when next wants them */
    w->watch = (pipeline_observer_t){
        .slice = watch_slice,
        .event = watch_event,
        .mark = watch_mark,
        .text_line = next != NULL && next->text_line != NULL ? watch_text_line : NULL,
        .late = next != NULL && next->late != NULL ? watch_late : NULL,
        .span = next != NULL && next->span != NULL ? watch_span : NULL,
    };
    return &w->watch;
}
