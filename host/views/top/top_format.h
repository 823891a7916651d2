/* The live table's pure rendering rules: which columns fit a width, how numbers shrink into a
 * cell, which colour class a figure gets, how an untrusted string is cut to a width. No terminal,
 * no state: the unit tests call these directly. */
#ifndef AIOPROF_TOP_FORMAT_H
#define AIOPROF_TOP_FORMAT_H

#include <stddef.h>
#include <stdint.h>

typedef enum top_col {
    TOP_COL_NAME,
    TOP_COL_INSTANCES,
    TOP_COL_COUNT,
    TOP_COL_TOTAL,
    TOP_COL_SHARE,
    TOP_COL_MAX,
    TOP_COL_MEAN,
    TOP_COL_SLOW,
    TOP_COL_ERRORS,
    TOP_COL_END,     /* per instance: live, returned, raised, cancelled */
    TOP_COL_CREATOR, /* per instance: the task that created it */
    TOP_COL_LATE_MAX,  /* lateness: the latest resume */
    TOP_COL_LATE_MEAN, /* the mean of the late resumes */
    TOP_COL_BLOCKED,   /* the task that took most of the waiting, with its share */
    TOP_COL_P50,       /* slice length percentiles */
    TOP_COL_P95,
    TOP_COL_P99,
    TOP_COL_LATE_P50,  /* lateness percentiles */
    TOP_COL_LATE_P95,
    TOP_COL_LATE_P99,
    /* --compare BASE: each figure's change against the base (compare_report_cell) */
    TOP_COL_D_RATE,
    TOP_COL_D_SHARE,
    TOP_COL_D_MAX,
    TOP_COL_D_P99,
    TOP_COL_D_LATE_MAX,
    /* memory (docs/usage.md, "Memory"): bytes allocated per second of device time, collections
     * inside its slices and their time */
    TOP_COL_ALLOC_RATE,
    TOP_COL_ALLOC,
    TOP_COL_GC,
    TOP_COL_GC_MS,
    TOP_COL_COUNT_ALL
} top_col_t;

typedef struct top_col_info {
    const char *head;
    int width;      /* cell width: the heading, the sort mark and a space between (ASCII) */
    int left;       /* text, left-aligned */
    int sort_key;   /* the key that sorts by it */
} top_col_info_t;

/* The name column is never narrower than this (by instance: TOP_NAME_MIN_INSTANCE, room for
 * "Sensor._go #1234 [s…"), and takes at most TOP_NAME_MAX. */
#define TOP_NAME_MIN 12
#define TOP_NAME_MIN_INSTANCE 22
#define TOP_NAME_MAX 60
/* An instance's function name keeps at least this many characters when its cell is cut. */
#define TOP_NAME_KEEP 5

const top_col_info_t *top_format_col(top_col_t c);

/* The narrowest name column of a grouping. */
int top_format_name_min(int by_instance);

/* The column sets a key cycles through: the main one (lateness's max and culprit in it when the
 * device reports lateness), the slices' percentiles, and lateness in full. */
typedef enum top_colset {
    TOP_SET_MAIN,
    TOP_SET_MAIN_LATE,
    TOP_SET_SLICES,
    TOP_SET_LATENESS,
    TOP_SET_MEMORY,    /* a device that reports memory: allocations and collections */
    TOP_SET_DELTA,     /* --compare BASE: the changes against the base */
    TOP_SET_COUNT
} top_colset_t;

/* The set's name for the header ("slices"...), "" for the main sets. */
const char *top_format_colset_name(top_colset_t set);

/* top_format_columns of a set: the same rules over the set's own columns and priorities. */
size_t top_format_columns_set(top_colset_t set, int by_instance, int width, top_col_t out[TOP_COL_COUNT_ALL],
    int *name_width);

/* The columns that fit a screen width, in display order, name first (the main set). Columns are dropped in the
 * reverse order of their importance (a fixed priority list); the name column takes what is left,
 * between top_format_name_min() and TOP_NAME_MAX. Returns the number of columns written to out (at least
 * 1: the name alone when nothing else fits). Cells are separated by one space. */
size_t top_format_columns(int by_instance, int width, top_col_t out[TOP_COL_COUNT_ALL], int *name_width);

/* A column whose content needs col_need columns, more than its col_w, takes them from the name
 * column's spare room: what the widest name (name_need) leaves of *name_w, never below name_min
 * ("(outside tasks) 80 %" was cut in a 130-column terminal beside a name column 20 wider than its
 * names). Returns the column's width; *name_w loses what it gave. */
int top_format_widen(int *name_w, int name_need, int name_min, int col_w, int col_need);

/* Microseconds in a cell of `width` characters, counted as milliseconds: "0.060", "80.000",
 * "16000.00", then whole milliseconds, then seconds ("1234.5s"), minutes ("73.2m") and hours
 * ("20.6h") with their unit when the milliseconds no longer fit. Returns the length, or the
 * length of "#" when not even that fits (never more than width). */
size_t top_format_ms(char *out, size_t size, uint64_t us, int width);

/* A count in a cell: "123456", then "1234k", "12.3M", "4.5G". Same return rule. */
size_t top_format_count(char *out, size_t size, uint64_t n, int width);

/* A share of time, 0..1, as a percentage: "80.1", "100", "0.0". */
size_t top_format_share(char *out, size_t size, double share, int width);

/* A byte count for the header: "812 B", "2.6 KB", "14.0 MB", "3.2 GB" (1 KB = 1024 bytes). */
size_t top_format_bytes(char *out, size_t size, uint64_t bytes);

/* The strings of parts (n of them, none NULL) one after the other in out, as snprintf's "%s%s..."
 * writes them: what fits in size - 1 bytes, terminated; returns the whole length. The table's
 * cells are joined at every refresh, and snprintf was most of their time. */
size_t top_format_join(char *out, size_t size, const char *const *parts, size_t n);
#define TOP_FORMAT_JOIN(out, size, ...) \
    top_format_join((out), (size), (const char *const[]){__VA_ARGS__}, \
        sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* n in decimal, as "%" PRIu32 writes it, at the end of buf: returns where its digits start. */
const char *top_format_u32(char buf[11], uint32_t n);

/* How loud a figure is drawn. */
typedef enum top_class {
    TOP_CLASS_ZERO,   /* dimmed */
    TOP_CLASS_SMALL,  /* plain */
    TOP_CLASS_MEDIUM, /* coloured */
    TOP_CLASS_LARGE,  /* bold colour */
    TOP_CLASS_ALERT,  /* a hog, slow slices, errors: red */
} top_class_t;

/* A single slice's length (max, mean) against the slow threshold: 0, under 1 ms, under half the
 * threshold, under the threshold, over it. */
top_class_t top_format_class_slice(uint64_t us, uint64_t slow_us);
/* A share of the device's time: 0, under 1 %, under 10 %, under TOP_HOG_SHARE, a hog. */
top_class_t top_format_class_share(double share);
/* A count of bad things (slow slices, errors): zero is dim, anything else is an alert. */
top_class_t top_format_class_bad(uint64_t n);
/* A plain count: zero is dim. */
top_class_t top_format_class_count(uint64_t n);

/* A row taking this share of the device's time is a hog: its name is highlighted. */
#define TOP_HOG_SHARE 0.25

/* Copies the longest prefix of s that is at most width columns wide into out, as the terminal
 * will show it under the current locale (wide glyphs count 2). Anything a terminal could act on
 * (C0 and C1 controls, DEL, bytes that are not valid characters here) becomes '?', so even a
 * string that escaped the data side's escaping cannot reach the terminal raw. When s is cut, the
 * last column holds cut_mark (one column wide, e.g. "~" or the UTF-8 ellipsis). Returns the width
 * written; out is always NUL-terminated (size at least 8). */
int top_format_fit(char *out, size_t size, const char *s, int width, const char *cut_mark);

/* Where a line of at most width columns ends when s is wrapped: the number of bytes of s it
 * takes, after the last space that fits (with it), or cut inside a word longer than the line;
 * at least one character, all of s when it fits. Columns are counted as top_format_fit draws. */
size_t top_format_wrap(const char *s, int width);

#endif
