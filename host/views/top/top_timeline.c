/* The live table's timeline: the ring of slices and the cells of its lanes (top_timeline.h). */
#include "top_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING_MASK (TOP_TIMELINE_SLICES - 1u)

int top_timeline_init(top_timeline_t *t)
{
    memset(t, 0, sizeof *t);
    t->ends_sorted = 1;
    t->ring = malloc(TOP_TIMELINE_SLICES * sizeof *t->ring);
    return t->ring ? 0 : -1;
}

void top_timeline_free(top_timeline_t *t)
{
    free(t->ring);
    t->ring = NULL;
    free(t->spans);
    t->spans = NULL;
}

void top_timeline_clear(top_timeline_t *t)
{
    t->added = 0;
    t->spans_added = 0;
    t->known_from_us = 0;
    t->latest_us = 0;
    t->ends_sorted = 1;
    t->last_end_us = 0;
    memset(t->cache, 0, sizeof t->cache);
}

uint64_t top_timeline_name_hash(const char *name)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h = (h ^ *p) * 1099511628211ull;
    }
    return h ? h : 1;
}

static uint32_t saturate32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The task's entry in the cache of name hashes: the name is hashed again only when what the
 * observer says of the task may have changed (out of line: the common case is the check). */
static __attribute__((noinline)) void task_rehash(top_timeline_task_t *c, uint64_t key, const pipeline_task_t *task)
{
    c->used = 1;
    c->inst_key = key;
    c->version = task->version;
    c->name = task->name;
    c->name_hash = task->name ? top_timeline_name_hash(task->name) : 0;
}

static inline __attribute__((always_inline)) const top_timeline_task_t *task_hashed(top_timeline_t *t,
    const pipeline_task_t *task)
{
    uint64_t key = (uint64_t)task->epoch << 32 | task->id;
    top_timeline_task_t *c = &t->cache[(task->id ^ task->epoch * 0x9E3779B1u) & (TOP_TIMELINE_CACHE - 1u)];
    if (!c->used || c->inst_key != key || c->version != task->version || c->name != (const void *)task->name) {
        task_rehash(c, key, task);
    }
    return c;
}

void top_timeline_add_span(top_timeline_t *t, const pipeline_span_t *s)
{
    if (t->spans == NULL) {
        t->spans = malloc(TOP_TIMELINE_SPANS * sizeof *t->spans);
        if (t->spans == NULL) {
            return;
        }
    }
    const top_timeline_task_t *c = task_hashed(t, &s->task);
    top_timeline_slice_t *e = &t->spans[t->spans_added++ & (TOP_TIMELINE_SPANS - 1u)];
    e->start_us = s->start_us;
    e->inst_key = c->inst_key;
    e->name_hash = c->name_hash;
    e->span_us = saturate32(s->end_us - s->start_us);
    e->self_us = 0;
}

void top_timeline_add(top_timeline_t *t, const pipeline_slice_t *s)
{
    top_timeline_slice_t *const ring = t->ring;
    if (ring == NULL) {
        return;
    }
    const top_timeline_task_t *c = task_hashed(t, &s->task);
    const uint64_t added = t->added, start = s->start_us, end_us = s->end_us;
    top_timeline_slice_t *e = &ring[added & RING_MASK];
    if (added >= TOP_TIMELINE_SLICES) {
        /* the oldest goes: what ended before its end may be gone too */
        uint64_t gone = e->start_us + e->span_us;
        if (gone > t->known_from_us) {
            t->known_from_us = gone;
        }
    }
    uint32_t span = saturate32(end_us - start);
    *e = (top_timeline_slice_t){.start_us = start, .inst_key = c->inst_key, .name_hash = c->name_hash,
        .span_us = span, .self_us = saturate32(s->self_us)};
    t->added = added + 1u;
    uint64_t end = start + span;
    if (end < t->last_end_us) {
        t->ends_sorted = 0; /* a slice longer than its saturated span: the ring is walked whole */
    }
    t->last_end_us = end;
    if (end_us > t->latest_us) {
        t->latest_us = end_us;
    }
}

uint64_t top_timeline_kept_us(const top_timeline_t *t, uint64_t to_us)
{
    return to_us > t->known_from_us ? to_us - t->known_from_us : 0;
}

/* ---- the lanes ---- */

/* Lanes found by key: open addressing over twice the lanes' count, a power of two. */
#define LANE_SLOTS (2 * TOP_TIMELINE_LANES_MAX)

typedef struct lane_map {
    uint64_t key[LANE_SLOTS];
    int16_t lane[LANE_SLOTS]; /* -1: empty */
} lane_map_t;

static size_t lane_slot(uint64_t key, int by_inst)
{
    uint64_t h = (key ^ (uint64_t)by_inst) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 40) & (LANE_SLOTS - 1);
}

static void lane_map_build(lane_map_t *m, const top_timeline_lane_t *lanes, size_t n)
{
    memset(m->lane, 0xff, sizeof m->lane);
    for (size_t i = 0; i < n && i < TOP_TIMELINE_LANES_MAX; i++) {
        /* instance keys and name hashes share the table: the low bit tells them apart */
        uint64_t key = lanes[i].key << 1 | (lanes[i].by_inst != 0);
        size_t at = lane_slot(key, 0);
        while (m->lane[at] >= 0 && m->key[at] != key) {
            at = (at + 1) & (LANE_SLOTS - 1);
        }
        if (m->lane[at] < 0) {
            m->key[at] = key;
            m->lane[at] = (int16_t)i;
        }
    }
}

static int lane_find(const lane_map_t *m, uint64_t key, int by_inst)
{
    key = key << 1 | (by_inst != 0);
    size_t at = lane_slot(key, 0);
    while (m->lane[at] >= 0) {
        if (m->key[at] == key) {
            return m->lane[at];
        }
        at = (at + 1) & (LANE_SLOTS - 1);
    }
    return -1;
}

/* A render's lanes by instance: what lane_find says of an instance key and the name hash its
 * slice carries, remembered for the render (gen), since a span holds many slices of few tasks.
 * Direct-mapped: a clash is looked up again. */
#define LANE_MEMO 1024u

typedef struct lane_memo {
    uint64_t inst_key, name_hash;
    uint32_t gen;
    int32_t lane;
} lane_memo_t;

static uint32_t lane_memo_gen;
static lane_memo_t lane_memo[LANE_MEMO];

static void lane_memo_start(void)
{
    if (++lane_memo_gen == 0) {
        memset(lane_memo, 0, sizeof lane_memo);
        lane_memo_gen = 1;
    }
}

static __attribute__((noinline)) int lane_look_up(const lane_map_t *m, const top_timeline_slice_t *e, lane_memo_t *c)
{
    int lane = lane_find(m, e->inst_key, 1);
    if (lane < 0 && e->name_hash != 0) {
        lane = lane_find(m, e->name_hash, 0);
    }
    *c = (lane_memo_t){.inst_key = e->inst_key, .name_hash = e->name_hash, .gen = lane_memo_gen, .lane = lane};
    return lane;
}

/* The slice's lane, -1 for none: by its instance, else by its name (placed by the task's id) */
static inline __attribute__((always_inline)) int lane_of(const lane_map_t *m, const top_timeline_slice_t *e,
    uint32_t gen)
{
    lane_memo_t *c = &lane_memo[(uint32_t)e->inst_key & (LANE_MEMO - 1u)];
    if (c->gen == gen && c->inst_key == e->inst_key && c->name_hash == e->name_hash) {
        return c->lane;
    }
    return lane_look_up(m, e, c);
}

/* Cell c of a render: [from + bound[c], from + bound[c + 1]) (bound[0] = 0, bound[ncells] = span),
 * its middle at mid2[c] / (2 ncells) after from. Worked out once per render, so that placing a
 * slice takes one division. No overflow: spans are minutes (< 2^36 us), cells a screen's width. */
typedef struct cell_grid {
    int64_t from;
    uint64_t span;
    int n;
    uint64_t bound[TOP_TIMELINE_CELLS_MAX + 1];
    uint64_t mid2[TOP_TIMELINE_CELLS_MAX];
    /* the first start from which a slice within cell c has its middle in c: ceil(c span / n) (on
     * a grid of cells at least 2 us long, the only middle such a slice can cover is its cell's,
     * and when it covers none, its own middle is in c too: from bound[c], rounded down, it may be
     * in c - 1) */
    uint64_t safe[TOP_TIMELINE_CELLS_MAX];
} cell_grid_t;

static void grid_make(cell_grid_t *g, int64_t from, uint64_t span_us, int ncells)
{
    g->from = from;
    g->span = span_us;
    g->n = ncells;
    for (int c = 0; c <= ncells; c++) {
        g->bound[c] = (uint64_t)c * span_us / (uint64_t)ncells;
    }
    for (int c = 0; c < ncells; c++) {
        g->mid2[c] = (uint64_t)(2 * c + 1) * span_us;
    }
    for (int c = 0; c < ncells; c++) {
        g->safe[c] = ((uint64_t)c * span_us + (uint64_t)ncells - 1u) / (uint64_t)ncells;
    }
}

/* A slice [s, e) on the grid: the cells it shows in, [*c0, *c1] (the cells whose middle it covers,
 * or when it covers none, being shorter than a cell, the cell its own middle is in: so no slice is
 * too short to show, and neither is a gap of a cell's length between two slices, which marking
 * every cell a slice touches would fill in); and when busy is not NULL, the time it shares with
 * each cell it touches added there. Times before the span are cut off. */
static void grid_place(const cell_grid_t *g, uint64_t s, uint64_t e, int *c0, int *c1, uint64_t *busy)
{
    int64_t ra = (int64_t)s - g->from, rb = (int64_t)e - g->from;
    uint64_t a = ra < 0 ? 0 : (uint64_t)ra, b = rb < 0 ? 0 : (uint64_t)rb;
    uint64_t n2 = 2u * (uint64_t)g->n, na = n2 * a, nb = n2 * b;
    uint64_t at = a * (uint64_t)g->n / g->span;
    int c = at >= (uint64_t)g->n ? g->n - 1 : (int)at;
    int first = -1, last = -1;
    for (; c < g->n && g->bound[c] < b; c++) {
        if (na <= g->mid2[c] && g->mid2[c] < nb) {
            first = first < 0 ? c : first;
            last = c;
        }
        if (busy) {
            uint64_t lo = a > g->bound[c] ? a : g->bound[c];
            uint64_t hi = b < g->bound[c + 1] ? b : g->bound[c + 1];
            busy[c] += hi > lo ? hi - lo : 0;
        }
    }
    if (first < 0) {
        uint64_t mid = (a + b) * (uint64_t)g->n / (2u * g->span);
        first = last = mid >= (uint64_t)g->n ? g->n - 1 : (int)mid;
    }
    *c0 = first;
    *c1 = last;
}

/* With the ring sorted by end: how many of the newest slices (counted back from the newest, the
 * kept ones) end after to_us, so that a frozen view's walk starts at its moment. */
static uint64_t newest_before(const top_timeline_t *t, uint64_t kept, uint64_t to_us)
{
    uint64_t lo = 0, hi = kept; /* the answer is in [lo, hi] */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const top_timeline_slice_t *e = &t->ring[(t->added - 1 - mid) & RING_MASK];
        if (e->start_us + e->span_us > to_us) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

void top_timeline_render(const top_timeline_t *t, uint64_t to_us, uint64_t span_us, uint64_t slow_us,
    const top_timeline_lane_t *lanes, size_t nlanes, int ncells, uint8_t *cells, uint8_t *outside, uint64_t *busy)
{
    if (ncells <= 0) {
        return;
    }
    if (ncells > (int)TOP_TIMELINE_CELLS_MAX) {
        ncells = (int)TOP_TIMELINE_CELLS_MAX; /* the rest stay as they are: callers keep within it */
    }
    if (nlanes > 0) {
        memset(cells, TOP_CELL_IDLE, nlanes * (size_t)ncells);
    }
    if (span_us == 0) {
        span_us = 1;
    }
    int64_t from = (int64_t)to_us - (int64_t)span_us;
    if (outside) {
        memset(busy, 0, (size_t)ncells * sizeof *busy);
    }
    /* big for the stack; the view is single-threaded */
    static lane_map_t map;
    static cell_grid_t grid;
    lane_map_build(&map, lanes, nlanes);
    grid_make(&grid, from, span_us, ncells);

    lane_memo_start();
    const uint32_t gen = lane_memo_gen;
    const top_timeline_slice_t *const ring = t->ring;
    const uint64_t newest = t->added - 1u; /* the walk's slice i is ring[(newest - i) % size] */
    uint64_t kept = t->ring ? (t->added < TOP_TIMELINE_SLICES ? t->added : TOP_TIMELINE_SLICES) : 0;
    uint64_t i = t->ends_sorted ? newest_before(t, kept, to_us) : 0;
    /* cells of 2 us or more: the slices within one cell (most of them), one after another, are
     * taken by the inner loop below, without placing each (cc: the last cell starting before the
     * slice's end, moved as the ends go back) */
    const int one_cell = span_us >= 2u * (uint64_t)ncells;
    int cc = ncells - 1;
    while (i < kept) {
        const top_timeline_slice_t *e = &ring[(newest - i) & RING_MASK];
        uint64_t end = e->start_us + e->span_us;
        if ((int64_t)end < from || ((int64_t)end == from && e->span_us > 0)) {
            break; /* they come in the order they end: the older ones are all before the span */
        }
        if (end > to_us) {
            i++;
            continue; /* after a frozen view's moment */
        }
        if (one_cell) {
            uint64_t b = (uint64_t)((int64_t)end - from);
            while (cc > 0 && grid.bound[cc] >= b) {
                cc--;
            }
            while (cc + 1 < ncells && grid.bound[cc + 1] < b) {
                cc++;
            }
            /* a slice from safe[cc] on that ends before the next cell shows in cell cc alone
             * (grid_make), and its time is cc's: the run of them from slice i on */
            const int64_t lo = from + (int64_t)grid.safe[cc], hi = from + (int64_t)grid.bound[cc + 1];
            uint8_t *col = cells + cc;
            uint64_t sum = 0, i0 = i;
            for (; i < kept; i++) {
                const top_timeline_slice_t *f = &ring[(newest - i) & RING_MASK];
                if ((int64_t)f->start_us < lo || (int64_t)(f->start_us + f->span_us) >= hi) {
                    break;
                }
                sum += f->span_us;
                int lane = lane_of(&map, f, gen);
                if (lane >= 0) {
                    uint8_t mark = f->self_us > slow_us ? TOP_CELL_SLOW : TOP_CELL_RAN;
                    uint8_t *cell = col + (size_t)lane * (size_t)ncells;
                    *cell = *cell < mark ? mark : *cell;
                }
            }
            if (outside) {
                busy[cc] += sum;
            }
            if (i != i0) {
                continue;
            }
        }
        int c0, c1;
        grid_place(&grid, e->start_us, end, &c0, &c1, outside ? busy : NULL);
        int lane = lane_of(&map, e, gen);
        if (lane >= 0) {
            uint8_t mark = e->self_us > slow_us ? TOP_CELL_SLOW : TOP_CELL_RAN;
            uint8_t *row = cells + (size_t)lane * (size_t)ncells;
            for (int c = c0; c <= c1; c++) {
                if (row[c] < mark) {
                    row[c] = mark;
                }
            }
        }
        i++;
    }

    /* where a task ran inside a span: its cells that ran (not slow) marked. Pieces come in the
     * order they end, as slices do (the last piece of a span before its slice: a few out of
     * order, so the walk stops only well before the span shown) */
    uint64_t kept_spans = t->spans ? (t->spans_added < TOP_TIMELINE_SPANS ? t->spans_added : TOP_TIMELINE_SPANS) : 0;
    for (uint64_t i = 0; i < kept_spans; i++) {
        const top_timeline_slice_t *e = &t->spans[(t->spans_added - 1 - i) & (TOP_TIMELINE_SPANS - 1u)];
        uint64_t end = e->start_us + e->span_us;
        if ((int64_t)end + (int64_t)span_us < from) {
            break;
        }
        if (end > to_us || (int64_t)end < from) {
            continue;
        }
        int lane = lane_find(&map, e->inst_key, 1);
        if (lane < 0 && e->name_hash != 0) {
            lane = lane_find(&map, e->name_hash, 0);
        }
        if (lane < 0) {
            continue;
        }
        int c0, c1;
        grid_place(&grid, e->start_us, end, &c0, &c1, NULL);
        uint8_t *row = cells + (size_t)lane * (size_t)ncells;
        for (int c = c0; c <= c1; c++) {
            if (row[c] == TOP_CELL_RAN) {
                row[c] = TOP_CELL_SPAN;
            }
        }
    }

    /* cells before what the ring holds, or before the time line began: not known */
    for (int c = 0; c < ncells; c++) {
        int64_t cs = from + (int64_t)grid.bound[c];
        int unknown = cs < 0 || cs < (int64_t)t->known_from_us;
        if (unknown) {
            for (size_t l = 0; l < nlanes; l++) {
                cells[l * (size_t)ncells + (size_t)c] = TOP_CELL_UNKNOWN;
            }
        }
        if (outside) {
            uint64_t len = grid.bound[c + 1] - grid.bound[c], b = busy[c] < len ? busy[c] : len;
            uint64_t idle = len - b;
            if (unknown) {
                outside[c] = TOP_OUTSIDE_UNKNOWN;
            } else if (len == 0 || idle * 8 < len) {
                outside[c] = TOP_OUTSIDE_NONE;
            } else if (idle * 2 < len) {
                outside[c] = TOP_OUTSIDE_SOME;
            } else if (idle * 8 < len * 7) {
                outside[c] = TOP_OUTSIDE_MOST;
            } else {
                outside[c] = TOP_OUTSIDE_ALL;
            }
        }
    }
}

uint64_t top_timeline_zoom(uint64_t span_us, int dir)
{
    static const uint64_t spans[] = {100000u, 200000u, 500000u, 1000000u, 2000000u, 5000000u, 10000000u,
        20000000u, 30000000u, 60000000u};
    size_t n = sizeof spans / sizeof spans[0], at = 0;
    while (at + 1 < n && spans[at] < span_us) {
        at++;
    }
    if (dir > 0 && at + 1 < n) {
        at++;
    } else if (dir < 0 && at > 0 && spans[at] >= span_us) {
        at--;
    }
    return spans[at];
}

/* A time before the right edge: "-5s", "-0.5s", "-20ms". */
static void tick_label(char *out, size_t size, uint64_t back_us)
{
    if (back_us >= 1000000u && back_us % 100000u == 0) {
        snprintf(out, size, "-%gs", (double)back_us / 1e6);
    } else if (back_us >= 1000000u) {
        snprintf(out, size, "-%.2fs", (double)back_us / 1e6);
    } else {
        snprintf(out, size, "-%gms", (double)back_us / 1e3);
    }
}

size_t top_timeline_ticks(uint64_t span_us, int ncells, int edge_w, int keep, top_tick_t *out, size_t max)
{
    static const uint64_t steps[] = {10000u, 20000u, 50000u, 100000u, 200000u, 500000u, 1000000u, 2000000u,
        5000000u, 10000000u, 20000000u, 30000000u};
    uint64_t step = steps[sizeof steps / sizeof steps[0] - 1];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (steps[i] * (uint64_t)ncells >= span_us * 12u) {
            step = steps[i];
            break;
        }
    }
    size_t n = 0;
    int edge = ncells - edge_w, free_cell = 0;
    /* from the left edge (the whole span back) to the right one: a tick at the first cell whenever
     * the span is a whole number of steps, which every zoom's is */
    for (uint64_t k = span_us / step; k >= 1 && span_us > 0 && ncells > 0 && n < max; k--) {
        uint64_t back = k * step;
        int c = (int)((span_us - back) * (uint64_t)ncells / span_us);
        tick_label(out[n].label, sizeof out[n].label, back);
        int w = (int)strlen(out[n].label);
        /* its bar and label take cells c .. c + w, and a space after them */
        if (c < free_cell || c + w + 1 >= edge || (keep >= c && keep <= c + w)) {
            continue;
        }
        out[n++].cell = c;
        free_cell = c + w + 2;
    }
    return n;
}
