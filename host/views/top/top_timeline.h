/* The live table's timeline: the slices the pipeline's observer tells, kept in a fixed ring, and
 * what a lane of character cells shows of them over a span of the device's time line. No terminal,
 * no state of the view: top_draw_timeline.c draws what top_timeline_render() works out, and the
 * unit tests call it directly.
 *
 *   pipeline observer (slice) -> top_timeline_add -> ring (the last TOP_TIMELINE_SLICES slices)
 *   view's lanes (rows shown) -> top_timeline_render -> cells: ran, slow, not kept; outside levels
 *
 * Time is the observer's: the gapless device time line in microseconds, so a replay draws what
 * the session drew live. Memory is fixed whatever the task count and the rate: the ring and a
 * small cache of the tasks' name hashes, allocated once. */
#ifndef AIOPROF_TOP_TIMELINE_H
#define AIOPROF_TOP_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"

#define TOP_TIMELINE_SLICES 65536u /* slices kept (a power of two): 32 bytes each, 2 MB */
#define TOP_TIMELINE_CACHE 1024u   /* tasks whose name hash is remembered (a power of two) */
#define TOP_TIMELINE_LANES_MAX 256 /* lanes one render can look up */
#define TOP_TIMELINE_CELLS_MAX 1024 /* cells of a lane one render works out */
#define TOP_TIMELINE_SPANS 16384u  /* span pieces kept (a power of two), taken at the first one */

typedef struct top_timeline_slice {
    uint64_t start_us;
    uint64_t inst_key;  /* epoch << 32 | id: the instance rows' key */
    uint64_t name_hash; /* top_timeline_name_hash() of its name, 0 while it has none */
    uint32_t span_us;   /* end - start (its wall span), saturated */
    uint32_t self_us;   /* its exclusive time (what the statistics count), saturated */
} top_timeline_slice_t;

typedef struct top_timeline_task {
    uint64_t inst_key;
    const void *name; /* the observer's name pointer the hash was taken of */
    uint32_t version;
    int used;
    uint64_t name_hash;
} top_timeline_task_t;

typedef struct top_timeline {
    top_timeline_slice_t *ring;
    uint64_t added;         /* slices ever added; ring[(added - 1) % TOP_TIMELINE_SLICES] is the newest */
    uint64_t known_from_us; /* every slice that ended after this is in the ring */
    uint64_t latest_us;     /* the latest end seen */
    /* every slice's end in the ring (start + its saturated span) at or after the one before it:
     * the ring is then sorted by end, and a render finds its edge by bisection */
    int ends_sorted;
    uint64_t last_end_us;   /* the newest slice's end as the ring keeps it */
    top_timeline_task_t cache[TOP_TIMELINE_CACHE];
    /* span pieces (pipeline_span_t), as slices without their own time: NULL until the first */
    top_timeline_slice_t *spans;
    uint64_t spans_added;
} top_timeline_t;

/* Returns 0, or -1 when out of memory (t is then empty, and adding does nothing). */
int top_timeline_init(top_timeline_t *t);
void top_timeline_free(top_timeline_t *t);

/* Forgets every slice (the pipeline started again: a replay seeking back). */
void top_timeline_clear(top_timeline_t *t);

/* One slice, as the observer tells it (they come in the order they end). Costs a copy; the name is
 * hashed only when the task's description changed. */
void top_timeline_add(top_timeline_t *t, const pipeline_slice_t *s);

/* One piece of a span (the part of it in one slice of its task): the cells where its task ran
 * inside a span are marked (TOP_CELL_SPAN). Takes its ring at the first (out of memory: none). */
void top_timeline_add_span(top_timeline_t *t, const pipeline_span_t *s);

/* The hash a name lane is matched by (64-bit FNV-1a; never 0). */
uint64_t top_timeline_name_hash(const char *name);

/* A lane: the slices of one name (by_inst 0, key a name hash) or of one instance (key epoch << 32
 * | id). */
typedef struct top_timeline_lane {
    uint64_t key;
    int by_inst;
} top_timeline_lane_t;

/* What a cell of a task's lane shows. */
enum {
    TOP_CELL_IDLE = 0, /* the task did not run in the cell's time */
    TOP_CELL_RAN,      /* it ran: a slice of it covers the cell's middle, or is shorter than a cell
                          and has its own middle in the cell */
    TOP_CELL_SLOW,     /* so did a slow slice of it: exclusive time over the threshold */
    TOP_CELL_UNKNOWN,  /* before what the ring still holds (or before the time line began) */
    TOP_CELL_SPAN,     /* it ran (not slow) inside a span there: a piece covers the cell's middle */
};

/* What a cell of the outside-tasks lane shows: how much of its time no slice covered. */
enum {
    TOP_OUTSIDE_NONE = 0, /* under an eighth */
    TOP_OUTSIDE_SOME,     /* up to half */
    TOP_OUTSIDE_MOST,     /* half or more */
    TOP_OUTSIDE_ALL,      /* all but an eighth */
    TOP_OUTSIDE_UNKNOWN,
};

/* Fills cells[lane * ncells + i] (TOP_CELL_*) for each lane and outside[i] (TOP_OUTSIDE_*, may be
 * NULL) for the span [to_us - span_us, to_us) cut into ncells cells of equal time, the newest on
 * the right. Slices ending after to_us are left out (a frozen view). busy is scratch of ncells
 * entries (may be NULL when outside is). Lanes past TOP_TIMELINE_LANES_MAX stay idle; ncells is at
 * most TOP_TIMELINE_CELLS_MAX (more are not worked out). */
void top_timeline_render(const top_timeline_t *t, uint64_t to_us, uint64_t span_us, uint64_t slow_us,
    const top_timeline_lane_t *lanes, size_t nlanes, int ncells, uint8_t *cells, uint8_t *outside, uint64_t *busy);

/* How far back the ring reaches from to_us: to_us - known_from, 0 when it holds nothing of it. */
uint64_t top_timeline_kept_us(const top_timeline_t *t, uint64_t to_us);

/* The zoom: the spans the keys step through, and the one after (dir > 0: longer) or before. */
uint64_t top_timeline_zoom(uint64_t span_us, int dir);
#define TOP_TIMELINE_SPAN_DEFAULT_US 5000000u

/* A tick of the axis over the lanes: at a cell, a round time before the right edge ("-5s",
 * "-0.5s", "-20ms"), drawn there as a bar and then the label. */
typedef struct top_tick {
    int cell;
    char label[24];
} top_tick_t;
#define TOP_TICKS_MAX 128

/* The ticks of an axis of ncells over span_us, from the left edge: a round step, at least every 12
 * cells; each where the one before left room, none over the edge's name (its last edge_w cells)
 * or over the cell keep (a mark drawn on the axis; -1: none). Returns how many, at most max. */
size_t top_timeline_ticks(uint64_t span_us, int ncells, int edge_w, int keep, top_tick_t *out, size_t max);

#endif
