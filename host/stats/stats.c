/* The aggregator's instance rows (stats.h): placed, described, ended, folded and reset. */
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aioprof_wire.h"
#include "escape.h"
#include "stats_private.h"
#include "stats_spans.h"

static const stats_figures_t figures_empty = {.min_us = UINT64_MAX};
/* The key of a row given up: no lookup has it (the 2^32-1st epoch's task 2^32-1). */
#define STATS_KEY_NONE UINT64_MAX

static size_t pow2_at_least(size_t n)
{
    size_t p = 16;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

static size_t key_home(const stats_t *s, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & s->table_mask;
}

static void figures_merge(stats_figures_t *dst, const stats_figures_t *src)
{
    dst->count += src->count;
    dst->total_us += src->total_us;
    if (src->max_us > dst->max_us) {
        dst->max_us = src->max_us;
    }
    if (src->min_us < dst->min_us) {
        dst->min_us = src->min_us;
    }
    dst->slow += src->slow;
    dst->errors += src->errors;
    stats_figures_mem(dst, src->alloc, src->gc_count, src->gc_us);
}

/* The empty label every row starts with: never freed. */
static const char label_none[] = "";

static void label_drop(stats_instance_t *in)
{
    if (in->label != NULL && in->label != label_none) {
        free((char *)in->label);
    }
    in->label = label_none;
}

/* What stats_init and stats_clear both do once the memory is there: the empty tables. */
static void stats_start(stats_t *s)
{
    s->other_row = s->unnamed_row = s->past_cap_row = s->gc_row = -1;
    memset(&s->mem_outside, 0, sizeof s->mem_outside);
    s->past_cap = -1;
    memset(s->name_table, 0xFF, (s->name_mask + 1) * sizeof *s->name_table);
    for (size_t i = 0; i < STATS_RECENT; i++) {
        s->recent[i] = &s->inst[0]; /* its key is 0 until it is placed: no lookup has id 0 */
    }
    for (size_t i = 0; i <= s->table_mask; i++) {
        s->table[i].idx = -1;
    }
}

int stats_init(stats_t *s, size_t instance_cap, uint64_t slow_us)
{
    memset(s, 0, sizeof *s);
    stats_hist_small_fill();
    if (instance_cap == 0) {
        instance_cap = STATS_INSTANCE_CAP_DEFAULT;
    }
    if (instance_cap < STATS_INSTANCE_CAP_MIN) {
        instance_cap = STATS_INSTANCE_CAP_MIN;
    }
    s->slow_us = slow_us;
    s->inst_cap = instance_cap;
    s->live_max = instance_cap * STATS_LIVE_FACTOR;
    /* the most rows there may ever be, and one more for "(tasks past the cap)": taken from the
     * system as they are first used (calloc of this size maps zero pages), and never moved, so
     * that a row's address holds while its slice runs */
    s->inst_alloc = s->live_max + 1;
    s->table_mask = pow2_at_least(instance_cap * 2) - 1;
    s->name_mask = pow2_at_least(STATS_NAME_CAP * 2) - 1;
    /* the name rows grow as names come (most sessions have a handful, not STATS_NAME_CAP); four
     * more than are used are always there, for the special rows */
    s->names_cap = STATS_NAMES_FIRST;
    s->names = calloc(s->names_cap, sizeof *s->names);
    s->name_table = malloc((s->name_mask + 1) * sizeof *s->name_table);
    s->inst = calloc(s->inst_alloc, sizeof *s->inst);
    s->free_list = malloc(s->inst_alloc * sizeof *s->free_list);
    s->table = malloc((s->table_mask + 1) * sizeof *s->table);
    s->finished = malloc(s->inst_alloc * sizeof *s->finished);
    s->finished_order = malloc(s->inst_alloc * sizeof *s->finished_order);
    s->dirty = malloc(s->inst_alloc * sizeof *s->dirty);
    if (!s->names || !s->name_table || !s->inst || !s->free_list || !s->table || !s->finished ||
        !s->finished_order || !s->dirty) {
        stats_free(s);
        return -1;
    }
    stats_start(s);
    return 0;
}

void stats_clear(stats_t *s)
{
    /* the rows used go back to zero, as calloc gave them; the others never left it */
    for (size_t i = 0; i < s->inst_used; i++) {
        label_drop(&s->inst[i]);
        stats_late_drop(&s->inst[i].late);
        stats_hist_drop(&s->inst[i].slices);
        stats_hist_drop(&s->inst[i].moved);
    }
    for (size_t i = 0; i < s->n_names; i++) {
        stats_late_drop(&s->names[i].late);
        stats_late_drop(&s->names[i].folded);
        stats_late_drop(&s->names[i].ended);
        stats_hist_drop(&s->names[i].slices);
    }
    stats_late_free(s);
    stats_late_drop(&s->view_unnamed_late);
    stats_spans_free(s);
    memset(s->names, 0, s->n_names * sizeof *s->names);
    memset(s->inst, 0, s->inst_used * sizeof *s->inst);
    stats_t kept = *s;
    memset(s, 0, sizeof *s);
    s->slow_us = kept.slow_us;
    s->names = kept.names;
    s->names_cap = kept.names_cap;
    s->name_table = kept.name_table;
    s->name_mask = kept.name_mask;
    s->inst = kept.inst;
    s->inst_cap = kept.inst_cap;
    s->inst_alloc = kept.inst_alloc;
    s->live_max = kept.live_max;
    s->free_list = kept.free_list;
    s->table = kept.table;
    s->table_mask = kept.table_mask;
    s->finished = kept.finished;
    s->finished_order = kept.finished_order;
    s->dirty = kept.dirty;
    s->pinned = kept.pinned;
    s->pinned_user = kept.pinned_user;
    stats_start(s);
}

void stats_free(stats_t *s)
{
    for (size_t i = 0; s->inst != NULL && i < s->inst_used; i++) {
        label_drop(&s->inst[i]);
        stats_late_drop(&s->inst[i].late);
        stats_hist_drop(&s->inst[i].slices);
        stats_hist_drop(&s->inst[i].moved);
    }
    for (size_t i = 0; s->names != NULL && i < s->n_names; i++) {
        stats_late_drop(&s->names[i].late);
        stats_late_drop(&s->names[i].folded);
        stats_late_drop(&s->names[i].ended);
        stats_hist_drop(&s->names[i].slices);
    }
    stats_late_free(s);
    stats_late_drop(&s->view_unnamed_late);
    stats_spans_free(s);
    free(s->names);
    free(s->name_table);
    free(s->inst);
    free(s->free_list);
    free(s->table);
    free(s->finished);
    free(s->finished_order);
    free(s->dirty);
    memset(s, 0, sizeof *s);
}

static int pinned(const stats_t *s, const stats_instance_t *in)
{
    return s->pinned != NULL && s->pinned(s->pinned_user, in);
}

/* ---- the instance table ---- */

/* The row of task id in epoch, or -1. */
static int32_t instance_find(const stats_t *s, uint32_t epoch, uint32_t id)
{
    uint64_t key = (uint64_t)epoch << 32 | id;
    for (size_t i = key_home(s, key);; i = (i + 1) & s->table_mask) {
        const stats_slot_t *slot = &s->table[i];
        if (slot->idx < 0) {
            return -1;
        }
        if (slot->key == key) {
            return slot->idx;
        }
    }
}

int32_t stats_instance_find(const stats_t *s, uint32_t id)
{
    return instance_find(s, s->epoch, id);
}

int32_t stats_parent_row(const stats_t *s, const stats_instance_t *in)
{
    int32_t pn = in->parent_name;
    if (pn < 0 && in->parent != 0) {
        /* the creator was unnamed when this one was described: it may have its name now */
        int32_t p = instance_find(s, in->epoch, in->parent);
        pn = p >= 0 ? s->inst[p].name : -1;
    }
    return pn;
}

const char *stats_parent_name(const stats_t *s, const stats_instance_t *in)
{
    int32_t pn = stats_parent_row(s, in);
    return pn >= 0 ? s->names[pn].name : NULL;
}

/* Linear probing removal by shifting the following entries back (no tombstones: the table stays
 * fast however many instances come and go). */
static void table_remove(stats_t *s, uint64_t key)
{
    size_t i = key_home(s, key);
    while (s->table[i].idx >= 0 && s->table[i].key != key) {
        i = (i + 1) & s->table_mask;
    }
    if (s->table[i].idx < 0) {
        return;
    }
    size_t j = i;
    for (;;) {
        j = (j + 1) & s->table_mask;
        if (s->table[j].idx < 0) {
            break;
        }
        size_t k = key_home(s, s->table[j].key);
        /* the entry at j may move to i when its home is not in (i, j] (cyclically) */
        int stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            s->table[i] = s->table[j];
            i = j;
        }
    }
    s->table[i].idx = -1;
}

int stats_instance_lower_bound(const stats_t *s, const stats_instance_t *in)
{
    uint64_t end = in->end == STATS_END_LIVE ? s->loss_serial : in->loss_end;
    if (end != in->loss_first) {
        return 1;
    }
    /* first seen without its creation after a loss, or after tasks went past the cap (it may be
     * one of them, its slices so far in "(tasks past the cap)") */
    return !in->created_seen &&
        (in->loss_first != 0 || (s->past_cap >= 0 && in->order > s->inst[s->past_cap].order));
}

/* Folds an instance row away: its name row holds its totals already; an unnamed one goes to
 * "(unnamed tasks)". */
static void instance_fold(stats_t *s, int32_t idx)
{
    stats_instance_t *in = &s->inst[idx];
    stats_instance_sync(s, in);
    int lower = stats_instance_lower_bound(s, in);
    if (in->name >= 0) {
        s->names[in->name].lower_bound |= (uint8_t)lower;
        stats_hist_merge(&s->names[in->name].slices, &in->slices);
        if (in->late_ended) {
            stats_late_unend(s, in); /* folded whole, below */
        }
        stats_late_fold(s, &s->names[in->name], &in->late);
    } else {
        stats_name_t *u = &s->names[stats_special_row(s, &s->unnamed_row, STATS_ROW_UNNAMED, "(unnamed tasks)")];
        figures_merge(&u->f, &in->f);
        stats_late_fold(s, u, &in->late);
        stats_hist_merge(&u->slices, &in->slices);
        u->instances++;
        u->lower_bound |= (uint8_t)lower;
    }
    table_remove(s, in->key);
    label_drop(in);
    stats_late_drop(&in->late);
    stats_hist_drop(&in->slices);
    stats_hist_drop(&in->moved);
    in->in_use = 0;
    in->key = STATS_KEY_NONE;
    s->folded_instances++;
}

void stats_instance_settle(stats_t *s, stats_instance_t *in)
{
    if (in->name < 0 || in->slices.len == 0 || !stats_instance_over(s, in) ||
        !stats_hist_merge(&s->names[in->name].slices, &in->slices)) {
        return;
    }
    if (in->moved.len == 0) {
        /* nearly always: the histogram itself moves */
        stats_hist_drop(&in->moved);
        in->moved = in->slices;
        memset(&in->slices, 0, sizeof in->slices);
    } else {
        /* slices after its end (a stream that resumed a task it said ended) */
        stats_hist_merge(&in->moved, &in->slices);
        stats_hist_drop(&in->slices);
    }
}

/* May the row be folded? A finished instance, or one of a device that restarted since (it can
 * never run again); never one on the running stack, never "(tasks past the cap)". */
static int foldable(const stats_t *s, int32_t idx)
{
    const stats_instance_t *in = &s->inst[idx];
    return in->in_use && idx != s->past_cap && (in->end != STATS_END_LIVE || in->epoch != s->epoch) &&
        !pinned(s, in);
}

/* Adds a row that may be folded to the end of the ring. When the ring is full, its stale entries
 * (rows placed again since, or no longer foldable) go first. */
static void finished_push(stats_t *s, int32_t idx)
{
    if (s->fin_len == s->inst_alloc) {
        size_t kept = 0;
        for (size_t k = 0; k < s->fin_len; k++) {
            size_t at = (s->fin_head + k) % s->inst_alloc;
            int32_t i = s->finished[at];
            if (s->inst[i].order == s->finished_order[at] && foldable(s, i)) {
                s->finished[kept] = i;
                s->finished_order[kept++] = s->finished_order[at];
            }
        }
        s->fin_head = 0;
        s->fin_len = kept;
        if (kept == s->inst_alloc) {
            return; /* cannot happen: a row is in the ring once per placement */
        }
    }
    size_t tail = (s->fin_head + s->fin_len) % s->inst_alloc;
    s->finished[tail] = idx;
    s->finished_order[tail] = s->inst[idx].order;
    s->fin_len++;
}

/* The oldest row in the ring that may still be folded, or -1. */
static int32_t instance_victim(stats_t *s)
{
    while (s->fin_len > 0) {
        int32_t idx = s->finished[s->fin_head];
        uint32_t order = s->finished_order[s->fin_head];
        s->fin_head = (s->fin_head + 1) % s->inst_alloc;
        s->fin_len--;
        if (s->inst[idx].order == order && foldable(s, idx)) {
            return idx;
        }
    }
    return -1;
}

/* The key table, twice as large when the rows placed reach half its slots (its load stays under
 * a half). Returns 0, or -1 when out of memory. */
static int table_room(stats_t *s)
{
    if (2 * (s->inst_used + 1) <= s->table_mask + 1) {
        return 0;
    }
    size_t slots = (s->table_mask + 1) * 2, mask = slots - 1;
    stats_slot_t *table = malloc(slots * sizeof *table);
    if (table == NULL) {
        return -1;
    }
    for (size_t i = 0; i < slots; i++) {
        table[i].idx = -1;
    }
    for (size_t j = 0; j <= s->table_mask; j++) {
        if (s->table[j].idx >= 0) {
            size_t i = (size_t)((s->table[j].key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
            while (table[i].idx >= 0) {
                i = (i + 1) & mask;
            }
            table[i] = s->table[j];
        }
    }
    free(s->table);
    s->table = table;
    s->table_mask = mask;
    return 0;
}

/* A new row at idx for key. */
static void instance_place(stats_t *s, int32_t idx, uint64_t key)
{
    stats_instance_t *in = &s->inst[idx];
    memset(in, 0, sizeof *in);
    in->key = key;
    in->id = (uint32_t)key;
    in->epoch = (uint32_t)(key >> 32);
    in->f = figures_empty;
    in->name = in->parent_name = -1;
    in->label = label_none;
    in->loss_first = in->loss_end = s->loss_serial;
    in->order = s->next_order++;
    in->in_use = 1;
}

/* "(tasks past the cap)": one instance row, never folded, never ended, for every task that found
 * no row; its name row is the special one. -1 only when out of memory. */
static int32_t instance_past_cap(stats_t *s)
{
    if (s->past_cap < 0) {
        int32_t idx;
        if (s->n_free > 0) {
            idx = s->free_list[--s->n_free];
        } else if (s->inst_used < s->inst_alloc) {
            idx = (int32_t)s->inst_used++;
        } else {
            return -1; /* cannot be: the last row is kept for it */
        }
        /* id 0, which no task has: it is never in the table, never looked up by id */
        instance_place(s, idx, (uint64_t)s->epoch << 32);
        s->inst[idx].name = stats_special_row(s, &s->past_cap_row, STATS_ROW_OTHER, "(tasks past the cap)");
        s->inst[idx].created_seen = 1;
        s->names[s->inst[idx].name].lower_bound = 1; /* the tasks it holds are not all counted */
        s->past_cap = idx;
    }
    return s->past_cap;
}

int32_t stats_instance_get(stats_t *s, uint32_t id)
{
    uint64_t key = (uint64_t)s->epoch << 32 | id;
    size_t i = key_home(s, key);
    for (; s->table[i].idx >= 0; i = (i + 1) & s->table_mask) {
        if (s->table[i].key == key) {
            return s->table[i].idx;
        }
    }
    int32_t idx;
    if (s->n_free > 0) {
        idx = s->free_list[--s->n_free];
    } else if (s->inst_used < s->inst_cap) {
        idx = (int32_t)s->inst_used++;
    } else if ((idx = instance_victim(s)) >= 0) {
        instance_fold(s, idx);
    } else if (s->inst_used < s->live_max && table_room(s) == 0) {
        /* every row holds a live instance: they are never folded, more rows are taken */
        idx = (int32_t)s->inst_used++;
    } else {
        /* more live tasks than the rows may hold: counted apart, and said */
        return instance_past_cap(s);
    }
    /* folding or growing may have moved the table's entries: find the empty slot again */
    for (i = key_home(s, key); s->table[i].idx >= 0; i = (i + 1) & s->table_mask) {
    }
    instance_place(s, idx, key);
    s->table[i].key = key;
    s->table[i].idx = idx;
    return idx;
}

void stats_instance_describe(stats_t *s, int32_t idx, const uint8_t *name, size_t name_len, const uint8_t *label,
    size_t label_len, uint32_t parent, int created)
{
    stats_instance_t *in = &s->inst[idx];
    if (idx == s->past_cap) {
        /* a task past the cap: its name row lacks its slices and its count */
        char text[STATS_TEXT_MAX];
        escape_bytes(text, sizeof text, name, name_len > AIOPROF_NAME_MAX ? AIOPROF_NAME_MAX : name_len, ESCAPE_NAME);
        s->names[stats_name_row(s, text)].lower_bound = 1;
        return;
    }
    if (created) {
        in->created_seen = 1;
    }
    /* the device repeats names every announcement period: most calls end here */
    uint8_t sep[5] = {0xFF, (uint8_t)parent, (uint8_t)(parent >> 8), (uint8_t)(parent >> 16), (uint8_t)(parent >> 24)};
    uint32_t h = stats_fnv_add(stats_fnv_add(stats_fnv_add(2166136261u, name, name_len), sep, sizeof sep), label, label_len) | 1u;
    if (in->described == h) {
        return;
    }
    in->described = h;

    char text[STATS_TEXT_MAX];
    escape_bytes(text, sizeof text, name, name_len > AIOPROF_NAME_MAX ? AIOPROF_NAME_MAX : name_len, ESCAPE_NAME);
    int32_t row = stats_name_row(s, text);
    if (in->name < 0) {
        /* its slices so far move to the name row (at the next stats_sync: none of them is in a
         * name row yet) */
        s->names[row].instances++;
        in->name = row;
        stats_dirty(s, in);
        /* and its lateness so far, summed with its instances' when a view is made
         * (stats_late_sync) */
        s->names[row].late_stale = 1;
        s->late_stale = 1;
    } else if (in->name != row) {
        /* renamed (not done by the device): the old row keeps what it counted, the new one counts
         * from here on, and so do the instance's own figures */
        stats_instance_sync(s, in);
        stats_hist_merge(&s->names[in->name].slices, &in->slices);
        stats_hist_drop(&in->slices);
        stats_hist_drop(&in->moved); /* the old row holds them already */
        if (in->late_ended) {
            stats_late_unend(s, in);
        }
        stats_late_fold(s, &s->names[in->name], &in->late);
        s->names[row].instances++;
        in->name = row;
        in->f = in->synced = figures_empty;
        stats_late_drop(&in->late);
    }
    char shown[STATS_TEXT_MAX];
    escape_bytes(shown, sizeof shown, label, label_len > AIOPROF_NAME_MAX ? AIOPROF_NAME_MAX : label_len, 0);
    if (strcmp(shown, in->label) != 0) {
        /* a copy of its own, or none: a label that cannot be kept is shown as none */
        label_drop(in);
        char *copy = shown[0] != '\0' ? strdup(shown) : NULL;
        if (copy != NULL) {
            in->label = copy;
        }
    }
    in->parent = parent;
    in->parent_name = -1;
    if (parent != 0) {
        int32_t p = stats_instance_find(s, parent);
        if (p >= 0) {
            in->parent_name = s->inst[p].name;
        }
    }
}

stats_instance_t *stats_instance_miss(stats_t *s, uint32_t id)
{
    int32_t idx = stats_instance_get(s, id);
    if (idx < 0) {
        return NULL;
    }
    /* "(tasks past the cap)" is not cached: its key is no task's */
    return s->recent[id % STATS_RECENT] = &s->inst[idx];
}

void stats_instance_end(stats_t *s, stats_instance_t *in, unsigned exit_kind)
{
    int32_t idx = (int32_t)(in - s->inst);
    if (in->end != STATS_END_LIVE || exit_kind == AIOPROF_EXIT_YIELD || idx == s->past_cap) {
        if (idx == s->past_cap && exit_kind != AIOPROF_EXIT_RETURN && exit_kind != AIOPROF_EXIT_YIELD) {
            in->f.errors++;
            stats_dirty(s, in);
        }
        return;
    }
    in->end = (uint8_t)(exit_kind == AIOPROF_EXIT_RETURN ? STATS_END_RETURN :
                        exit_kind == AIOPROF_EXIT_RAISE  ? STATS_END_RAISE :
                                                           STATS_END_CANCEL);
    in->loss_end = s->loss_serial;
    if (in->end != STATS_END_RETURN) {
        in->f.errors++;
        stats_dirty(s, in);
    }
    finished_push(s, idx);
}

void stats_new_epoch(stats_t *s)
{
    /* the rows of the old epoch stay (finished or not, they are history); lookups by the new ids
     * no longer reach them, and those still live may be folded now, as finished ones */
    s->epoch++;
    stats_spans_epoch(s);
    for (size_t i = 0; i < s->inst_used; i++) {
        const stats_instance_t *in = &s->inst[i];
        if (in->in_use && in->end == STATS_END_LIVE && in->epoch + 1u == s->epoch && (int32_t)i != s->past_cap) {
            finished_push(s, (int32_t)i);
        }
    }
}

void stats_reset(stats_t *s)
{
    stats_sync(s);
    for (size_t i = 0; i < s->n_names; i++) {
        s->names[i].f = figures_empty;
        s->names[i].instances = 0;
        s->names[i].lower_bound = 0;
        s->names[i].late_stale = 0;
        stats_late_drop(&s->names[i].late);
        stats_late_drop(&s->names[i].folded);
        stats_late_drop(&s->names[i].ended);
        stats_hist_drop(&s->names[i].slices);
    }
    s->fin_head = s->fin_len = 0;
    for (size_t i = 0; i < s->inst_used; i++) {
        stats_instance_t *in = &s->inst[i];
        if (!in->in_use) {
            continue;
        }
        int current = (in->epoch == s->epoch && in->end == STATS_END_LIVE) || (int32_t)i == s->past_cap;
        stats_late_drop(&in->late);
        in->late_ended = 0;
        stats_hist_drop(&in->slices);
        stats_hist_drop(&in->moved);
        if (!current && !pinned(s, in)) {
            table_remove(s, in->key);
            label_drop(in);
            in->in_use = 0;
            in->key = STATS_KEY_NONE;
            s->free_list[s->n_free++] = (int32_t)i;
            continue;
        }
        in->f = in->synced = figures_empty;
        in->loss_first = in->loss_end = s->loss_serial;
        in->created_seen = 1; /* nothing of it since the reset was missed */
        if (in->name >= 0) {
            s->names[in->name].instances++;
        }
    }
    s->elapsed_us = s->outside_us = 0;
    memset(&s->mem_outside, 0, sizeof s->mem_outside);
    s->folded_instances = 0;
    stats_spans_reset(s);
}
