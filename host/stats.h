/* The aggregator: per task name and per task instance figures, and the stream's counters.
 * events.c tells it what happened (slices, names, ends, losses); the views read it (stats_rows.c).
 *
 * Memory is bounded whatever the stream holds:
 *  - at most STATS_NAME_CAP distinct names; later names are counted in "(other names)";
 *  - instance rows: up to instance_cap rows, live and finished; when a new instance needs a row,
 *    the oldest finished instance (or one of a device that restarted since) is folded: its name
 *    row holds its totals already, so folding loses only the per-instance detail; an instance
 *    folded before its name was known goes to "(unnamed tasks)". A live instance is never folded:
 *    when every row is live, the rows grow, up to STATS_LIVE_FACTOR times instance_cap. Past that
 *    (a stream that makes far more tasks than any device runs at once) a new task has no row: its
 *    slices are counted in "(tasks past the cap)", and its name row, which lacks them, is marked
 *    as a lower bound.
 * The hot path (stats_instance_lookup, stats_slice) does no string work and no allocation, and
 * touches the instance's row only: its name row is brought up to date in batches (stats_sync),
 * which pipeline_stats does for anyone who looks (stats_rows does its own sums). */
#ifndef AIOPROF_STATS_H
#define AIOPROF_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_NAME_CAP 4096u
#define STATS_NAMES_FIRST 16u /* name rows allocated at first; they double as names come */
#define STATS_INSTANCE_CAP_DEFAULT 10000u
#define STATS_INSTANCE_CAP_MIN 256u
/* Live instances never fold: the rows grow for them up to this many times instance_cap. */
#define STATS_LIVE_FACTOR 16u
/* An escaped name or label: 48 untrusted bytes can grow to 4 characters each, plus the cut mark. */
#define STATS_TEXT_MAX 200u
#define STATS_PLATFORM_MAX 136u
/* A direct-mapped cache of id lookups in front of the hash table, a power of two: with fewer
 * tasks, every ENTER finds its row there (ids are given in order). */
#define STATS_RECENT 4096u

typedef struct stats_figures {
    uint64_t count;    /* slices */
    uint64_t total_us; /* their exclusive time */
    uint64_t max_us;
    uint64_t min_us;   /* UINT64_MAX while count is 0 */
    uint64_t slow;     /* slices longer than the slow threshold */
    uint64_t errors;   /* instances that ended by an exception or a cancellation */
} stats_figures_t;

typedef enum stats_row_kind {
    STATS_ROW_NAME,     /* a task name the device sent */
    STATS_ROW_OTHER,    /* "(other names)": names beyond STATS_NAME_CAP; "(tasks past the cap)" */
    STATS_ROW_UNNAMED,  /* "(unnamed tasks)": instances folded before their name arrived */
} stats_row_kind_t;

/* Hot fields first: a slice touches the first cache line of its instance and of its name. */
typedef struct stats_name {
    stats_figures_t f;
    uint64_t instances;
    uint32_t hash;
    uint8_t kind;        /* stats_row_kind_t */
    uint8_t lower_bound; /* a folded instance of this name may have lost slices */
    char name[STATS_TEXT_MAX]; /* escaped */
} stats_name_t;

typedef enum stats_end {
    STATS_END_LIVE,      /* not finished (yet) */
    STATS_END_RETURN,
    STATS_END_RAISE,
    STATS_END_CANCEL,
} stats_end_t;

typedef struct stats_instance {
    uint64_t key;           /* epoch << 32 | id */
    stats_figures_t f;
    int32_t name;           /* index of its name row, -1 while unnamed */
    uint8_t dirty;          /* f changed since its name row last took it in: it is in s->dirty */
    uint8_t in_use;
    uint8_t end;            /* stats_end_t */
    uint8_t created_seen;   /* its TASK_NEW was seen: nothing of it came before */
    uint64_t loss_first;    /* the loss serial when first seen */
    uint64_t loss_end;      /* the loss serial when it ended */
    uint32_t id;
    uint32_t epoch;
    uint32_t parent;        /* id of the creator, 0 for none or unknown */
    int32_t parent_name;    /* index of the creator's name row, -1 when unknown */
    uint32_t described;     /* hash of the last TASK_NEW/INFO body applied, to skip repeats */
    uint32_t order;         /* placement serial, for the eviction order */
    const char *label;      /* escaped, never NULL: "" for none (the rows own what they point to) */
    stats_figures_t synced; /* what of f its name row holds (count, total_us, slow and errors) */
} stats_instance_t;

/* The stream's health counters (docs/usage.md, "Health counters", says what each means). */
typedef struct stats_stream {
    uint64_t bytes, frames, events, crc_errors, lost_frames, dropped_events, text_lines, resets,
        reconnects, malformed, unsupported, unmatched, duplicates, clock_steps_back, skipped_bytes;
    /* 1 when the input ended (a recording, a capture) before the device said it stopped: its last
     * events may have been still in its ring, and the tasks live at the end are lower bounds */
    uint64_t ended_before_stop;
    uint64_t recording_damage; /* stretches of a recording that could not be read as chunks */
} stats_stream_t;

typedef struct stats_device {
    int have_hello;
    uint32_t version, tick_hz, tick_bits, ring_bytes, boot_ticks, dropped_total;
    uint32_t period_ticks;  /* its period (a second's ticks when its HELLO predates the field) */
    uint64_t drain_us;      /* the device's drain time counter (it wraps at 2^32 ticks), in us */
    char platform[STATS_PLATFORM_MAX]; /* escaped */
    uint64_t drain_sum_us;  /* drain time between HELLOs of one boot and one link session */
    uint64_t drain_span_us; /* the device time those HELLOs spanned */
    uint32_t event_cost;    /* what an event costs the device, in 1/1024 tick (its last HELLO's); 0: not known */
    double event_sum_us;    /* the events between those HELLOs (received and dropped), at that cost */
} stats_device_t;

typedef struct stats_slot {
    uint64_t key;
    int32_t idx; /* -1: empty */
} stats_slot_t;

typedef struct stats {
    stats_stream_t stream;
    stats_device_t device;
    uint64_t elapsed_us;   /* device time seen, gaps excluded */
    uint64_t outside_us;   /* of which no task was running */
    uint64_t slow_us;
    uint64_t loss_serial;  /* +1 for every loss (drops, lost frames, link down) */
    uint32_t epoch;        /* +1 for every device reset: task ids restart */
    uint64_t folded_instances;

    stats_name_t *names;
    size_t n_names;
    size_t names_cap;    /* rows allocated: grown as names come, at least n_names + 2 (the special rows) */
    int32_t *name_table; /* open addressing by name hash, -1 empty */
    size_t name_mask;
    int32_t other_row, unnamed_row, past_cap_row; /* special rows, -1 until needed */

    stats_instance_t *inst;
    size_t inst_cap;     /* rows kept before finished instances fold */
    size_t inst_used;    /* rows placed so far (some may be free again): inst[0 .. inst_used) */
    size_t inst_alloc;   /* rows allocated: grown past inst_cap for live instances only */
    size_t live_max;     /* the most rows there may be (inst_cap * STATS_LIVE_FACTOR) */
    int32_t *free_list;  /* instance rows emptied by stats_reset */
    size_t n_free;
    stats_slot_t *table; /* open addressing by key, linear probing, at most half full */
    size_t table_mask;
    int32_t *finished;   /* ring of instances that may be folded (finished, or of an old epoch),
                            oldest first; an entry whose row was placed again since is stale */
    uint32_t *finished_order;
    size_t fin_head, fin_len;
    uint32_t next_order;
    int32_t past_cap;    /* the instance row of "(tasks past the cap)" (id 0), -1 until needed */
    stats_instance_t **dirty; /* rows whose name row has not taken in their latest figures */
    size_t n_dirty;
    /* Whether an instance has a slice open (the running stack is the events stage's): such a row
     * is never folded. NULL: none is. */
    int (*pinned)(void *user, const stats_instance_t *in);
    void *pinned_user;
    stats_instance_t *recent[STATS_RECENT]; /* id % STATS_RECENT -> a row, checked by its key */
} stats_t;

/* Returns 0, or -1 when out of memory. instance_cap 0 picks the default. */
int stats_init(stats_t *s, size_t instance_cap, uint64_t slow_us);
void stats_free(stats_t *s);

/* Back to the state stats_init left, keeping the memory it took (and the name rows grown since):
 * for running many streams through one pipeline (the fuzzer). */
void stats_clear(stats_t *s);

/* Clears the figures (not the stream counters, not the names of running tasks). */
void stats_reset(stats_t *s);

/* The row of task id in the current epoch, created if new (folding a finished one when full, or
 * growing the rows). Past the rows' limit: the row of "(tasks past the cap)". Never fails. */
int32_t stats_instance_get(stats_t *s, uint32_t id);
/* stats_instance_get for a lookup that missed the cache: the row, cached, or NULL. */
stats_instance_t *stats_instance_miss(stats_t *s, uint32_t id);

/* The per-event lookup is stats_instance_get with a cache in front: s->recent[key %
 * STATS_RECENT], a row whose key ((uint64_t)s->epoch << 32 | id) is checked, else
 * stats_instance_miss. Rows never move: the pointer holds while the instance has its row (a row
 * given up has a key no lookup has). */

/* The row of task id in the current epoch, or -1. */
int32_t stats_instance_find(const stats_t *s, uint32_t id);

/* The name of in's creator: the one it had when in was described, or the one it has now. NULL
 * when it has none (or in was not created by a task). */
const char *stats_parent_name(const stats_t *s, const stats_instance_t *in);
/* The same, as its name row's index, or -1. */
int32_t stats_parent_row(const stats_t *s, const stats_instance_t *in);

/* A TASK_NEW (created = 1) or TASK_INFO: names the instance (raw untrusted bytes). */
void stats_instance_describe(stats_t *s, int32_t idx, const uint8_t *name, size_t name_len, const uint8_t *label,
    size_t label_len, uint32_t parent, int created);

/* One slice of exclusive time. */
static inline void stats_figures_add(stats_figures_t *f, uint64_t us, uint64_t slow_us)
{
    f->count++;
    f->total_us += us;
    if (us > f->max_us) {
        f->max_us = us;
    }
    if (us < f->min_us) {
        f->min_us = us;
    }
    f->slow += us > slow_us;
}

/* Brings the name rows up to date with their instances' latest figures. */
void stats_sync(stats_t *s);

/* in's figures changed: its name row takes them in at the next stats_sync. */
static inline void stats_dirty(stats_t *s, stats_instance_t *in)
{
    if (!in->dirty) {
        if (s->n_dirty == s->inst_alloc) {
            stats_sync(s); /* entries of rows given up and placed again fill it */
        }
        in->dirty = 1;
        s->dirty[s->n_dirty++] = in;
    }
}

static inline void stats_slice(stats_t *s, stats_instance_t *in, uint64_t us)
{
    stats_figures_add(&in->f, us, s->slow_us);
    stats_dirty(s, in);
}

/* The instance finished: kind is an enum aioprof_exit_kind other than YIELD. */
void stats_instance_end(stats_t *s, stats_instance_t *in, unsigned exit_kind);

/* Events may have been lost from here on (drops, lost frames, link down). */
static inline void stats_loss(stats_t *s)
{
    s->loss_serial++;
}

/* The device restarted: task ids start again. */
void stats_new_epoch(stats_t *s);

/* An instance row's figures may be low: events were lost while it lived, or before it was first
 * seen without its creation being seen. */
int stats_instance_lower_bound(const stats_t *s, const stats_instance_t *in);

/* ---- views ---- */

typedef enum stats_sort { STATS_SORT_TOTAL, STATS_SORT_COUNT, STATS_SORT_MAX, STATS_SORT_MEAN, STATS_SORT_NAME } stats_sort_t;

typedef struct stats_row {
    const char *name;              /* escaped; for an unnamed instance "task #id", kept with the rows */
    stats_figures_t f;
    uint64_t instances;
    int lower_bound;
    stats_row_kind_t kind;
    const stats_instance_t *inst;  /* per-instance rows, and unnamed instances in per-name rows */
    const char *parent_name;       /* per-instance rows: the creator's name, or NULL */
} stats_row_t;

/* The rows of the table (per name: name rows, plus a row per unnamed instance; per instance: a row
 * per instance row), sorted. Returns a malloc'ed array the caller frees with free() (the names it
 * made up live in the same block), NULL when out of memory (*n is then 0). Rows with nothing in
 * them are left out. */
stats_row_t *stats_rows(const stats_t *s, int by_instance, stats_sort_t sort, size_t *n);

/* Names of the end states, for the views: "live", "returned", "raised", "cancelled"; an instance
 * of an earlier epoch that never ended shows "unknown". */
const char *stats_end_name(const stats_t *s, const stats_instance_t *in);

/* The hook's time on the device as a share of its time: its drain time, and its events at the cost
 * per event the device sent (both between HELLOs of one boot and one link session). Either part
 * may be asked for alone (drain, events: 0 or 1); a negative number when not known. */
double stats_overhead(const stats_t *s);
double stats_overhead_part(const stats_t *s, int drain, int events);

/* What an event costs the device in nanoseconds (its last HELLO's), or a negative number when it
 * did not say. */
double stats_event_cost_ns(const stats_t *s);

#endif
