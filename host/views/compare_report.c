/* The comparison of two sessions as text and JSON, and the live table's cells (compare_report.h). */
#include "compare_report.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const fig_titles[STATS_CMP_FIGS] = {
    "slices per second", "share of the device", "own time per slice, mean", "max slice", "p50 slice",
    "p95 slice", "p99 slice", "late max", "late p95", "allocations per second",
};

/* The names of both sides, the base's first, each once. NULL when out of memory. */
static const char **cmp_names(const stats_cmp_side_t *a, const stats_cmp_side_t *b, size_t *n)
{
    const char **names = malloc((a->n_tasks + b->n_tasks + 1) * sizeof *names);
    *n = 0;
    if (names == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < a->n_tasks; i++) {
        names[(*n)++] = a->tasks[i].name;
    }
    for (size_t i = 0; i < b->n_tasks; i++) {
        if (stats_cmp_find(a, b->tasks[i].name) == NULL) {
            names[(*n)++] = b->tasks[i].name;
        }
    }
    return names;
}

static int cmp_name_order(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* What one figure of one name gives. */
typedef struct cmp_cell {
    const stats_cmp_task_t *ta, *tb;
    double va, vb;     /* totals; NAN unknown */
    double ma, mb;     /* the windows' medians */
    double delta;      /* (mb - ma) / ma: the change of the medians (benchstat's); NAN when it has none */
    stats_mwu_t test;
    size_t na, nb;     /* windows with a value */
    int significant;
} cmp_cell_t;

static int cmp_cell(const stats_cmp_side_t *a, const stats_cmp_side_t *b, const char *name, stats_cmp_fig_t fig,
    cmp_cell_t *c)
{
    memset(c, 0, sizeof *c);
    c->ta = stats_cmp_find(a, name);
    c->tb = stats_cmp_find(b, name);
    c->va = c->ta ? c->ta->total[fig] : NAN;
    c->vb = c->tb ? c->tb->total[fig] : NAN;
    c->ma = stats_cmp_median(a, c->ta, fig);
    c->mb = stats_cmp_median(b, c->tb, fig);
    c->delta = NAN;
    if (!isnan(c->ma) && !isnan(c->mb)) {
        c->delta = c->ma != 0 ? (c->mb - c->ma) / c->ma : c->mb == 0 ? 0.0 : NAN;
    }
    c->na = stats_cmp_samples(a, c->ta, fig);
    c->nb = stats_cmp_samples(b, c->tb, fig);
    int rc = stats_cmp_test(a, c->ta, b, c->tb, fig, &c->test);
    c->significant = c->ta && c->tb && stats_cmp_significant(&c->test, c->na, c->nb);
    return rc;
}

/* A figure's value for the text: rates, shares, milliseconds. */
static void cmp_value(stats_cmp_fig_t fig, double v, char *out, size_t len)
{
    if (isnan(v)) {
        snprintf(out, len, "-");
    } else if (fig == STATS_CMP_RATE || fig == STATS_CMP_ALLOC_RATE) {
        snprintf(out, len, "%.2f", v);
    } else if (fig == STATS_CMP_SHARE) {
        snprintf(out, len, "%.2f %%", v * 100.0);
    } else {
        snprintf(out, len, "%.3f ms", v / 1000.0);
    }
}

static void cmp_delta(const cmp_cell_t *c, int unicode, char *out, size_t len)
{
    if (c->ta == NULL || c->tb == NULL) {
        snprintf(out, len, "%s", c->ta == NULL ? "new" : "gone");
    } else if (!c->significant) {
        snprintf(out, len, "~");
    } else if (isnan(c->delta)) {
        snprintf(out, len, "%s", c->mb > c->ma ? "up from 0" : "changed");
    } else {
        /* the minus sign, as benchstat prints it, where the terminal has it */
        snprintf(out, len, "%s%.2f %%", c->delta < 0 ? (unicode ? "\u2212" : "-") : "+", fabs(c->delta) * 100.0);
    }
}

/* The live table asks for its cells at every redraw, and a cell's test (its windows gathered,
 * sorted, perhaps thousands of splits counted) changes only when a window is added or a name
 * comes: the cells are kept, direct-mapped by name and figure, with what they were made of. */
#define CELL_CACHE 512u

typedef struct cell_cached {
    const stats_cmp_side_t *base, *cur;
    size_t base_windows, cur_windows, base_tasks, cur_tasks;
    int fig, significant;
    char name[STATS_TEXT_MAX];
    char out[32];
} cell_cached_t;

static cell_cached_t cell_cache[CELL_CACHE];

static cell_cached_t *cell_slot(const char *name, stats_cmp_fig_t fig)
{
    uint32_t h = 2166136261u ^ (uint32_t)fig;
    for (const char *p = name; *p; p++) {
        h = (h ^ (uint8_t)*p) * 16777619u;
    }
    return &cell_cache[h % CELL_CACHE];
}

static int cell_fresh(const cell_cached_t *k, const stats_cmp_side_t *base, const stats_cmp_side_t *cur,
    const char *name, stats_cmp_fig_t fig)
{
    return k->base == base && k->cur == cur && k->base_windows == base->n_windows &&
           k->cur_windows == cur->n_windows && k->base_tasks == base->n_tasks && k->cur_tasks == cur->n_tasks &&
           k->fig == (int)fig && strcmp(k->name, name) == 0;
}

static int cell_make(const stats_cmp_side_t *base, const stats_cmp_side_t *cur, const char *name,
    stats_cmp_fig_t fig, char *out, size_t outlen);

int compare_report_cell(const stats_cmp_side_t *base, const stats_cmp_side_t *cur, const char *name,
    stats_cmp_fig_t fig, char *out, size_t outlen)
{
    cell_cached_t *k = cell_slot(name, fig);
    if (!cell_fresh(k, base, cur, name, fig)) {
        k->significant = cell_make(base, cur, name, fig, k->out, sizeof k->out);
        k->base = base;
        k->cur = cur;
        k->base_windows = base->n_windows;
        k->cur_windows = cur->n_windows;
        k->base_tasks = base->n_tasks;
        k->cur_tasks = cur->n_tasks;
        k->fig = (int)fig;
        snprintf(k->name, sizeof k->name, "%s", name);
    }
    snprintf(out, outlen, "%s", k->out);
    return k->significant;
}

static int cell_make(const stats_cmp_side_t *base, const stats_cmp_side_t *cur, const char *name,
    stats_cmp_fig_t fig, char *out, size_t outlen)
{
    cmp_cell_t c;
    cmp_cell(base, cur, name, fig, &c);
    if (c.ta != NULL && c.tb != NULL && isnan(c.va) && isnan(c.vb)) {
        snprintf(out, outlen, "%s", "");
        return 0;
    }
    if (c.significant && !isnan(c.delta)) {
        snprintf(out, outlen, "%+.0f %%", c.delta * 100.0);
    } else {
        cmp_delta(&c, 0, out, outlen);
    }
    return c.significant;
}

/* Does any name have the figure on either side? */
static int cmp_fig_known(const stats_cmp_side_t *a, const stats_cmp_side_t *b, stats_cmp_fig_t fig)
{
    for (size_t i = 0; i < a->n_tasks; i++) {
        if (!isnan(a->tasks[i].total[fig])) {
            return 1;
        }
    }
    for (size_t i = 0; i < b->n_tasks; i++) {
        if (!isnan(b->tasks[i].total[fig])) {
            return 1;
        }
    }
    return 0;
}

static void cmp_side_line(FILE *out, const char *what, const char *source, const stats_cmp_side_t *s)
{
    fprintf(out, "%s: %s, %.1f s, %zu windows of %.3g s%s\n", what, source ? source : "(live)",
            (double)s->elapsed_us / 1e6, s->n_windows, (double)s->window_us / 1e6,
            s->windows_past ? " (later ones not sampled)" : "");
}

/* The names on one side only, on one line. */
static void cmp_only(FILE *out, const char *what, const stats_cmp_side_t *in, const stats_cmp_side_t *not_in,
    const char **names, size_t n)
{
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (stats_cmp_find(in, names[i]) != NULL && stats_cmp_find(not_in, names[i]) == NULL) {
            fprintf(out, "%s%s", first ? what : ", ", names[i]);
            first = 0;
        }
    }
    if (!first) {
        fputc('\n', out);
    }
}

int compare_report_text(FILE *out, const stats_cmp_side_t *base, const stats_cmp_side_t *cur,
    const compare_report_options_t *o)
{
    size_t n;
    const char **names = cmp_names(base, cur, &n);
    if (names == NULL) {
        return -1;
    }
    qsort(names, n, sizeof *names, cmp_name_order);
    int width = 4;
    for (size_t i = 0; i < n; i++) {
        int w = (int)strlen(names[i]);
        width = w > width ? (w > 40 ? 40 : w) : width;
    }
    cmp_side_line(out, "base", o->base_source, base);
    cmp_side_line(out, "new ", o->new_source, cur);
    fprintf(out, "base and new: the sessions' figures; delta: the change of the windows' medians when the\n"
            "Mann-Whitney U test of the windows gives p < %.2f, ~ when it does not.\n", STATS_CMP_ALPHA);
    cmp_only(out, "new tasks: ", cur, base, names, n);
    cmp_only(out, "gone tasks: ", base, cur, names, n);
    int rc = 0;
    for (unsigned f = 0; f < STATS_CMP_FIGS; f++) {
        if (!cmp_fig_known(base, cur, (stats_cmp_fig_t)f)) {
            continue;
        }
        fprintf(out, "\n%s\n%-*s  %14s  %14s  %s\n", fig_titles[f], width, "task", "base", "new", "delta");
        for (size_t i = 0; i < n; i++) {
            cmp_cell_t c;
            char va[32], vb[32], d[32];
            if (cmp_cell(base, cur, names[i], (stats_cmp_fig_t)f, &c) < 0) {
                rc = -1;
            }
            if (isnan(c.va) && isnan(c.vb)) {
                continue;
            }
            cmp_value((stats_cmp_fig_t)f, c.va, va, sizeof va);
            cmp_value((stats_cmp_fig_t)f, c.vb, vb, sizeof vb);
            cmp_delta(&c, o->unicode, d, sizeof d);
            fprintf(out, "%-*.*s  %14s  %14s  %s", width, width, names[i], va, vb, d);
            if (c.ta != NULL && c.tb != NULL) {
                /* the minus sign is one column of three bytes */
                int pad = 10 - (int)strlen(d) + (strstr(d, "\u2212") != NULL ? 2 : 0);
                fprintf(out, "%*s (p=%.3f n=%zu+%zu)", pad > 0 ? pad : 0, "", c.test.p, c.na, c.nb);
            }
            fputc('\n', out);
        }
    }
    free(names);
    return ferror(out) || rc < 0 ? -1 : 0;
}

static cJSON *json_num_or_null(double v)
{
    return isnan(v) || isinf(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

static cJSON *json_side(const char *source, const stats_cmp_side_t *s)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL) {
        return NULL;
    }
    cJSON_AddItemToObject(o, "source", source ? cJSON_CreateString(source) : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "elapsed_us", (double)s->elapsed_us);
    cJSON_AddNumberToObject(o, "window_us", (double)s->window_us);
    cJSON_AddNumberToObject(o, "windows", (double)s->n_windows);
    cJSON_AddNumberToObject(o, "windows_not_sampled", (double)s->windows_past);
    cJSON_AddBoolToObject(o, "tasks_left_out", s->tasks_past != 0);
    cJSON_AddNumberToObject(o, "crc_errors", (double)s->stream.crc_errors);
    cJSON_AddNumberToObject(o, "dropped_events", (double)s->stream.dropped_events);
    return o;
}

static cJSON *json_task(const stats_cmp_side_t *a, const stats_cmp_side_t *b, const char *name)
{
    cJSON *t = cJSON_CreateObject();
    if (t == NULL) {
        return NULL;
    }
    const stats_cmp_task_t *ta = stats_cmp_find(a, name), *tb = stats_cmp_find(b, name);
    cJSON_AddStringToObject(t, "name", name);
    cJSON_AddStringToObject(t, "status", ta && tb ? "both" : ta ? "gone" : "new");
    cJSON *figs = cJSON_AddObjectToObject(t, "figures");
    for (unsigned f = 0; figs != NULL && f < STATS_CMP_FIGS; f++) {
        cmp_cell_t c;
        cmp_cell(a, b, name, (stats_cmp_fig_t)f, &c);
        cJSON *x = cJSON_CreateObject();
        if (x == NULL) {
            break;
        }
        cJSON_AddItemToObject(figs, stats_cmp_fig_key((stats_cmp_fig_t)f), x);
        cJSON_AddItemToObject(x, "base", json_num_or_null(c.va));
        cJSON_AddItemToObject(x, "new", json_num_or_null(c.vb));
        cJSON_AddItemToObject(x, "base_median", json_num_or_null(c.ma));
        cJSON_AddItemToObject(x, "new_median", json_num_or_null(c.mb));
        cJSON_AddItemToObject(x, "delta", json_num_or_null(c.delta));
        cJSON_AddItemToObject(x, "p", ta && tb ? json_num_or_null(c.test.p) : cJSON_CreateNull());
        cJSON_AddNumberToObject(x, "n_base", (double)c.na);
        cJSON_AddNumberToObject(x, "n_new", (double)c.nb);
        cJSON_AddBoolToObject(x, "exact", c.test.exact);
        cJSON_AddBoolToObject(x, "significant", c.significant);
    }
    return t;
}

int compare_report_json(FILE *out, const stats_cmp_side_t *base, const stats_cmp_side_t *cur,
    const compare_report_options_t *o)
{
    size_t n;
    const char **names = cmp_names(base, cur, &n);
    if (names == NULL) {
        return -1;
    }
    qsort(names, n, sizeof *names, cmp_name_order);
    int rc = -1;
    char *text = NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON *tool = cJSON_AddObjectToObject(root, "tool");
    cJSON *tasks = cJSON_CreateArray();
    if (root == NULL || tool == NULL || tasks == NULL) {
        cJSON_Delete(tasks);
        goto out;
    }
    cJSON_AddStringToObject(tool, "name", "aioprof-top");
    cJSON_AddStringToObject(tool, "version", AIOPROF_VERSION);
    cJSON_AddStringToObject(root, "method", "mann-whitney-u of per-window figures");
    cJSON_AddNumberToObject(root, "alpha", STATS_CMP_ALPHA);
    cJSON_AddItemToObject(root, "base", json_side(o->base_source, base));
    cJSON_AddItemToObject(root, "new", json_side(o->new_source, cur));
    cJSON_AddItemToObject(root, "tasks", tasks);
    for (size_t i = 0; i < n; i++) {
        cJSON *t = json_task(base, cur, names[i]);
        if (t == NULL) {
            goto out;
        }
        cJSON_AddItemToArray(tasks, t);
    }
    text = cJSON_Print(root);
    if (text != NULL && fputs(text, out) >= 0 && fputc('\n', out) != EOF && !ferror(out)) {
        rc = 0;
    }
out:
    cJSON_free(text);
    cJSON_Delete(root);
    free(names);
    return rc;
}
