/* The live table's timeline (host/views/top/top_timeline.c): which cells of which lane a slice marks,
 * slow slices, the outside-tasks lane, what is not known (before the time line, older than the
 * ring), a frozen edge, and a fixed memory whatever the number of slices. Cells are checked
 * against a brute-force model: every cell against every slice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "top_timeline.h"

static pipeline_slice_t slice_of(uint32_t id, const char *name, uint64_t start, uint64_t end, uint64_t self)
{
    pipeline_slice_t s = {
        .task = {.epoch = 0, .id = id, .name = name, .label = ""},
        .start_us = start,
        .end_us = end,
        .self_us = self,
    };
    return s;
}

/* cells as a string: ' ' idle, '=' ran, '#' slow, '~' not known */
static void cells_text(const uint8_t *cells, int n, char *out)
{
    static const char glyph[] = " =#~";
    for (int i = 0; i < n; i++) {
        out[i] = glyph[cells[i]];
    }
    out[n] = '\0';
}

static void name_lanes(top_timeline_lane_t *lanes, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        lanes[i] = (top_timeline_lane_t){.key = top_timeline_name_hash(names[i]), .by_inst = 0};
    }
}

static void cells_show_the_slices_that_cover_them(void **state)
{
    (void)state;
    top_timeline_t *t = malloc(sizeof *t);
    assert_int_equal(top_timeline_init(t), 0);
    /* a span of 1000 us in 10 cells of 100 us, from 1000 to 2000; a slice shows in the cells whose
     * middle (1050, 1150...) it covers, a shorter one in the cell its own middle is in */
    pipeline_slice_t s[] = {
        slice_of(1, "slow", 1000, 1350, 350),    /* cells 0-2, slow (> 200) */
        slice_of(2, "quicker", 1350, 1360, 10),  /* cell 3 (it covers 1350) */
        slice_of(2, "quicker", 1500, 1500, 0),   /* an empty slice: the cell it is in */
        slice_of(1, "slow", 1600, 1700, 100),    /* cell 6 exactly: not 7 */
        slice_of(3, NULL, 1900, 1950, 50),       /* no name yet: only its instance lane */
    };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        top_timeline_add(t, &s[i]);
    }
    const char *names[] = {"slow", "quicker", "main"};
    top_timeline_lane_t lanes[4];
    name_lanes(lanes, names, 3);
    lanes[3] = (top_timeline_lane_t){.key = 3, .by_inst = 1};
    uint8_t cells[4 * 10], outside[10];
    uint64_t busy[10];
    char text[16];
    top_timeline_render(t, 2000, 1000, 200, lanes, 4, 10, cells, outside, busy);
    cells_text(cells, 10, text);
    assert_string_equal(text, "###   =   "); /* 1350 is cell 3's middle: the slice ends there */
    cells_text(cells + 10, 10, text);
    assert_string_equal(text, "   = =    ");
    cells_text(cells + 20, 10, text);
    assert_string_equal(text, "          ");
    cells_text(cells + 30, 10, text);
    assert_string_equal(text, "         =");
    /* outside: cells 0-2 full, 3 has 60 of 100 us busy (some), 4 and 5 empty (all), 6 full,
     * 7 and 8 empty, 9 half busy (most) */
    uint8_t want[] = {TOP_OUTSIDE_NONE, TOP_OUTSIDE_NONE, TOP_OUTSIDE_NONE, TOP_OUTSIDE_SOME, TOP_OUTSIDE_ALL,
        TOP_OUTSIDE_ALL, TOP_OUTSIDE_NONE, TOP_OUTSIDE_ALL, TOP_OUTSIDE_ALL, TOP_OUTSIDE_MOST};
    assert_memory_equal(outside, want, sizeof want);

    /* a frozen edge at 1700: what ended after it is left out, the span ends there */
    top_timeline_render(t, 1700, 1000, 200, lanes, 4, 10, cells, NULL, NULL);
    cells_text(cells, 10, text);
    assert_string_equal(text, "   ###   =");
    cells_text(cells + 30, 10, text);
    assert_string_equal(text, "          ");
    /* a span reaching back before the time line began: those cells are not known */
    top_timeline_render(t, 700, 1000, 200, lanes, 4, 10, cells, outside, busy);
    cells_text(cells, 10, text);
    assert_string_equal(text, "~~~       ");
    assert_int_equal(outside[2], TOP_OUTSIDE_UNKNOWN);
    assert_int_equal(outside[3], TOP_OUTSIDE_ALL);
    top_timeline_free(t);
    free(t);
}

/* A random sequence of slices (as a scheduler makes them: one after another, some nested) checked
 * cell by cell against the model. */
static void cells_agree_with_a_brute_force_model(void **state)
{
    (void)state;
    top_timeline_t *t = malloc(sizeof *t);
    assert_int_equal(top_timeline_init(t), 0);
    enum { N = 3000, LANES = 5, CELLS = 97 };
    static pipeline_slice_t s[N];
    static const char *const names[LANES] = {"a", "b", "c", "d", "e"};
    uint64_t now = 0, seed = 12345;
    for (size_t i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t gap = (seed >> 33) % 300, len = (seed >> 13) % 900;
        uint32_t id = (uint32_t)((seed >> 50) % 7) + 1; /* ids 6 and 7 have no lane */
        s[i] = slice_of(id, id <= LANES ? names[id - 1] : "other", now + gap, now + gap + len, len);
        now += gap + len;
        top_timeline_add(t, &s[i]);
    }
    top_timeline_lane_t lanes[LANES];
    name_lanes(lanes, names, LANES);
    static uint8_t cells[LANES * CELLS];
    const uint64_t spans[] = {1000, 7777, 100000, 2 * now};
    for (size_t k = 0; k < sizeof spans / sizeof spans[0]; k++) {
        uint64_t span = spans[k], to = now - 1234;
        top_timeline_render(t, to, span, 500, lanes, LANES, CELLS, cells, NULL, NULL);
        int64_t from = (int64_t)to - (int64_t)span;
        for (int c = 0; c < CELLS; c++) {
            int64_t cs = from + (int64_t)((uint64_t)c * span / CELLS);
            for (int l = 0; l < LANES; l++) {
                uint8_t want = cs < 0 ? TOP_CELL_UNKNOWN : TOP_CELL_IDLE;
                for (size_t i = 0; i < N && want != TOP_CELL_UNKNOWN; i++) {
                    int64_t a = (int64_t)s[i].start_us, b = (int64_t)s[i].end_us;
                    if (s[i].task.id != (uint32_t)l + 1 || s[i].end_us > to || b < from || (b == from && b > a)) {
                        continue; /* another lane's, after the edge, or before the span */
                    }
                    /* shown: the slice covers the cell's middle; one that covers no cell's middle
                     * shows in the cell its own middle is in (times relative to the span's start,
                     * what is before it cut off) */
                    int64_t ra = a - from < 0 ? 0 : a - from, rb = b - from < 0 ? 0 : b - from;
                    int64_t mid2 = (2 * c + 1) * (int64_t)span; /* the middle, times 2 CELLS */
                    int covers_a_middle = 0;
                    for (int m = 0; m < CELLS && !covers_a_middle; m++) {
                        int64_t mm = (2 * m + 1) * (int64_t)span;
                        covers_a_middle = 2 * CELLS * ra <= mm && mm < 2 * CELLS * rb;
                    }
                    int hit = covers_a_middle ? 2 * CELLS * ra <= mid2 && mid2 < 2 * CELLS * rb
                                              : (ra + rb) * CELLS / (2 * (int64_t)span) == c;
                    if (hit) {
                        uint8_t m = s[i].self_us > 500 ? TOP_CELL_SLOW : TOP_CELL_RAN;
                        want = m > want ? m : want;
                    }
                }
                if (cells[l * CELLS + c] != want) {
                    fail_msg("span %llu, lane %d, cell %d: %d, the model says %d", (unsigned long long)span, l, c,
                        cells[l * CELLS + c], want);
                }
            }
        }
    }
    top_timeline_free(t);
    free(t);
}

/* The model of one render, slice by slice: every slice that ends inside [from, to] (one that ends
 * at from only when it is empty) marks the cells whose middle it covers, or, covering none, the
 * cell its own middle is in; it adds the time it shares with each cell to that cell's busy time.
 * lane_of_slice[i] is its lane (-1: none). */
static void model_render(const pipeline_slice_t *s, size_t n, const int *lane_of_slice, uint64_t to,
    uint64_t span, uint64_t slow, size_t nlanes, int ncells, uint8_t *cells, uint64_t *busy)
{
    int64_t from = (int64_t)to - (int64_t)span;
    memset(cells, TOP_CELL_IDLE, nlanes * (size_t)ncells);
    memset(busy, 0, (size_t)ncells * sizeof *busy);
    for (size_t i = 0; i < n; i++) {
        int64_t a = (int64_t)s[i].start_us, b = (int64_t)s[i].end_us;
        if (s[i].end_us > to || b < from || (b == from && b > a)) {
            continue;
        }
        int64_t ra = a - from < 0 ? 0 : a - from, rb = b - from;
        int first = -1, last = -1;
        for (int c = 0; c < ncells; c++) {
            int64_t lo = (int64_t)((uint64_t)c * span / (uint64_t)ncells);
            int64_t hi = (int64_t)((uint64_t)(c + 1) * span / (uint64_t)ncells);
            int64_t ov = (rb < hi ? rb : hi) - (ra > lo ? ra : lo);
            busy[c] += ov > 0 ? (uint64_t)ov : 0;
            int64_t mid2 = (2 * c + 1) * (int64_t)span; /* the middle, times 2 ncells */
            if (2 * ncells * ra <= mid2 && mid2 < 2 * ncells * rb) {
                first = first < 0 ? c : first;
                last = c;
            }
        }
        if (first < 0) {
            int64_t m = (ra + rb) * ncells / (2 * (int64_t)span);
            first = last = m >= ncells ? ncells - 1 : (int)m;
        }
        if (lane_of_slice[i] < 0) {
            continue;
        }
        uint8_t mark = s[i].self_us > slow ? TOP_CELL_SLOW : TOP_CELL_RAN;
        for (int c = first; c <= last; c++) {
            uint8_t *cell = &cells[(size_t)lane_of_slice[i] * (size_t)ncells + (size_t)c];
            *cell = mark > *cell ? mark : *cell;
        }
    }
    /* cells that start before the time line: not known (the ring holds every slice here) */
    for (int c = 0; c < ncells; c++) {
        if (from + (int64_t)((uint64_t)c * span / (uint64_t)ncells) < 0) {
            for (size_t l = 0; l < nlanes; l++) {
                cells[l * (size_t)ncells + (size_t)c] = TOP_CELL_UNKNOWN;
            }
        }
    }
}

/* Dense slices (many to a cell, as a busy device's), thousands of tasks (more than a render
 * remembers lanes of), lanes by name and by instance, edges inside the ring (a frozen view) and
 * at its end, cells of a few microseconds and of many: every cell of every lane, and the
 * outside-tasks lane's busy time, against the model. */
static void dense_slices_agree_with_the_model(void **state)
{
    (void)state;
    top_timeline_t *t = malloc(sizeof *t);
    assert_int_equal(top_timeline_init(t), 0);
    enum { N = 40000, NAMES = 6, INSTS = 3, TASKS = 3000, CELLS_MAX = 1024 };
    static pipeline_slice_t s[N];
    static int lane_of_slice[N];
    static char names[NAMES][8];
    top_timeline_lane_t lanes[NAMES + INSTS];
    for (int i = 0; i < NAMES; i++) {
        snprintf(names[i], sizeof names[i], "n%d", i);
        lanes[i] = (top_timeline_lane_t){.key = top_timeline_name_hash(names[i]), .by_inst = 0};
    }
    /* the instance lanes: tasks 7, 1031 (the same place in a table of 1024) and 2500 (no name) */
    const uint32_t inst_ids[INSTS] = {7, 1031, 2500};
    for (int i = 0; i < INSTS; i++) {
        lanes[NAMES + i] = (top_timeline_lane_t){.key = (uint64_t)1 << 32 | inst_ids[i], .by_inst = 1};
    }
    uint64_t now = 0, seed = 777;
    for (size_t i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        /* a quarter of them 0 to 2 us long: their middles fall on cells' rounded starts */
        uint64_t gap = (seed >> 33) % 40, len = (seed >> 58) % 4 == 0 ? (seed >> 13) % 3 : (seed >> 13) % 90;
        uint32_t id = (uint32_t)((seed >> 40) % TASKS) + 1;
        /* names: task id % 8 (6 and 7 have no lane), none for ids over 2400 */
        const char *name = id > 2400 ? NULL : id % 8 < NAMES ? names[id % 8] : "other";
        s[i] = (pipeline_slice_t){.task = {.epoch = 1, .id = id, .name = name, .label = ""},
            .start_us = now + gap, .end_us = now + gap + len, .self_us = len};
        now += gap + len;
        lane_of_slice[i] = -1;
        for (int k = 0; k < INSTS; k++) {
            lane_of_slice[i] = id == inst_ids[k] ? NAMES + k : lane_of_slice[i];
        }
        if (lane_of_slice[i] < 0 && name != NULL && id % 8 < NAMES) {
            lane_of_slice[i] = (int)(id % 8);
        }
        top_timeline_add(t, &s[i]);
    }
    assert_int_equal(t->ends_sorted, 1);
    static uint8_t cells[(NAMES + INSTS) * CELLS_MAX], want[(NAMES + INSTS) * CELLS_MAX];
    static uint8_t outside[CELLS_MAX];
    static uint64_t busy[CELLS_MAX], want_busy[CELLS_MAX];
    const uint64_t spans[] = {150, 1000, 7777, 100000, now / 2};
    const uint64_t tos[] = {now, now - 1, now - 5000, now / 2 + 13, now / 3};
    const int widths[] = {97, 1024, 3};
    for (size_t k = 0; k < sizeof spans / sizeof spans[0]; k++) {
        for (size_t j = 0; j < sizeof tos / sizeof tos[0]; j++) {
            for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
                int nc = widths[w];
                uint64_t span = spans[k], to = tos[j];
                top_timeline_render(t, to, span, 60, lanes, NAMES + INSTS, nc, cells, outside, busy);
                model_render(s, N, lane_of_slice, to, span, 60, NAMES + INSTS, nc, want, want_busy);
                for (size_t c = 0; c < (NAMES + INSTS) * (size_t)nc; c++) {
                    if (cells[c] != want[c]) {
                        fail_msg("span %llu, edge %llu, %d cells: lane %d, cell %d: %d, the model says %d",
                            (unsigned long long)span, (unsigned long long)to, nc, (int)(c / (size_t)nc),
                            (int)(c % (size_t)nc), cells[c], want[c]);
                    }
                }
                for (int c = 0; c < nc; c++) {
                    /* the scratch holds each cell's busy time after a render */
                    if (busy[c] != want_busy[c]) {
                        fail_msg("span %llu, edge %llu, %d cells: cell %d busy %llu us, the model says %llu",
                            (unsigned long long)span, (unsigned long long)to, nc, c, (unsigned long long)busy[c],
                            (unsigned long long)want_busy[c]);
                    }
                    uint64_t len = (uint64_t)(c + 1) * span / (uint64_t)nc - (uint64_t)c * span / (uint64_t)nc;
                    uint64_t b = want_busy[c] < len ? want_busy[c] : len, idle = len - b;
                    uint8_t o = len == 0 || idle * 8 < len ? TOP_OUTSIDE_NONE
                              : idle * 2 < len             ? TOP_OUTSIDE_SOME
                              : idle * 8 < len * 7         ? TOP_OUTSIDE_MOST
                                                           : TOP_OUTSIDE_ALL;
                    if ((int64_t)to - (int64_t)span + (int64_t)((uint64_t)c * span / (uint64_t)nc) < 0) {
                        o = TOP_OUTSIDE_UNKNOWN;
                    }
                    if (outside[c] != o) {
                        fail_msg("span %llu, edge %llu, %d cells: outside cell %d: %d (busy %llu), the model says "
                                 "%d (busy %llu)", (unsigned long long)span, (unsigned long long)to, nc, c,
                            outside[c], (unsigned long long)busy[c], o, (unsigned long long)want_busy[c]);
                    }
                }
            }
        }
    }
    top_timeline_free(t);
    free(t);
}

/* A slice longer than the ring's 32-bit span (over 71 minutes) told after one nested in it: the
 * ring keeps the outer one's end cut short, so it is no longer sorted by end, and a frozen view
 * at a moment between the two ends still finds the outer one (newer in the ring, ending earlier
 * as kept) behind the nested one. */
static void a_saturated_slice_unsorts_the_ring(void **state)
{
    (void)state;
    top_timeline_t *t = malloc(sizeof *t);
    assert_int_equal(top_timeline_init(t), 0);
    const uint64_t inner_end = 10000000000ull;
    pipeline_slice_t inner = slice_of(2, "inner", inner_end - 100, inner_end, 100);
    pipeline_slice_t outer = slice_of(1, "outer", 0, inner_end + 1000, 1000);
    top_timeline_add(t, &inner);
    top_timeline_add(t, &outer);
    assert_int_equal(t->ends_sorted, 0);
    /* as kept, the outer one ends at 2^32 - 1 us: cells of 200 s from 3000 s, it covers 6 middles */
    top_timeline_lane_t lane = {.key = top_timeline_name_hash("outer")};
    uint8_t cells[10];
    char text[16];
    top_timeline_render(t, 5000000000ull, 2000000000ull, 1000, &lane, 1, 10, cells, NULL, NULL);
    cells_text(cells, 10, text);
    assert_string_equal(text, "======    ");
    top_timeline_clear(t);
    assert_int_equal(t->ends_sorted, 1);
    top_timeline_free(t);
    free(t);
}

/* Far more slices than the ring holds: the memory stays the ring's, the newest are all there, and
 * what the ring let go is shown as not known rather than as idle. */
static void ring_is_bounded_and_says_what_it_lost(void **state)
{
    (void)state;
    top_timeline_t *t = malloc(sizeof *t);
    assert_int_equal(top_timeline_init(t), 0);
    const top_timeline_slice_t *ring = t->ring;
    uint64_t n = 3u * TOP_TIMELINE_SLICES + 17u;
    for (uint64_t i = 0; i < n; i++) {
        pipeline_slice_t s = slice_of(1, "busy", i * 10, i * 10 + 5, 5);
        top_timeline_add(t, &s);
    }
    assert_ptr_equal(t->ring, ring);
    uint64_t to = n * 10;
    uint64_t oldest_kept_end = (n - TOP_TIMELINE_SLICES) * 10 - 5; /* the end of the last one let go */
    assert_int_equal(t->known_from_us, oldest_kept_end);
    assert_int_equal(top_timeline_kept_us(t, to), to - oldest_kept_end);
    /* a span twice what is kept: its older half is not known, its newer half shows every slice */
    enum { CELLS = 100 };
    uint64_t span = 2 * TOP_TIMELINE_SLICES * 10;
    top_timeline_lane_t lane = {.key = top_timeline_name_hash("busy")};
    uint8_t cells[CELLS];
    top_timeline_render(t, to, span, 1000, &lane, 1, CELLS, cells, NULL, NULL);
    for (int c = 0; c < CELLS; c++) {
        uint64_t cs = to - span + (uint64_t)c * span / CELLS;
        assert_int_equal(cells[c], cs < oldest_kept_end ? TOP_CELL_UNKNOWN : TOP_CELL_RAN);
    }
    top_timeline_clear(t);
    assert_int_equal(t->known_from_us, 0);
    top_timeline_render(t, to, span, 1000, &lane, 1, CELLS, cells, NULL, NULL);
    assert_int_equal(cells[CELLS - 1], TOP_CELL_IDLE);
    top_timeline_free(t);
    free(t);
}

/* A task that gets its name after its first slices: the later ones go to the name's lane. */
static void name_learnt_later_moves_to_its_lane(void **state)
{
    (void)state;
    top_timeline_t *t = malloc(sizeof *t);
    assert_int_equal(top_timeline_init(t), 0);
    char name[16] = "";
    pipeline_slice_t a = slice_of(9, NULL, 0, 100, 100);
    top_timeline_add(t, &a);
    snprintf(name, sizeof name, "sensor");
    pipeline_slice_t b = slice_of(9, name, 500, 600, 100);
    top_timeline_add(t, &b);
    top_timeline_lane_t lane = {.key = top_timeline_name_hash("sensor")};
    uint8_t cells[10];
    char text[16];
    top_timeline_render(t, 1000, 1000, 1000, &lane, 1, 10, cells, NULL, NULL);
    cells_text(cells, 10, text);
    assert_string_equal(text, "     =    ");
    top_timeline_free(t);
    free(t);
}

static void zoom_steps_and_stops(void **state)
{
    (void)state;
    uint64_t s = TOP_TIMELINE_SPAN_DEFAULT_US;
    assert_int_equal(top_timeline_zoom(s, -1), 2000000u);
    assert_int_equal(top_timeline_zoom(s, 1), 10000000u);
    for (int i = 0; i < 20; i++) {
        s = top_timeline_zoom(s, -1);
    }
    assert_int_equal(s, 100000u);
    for (int i = 0; i < 20; i++) {
        s = top_timeline_zoom(s, 1);
    }
    assert_int_equal(s, 60000000u);
    assert_int_equal(top_timeline_zoom(3000000u, -1), 2000000u); /* between steps: the one below */
    assert_int_equal(top_timeline_zoom(3000000u, 1), 10000000u);
}

/* The axis's ticks: round steps back from the right edge, labelled; none over another, over the
 * edge's name, or over the cell a mark is drawn at (the hog's mark of a capture: it overwrote a
 * label when it fell on one). Every span the zoom steps through, and odd ones, every width, every
 * mark cell. */
static void axis_ticks_leave_the_mark_alone(void **state)
{
    (void)state;
    static const uint64_t spans[] = {100000u, 200000u, 500000u, 1000000u, 2000000u, 5000000u, 10000000u,
        20000000u, 30000000u, 60000000u, 1234567u, 77000u, 900u, 1u};
    top_tick_t t[TOP_TICKS_MAX];
    for (size_t si = 0; si < sizeof spans / sizeof spans[0]; si++) {
        uint64_t span = spans[si];
        for (int ncells = 4; ncells <= 400; ncells += ncells < 60 ? 1 : 17) {
            size_t plain = top_timeline_ticks(span, ncells, 3, -1, t, TOP_TICKS_MAX);
            for (int keep = -1; keep < ncells; keep++) {
                size_t n = keep < 0 ? plain : top_timeline_ticks(span, ncells, 3, keep, t, TOP_TICKS_MAX);
                int free_cell = 0;
                for (size_t i = 0; i < n; i++) {
                    int c = t[i].cell, w = (int)strlen(t[i].label);
                    if (c < free_cell || c + w + 1 >= ncells - 3 || (keep >= c && keep <= c + w)) {
                        fail_msg("span %llu us, %d cells, mark %d: tick %s at %d", (unsigned long long)span, ncells,
                            keep, t[i].label, c);
                    }
                    free_cell = c + w + 2;
                    /* the label is the time back from the right edge its cell starts at, to a cell */
                    double back = t[i].label[strlen(t[i].label) - 2] == 'm' ? atof(t[i].label + 1) * 1e3
                                                                            : atof(t[i].label + 1) * 1e6;
                    double at = (double)span - back;
                    assert_true(at >= (double)c * (double)span / ncells - 1e-6);
                    assert_true(at < (double)(c + 1) * (double)span / ncells + 1e-6);
                }
                /* a mark takes at most the one tick it falls on: the others stay, or move into its room */
                assert_true(n + 1 >= plain);
            }
        }
    }
    /* 5 s over 100 cells: "-5s" at 0, "-4s" at 20, ...; a mark in "-3s" (cells 40 to 42) takes it */
    size_t n = top_timeline_ticks(5000000u, 100, 3, -1, t, TOP_TICKS_MAX);
    assert_int_equal(n, 5);
    assert_int_equal(t[2].cell, 40);
    assert_string_equal(t[2].label, "-3s");
    n = top_timeline_ticks(5000000u, 100, 3, 41, t, TOP_TICKS_MAX);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < n; i++) {
        assert_string_not_equal(t[i].label, "-3s");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cells_show_the_slices_that_cover_them),
        cmocka_unit_test(cells_agree_with_a_brute_force_model),
        cmocka_unit_test(dense_slices_agree_with_the_model),
        cmocka_unit_test(a_saturated_slice_unsorts_the_ring),
        cmocka_unit_test(ring_is_bounded_and_says_what_it_lost),
        cmocka_unit_test(name_learnt_later_moves_to_its_lane),
        cmocka_unit_test(zoom_steps_and_stops),
        cmocka_unit_test(axis_ticks_leave_the_mark_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
