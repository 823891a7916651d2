/* The aggregator's name rows (stats.h): made as names come, at most STATS_NAME_CAP of them and the
 * special ones; and their totals, taken in from their instances' figures in batches (stats_sync),
 * so that a slice touches its instance's row only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_private.h"

static const stats_figures_t name_empty = {.min_us = UINT64_MAX};

/* ---- name totals, taken in from the instances in batches ---- */

/* The name row takes in what of in's figures it does not hold yet. */
static void name_take(stats_t *s, stats_instance_t *in)
{
    stats_figures_t *n = &s->names[in->name].f;
    const stats_figures_t *f = &in->f;
    n->count += f->count - in->synced.count;
    n->total_us += f->total_us - in->synced.total_us;
    n->slow += f->slow - in->synced.slow;
    n->errors += f->errors - in->synced.errors;
    stats_figures_mem(n, f->alloc - in->synced.alloc, f->gc_count - in->synced.gc_count, f->gc_us - in->synced.gc_us);
    if (f->max_us > n->max_us) {
        n->max_us = f->max_us;
    }
    if (f->min_us < n->min_us) {
        n->min_us = f->min_us;
    }
    in->synced = *f;
}

/* One instance up to date (before it is folded, renamed or reset). */
void stats_instance_sync(stats_t *s, stats_instance_t *in)
{
    if (in->dirty && in->name >= 0) {
        name_take(s, in);
    }
    in->dirty = 0; /* its entry in the list, if any, is skipped */
}

void stats_sync(stats_t *s)
{
    for (size_t i = 0; i < s->n_dirty; i++) {
        stats_instance_sync(s, s->dirty[i]);
    }
    s->n_dirty = 0;
}

/* ---- names ---- */

int32_t stats_special_row(stats_t *s, int32_t *row, stats_row_kind_t kind, const char *text)
{
    if (*row < 0) {
        *row = (int32_t)s->n_names++;
        stats_name_t *n = &s->names[*row];
        snprintf(n->name, sizeof n->name, "%s", text);
        n->f = name_empty;
        n->kind = (uint8_t)kind;
    }
    return *row;
}

int32_t stats_gc_row(stats_t *s)
{
    return stats_special_row(s, &s->gc_row, STATS_ROW_OTHER, "(gc)");
}

/* Room for one more name row beside the four special ones ("(gc)" too): the rows are grown when needed.
 * Returns 0, or -1 when they cannot grow (the name goes to "(other names)", which fits). */
static int names_room(stats_t *s)
{
    size_t need = s->n_names + 1 + (s->other_row < 0) + (s->unnamed_row < 0) + (s->past_cap_row < 0) + (s->gc_row < 0);
    if (need <= s->names_cap) {
        return 0;
    }
    size_t cap = s->names_cap * 2 < STATS_NAME_CAP + 4 ? s->names_cap * 2 : STATS_NAME_CAP + 4;
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
int32_t stats_name_row(stats_t *s, const char *name)
{
    size_t len = strlen(name);
    uint32_t h = stats_fnv_add(2166136261u, (const uint8_t *)name, len);
    size_t i = h & s->name_mask;
    while (s->name_table[i] >= 0) {
        stats_name_t *n = &s->names[s->name_table[i]];
        if (n->hash == h && strcmp(n->name, name) == 0) {
            return s->name_table[i];
        }
        i = (i + 1) & s->name_mask;
    }
    size_t named = s->n_names - (s->other_row >= 0) - (s->unnamed_row >= 0) - (s->past_cap_row >= 0) - (s->gc_row >= 0);
    if (named >= STATS_NAME_CAP || names_room(s) < 0) {
        return stats_special_row(s, &s->other_row, STATS_ROW_OTHER, "(other names)");
    }
    int32_t idx = (int32_t)s->n_names++;
    stats_name_t *n = &s->names[idx];
    memcpy(n->name, name, len + 1);
    n->hash = h;
    n->f = name_empty;
    n->kind = STATS_ROW_NAME;
    s->name_table[i] = idx;
    return idx;
}

