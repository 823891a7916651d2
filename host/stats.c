#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aioprof_wire.h"
#include "escape.h"

static const stats_figures_t figures_empty = {0, 0, 0, UINT64_MAX, 0, 0};

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

static uint32_t fnv_add(uint32_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h;
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
}

/* What stats_init and stats_clear both do once the memory is there: the empty tables. */
static void stats_start(stats_t *s)
{
    s->other_row = s->unnamed_row = -1;
    memset(s->name_table, 0xFF, (s->name_mask + 1) * sizeof *s->name_table);
    memset(s->recent, 0xFF, sizeof s->recent);
    for (size_t i = 0; i <= s->table_mask; i++) {
        s->table[i].idx = -1;
    }
}

int stats_init(stats_t *s, size_t instance_cap, uint64_t slow_us)
{
    memset(s, 0, sizeof *s);
    if (instance_cap == 0) {
        instance_cap = STATS_INSTANCE_CAP_DEFAULT;
    }
    if (instance_cap < STATS_INSTANCE_CAP_MIN) {
        instance_cap = STATS_INSTANCE_CAP_MIN;
    }
    s->slow_us = slow_us;
    s->inst_cap = instance_cap;
    s->table_mask = pow2_at_least(instance_cap * 2) - 1;
    s->name_mask = pow2_at_least(STATS_NAME_CAP * 2) - 1;
    /* the name rows grow as names come (most sessions have a handful, not STATS_NAME_CAP); two
     * more than are used are always there, for the special rows */
    s->names_cap = STATS_NAMES_FIRST;
    s->names = calloc(s->names_cap, sizeof *s->names);
    s->name_table = malloc((s->name_mask + 1) * sizeof *s->name_table);
    s->inst = calloc(instance_cap, sizeof *s->inst);
    s->free_list = malloc(instance_cap * sizeof *s->free_list);
    s->table = malloc((s->table_mask + 1) * sizeof *s->table);
    s->finished = malloc(instance_cap * sizeof *s->finished);
    s->finished_order = malloc(instance_cap * sizeof *s->finished_order);
    if (!s->names || !s->name_table || !s->inst || !s->free_list || !s->table || !s->finished ||
        !s->finished_order) {
        stats_free(s);
        return -1;
    }
    stats_start(s);
    return 0;
}

void stats_clear(stats_t *s)
{
    /* the rows used go back to zero, as calloc gave them; the others never left it */
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
    s->free_list = kept.free_list;
    s->table = kept.table;
    s->table_mask = kept.table_mask;
    s->finished = kept.finished;
    s->finished_order = kept.finished_order;
    stats_start(s);
}

void stats_free(stats_t *s)
{
    free(s->names);
    free(s->name_table);
    free(s->inst);
    free(s->free_list);
    free(s->table);
    free(s->finished);
    free(s->finished_order);
    memset(s, 0, sizeof *s);
}

/* ---- names ---- */

static int32_t special_row(stats_t *s, int32_t *row, stats_row_kind_t kind, const char *text)
{
    if (*row < 0) {
        *row = (int32_t)s->n_names++;
        stats_name_t *n = &s->names[*row];
        snprintf(n->name, sizeof n->name, "%s", text);
        n->f = figures_empty;
        n->kind = (uint8_t)kind;
    }
    return *row;
}

/* Room for one more name row beside the two special ones: the rows are grown when needed.
 * Returns 0, or -1 when they cannot grow (the name goes to "(other names)", which fits). */
static int names_room(stats_t *s)
{
    size_t need = s->n_names + 1 + (s->other_row < 0) + (s->unnamed_row < 0);
    if (need <= s->names_cap) {
        return 0;
    }
    size_t cap = s->names_cap * 2 < STATS_NAME_CAP + 2 ? s->names_cap * 2 : STATS_NAME_CAP + 2;
    stats_name_t *grown = cap > s->names_cap ? realloc(s->names, cap * sizeof *grown) : NULL;
    if (grown == NULL) {
        return -1;
    }
    memset(grown + s->names_cap, 0, (cap - s->names_cap) * sizeof *grown);
    s->names = grown;
    s->names_cap = cap;
    return 0;
}

/* The row of an escaped name, created when new; past the cap, "(other names)". */
static int32_t name_row(stats_t *s, const char *name)
{
    size_t len = strlen(name);
    uint32_t h = fnv_add(2166136261u, (const uint8_t *)name, len);
    size_t i = h & s->name_mask;
    while (s->name_table[i] >= 0) {
        stats_name_t *n = &s->names[s->name_table[i]];
        if (n->hash == h && strcmp(n->name, name) == 0) {
            return s->name_table[i];
        }
        i = (i + 1) & s->name_mask;
    }
    size_t named = s->n_names - (s->other_row >= 0) - (s->unnamed_row >= 0);
    if (named >= STATS_NAME_CAP || names_room(s) < 0) {
        return special_row(s, &s->other_row, STATS_ROW_OTHER, "(other names)");
    }
    int32_t idx = (int32_t)s->n_names++;
    stats_name_t *n = &s->names[idx];
    memcpy(n->name, name, len + 1);
    n->hash = h;
    n->f = figures_empty;
    n->kind = STATS_ROW_NAME;
    s->name_table[i] = idx;
    return idx;
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

const char *stats_parent_name(const stats_t *s, const stats_instance_t *in)
{
    int32_t pn = in->parent_name;
    if (pn < 0 && in->parent != 0) {
        /* the creator was unnamed when this one was described: it may have its name now */
        int32_t p = instance_find(s, in->epoch, in->parent);
        pn = p >= 0 ? s->inst[p].name : -1;
    }
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
    return !in->created_seen && in->loss_first != 0;
}

/* Folds an instance row away: its name row holds its totals already; an unnamed one goes to
 * "(unnamed tasks)". */
static void instance_fold(stats_t *s, int32_t idx)
{
    stats_instance_t *in = &s->inst[idx];
    int lower = stats_instance_lower_bound(s, in);
    if (in->name >= 0) {
        s->names[in->name].lower_bound |= (uint8_t)lower;
    } else {
        stats_name_t *u = &s->names[special_row(s, &s->unnamed_row, STATS_ROW_UNNAMED, "(unnamed tasks)")];
        figures_merge(&u->f, &in->f);
        u->instances++;
        u->lower_bound |= (uint8_t)lower;
    }
    table_remove(s, in->key);
    in->in_use = 0;
    s->folded_instances++;
}

/* A row to reuse when all are taken: the oldest finished instance, else the next one round the
 * clock that is not running. One always exists: the running stack is far shorter than the cap. */
static int32_t instance_victim(stats_t *s)
{
    while (s->fin_len > 0) {
        int32_t idx = s->finished[s->fin_head];
        uint32_t order = s->finished_order[s->fin_head];
        s->fin_head = (s->fin_head + 1) % s->inst_cap;
        s->fin_len--;
        stats_instance_t *in = &s->inst[idx];
        if (in->in_use && in->order == order && in->end != STATS_END_LIVE && in->on_stack == 0) {
            return idx;
        }
    }
    for (size_t n = 0; n < 2 * s->inst_used; n++) {
        size_t i = s->clock_hand++ % s->inst_used;
        if (s->inst[i].in_use && s->inst[i].on_stack == 0) {
            return (int32_t)i;
        }
    }
    return -1;
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
    } else {
        idx = instance_victim(s);
        if (idx < 0) {
            return -1;
        }
        instance_fold(s, idx);
        /* the removal may have moved entries: find the empty slot again */
        for (i = key_home(s, key); s->table[i].idx >= 0; i = (i + 1) & s->table_mask) {
        }
    }
    stats_instance_t *in = &s->inst[idx];
    memset(in, 0, sizeof *in);
    in->key = key;
    in->id = id;
    in->epoch = s->epoch;
    in->f = figures_empty;
    in->name = in->parent_name = -1;
    in->loss_first = in->loss_end = s->loss_serial;
    in->order = s->next_order++;
    in->in_use = 1;
    s->table[i].key = key;
    s->table[i].idx = idx;
    return idx;
}

void stats_instance_describe(stats_t *s, int32_t idx, const uint8_t *name, size_t name_len, const uint8_t *label,
    size_t label_len, uint32_t parent, int created)
{
    stats_instance_t *in = &s->inst[idx];
    if (created) {
        in->created_seen = 1;
    }
    /* the device repeats names every announcement period: most calls end here */
    uint8_t sep[5] = {0xFF, (uint8_t)parent, (uint8_t)(parent >> 8), (uint8_t)(parent >> 16), (uint8_t)(parent >> 24)};
    uint32_t h = fnv_add(fnv_add(fnv_add(2166136261u, name, name_len), sep, sizeof sep), label, label_len) | 1u;
    if (in->described == h) {
        return;
    }
    in->described = h;

    char text[STATS_TEXT_MAX];
    escape_bytes(text, sizeof text, name, name_len > AIOPROF_NAME_MAX ? AIOPROF_NAME_MAX : name_len, 0);
    int32_t row = name_row(s, text);
    if (in->name < 0) {
        /* its slices so far move to the name row */
        figures_merge(&s->names[row].f, &in->f);
        s->names[row].instances++;
    } else if (in->name != row) {
        /* renamed (not done by the device): the old row keeps what it counted */
        s->names[row].instances++;
    }
    in->name = row;
    escape_bytes(in->label, sizeof in->label, label, label_len > AIOPROF_NAME_MAX ? AIOPROF_NAME_MAX : label_len, 0);
    in->parent = parent;
    in->parent_name = -1;
    if (parent != 0) {
        int32_t p = stats_instance_find(s, parent);
        if (p >= 0) {
            in->parent_name = s->inst[p].name;
        }
    }
}

void stats_instance_end(stats_t *s, int32_t idx, unsigned exit_kind)
{
    stats_instance_t *in = &s->inst[idx];
    if (in->end != STATS_END_LIVE || exit_kind == AIOPROF_EXIT_YIELD) {
        return;
    }
    in->end = (uint8_t)(exit_kind == AIOPROF_EXIT_RETURN ? STATS_END_RETURN :
                        exit_kind == AIOPROF_EXIT_RAISE  ? STATS_END_RAISE :
                                                           STATS_END_CANCEL);
    in->loss_end = s->loss_serial;
    if (in->end != STATS_END_RETURN) {
        in->f.errors++;
        if (in->name >= 0) {
            s->names[in->name].f.errors++;
        }
    }
    if (s->fin_len == s->inst_cap) {
        /* the FIFO is full of stale entries: the oldest goes, the clock still finds it */
        s->fin_head = (s->fin_head + 1) % s->inst_cap;
        s->fin_len--;
    }
    size_t tail = (s->fin_head + s->fin_len) % s->inst_cap;
    s->finished[tail] = idx;
    s->finished_order[tail] = in->order;
    s->fin_len++;
}

void stats_new_epoch(stats_t *s)
{
    /* the rows of the old epoch stay (finished or not, they are history); lookups by the new ids
     * no longer reach them */
    s->epoch++;
}

void stats_reset(stats_t *s)
{
    for (size_t i = 0; i < s->n_names; i++) {
        s->names[i].f = figures_empty;
        s->names[i].instances = 0;
        s->names[i].lower_bound = 0;
    }
    s->fin_head = s->fin_len = 0;
    for (size_t i = 0; i < s->inst_used; i++) {
        stats_instance_t *in = &s->inst[i];
        if (!in->in_use) {
            continue;
        }
        int current = in->epoch == s->epoch && in->end == STATS_END_LIVE;
        if (!current && in->on_stack == 0) {
            table_remove(s, in->key);
            in->in_use = 0;
            s->free_list[s->n_free++] = (int32_t)i;
            continue;
        }
        in->f = figures_empty;
        in->loss_first = in->loss_end = s->loss_serial;
        in->created_seen = 1; /* nothing of it since the reset was missed */
        if (in->name >= 0) {
            s->names[in->name].instances++;
        }
    }
    s->elapsed_us = s->outside_us = 0;
    s->folded_instances = 0;
}

/* ---- views ---- */

const char *stats_end_name(const stats_t *s, const stats_instance_t *in)
{
    switch (in->end) {
    case STATS_END_RETURN: return "returned";
    case STATS_END_RAISE: return "raised";
    case STATS_END_CANCEL: return "cancelled";
    default: return in->epoch == s->epoch ? "live" : "unknown";
    }
}

double stats_overhead_part(const stats_t *s, int drain, int events)
{
    const stats_device_t *d = &s->device;
    if (d->drain_span_us == 0) {
        return -1.0;
    }
    return ((drain ? (double)d->drain_sum_us : 0.0) + (events ? d->event_sum_us : 0.0)) / (double)d->drain_span_us;
}

double stats_overhead(const stats_t *s)
{
    return stats_overhead_part(s, 1, 1);
}

double stats_event_cost_ns(const stats_t *s)
{
    const stats_device_t *d = &s->device;
    if (!d->have_hello || d->event_cost == 0 || d->tick_hz == 0) {
        return -1.0;
    }
    return (double)d->event_cost * 1e9 / 1024.0 / (double)d->tick_hz;
}

static double row_mean(const stats_row_t *r)
{
    return r->f.count ? (double)r->f.total_us / (double)r->f.count : 0.0;
}

/* qsort has no context argument in C11: the key of the sort under way (views run on one thread) */
static stats_sort_t sort_key;

static int row_compare(const void *a, const void *b)
{
    const stats_row_t *x = a, *y = b;
    double dx = 0, dy = 0;
    switch (sort_key) {
    case STATS_SORT_TOTAL: dx = (double)x->f.total_us; dy = (double)y->f.total_us; break;
    case STATS_SORT_COUNT: dx = (double)x->f.count; dy = (double)y->f.count; break;
    case STATS_SORT_MAX: dx = (double)x->f.max_us; dy = (double)y->f.max_us; break;
    case STATS_SORT_MEAN: dx = row_mean(x); dy = row_mean(y); break;
    case STATS_SORT_NAME: break;
    }
    if (dx != dy) {
        return dx < dy ? 1 : -1;
    }
    int c = strcmp(x->name, y->name);
    if (c != 0) {
        return c;
    }
    uint64_t kx = x->inst ? x->inst->key : 0, ky = y->inst ? y->inst->key : 0;
    return kx < ky ? -1 : kx > ky;
}

#define ROW_OWN_NAME 24 /* "task #4294967295" */

static void row_of_instance(const stats_t *s, const stats_instance_t *in, stats_row_t *r, char *own)
{
    memset(r, 0, sizeof *r);
    r->inst = in;
    r->f = in->f;
    r->instances = 1;
    r->kind = STATS_ROW_NAME;
    r->lower_bound = stats_instance_lower_bound(s, in);
    if (in->name >= 0) {
        r->name = s->names[in->name].name;
    } else {
        snprintf(own, ROW_OWN_NAME, "task #%lu", (unsigned long)in->id);
        r->name = own;
    }
    r->parent_name = stats_parent_name(s, in);
}

stats_row_t *stats_rows(const stats_t *s, int by_instance, stats_sort_t sort, size_t *n)
{
    size_t cap = s->n_names + s->inst_used + 1;
    /* the rows, then the names made up for unnamed instances: sorting moves rows, not names */
    stats_row_t *rows = malloc(cap * (sizeof *rows + ROW_OWN_NAME));
    char *own = (char *)(rows + cap);
    *n = 0;
    if (!rows) {
        return NULL;
    }
    /* a name row is a lower bound when any of its instances is */
    uint8_t *lower = calloc(s->n_names + 1, 1);
    if (!lower) {
        free(rows);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->inst_used; i++) {
        const stats_instance_t *in = &s->inst[i];
        if (!in->in_use) {
            continue;
        }
        if (in->name >= 0 && stats_instance_lower_bound(s, in)) {
            lower[in->name] = 1;
        }
        if (by_instance || in->name < 0) {
            if (!by_instance && in->f.count == 0 && in->f.errors == 0) {
                continue;
            }
            row_of_instance(s, in, &rows[k], own + k * ROW_OWN_NAME);
            k++;
        }
    }
    if (!by_instance) {
        for (size_t i = 0; i < s->n_names; i++) {
            const stats_name_t *nm = &s->names[i];
            if (nm->f.count == 0 && nm->instances == 0) {
                continue;
            }
            stats_row_t *r = &rows[k++];
            memset(r, 0, sizeof *r);
            r->name = nm->name;
            r->f = nm->f;
            r->instances = nm->instances;
            r->kind = (stats_row_kind_t)nm->kind;
            r->lower_bound = nm->lower_bound || lower[i];
        }
    }
    free(lower);
    sort_key = sort;
    if (k > 1) {
        qsort(rows, k, sizeof *rows, row_compare);
    }
    *n = k;
    return rows;
}
