/* The views' sort keys (sort_key.h). */
#include "sort_key.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name, *alias;
} key_names[SORT_KEY_COUNT] = {
    [SORT_TOTAL] = {"total", NULL},       [SORT_COUNT] = {"count", NULL},
    [SORT_MAX] = {"max", NULL},           [SORT_MEAN] = {"mean", NULL},
    [SORT_NAME] = {"name", NULL},         [SORT_INSTANCES] = {"inst", "instances"},
    [SORT_SHARE] = {"share", "%"},        [SORT_SLOW] = {"slow", NULL},
    [SORT_ERRORS] = {"errors", NULL},     [SORT_END] = {"end", NULL},
    [SORT_CREATOR] = {"creator", "created-by"},   [SORT_LATE] = {"late", NULL},
};

const char *sort_key_name(sort_key_t k)
{
    return (unsigned)k < SORT_KEY_COUNT ? key_names[k].name : "total";
}

int sort_key_parse(const char *name, sort_key_t *out)
{
    for (int k = 0; k < SORT_KEY_COUNT; k++) {
        if (strcmp(name, key_names[k].name) == 0 || (key_names[k].alias && strcmp(name, key_names[k].alias) == 0)) {
            *out = (sort_key_t)k;
            return 0;
        }
    }
    return -1;
}

const char *sort_key_list(void)
{
    return "name, inst, count, total, share, max, mean, slow, errors, late, end or creator";
}

int sort_key_per_instance(sort_key_t k)
{
    return k == SORT_END || k == SORT_CREATOR;
}

/* ---- the reports' rows ---- */

static const stats_t *order_stats; /* qsort has no context argument in C11; views run on one thread */
static sort_key_t order_key;

static uint64_t key_number(const stats_row_t *r)
{
    switch (order_key) {
    case SORT_INSTANCES: return r->instances;
    case SORT_SHARE: return r->f.total_us;
    case SORT_SLOW: return r->f.slow;
    case SORT_ERRORS: return r->f.errors;
    case SORT_LATE: return r->late ? r->late->max_us : 0;
    default: return 0;
    }
}

static const char *key_text(const stats_row_t *r)
{
    const char *t = NULL;
    if (r->inst != NULL) {
        t = order_key == SORT_END ? stats_end_name(order_stats, r->inst) : r->parent_name;
    }
    return t != NULL ? t : "";
}

/* The statistics' tie-break: the name, then the instance. */
static int row_order(const void *pa, const void *pb)
{
    const stats_row_t *a = pa, *b = pb;
    int c = 0;
    if (order_key == SORT_END || order_key == SORT_CREATOR) {
        c = strcmp(key_text(a), key_text(b));
        if (c == 0 && order_key == SORT_CREATOR && a->inst != NULL && b->inst != NULL &&
            a->inst->parent != b->inst->parent) {
            c = a->inst->parent < b->inst->parent ? -1 : 1;
        }
    } else {
        uint64_t x = key_number(a), y = key_number(b);
        c = x == y ? 0 : x > y ? -1 : 1;
    }
    if (c == 0) {
        c = strcmp(a->name, b->name);
    }
    if (c == 0) {
        uint64_t kx = a->inst ? a->inst->key : 0, ky = b->inst ? b->inst->key : 0;
        c = kx < ky ? -1 : kx > ky;
    }
    return c;
}

stats_row_t *sort_key_rows(const stats_t *s, int by_instance, sort_key_t key, size_t *n)
{
    if ((unsigned)key <= SORT_NAME) {
        return stats_rows(s, by_instance, (stats_sort_t)key, n);
    }
    stats_row_t *rows = stats_rows(s, by_instance, STATS_SORT_NAME, n);
    if (rows != NULL && *n > 1) {
        order_stats = s;
        order_key = key;
        qsort(rows, *n, sizeof *rows, row_order);
        order_stats = NULL;
    }
    return rows;
}
