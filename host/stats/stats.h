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
/* A view by name shows at most this many unnamed instances ("task #id") as rows of their own, those
 * with the most time; the others are summed in its "(unnamed tasks)" row (150,000 ids never named
 * made a JSON report of 224 MB). */
#define STATS_UNNAMED_ROWS 100u
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
    /* memory (docs/usage.md, "Memory"), when the device reports it (stats_device_t.mem): what
     * its slices allocated, in the device's unit (mem's, stats_mem_unit), and the collections
     * inside them and their time */
    uint64_t alloc;
    uint64_t gc_count;
    uint64_t gc_us;
} stats_figures_t;

/* A distribution of microseconds (slice lengths, lateness) in log buckets, for percentiles
 * (stats_hist.c; docs/usage.md, "Percentiles"): values under 8 us exactly, above in 8 buckets per
 * power of two (a bucket's middle is within 1/16, 6.25 %, of any value in it), up to 2^32 us
 * (71 minutes; longer ones count in the last bucket). Only the buckets from the lowest to the
 * highest value seen are allocated: 4 bytes each, 8 per power of two the values span. */
#define STATS_HIST_BUCKETS 240u

typedef struct stats_hist {
    uint32_t *counts;    /* buckets [lo, lo + len) */
    uint16_t lo, len;
} stats_hist_t;

/* The bucket of v microseconds. */
static inline unsigned stats_hist_bucket(uint64_t v)
{
    if (v < 8u) {
        return (unsigned)v;
    }
    if (v >= (1ull << 32)) {
        return STATS_HIST_BUCKETS - 1u;
    }
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* 3..31 */
    return 8u + (e - 3u) * 8u + (unsigned)((v >> (e - 3u)) & 7u);
}

/* Out of line: a bucket outside the range allocated (the range grows; out of memory: not counted). */
void stats_hist_grow_add(stats_hist_t *h, unsigned bucket);

/* A value of bucket b counted. */
static inline void stats_hist_add_bucket(stats_hist_t *h, unsigned b)
{
    unsigned at = b - h->lo;
    if (at < h->len) {
        h->counts[at]++;
    } else {
        stats_hist_grow_add(h, b);
    }
}

static inline void stats_hist_add(stats_hist_t *h, uint64_t v)
{
    stats_hist_add_bucket(h, stats_hist_bucket(v));
}

/* The buckets of values below STATS_HIST_SMALL, looked up: a slice's bucket on the replay's hot
 * path without the clz and shifts (stats_init fills the table, once; stats_hist_bucket is its
 * truth). */
#define STATS_HIST_SMALL 4096u
extern uint8_t stats_hist_small[STATS_HIST_SMALL];
void stats_hist_small_fill(void);

/* stats_hist_add for v below STATS_HIST_SMALL, once stats_init has run. */
static inline void stats_hist_add_small(stats_hist_t *h, uint32_t v)
{
    unsigned b = stats_hist_small[v];
    unsigned at = b - h->lo;
    if (at < h->len) {
        h->counts[at]++;
    } else {
        stats_hist_grow_add(h, b);
    }
}

/* The percentiles the views show: p50, p95, p99. */
#define STATS_PCTS 3u
extern const double stats_pcts[STATS_PCTS];

/* The q quantile (0 < q <= 1, nearest rank) of the n values in h: its bucket's middle, held within
 * [min, max] (the row's own extremes, so that a constant slice length shows as itself). */
uint64_t stats_hist_quantile(const stats_hist_t *h, double q, uint64_t min, uint64_t max);
uint64_t stats_hist_total(const stats_hist_t *h);
/* dst takes in src's counts: 1, or 0 when it could not (out of memory) and took none. */
int stats_hist_merge(stats_hist_t *dst, const stats_hist_t *src);
/* dst gives back the counts of a src it took in (stats_hist_merge returned 1; its buckets there). */
void stats_hist_unmerge(stats_hist_t *dst, const stats_hist_t *src);
/* Every count back to 0 (the range allocated kept). */
void stats_hist_zero(stats_hist_t *h);
void stats_hist_drop(stats_hist_t *h);

/* Lateness (docs/usage.md, "Lateness"): of the resumes whose lateness the device reported, those
 * that came after the task was due, how late, and who ran meanwhile. A late resume's waiting window
 * is blamed, part by part, on the name of the task that ran then (blocked by), on no task (the
 * scheduler, the drain: outside), or on nothing known (before the host's time line, lost frames). */
#define STATS_BLAME_MAX 32u /* culprit names kept per row; the time of more goes to other_us */
#define STATS_LATE_SLOTS_MAX 63u /* culprit slots (STATS_LATE_SLOTS, below) */
/* A resume's lateness is counted up to 2^42 us (50 days; MicroPython's longest, 2^32 ms, is less),
 * and the sums of lateness saturate: a hostile stream cannot wrap them. */
#define STATS_LATE_MAX_US (1ull << 42)

static inline uint64_t stats_sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

typedef struct stats_blame {
    int32_t who;         /* a name row, or STATS_WHO_UNNAMED */
    uint64_t us;
} stats_blame_t;

#define STATS_WHO_UNNAMED (-1) /* a task whose name had not come yet */
#define STATS_WHO_OUTSIDE (-2) /* no task ran (the scheduler, the drain, idle) */
#define STATS_WHO_UNKNOWN (-3) /* what ran is not known (lost frames, dropped events) */

typedef struct stats_late {
    uint64_t resumes;    /* resumes whose lateness was reported (on time or late) */
    uint64_t count;      /* of which late */
    uint64_t total_us;
    uint64_t min_us;     /* of every resume (on time: 0), when there are some: its percentiles' floor */
    uint64_t max_us;
    uint64_t outside_us; /* waiting while no task ran */
    uint64_t unknown_us; /* waiting the host did not see */
    uint64_t other_us;   /* waiting blamed on names past STATS_BLAME_MAX */
    stats_blame_t *blame;
    uint32_t n_blame, cap_blame;
    /* an instance row's windows not yet in blame (stats_late.c): their time per culprit slot,
     * taken in by stats_late_settle before the list is read; NULL: none */
    struct stats_late_dense *dense;
    stats_hist_t hist;   /* every resume's lateness (on time: 0), for its percentiles */
} stats_late_t;

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
    uint8_t late_slot;   /* its culprit slot + 1 (stats_late_slot); 0: none yet */
    uint8_t late_stale;  /* its blocked by is to be summed again (stats_late_sync) */
    /* its instances' lateness, summed from folded and its live instances' by stats_late_sync */
    stats_late_t late;
    stats_late_t folded; /* that of its instances folded away (or renamed) */
    /* the resumes' figures (resumes, count, total, min, max, hist; not the waiting's culprits, nor
     * outside and unknown) of its instances that no longer run, summed once by stats_late_sync:
     * a view adds up only the others' again (an instance resumed after all leaves it) */
    stats_late_t ended;
    stats_hist_t slices; /* the slice lengths of its instances folded away (or renamed), and of
                            those that ended (stats_instance_settle); the others' are theirs:
                            stats_rows adds them up */
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
    uint8_t late_ended;     /* its resumes' figures are in its name row's ended */
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
    stats_late_t late;      /* its name row holds it too once the instance has a name */
    stats_hist_t slices;    /* its slice lengths (its name row takes them when it is folded) */
    /* its slice lengths that its name row holds already: those of slices before it ended, moved
     * there by the first view after (stats_instance_settle), so that a view does not add up the
     * instances that no longer run again and again; its own row shows them with slices' */
    stats_hist_t moved;
    uint64_t run_us;        /* its exclusive time counted since it was placed, never reset: the
                               clock its spans' own time is read from (the events stage's) */
} stats_instance_t;

/* The stream's health counters (docs/usage.md, "Health counters", says what each means). */
typedef struct stats_stream {
    uint64_t bytes, frames, events, crc_errors, lost_frames, dropped_events, text_lines, resets,
        reconnects, malformed, unsupported, unmatched, duplicates, clock_steps_back, skipped_bytes;
    /* 1 when the input ended (a recording, a capture) before the device said it stopped: its last
     * events may have been still in its ring, and the tasks live at the end are lower bounds */
    uint64_t ended_before_stop;
    uint64_t recording_damage; /* stretches of a recording that could not be read as chunks */
    /* control records of operations this host does not know (a newer device's): skipped; the bits
     * of unknown_op_mask are the operations */
    uint64_t unknown_ops;
    uint32_t unknown_op_mask;
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
    uint32_t late_unit;     /* the unit of its lateness, in ticks (its last HELLO's); 0: it does not report it */
    uint32_t mem;           /* what it measures of its allocator (its last HELLO's, AIOPROF_MEM_*); 0: nothing */
    double event_sum_us;    /* the events between those HELLOs (received and dropped), at that cost */
} stats_device_t;

/* The span figures (stats_spans.h), allocated at a stream's first span. */
typedef struct stats_spans stats_spans_t;

/* The stream's span counters (docs/usage.md, "Spans"). */
typedef struct stats_span_counts {
    uint64_t refused;     /* SPAN_ENTERs not followed: too deep, too many open, no row left */
    uint64_t unmatched;   /* SPAN_EXITs with no open span, and span records while no task ran */
    uint64_t cut;         /* open spans dropped at a loss or at the stream's end */
    uint64_t other_names; /* span names past the caps (their spans counted in "(other spans)") */
} stats_span_counts_t;

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
    /* "(gc)": the culprit of waiting while a collection ran between slices (no figures of its
     * own: the collections are in mem_outside), -1 until one did */
    int32_t gc_row;
    stats_figures_t mem_outside; /* memory between slices (alloc, gc_count, gc_us only) */

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
    uint32_t late_slots; /* culprit slots given (stats_late_slot) */
    int32_t late_slot_who[STATS_LATE_SLOTS_MAX]; /* slot -> its culprit */
    uint8_t late_unnamed_slot; /* STATS_WHO_UNNAMED's slot + 1; 0: none yet */
    uint8_t late_stale;  /* some name row's late_stale is set */
    uint64_t *late_sums; /* per culprit (at who + 1), while a name row's blocked by is summed; else 0 */
    int32_t *late_seen;  /* the culprits with a sum, in the order met */
    size_t late_sums_cap, n_late_seen;
    stats_instance_t **dirty; /* rows whose name row has not taken in their latest figures */
    size_t n_dirty;
    /* Whether an instance has a slice open (the running stack is the events stage's): such a row
     * is never folded. NULL: none is. */
    int (*pinned)(void *user, const stats_instance_t *in);
    void *pinned_user;
    stats_instance_t *recent[STATS_RECENT]; /* id % STATS_RECENT -> a row, checked by its key */
    /* the lateness of "(unnamed tasks)" in the last view by name, with that of the unnamed
     * instances it summed in (stats_rows): what its row points to, until the next view */
    stats_late_t view_unnamed_late;
    stats_spans_t *spans; /* NULL while the stream had no span */
    stats_span_counts_t span_counts;
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

/* The row of "(gc)", made the first time: the culprit of waiting while a collection ran between
 * slices (docs/usage.md, "Memory"). */
int32_t stats_gc_row(stats_t *s);

/* Memory as the views show it: only what the device's HELLO says it measures (its mem). */
typedef struct stats_mem {
    int alloc_known;     /* it counts allocations */
    int alloc_lower;     /* ... as lower bounds (a collection hid some) */
    uint64_t alloc_bytes; /* the figures' allocation, in bytes */
    double alloc_per_s;  /* over the device time seen (stats_t.elapsed_us) */
    int gc_known;        /* it sends collections */
    int gc_at_least;     /* ... some of them: the count is a lower bound */
    uint64_t gc_count;
    int gc_timed;        /* with their duration */
    uint64_t gc_us;
} stats_mem_t;

void stats_mem_of(const stats_t *s, const stats_figures_t *f, stats_mem_t *m);
/* The same from a HELLO's mem and a time seen (a view that keeps copies of the figures). */
void stats_mem_figures(uint32_t mem, uint64_t elapsed_us, const stats_figures_t *f, stats_mem_t *m);
/* 1 when the device reports any of it (its HELLO's mem is not 0). */
int stats_mem_known(const stats_t *s);

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

/* Memory into figures: an allocation, a collection (docs/usage.md, "Memory"). */
static inline void stats_figures_mem(stats_figures_t *dst, uint64_t alloc, uint64_t gc_count, uint64_t gc_us)
{
    dst->alloc = stats_sat_add(dst->alloc, alloc);
    dst->gc_count += gc_count;
    dst->gc_us = stats_sat_add(dst->gc_us, gc_us);
}

/* src's slices taken into dst (a row summed from others). */
static inline void stats_figures_merge(stats_figures_t *dst, const stats_figures_t *src)
{
    dst->count += src->count;
    dst->total_us += src->total_us;
    dst->slow += src->slow;
    dst->errors += src->errors;
    stats_figures_mem(dst, src->alloc, src->gc_count, src->gc_us);
    dst->max_us = src->max_us > dst->max_us ? src->max_us : dst->max_us;
    dst->min_us = src->min_us < dst->min_us ? src->min_us : dst->min_us;
}

/* Brings the name rows up to date with their instances' latest figures (their blocked by is
 * stats_late_sync's, done by stats_rows). */
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
    stats_hist_add(&in->slices, us);
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

/* ---- lateness (stats_late.c) ---- */

/* A resume of in whose lateness the device reported: late_us (0: on time). Its name row sums it
 * in when a view is made (stats_late_sync). Inline: the events stage calls it for every resume. */
static inline void stats_late_resume_bucket(stats_t *s, stats_instance_t *in, uint64_t late_us, unsigned bucket);

static inline void stats_late_resume(stats_t *s, stats_instance_t *in, uint64_t late_us)
{
    stats_late_resume_bucket(s, in, late_us, stats_hist_bucket(late_us));
}

/* A resume of an instance whose resumes' figures its name row held as those of one that ended: it
 * leaves them (stats_late.c). */
void stats_late_unend(stats_t *s, stats_instance_t *in);

/* stats_late_resume with late_us's bucket (stats_hist_bucket) given: a caller that has it at hand. */
static inline void stats_late_resume_bucket(stats_t *s, stats_instance_t *in, uint64_t late_us, unsigned bucket)
{
    stats_late_t *l = &in->late;
    if (in->late_ended) {
        stats_late_unend(s, in); /* a stream that resumed a task it said ended */
    }
    stats_hist_add_bucket(&l->hist, bucket);
    l->min_us = l->resumes == 0 || late_us < l->min_us ? late_us : l->min_us;
    l->resumes++;
    l->count += late_us != 0;
    l->total_us = stats_sat_add(l->total_us, late_us);
    l->max_us = late_us > l->max_us ? late_us : l->max_us;
    if (in->name >= 0) {
        s->names[in->name].late_stale = 1;
        s->late_stale = 1;
    }
}

/* A culprit's slot (a name row or STATS_WHO_UNNAMED): the first STATS_LATE_SLOTS culprits blamed
 * get one, in that order, for good (until stats_clear); a row finds a culprit that has one at
 * once (its index), the others by a search. STATS_LATE_NO_SLOT when they are all given. */
#define STATS_LATE_SLOTS STATS_LATE_SLOTS_MAX
#define STATS_LATE_NO_SLOT 63u /* never set in an index */
uint8_t stats_late_slot(stats_t *s, int32_t who);

/* A window's time: us[i] of it (0: none) blamed on who[i], a name row or STATS_WHO_UNNAMED (each
 * at most once), slot[i] its stats_late_slot (slot may be NULL); outside_us while no task ran,
 * unknown_us unseen. In the row of in (outside_us and unknown_us in its name row's too; its name
 * row sums the culprits of its instances in stats_late_sync). Culprits new to a row are listed in
 * the order given. */
void stats_late_window(stats_t *s, stats_instance_t *in, const int32_t *who, const uint8_t *slot,
    const uint64_t *us, size_t n, uint64_t outside_us, uint64_t unknown_us);

/* stats_late_window with the time of culprit i hi[i] - lo[i]: the running sums of each culprit's
 * time at the window's two ends (events_late.c), taken in the same pass. */
void stats_late_window_sums(stats_t *s, stats_instance_t *in, const int32_t *who, const uint8_t *slot,
    const uint64_t *hi, const uint64_t *lo, size_t n, uint64_t outside_us, uint64_t unknown_us);

/* A window of each of in[0 .. n) whose time the caller adds itself, per cell, in the array out[j]
 * (in[j]'s row's; rows may repeat): cell 0 the time unseen, 1 while no task ran, 2 + k that of
 * culprit slot k (stats_late_slot), every cell modulo 2^64 (each window whole before any row is
 * read; its cells may pass through any value while it is added). cells (at most
 * STATS_LATE_CELLS, even) the caller uses; the arrays have room for them, and they are 0 where
 * the caller adds nothing. Returns the windows given arrays: fewer than n when the cells cannot
 * be kept (more slots given than STATS_BLAME_MAX, or no memory), and the others' windows go to
 * stats_late_window_sums (those given arrays hold nothing until the caller adds). Each window is
 * of a resume the caller has just counted (stats_late_resume), which marked in[j]'s name row to
 * be summed again. */
#define STATS_LATE_CELLS (STATS_BLAME_MAX + 2u)
size_t stats_late_window_cells(stats_t *s, stats_instance_t *const *in, size_t n, size_t cells, uint64_t **out);

/* stats_late_window_sums keeps an instance row's windows as time per culprit slot (while every
 * culprit has a slot) and lists them when the list is read: l's list (and other_us) made what the
 * windows one by one would have made, in the same order. stats_rows, stats_late_sync and
 * stats_late_fold do it; stats_late_settle_all does it for every instance row. */
void stats_late_settle(stats_t *s, stats_late_t *l);
void stats_late_settle_all(stats_t *s);

/* us of in's waiting while no task ran (outside = 1), or that the host did not see (outside = 0). */
void stats_late_gap(stats_t *s, stats_instance_t *in, int outside, uint64_t us);

/* The culprit: the name that took the most of the waiting (among equals, the first in byte order
 * of their names), its time in *us; STATS_LATE_NONE when nothing was blamed on a task. */
#define STATS_LATE_NONE (-2)
int32_t stats_late_culprit(const stats_t *s, const stats_late_t *l, uint64_t *us);

/* Is a row's lateness known: the device reports lateness, or did for some of its resumes? */
static inline int stats_late_known(const stats_t *s, const stats_late_t *l)
{
    return s->device.late_unit != 0 || l->resumes != 0;
}

/* "late mean": how late an average resume was, over every resume (on time ones as 0), rounded to
 * the microsecond; 0 when there was none. The one definition the views share. */
static inline uint64_t stats_late_mean_us(const stats_late_t *l)
{
    return l->resumes ? (l->total_us + l->resumes / 2) / l->resumes : 0;
}

/* The name to show for a culprit. */
const char *stats_late_who_name(const stats_t *s, int32_t who);

/* What src holds, added to dst: all but its blocked by (blame, other_us), which stats_late_fold
 * takes. */
void stats_late_merge(stats_late_t *dst, const stats_late_t *src);

/* src added to nm->folded, an instance folded away or renamed: its figures, and its blocked by
 * (blame, other_us), of which the STATS_BLAME_MAX culprits that took the most are kept, the
 * others' time going to other_us. */
void stats_late_fold(stats_t *s, stats_name_t *nm, const stats_late_t *src);

/* The name rows' lateness summed again where it changed: folded and its live instances', their
 * figures added up, and of their lists the STATS_BLAME_MAX culprits that took the most kept, the
 * others' time (and the instances' other_us) in other_us. Done by stats_rows, when a view is made (not by stats_sync,
 * which the live table's loop runs at every turn): it costs a pass over the instance rows. */
void stats_late_sync(stats_t *s);

/* Frees the sums (stats_free, stats_clear). */
void stats_late_free(stats_t *s);

/* Frees what l holds and empties it. */
void stats_late_drop(stats_late_t *l);

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
    const stats_late_t *late;      /* lateness: NULL when not known (the device does not report it) */
    /* p50, p95, p99 (stats_pcts) of its slice lengths and, when late is not NULL, of its
     * resumes' lateness, in microseconds (docs/usage.md, "Percentiles"); 0 when it has none */
    uint64_t slice_pct[STATS_PCTS];
    uint64_t late_pct[STATS_PCTS];
} stats_row_t;

/* The rows of the table (per name: name rows, plus a row per unnamed instance, at most
 * STATS_UNNAMED_ROWS of them, the others summed in "(unnamed tasks)"; per instance: a row per
 * instance row), sorted. Returns a malloc'ed array the caller frees with free() (the names it
 * made up live in the same block), NULL when out of memory (*n is then 0). Rows with nothing in
 * them are left out. */
stats_row_t *stats_rows(const stats_t *s, int by_instance, stats_sort_t sort, size_t *n);

/* The unnamed instances a view by name sums in "(unnamed tasks)" rather than showing them as
 * rows of their own (past STATS_UNNAMED_ROWS). */
uint64_t stats_unnamed_folded(const stats_t *s);

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
