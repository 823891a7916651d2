/* The order of the views' rows: --sort's keys, one for every column the live table sorts by, and
 * the reports' rows in that order. The live table maps a key to its column (host/views/top/top_view.c). */
#ifndef AIOPROF_SORT_KEY_H
#define AIOPROF_SORT_KEY_H

#include <stddef.h>

#include "stats.h"

/* The first five are the statistics' own (stats_sort_t), the rest sorted here. Numbers go largest
 * first, text A to Z. */
typedef enum sort_key {
    SORT_TOTAL = STATS_SORT_TOTAL,
    SORT_COUNT = STATS_SORT_COUNT,
    SORT_MAX = STATS_SORT_MAX,
    SORT_MEAN = STATS_SORT_MEAN,
    SORT_NAME = STATS_SORT_NAME,
    SORT_INSTANCES,
    SORT_SHARE,  /* as total: the share of the same device time */
    SORT_SLOW,
    SORT_ERRORS,
    SORT_END,    /* per instance: its end state */
    SORT_CREATOR, /* per instance: the task that created it */
    SORT_LATE,   /* late max: the latest resume (rows whose lateness is not known last) */
    SORT_KEY_COUNT
} sort_key_t;

/* --sort's name of a key ("total", "inst", "share"...), and the key of a name (the table's
 * headings where they are words: "inst" or "instances", "share" or "%", "creator" or
 * "created-by"). Returns 0, or -1 when the name is none of them. */
const char *sort_key_name(sort_key_t k);
int sort_key_parse(const char *name, sort_key_t *out);
/* The keys' names for a message: "total, count, ..., creator". */
const char *sort_key_list(void);
/* Keys that only task instances have (end, creator). */
int sort_key_per_instance(sort_key_t k);

/* stats_rows() in the order of key. Same contract: free() the result; NULL when out of memory. */
stats_row_t *sort_key_rows(const stats_t *s, int by_instance, sort_key_t key, size_t *n);

#endif
