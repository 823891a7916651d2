/* The text report: one table, box-drawn in UTF-8 or plain ASCII, with the stream's health around it.
 * Cells are measured in terminal columns (escape_width), so wide and zero-width characters in
 * names keep the borders straight, as in the live table. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "report.h"
#include "stats.h"
#include "stats_spans.h"


#define COLS_MAX 13
#define CELL_MAX (STATS_TEXT_MAX * 2 + 64)
#define NAME_WIDTH_MAX 60

typedef struct table {
    size_t ncols, nrows, cap;
    const char *head[COLS_MAX];
    int left[COLS_MAX];          /* left-aligned column */
    size_t width[COLS_MAX];
    /* the cells' text back to back (most are a few digits: a fixed CELL_MAX each took 5 KB a row,
     * 50 MB for 10,000 instances); at[row * COLS_MAX + col] is 1 + where a cell starts, 0 empty */
    char *text;
    size_t text_len, text_cap;
    size_t *at;
    size_t open_cell;            /* 1 + the at[] index of the cell being written, 0 none */
    int failed;                  /* out of memory */
    size_t rule_before;          /* a rule above this row (the outside-tasks row), or SIZE_MAX */
} table_t;

typedef struct glyphs {
    const char *h, *v, *tl, *tm, *tr, *ml, *mm, *mr, *bl, *bm, *br, *ge;
    const char *cut; /* ends a cut cell: one column */
} glyphs_t;

static const glyphs_t box_utf8 = {"─", "│", "┌", "┬", "┐", "├", "┼", "┤", "└", "┴", "┘", "≥", ESCAPE_CUT_MARK};
static const glyphs_t box_ascii = {"-", "|", "+", "+", "+", "+", "+", "+", "+", "+", "+", ">=", "~"};

/* Microseconds as milliseconds with three decimals, exactly. */
static void fmt_ms(char *out, size_t size, const char *mark, uint64_t us)
{
    snprintf(out, size, "%s%" PRIu64 ".%03u", mark, us / 1000u, (unsigned)(us % 1000u));
}

static void fmt_share(char *out, size_t size, const char *mark, uint64_t us, uint64_t elapsed)
{
    if (elapsed == 0) {
        snprintf(out, size, "-");
        return;
    }
    snprintf(out, size, "%s%.1f", mark, 100.0 * (double)us / (double)elapsed);
}

/* Ends the cell being written: its text stays, the rest of its room is for the next. */
static void cell_close(table_t *t)
{
    if (t->open_cell != 0) {
        t->text_len += strlen(t->text + t->at[t->open_cell - 1] - 1) + 1;
        t->open_cell = 0;
    }
}

/* Room for a cell's text (CELL_MAX bytes, to be written at once, before the next call). */
static char *cell(table_t *t, size_t row, size_t col)
{
    static char lost[CELL_MAX];
    cell_close(t);
    if (t->text_cap - t->text_len < CELL_MAX) {
        size_t cap = t->text_cap * 2 + CELL_MAX;
        char *grown = t->failed ? NULL : realloc(t->text, cap);
        if (grown == NULL) {
            t->failed = 1;
            return lost;
        }
        t->text = grown;
        t->text_cap = cap;
    }
    size_t i = row * COLS_MAX + col;
    t->at[i] = t->text_len + 1;
    t->open_cell = i + 1;
    t->text[t->text_len] = '\0';
    return t->text + t->text_len;
}

static const char *cell_text(const table_t *t, size_t row, size_t col)
{
    size_t at = t->at[row * COLS_MAX + col];
    return at != 0 ? t->text + at - 1 : "";
}

/* A line is put together here and written with one call: a table of thousands of instances was
 * tens of thousands of stdio calls. */
typedef struct line {
    char *buf;
    size_t len;
} line_t;

static void line_put(line_t *l, const char *s, size_t n)
{
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

static void line_str(line_t *l, const char *s)
{
    line_put(l, s, strlen(s));
}

static void line_pad(line_t *l, size_t n)
{
    memset(l->buf + l->len, ' ', n);
    l->len += n;
}

static void line_end(FILE *out, line_t *l)
{
    l->buf[l->len++] = '\n';
    fwrite(l->buf, 1, l->len, out);
    l->len = 0;
}

static void table_print_rule(FILE *out, line_t *l, const table_t *t, const glyphs_t *g, const char *left,
    const char *mid, const char *right)
{
    line_str(l, left);
    for (size_t c = 0; c < t->ncols; c++) {
        for (size_t i = 0; i < t->width[c] + 2; i++) {
            line_str(l, g->h);
        }
        line_str(l, c + 1 < t->ncols ? mid : right);
    }
    line_end(out, l);
}

static void table_print_row(FILE *out, line_t *l, const table_t *t, const glyphs_t *g, const char *const *cells)
{
    line_str(l, g->v);
    for (size_t c = 0; c < t->ncols; c++) {
        const char *s = cells[c];
        size_t w = escape_width(s);
        size_t bytes = strlen(s), all = bytes;
        if (w > t->width[c]) {
            /* only the name column is ever cut: keep whole characters, mark the cut (one column);
             * a wide glyph that would straddle the edge goes, and padding fills its place */
            bytes = escape_prefix(s, t->width[c] - 1, &w);
            w++;
        }
        size_t pad = t->width[c] - w;
        line_pad(l, 1 + (t->left[c] ? 0 : pad));
        line_put(l, s, bytes);
        if (bytes < all) {
            line_str(l, g->cut);
        }
        line_pad(l, 1 + (t->left[c] ? pad : 0));
        line_str(l, g->v);
    }
    line_end(out, l);
}

/* Returns 0, or -1 when out of memory. */
static int table_print(FILE *out, table_t *t, const glyphs_t *g)
{
    for (size_t c = 0; c < t->ncols; c++) {
        t->width[c] = escape_width(t->head[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t w = escape_width(cell_text(t, r, c));
            if (w > t->width[c]) {
                t->width[c] = w;
            }
        }
    }
    if (t->width[0] > NAME_WIDTH_MAX) {
        t->width[0] = NAME_WIDTH_MAX;
    }
    /* the longest a line can be: every column's rule glyphs, or its text, the cut mark and padding */
    size_t cap = 4 * (t->ncols + 1) + 2;
    for (size_t c = 0; c < t->ncols; c++) {
        cap += 4 * (t->width[c] + 2) + CELL_MAX + sizeof ESCAPE_CUT_MARK + t->width[c];
    }
    line_t l = {malloc(cap), 0};
    if (l.buf == NULL) {
        return -1;
    }
    table_print_rule(out, &l, t, g, g->tl, g->tm, g->tr);
    table_print_row(out, &l, t, g, t->head);
    table_print_rule(out, &l, t, g, g->ml, g->mm, g->mr);
    for (size_t r = 0; r < t->nrows; r++) {
        if (r == t->rule_before) {
            table_print_rule(out, &l, t, g, g->ml, g->mm, g->mr);
        }
        const char *cells[COLS_MAX];
        for (size_t c = 0; c < t->ncols; c++) {
            cells[c] = cell_text(t, r, c);
        }
        table_print_row(out, &l, t, g, cells);
    }
    table_print_rule(out, &l, t, g, g->bl, g->bm, g->br);
    free(l.buf);
    return 0;
}

/* The row's first cell: its name, and for an instance its id and label. */
static void fill_name(table_t *t, size_t r, const stats_row_t *row, int by_instance)
{
    if (by_instance && row->inst && row->inst->name >= 0 && row->inst->id != 0) {
        const stats_instance_t *in = row->inst;
        if (in->label[0]) {
            snprintf(cell(t, r, 0), CELL_MAX, "%s #%" PRIu32 " [%s]", row->name, in->id, in->label);
        } else {
            snprintf(cell(t, r, 0), CELL_MAX, "%s #%" PRIu32, row->name, in->id);
        }
    } else if (by_instance && row->inst && row->inst->label[0]) {
        snprintf(cell(t, r, 0), CELL_MAX, "%s [%s]", row->name, row->inst->label);
    } else {
        snprintf(cell(t, r, 0), CELL_MAX, "%s", row->name);
    }
}

static void fill_row(table_t *t, size_t r, const stats_t *s, const stats_row_t *row, int by_instance, const glyphs_t *g)
{
    const char *lb = row->lower_bound ? g->ge : "";
    size_t c = 1;
    fill_name(t, r, row, by_instance);
    if (!by_instance) {
        snprintf(cell(t, r, c++), CELL_MAX, "%" PRIu64, row->instances);
    }
    snprintf(cell(t, r, c++), CELL_MAX, "%s%" PRIu64, lb, row->f.count);
    fmt_ms(cell(t, r, c++), CELL_MAX, lb, row->f.total_us);
    fmt_share(cell(t, r, c++), CELL_MAX, lb, row->f.total_us, s->elapsed_us);
    fmt_ms(cell(t, r, c++), CELL_MAX, lb, row->f.max_us);
    fmt_ms(cell(t, r, c++), CELL_MAX, "", row->f.count ? (row->f.total_us + row->f.count / 2) / row->f.count : 0);
    snprintf(cell(t, r, c++), CELL_MAX, "%" PRIu64, row->f.slow);
    snprintf(cell(t, r, c++), CELL_MAX, "%" PRIu64, row->f.errors);
    if (by_instance) {
        const stats_instance_t *in = row->inst;
        snprintf(cell(t, r, c++), CELL_MAX, "%s", stats_end_name(s, in));
        if (in->parent == 0) {
            snprintf(cell(t, r, c++), CELL_MAX, "-");
        } else {
            snprintf(cell(t, r, c++), CELL_MAX, "%s #%" PRIu32, row->parent_name ? row->parent_name : "task", in->parent);
        }
    }
}

/* A share of a row's waiting time, in percent. */
static void fmt_part(char *out, size_t size, uint64_t us, uint64_t total)
{
    snprintf(out, size, "%.1f", total ? 100.0 * (double)us / (double)total : 0.0);
}

/* The lateness table (docs/usage.md, "Lateness"): per row with resumes whose lateness is known,
 * how many came late, how late at most and on average, and whose slices took the waiting. */
static int print_late(FILE *out, const stats_t *s, const stats_row_t *rows, size_t n, int by_instance,
    const glyphs_t *g)
{
    static const char *head[] = {"name", "resumes", "late", "late max ms", "late mean ms", "blocked by", "%",
        "outside %"};
    if (s->device.late_unit == 0) {
        fprintf(out, "lateness: %s\n", s->device.have_hello ? "not reported by this device (its HELLO has no "
            "late_unit): unknown, not zero" : "unknown (no HELLO seen)");
        return 0;
    }
    table_t t;
    memset(&t, 0, sizeof t);
    t.ncols = 8;
    t.rule_before = SIZE_MAX;
    for (size_t c = 0; c < t.ncols; c++) {
        t.head[c] = c == 0 && by_instance ? "task" : head[c];
        t.left[c] = c == 0 || c == 5;
    }
    int rc = -1;
    t.at = calloc((n + 1) * COLS_MAX, sizeof *t.at);
    if (!t.at) {
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const stats_late_t *l = rows[i].late;
        if (l == NULL || l->resumes == 0) {
            continue;
        }
        uint64_t blocked = 0;
        int32_t who = stats_late_culprit(s, l, &blocked);
        fill_name(&t, k, &rows[i], by_instance);
        snprintf(cell(&t, k, 1), CELL_MAX, "%" PRIu64, l->resumes);
        snprintf(cell(&t, k, 2), CELL_MAX, "%" PRIu64, l->count);
        fmt_ms(cell(&t, k, 3), CELL_MAX, "", l->max_us);
        fmt_ms(cell(&t, k, 4), CELL_MAX, "", stats_late_mean_us(l));
        snprintf(cell(&t, k, 5), CELL_MAX, "%s", who == STATS_LATE_NONE ? "-" : stats_late_who_name(s, who));
        if (who == STATS_LATE_NONE) {
            snprintf(cell(&t, k, 6), CELL_MAX, "-");
        } else {
            fmt_part(cell(&t, k, 6), CELL_MAX, blocked, l->total_us);
        }
        if (l->total_us == 0) {
            snprintf(cell(&t, k, 7), CELL_MAX, "-");
        } else {
            fmt_part(cell(&t, k, 7), CELL_MAX, l->outside_us, l->total_us);
        }
        k++;
    }
    t.nrows = k;
    cell_close(&t);
    if (t.failed) {
        goto out;
    }
    fprintf(out, "lateness (how long after it was due each task ran, to the device's %" PRIu32 "-tick unit; "
        "blocked by: whose slices took most of that wait):\n", s->device.late_unit);
    rc = k ? table_print(out, &t, g) : 0;
out:
    free(t.at);
    free(t.text);
    return rc;
}

/* The percentiles table (docs/usage.md, "Percentiles"): p50, p95, p99 of each row's slice lengths
 * and of its resumes' lateness ("-" when the device does not report it). */
static int print_pcts(FILE *out, const stats_row_t *rows, size_t n, int by_instance, const glyphs_t *g)
{
    static const char *head[] = {"name", "slice p50 ms", "p95 ms", "p99 ms", "late p50 ms", "p95 ms", "p99 ms"};
    table_t t;
    memset(&t, 0, sizeof t);
    t.ncols = 7;
    t.rule_before = SIZE_MAX;
    for (size_t c = 0; c < t.ncols; c++) {
        t.head[c] = c == 0 && by_instance ? "task" : head[c];
        t.left[c] = c == 0;
    }
    int rc = -1;
    t.at = calloc((n + 1) * COLS_MAX, sizeof *t.at);
    if (!t.at) {
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const stats_row_t *r = &rows[i];
        if (r->f.count == 0 && !(r->late && r->late->resumes)) {
            continue;
        }
        fill_name(&t, k, r, by_instance);
        for (unsigned p = 0; p < STATS_PCTS; p++) {
            if (r->f.count) {
                fmt_ms(cell(&t, k, 1 + p), CELL_MAX, "", r->slice_pct[p]);
            } else {
                snprintf(cell(&t, k, 1 + p), CELL_MAX, "-");
            }
            if (r->late && r->late->resumes) {
                fmt_ms(cell(&t, k, 4 + p), CELL_MAX, "", r->late_pct[p]);
            } else {
                snprintf(cell(&t, k, 4 + p), CELL_MAX, "-");
            }
        }
        k++;
    }
    t.nrows = k;
    cell_close(&t);
    if (t.failed) {
        goto out;
    }
    fprintf(out, "percentiles (log buckets: within 6.25 %% of the value, and within the row's min and max):\n");
    rc = k ? table_print(out, &t, g) : 0;
out:
    free(t.at);
    free(t.text);
    return rc;
}

/* A table of spans (the spans table, the memory per span table): under each task row of the main
 * table, in its order, its spans, the most inclusive time first; fill writes a span's cells from
 * column 2 on (0: the task, 1: the span). Nothing when there is no span. */
typedef void span_cells_fn(table_t *t, size_t k, const stats_t *s, const stats_span_view_t *v, const glyphs_t *g);

static int print_span_table(FILE *out, const stats_t *s, const stats_row_t *rows, size_t n, int by_instance,
    const glyphs_t *g, const char *const *head, size_t ncols, span_cells_fn *fill, const char *caption)
{
    size_t nv = 0;
    stats_span_view_t *v = stats_span_rows(s, by_instance, &nv);
    table_t t;
    memset(&t, 0, sizeof t);
    t.ncols = ncols;
    t.rule_before = SIZE_MAX;
    for (size_t c = 0; c < t.ncols; c++) {
        t.head[c] = c == 0 && by_instance ? "task" : head[c];
        t.left[c] = c <= 1;
    }
    int rc = -1;
    t.at = calloc((nv + 1) * COLS_MAX, sizeof *t.at);
    if (!t.at || (!v && nv)) {
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < n && k < nv; i++) {
        size_t first;
        size_t count = stats_span_rows_of(s, v, nv, &rows[i], &first);
        for (size_t j = first; j < first + count; j++, k++) {
            if (j == first) {
                fill_name(&t, k, &rows[i], by_instance);
            }
            snprintf(cell(&t, k, 1), CELL_MAX, "%s", v[j].span);
            fill(&t, k, s, &v[j], g);
        }
    }
    t.nrows = k;
    cell_close(&t);
    if (t.failed) {
        goto out;
    }
    fputs(caption, out);
    rc = k ? table_print(out, &t, g) : 0;
out:
    free(t.at);
    free(t.text);
    free(v);
    return rc;
}

static void span_time_cells(table_t *t, size_t k, const stats_t *s, const stats_span_view_t *v, const glyphs_t *g)
{
    (void)s;
    (void)g;
    const stats_span_figures_t *f = &v->f;
    snprintf(cell(t, k, 2), CELL_MAX, "%" PRIu64, f->count);
    fmt_ms(cell(t, k, 3), CELL_MAX, "", f->own_us);
    fmt_ms(cell(t, k, 4), CELL_MAX, "", f->inclusive_us);
    fmt_ms(cell(t, k, 5), CELL_MAX, "", f->wall_us);
    fmt_ms(cell(t, k, 6), CELL_MAX, "", f->max_us);
    for (unsigned q = 0; q < STATS_PCTS; q++) {
        fmt_ms(cell(t, k, 7 + q), CELL_MAX, "", v->pct[q]);
    }
    snprintf(cell(t, k, 10), CELL_MAX, "%" PRIu64, f->unwound);
    snprintf(cell(t, k, 11), CELL_MAX, "%" PRIu64, f->cut);
}

/* The spans table (docs/usage.md, "Spans"). Only when the stream had spans. */
static int print_spans(FILE *out, const stats_t *s, const stats_row_t *rows, size_t n, int by_instance,
    const glyphs_t *g)
{
    static const char *const head[] = {"name", "span", "count", "own ms", "incl ms", "wall ms", "max ms", "p50 ms",
        "p95 ms", "p99 ms", "unwound", "cut"};
    if (s->spans == NULL) {
        return 0;
    }
    return print_span_table(out, s, rows, n, by_instance, g, head, 12, span_time_cells,
        "spans (own: the task's own time while the span was its innermost; incl: with nested spans; "
        "wall: open to close; unwound: closed by the task's end; cut: open at a loss or the end, not counted):\n");
}

/* One row of the memory table: what the figures allocated and the collections in them, each only
 * when the device measures it ("-" otherwise, marked as a lower bound when it is one). */
static void fill_mem(table_t *t, size_t k, const stats_t *s, const stats_figures_t *f, const glyphs_t *g)
{
    stats_mem_t m;
    stats_mem_of(s, f, &m);
    const char *al = m.alloc_lower ? g->ge : "", *gl = m.gc_at_least ? g->ge : "";
    if (m.alloc_known) {
        snprintf(cell(t, k, 1), CELL_MAX, "%s%" PRIu64, al, m.alloc_bytes);
        snprintf(cell(t, k, 2), CELL_MAX, "%s%.0f", al, m.alloc_per_s);
    } else {
        snprintf(cell(t, k, 1), CELL_MAX, "-");
        snprintf(cell(t, k, 2), CELL_MAX, "-");
    }
    if (m.gc_known) {
        snprintf(cell(t, k, 3), CELL_MAX, "%s%" PRIu64, gl, m.gc_count);
    } else {
        snprintf(cell(t, k, 3), CELL_MAX, "-");
    }
    if (m.gc_timed) {
        fmt_ms(cell(t, k, 4), CELL_MAX, gl, m.gc_us);
    } else {
        snprintf(cell(t, k, 4), CELL_MAX, "-");
    }
}

/* The memory table (docs/usage.md, "Memory"): per row, the bytes its own slices allocated and
 * their rate over the time seen, the collections inside its slices and their time; the scheduler's
 * between slices last. Only from a device that reports memory: nothing is printed otherwise. */
static int print_mem(FILE *out, const stats_t *s, const stats_row_t *rows, size_t n, int by_instance,
    const glyphs_t *g)
{
    static const char *head[] = {"name", "alloc bytes", "alloc/s", "gc", "gc ms"};
    if (!stats_mem_known(s)) {
        return 0;
    }
    table_t t;
    memset(&t, 0, sizeof t);
    t.ncols = 5;
    for (size_t c = 0; c < t.ncols; c++) {
        t.head[c] = c == 0 && by_instance ? "task" : head[c];
        t.left[c] = c == 0;
    }
    int rc = -1;
    t.at = calloc((n + 2) * COLS_MAX, sizeof *t.at);
    if (!t.at) {
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].f.count == 0) {
            continue;
        }
        fill_name(&t, k, &rows[i], by_instance);
        fill_mem(&t, k, s, &rows[i].f, g);
        k++;
    }
    t.rule_before = k;
    snprintf(cell(&t, k, 0), CELL_MAX, "(outside tasks)");
    fill_mem(&t, k, s, &s->mem_outside, g);
    t.nrows = k + 1;
    cell_close(&t);
    if (t.failed) {
        goto out;
    }
    stats_mem_t m;
    stats_mem_of(s, &s->mem_outside, &m);
    fprintf(out, "memory (allocated by each task's own slices%s, rate over the time seen; garbage "
        "collections inside its slices%s%s):\n", !m.alloc_known ? ": not measured by this device"
        : m.alloc_lower ? ", at least (the device's counts are lower bounds)" : "",
        !m.gc_known ? ": not reported by this device" : m.gc_at_least ? ", at least (the device sees only some)" : "",
        m.gc_known && !m.gc_timed ? ", their time not measured" : "");
    rc = table_print(out, &t, g);
out:
    free(t.at);
    free(t.text);
    return rc;
}

/* A span's memory cells (the memory per span table): inclusive bytes, own bytes, the inclusive
 * rate, inclusive and own collections, their time; "-" for what the device does not measure. */
static void span_mem_cells(table_t *t, size_t k, const stats_t *s, const stats_span_view_t *v, const glyphs_t *g)
{
    stats_figures_t fi = stats_span_mem_figures(&v->f.incl_mem), fo = stats_span_mem_figures(&v->f.own_mem);
    stats_mem_t mi, mo;
    stats_mem_of(s, &fi, &mi);
    stats_mem_of(s, &fo, &mo);
    const char *al = mi.alloc_lower ? g->ge : "", *gl = mi.gc_at_least ? g->ge : "";
    if (mi.alloc_known) {
        snprintf(cell(t, k, 2), CELL_MAX, "%s%" PRIu64, al, mi.alloc_bytes);
        snprintf(cell(t, k, 3), CELL_MAX, "%s%" PRIu64, al, mo.alloc_bytes);
        snprintf(cell(t, k, 4), CELL_MAX, "%s%.0f", al, mi.alloc_per_s);
    } else {
        for (size_t c = 2; c <= 4; c++) {
            snprintf(cell(t, k, c), CELL_MAX, "-");
        }
    }
    if (mi.gc_known) {
        snprintf(cell(t, k, 5), CELL_MAX, "%s%" PRIu64, gl, mi.gc_count);
        snprintf(cell(t, k, 6), CELL_MAX, "%s%" PRIu64, gl, mo.gc_count);
    } else {
        snprintf(cell(t, k, 5), CELL_MAX, "-");
        snprintf(cell(t, k, 6), CELL_MAX, "-");
    }
    if (mi.gc_timed) {
        fmt_ms(cell(t, k, 7), CELL_MAX, gl, mi.gc_us);
    } else {
        snprintf(cell(t, k, 7), CELL_MAX, "-");
    }
}

/* The memory per span table (docs/usage.md, "Memory per span"). Only from a device that reports
 * memory, for a stream with spans. */
static int print_span_mem(FILE *out, const stats_t *s, const stats_row_t *rows, size_t n, int by_instance,
    const glyphs_t *g)
{
    static const char *const head[] = {"name", "span", "alloc bytes", "own bytes", "alloc/s", "gc", "own gc",
        "gc ms"};
    if (s->spans == NULL || !stats_mem_known(s)) {
        return 0;
    }
    return print_span_table(out, s, rows, n, by_instance, g, head, 8, span_mem_cells,
        "memory per span (alloc bytes, gc: while the span was open, its nested spans included; own: while "
        "it was its task's innermost; alloc/s: over the time seen):\n");
}

static void print_header(FILE *out, const stats_t *s, const report_options_t *o)
{
    const stats_device_t *d = &s->device;
    fprintf(out, "aioprof-top report%s%s\n", o && o->source ? ": " : "", o && o->source ? o->source : "");
    if (d->have_hello) {
        fprintf(out, "device: %s, protocol %" PRIu32 ", %" PRIu32 " Hz, %" PRIu32 "-bit ticks, ring %" PRIu32 " bytes",
            d->platform[0] ? d->platform : "(no platform name)", d->version, d->tick_hz, d->tick_bits, d->ring_bytes);
        double ov = stats_overhead(s), cost = stats_event_cost_ns(s);
        if (ov >= 0 && cost >= 0) {
            fprintf(out, ", overhead %.2f %% (events %.2f %% at %.0f ns each, drain %.2f %%)", 100.0 * ov,
                100.0 * stats_overhead_part(s, 0, 1), cost, 100.0 * stats_overhead_part(s, 1, 0));
        } else if (ov >= 0) {
            fprintf(out, ", drain overhead %.2f %% (the device did not say what an event costs it)", 100.0 * ov);
        }
        fputc('\n', out);
    } else {
        fputs("device: no HELLO seen (joined late or not an aioprof stream)\n", out);
    }
    fprintf(out, "elapsed: %" PRIu64 ".%06u s of device time (gaps excluded)\n", s->elapsed_us / 1000000u,
        (unsigned)(s->elapsed_us % 1000000u));
}

static void print_footer(FILE *out, const stats_t *s, const glyphs_t *g, int any_lower, int by_instance)
{
    const stats_stream_t *t = &s->stream;
    fprintf(out,
        "stream: %" PRIu64 " bytes, %" PRIu64 " frames, %" PRIu64 " events, %" PRIu64 " text lines\n"
        "health: %" PRIu64 " dropped events, %" PRIu64 " CRC errors, %" PRIu64 " lost frames, %" PRIu64
        " duplicates, %" PRIu64 " clock steps back, %" PRIu64 " resets, %" PRIu64 " reconnects, %" PRIu64
        " malformed, %" PRIu64 " unsupported, %" PRIu64 " unmatched slices, %" PRIu64 " skipped bytes\n",
        t->bytes, t->frames, t->events, t->text_lines, t->dropped_events, t->crc_errors, t->lost_frames,
        t->duplicates, t->clock_steps_back, t->resets, t->reconnects, t->malformed, t->unsupported, t->unmatched,
        t->skipped_bytes);
    if (t->unknown_ops) {
        /* said once, and only then: a stream of a device this host knows reads as before */
        fprintf(out, "%" PRIu64 " records of operations this aioprof-top does not know were skipped (op", t->unknown_ops);
        for (unsigned op = 0; op < 16; op++) {
            if (t->unknown_op_mask & (1u << op)) {
                fprintf(out, " %u", op);
            }
        }
        fputs("): the device is newer; a newer aioprof-top reads them\n", out);
    }
    const stats_span_counts_t *sc = &s->span_counts;
    if (sc->refused || sc->unmatched || sc->cut || sc->other_names) {
        fprintf(out, "spans: %" PRIu64 " refused (nested too deep or too many open: not counted), %" PRIu64
            " unmatched (an exit with none open, or no task running), %" PRIu64 " cut (open at a loss or the end), %"
            PRIu64 " names past the caps (in \"(other spans)\")\n", sc->refused, sc->unmatched, sc->cut,
            sc->other_names);
    }
    if (s->folded_instances) {
        fprintf(out, "%" PRIu64 " finished instances were folded into their name rows (instance rows are capped)\n",
            s->folded_instances);
    }
    uint64_t unnamed = stats_unnamed_folded(s);
    if (unnamed) {
        fprintf(out, "%" PRIu64 " unnamed instances (their names never came) are %s: the %u with the most time have "
            "rows of their own\n", unnamed, by_instance ? "not listed (by name, they are summed in \"(unnamed tasks)\")" :
            "summed in \"(unnamed tasks)\"", STATS_UNNAMED_ROWS);
    }
    if (s->past_cap >= 0) {
        fprintf(out, "more than %zu tasks were live at once: the slices of those past that are in \"(tasks past the "
            "cap)\", and their names' figures may be low\n", s->live_max);
    }
    if (t->recording_damage) {
        fprintf(out, "the recording is damaged in %" PRIu64 " place%s: each read on from the next intact chunk; the "
            "figures from the first on may be low\n", t->recording_damage, t->recording_damage == 1 ? "" : "s");
    }
    if (t->ended_before_stop) {
        fputs("the input ended before the device said it stopped: its last events may still have been in its ring\n",
            out);
    }
    if (any_lower) {
        fprintf(out, "%s marks figures that may be low: events were dropped or frames lost while those tasks ran%s\n",
            g->ge, t->ended_before_stop ? ", or they still ran at the end" : "");
    }
}

int report_text(FILE *out, const pipeline_t *p, const report_options_t *o)
{
    static const char *head_name[] = {"name", "instances", "count", "total ms", "%", "max ms", "mean ms", "slow", "errors"};
    static const char *head_inst[] = {"task", "count", "total ms", "%", "max ms", "mean ms", "slow", "errors", "end", "created by"};
    const stats_t *s = pipeline_stats(p);
    int by_instance = o && o->by_instance;
    const glyphs_t *g = o && o->unicode ? &box_utf8 : &box_ascii;
    size_t n = 0;
    int rc = -1;
    stats_row_t *rows = sort_key_rows(s, by_instance, o ? o->sort : SORT_TOTAL, &n);
    table_t t;
    memset(&t, 0, sizeof t);
    t.ncols = by_instance ? 10 : 9;
    for (size_t c = 0; c < t.ncols; c++) {
        t.head[c] = by_instance ? head_inst[c] : head_name[c];
        t.left[c] = c == 0 || (by_instance && c >= 8);
    }
    t.at = calloc((n + 1) * COLS_MAX, sizeof *t.at);
    if (!t.at || (!rows && n)) {
        goto out;
    }
    int any_lower = 0;
    for (size_t r = 0; r < n; r++) {
        fill_row(&t, r, s, &rows[r], by_instance, g);
        any_lower |= rows[r].lower_bound;
    }
    /* the time no task ran: the scheduler and idle */
    t.rule_before = n;
    snprintf(cell(&t, n, 0), CELL_MAX, "(outside tasks)");
    size_t tc = by_instance ? 2 : 3;
    fmt_ms(cell(&t, n, tc), CELL_MAX, "", s->outside_us);
    fmt_share(cell(&t, n, tc + 1), CELL_MAX, "", s->outside_us, s->elapsed_us);
    t.nrows = n + 1;
    cell_close(&t);
    if (t.failed) {
        goto out;
    }

    print_header(out, s, o);
    if (table_print(out, &t, g) < 0 || print_late(out, s, rows, n, by_instance, g) < 0 ||
        print_pcts(out, rows, n, by_instance, g) < 0 || print_spans(out, s, rows, n, by_instance, g) < 0 ||
        print_mem(out, s, rows, n, by_instance, g) < 0 || print_span_mem(out, s, rows, n, by_instance, g) < 0) {
        goto out;
    }
    print_footer(out, s, g, any_lower, by_instance);
    rc = ferror(out) ? -1 : 0;
out:
    free(t.at);
    free(t.text);
    free(rows);
    return rc;
}
