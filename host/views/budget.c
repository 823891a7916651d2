/* --budget (budget.h): the file, the watch for the worst times, the check, the text of the result. */
#include "budget_private.h"

#include <cJSON.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET_FILE_MAX (1u << 20)     /* a budget is a few lines; more is not one */
#define BUDGET_WATCH_FIRST 64u
/* The task of a slice to its name's entry, direct-mapped by id: a slice costs a hash of its name
 * only when its task is not the one cached (checked by epoch, id and version: a rename is seen). */
#define BUDGET_RECENT 1024u

static const struct {
    const char *key;
    const char *what;
    int per_task;     /* a task's figure (a line with "task"), else the stream's (a line without) */
    double to_stats;  /* the file's unit to the statistics' (ms -> us) */
} lims[LIMS] = {
    [LIM_MAX_SLICE] = {"max_slice_ms", "max slice", 1, 1000.0},
    [LIM_P99_SLICE] = {"p99_slice_ms", "p99 slice", 1, 1000.0},
    [LIM_SHARE] = {"share", "share", 1, 1.0},
    [LIM_LATE_MAX] = {"late_max_ms", "late max", 1, 1000.0},
    [LIM_LATE_P99] = {"late_p99_ms", "late p99", 1, 1000.0},
    [LIM_ALLOC] = {"alloc_per_s", "bytes allocated per second", 1, 1.0},
    [LIM_DROPS] = {"dropped_events", "dropped events", 0, 1.0},
    [LIM_CRC] = {"crc_errors", "CRC errors", 0, 1.0},
};

/* A name's worst slice and worst resume, and when they happened. */
typedef struct budget_worst {
    char *name;
    uint64_t slice_us, slice_at_us;
    uint64_t late_us, late_at_us;
} budget_worst_t;

struct budget {
    char *path;
    budget_line_t *lines;
    size_t n_lines;
    budget_worst_t *worst;       /* open addressing by name, linear probing, at most half full */
    size_t worst_cap, n_worst;
    uint64_t drop_max, crc_max;  /* the largest mark of each, and when */
    int64_t drop_at_us, crc_at_us;
    double elapsed_s;
    struct budget_recent {
        uint32_t epoch, id, version, gen; /* gen: worst_gen when it was cached (0: never) */
        size_t at;
    } recent[BUDGET_RECENT];
    uint32_t worst_gen;          /* +1 whenever the entries move (the table grew) */
    const pipeline_observer_t *next;
    void *next_user;
};

const char *budget_lim_key(budget_lim_t l)
{
    return lims[l].key;
}

const char *budget_lim_what(budget_lim_t l)
{
    return lims[l].what;
}

size_t budget_lines(const budget_t *b, const budget_line_t **lines)
{
    *lines = b->lines;
    return b->n_lines;
}

const char *budget_path(const budget_t *b)
{
    return b->path;
}

double budget_elapsed_s(const budget_t *b)
{
    return b->elapsed_s;
}

/* ---- the file ---- */

static char *budget_read(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, errlen, "cannot read the budget %s: %s.", path, strerror(errno));
        return NULL;
    }
    char *text = malloc(BUDGET_FILE_MAX + 1);
    size_t n = text ? fread(text, 1, BUDGET_FILE_MAX + 1, f) : 0;
    int bad = text == NULL || ferror(f);
    fclose(f);
    if (bad || n > BUDGET_FILE_MAX) {
        snprintf(err, errlen, bad ? "cannot read the budget %s." : "the budget %s is larger than 1 MB: is it one?",
                 path);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    if (strlen(text) != n) {
        snprintf(err, errlen, "the budget %s is not text (it holds a NUL byte).", path);
        free(text);
        return NULL;
    }
    return text;
}

/* One object of "budgets" into line (its number no, from 1). */
static int budget_line_parse(const cJSON *o, size_t no, budget_line_t *line, const char *path, char *err,
    size_t errlen)
{
    if (!cJSON_IsObject(o)) {
        snprintf(err, errlen, "the budget %s: line %zu of \"budgets\" is not an object.", path, no);
        return -1;
    }
    const cJSON *name = NULL;
    for (const cJSON *k = o->child; k != NULL; k = k->next) {
        if (strcmp(k->string, "task") == 0) {
            if (!cJSON_IsString(k) || k->valuestring[0] == '\0') {
                snprintf(err, errlen, "the budget %s: line %zu's \"task\" must be a pattern of task names "
                         "(\"slow\", \"Sensor.*\", \"*\").", path, no);
                return -1;
            }
            line->pattern = strdup(k->valuestring);
            if (line->pattern == NULL) {
                snprintf(err, errlen, "out of memory.");
                return -1;
            }
            continue;
        }
        if (strcmp(k->string, "name") == 0) {
            if (!cJSON_IsString(k)) {
                snprintf(err, errlen, "the budget %s: line %zu's \"name\" must be a string.", path, no);
                return -1;
            }
            name = k;
            continue;
        }
        int l = 0;
        while (l < LIMS && strcmp(k->string, lims[l].key) != 0) {
            l++;
        }
        if (l == LIMS) {
            snprintf(err, errlen, "the budget %s: line %zu has \"%.40s\", which is not a budget's key (task, name, "
                     "max_slice_ms, p99_slice_ms, share, late_max_ms, late_p99_ms, alloc_per_s, dropped_events, "
                     "crc_errors).", path, no, k->string);
            return -1;
        }
        if (!cJSON_IsNumber(k) || !isfinite(k->valuedouble) || k->valuedouble < 0 ||
            (l == LIM_SHARE && k->valuedouble > 1)) {
            snprintf(err, errlen, "the budget %s: line %zu's \"%s\" must be a number %s.", path, no, lims[l].key,
                     l == LIM_SHARE ? "from 0 to 1 (a share of the device's time: 0.25 is 25 %)" : "of 0 or more");
            return -1;
        }
        line->limit[l] = k->valuedouble;
        line->has[l] = 1;
    }
    int any = 0;
    for (int l = 0; l < LIMS; l++) {
        any |= line->has[l];
        if (line->has[l] && lims[l].per_task != (line->pattern != NULL)) {
            snprintf(err, errlen, lims[l].per_task
                     ? "the budget %s: line %zu's \"%s\" is a task's figure: say which tasks with \"task\"."
                     : "the budget %s: line %zu's \"%s\" is the session's figure, not a task's: give it a line "
                       "without \"task\".", path, no, lims[l].key);
            return -1;
        }
    }
    if (!any) {
        snprintf(err, errlen, "the budget %s: line %zu sets no limit.", path, no);
        return -1;
    }
    if (name != NULL)
        snprintf(line->label, sizeof line->label, "%.200s", name->valuestring);
    else if (line->pattern != NULL)
        snprintf(line->label, sizeof line->label, "line %zu: %.200s", no, line->pattern);
    else
        snprintf(line->label, sizeof line->label, "line %zu: the stream", no);
    return 0;
}

budget_t *budget_load(const char *path, char *err, size_t errlen)
{
    char *text = budget_read(path, err, errlen);
    if (text == NULL) {
        return NULL;
    }
    cJSON *root = cJSON_Parse(text);
    free(text);
    budget_t *b = calloc(1, sizeof *b);
    const cJSON *arr = root ? cJSON_GetObjectItemCaseSensitive(root, "budgets") : NULL;
    if (b == NULL || (b->path = strdup(path)) == NULL) {
        snprintf(err, errlen, "out of memory.");
        goto fail;
    }
    b->drop_at_us = b->crc_at_us = -1;
    b->worst_gen = 1;
    if (root == NULL) {
        snprintf(err, errlen, "the budget %s is not JSON (docs/usage.md, \"Budgets\", shows one).", path);
        goto fail;
    }
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0) {
        snprintf(err, errlen, "the budget %s needs \"budgets\": a list of lines such as {\"task\": \"*\", "
                 "\"max_slice_ms\": 50}.", path);
        goto fail;
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n > BUDGET_LINES_MAX) {
        snprintf(err, errlen, "the budget %s has %zu lines; at most %u are read.", path, n, BUDGET_LINES_MAX);
        goto fail;
    }
    b->lines = calloc(n, sizeof *b->lines);
    if (b->lines == NULL) {
        snprintf(err, errlen, "out of memory.");
        goto fail;
    }
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        if (budget_line_parse(o, b->n_lines + 1, &b->lines[b->n_lines], path, err, errlen) < 0) {
            b->n_lines++;
            goto fail;
        }
        b->n_lines++;
    }
    for (const cJSON *k = root->child; k != NULL; k = k->next) {
        if (strcmp(k->string, "budgets") != 0) {
            snprintf(err, errlen, "the budget %s has \"%.40s\" beside \"budgets\": a mistake?", path, k->string);
            goto fail;
        }
    }
    cJSON_Delete(root);
    return b;
fail:
    cJSON_Delete(root);
    budget_free(b);
    return NULL;
}

void budget_free(budget_t *b)
{
    if (b == NULL) {
        return;
    }
    for (size_t i = 0; i < b->n_lines; i++) {
        free(b->lines[i].pattern);
        free(b->lines[i].breaches);
    }
    for (size_t i = 0; i < b->worst_cap; i++) {
        free(b->worst[i].name);
    }
    free(b->worst);
    free(b->lines);
    free(b->path);
    free(b);
}

/* ---- the watch ---- */

static uint32_t budget_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h = (h ^ (uint8_t)*s) * 16777619u;
    }
    return h;
}

static budget_worst_t *worst_find(const budget_t *b, const char *name, int *found)
{
    size_t i = budget_hash(name) & (b->worst_cap - 1);
    while (b->worst[i].name != NULL && strcmp(b->worst[i].name, name) != 0) {
        i = (i + 1) & (b->worst_cap - 1);
    }
    *found = b->worst[i].name != NULL;
    return &b->worst[i];
}

/* A name's entry, made when new (NULL out of memory, or past the stats' own cap on names). */
static budget_worst_t *worst_get(budget_t *b, const char *name)
{
    int found = 0;
    if (b->worst_cap) {
        budget_worst_t *w = worst_find(b, name, &found);
        if (found) {
            return w;
        }
    }
    if (b->n_worst >= STATS_NAME_CAP) {
        return NULL;
    }
    if (2 * (b->n_worst + 1) > b->worst_cap) {
        size_t cap = b->worst_cap ? b->worst_cap * 2 : BUDGET_WATCH_FIRST;
        budget_worst_t *old = b->worst, *grown = calloc(cap, sizeof *grown);
        if (grown == NULL) {
            return NULL;
        }
        size_t old_cap = b->worst_cap;
        b->worst = grown;
        b->worst_cap = cap;
        for (size_t i = 0; i < old_cap; i++) {
            if (old[i].name != NULL) {
                *worst_find(b, old[i].name, &found) = old[i];
            }
        }
        free(old);
        b->worst_gen++;
    }
    budget_worst_t *w = worst_find(b, name, &found);
    w->name = strdup(name);
    if (w->name == NULL) {
        return NULL;
    }
    b->n_worst++;
    return w;
}

/* The entry of a task's name, through the cache of recent tasks. */
static budget_worst_t *worst_of(budget_t *b, const pipeline_task_t *t)
{
    if (t->name == NULL) {
        return NULL;
    }
    struct budget_recent *r = &b->recent[t->id % BUDGET_RECENT];
    if (r->gen == b->worst_gen && r->epoch == t->epoch && r->id == t->id && r->version == t->version) {
        return &b->worst[r->at];
    }
    budget_worst_t *w = worst_get(b, t->name);
    if (w != NULL) {
        *r = (struct budget_recent){t->epoch, t->id, t->version, b->worst_gen, (size_t)(w - b->worst)};
    }
    return w;
}

static void watch_slice(void *user, const pipeline_slice_t *slice)
{
    budget_t *b = user;
    budget_worst_t *w = worst_of(b, &slice->task);
    if (w != NULL && (slice->self_us > w->slice_us || w->slice_at_us == 0)) {
        w->slice_us = slice->self_us;
        w->slice_at_us = slice->end_us;
    }
    if (b->next != NULL && b->next->slice != NULL) {
        b->next->slice(b->next_user, slice);
    }
}

static void watch_late(void *user, const pipeline_late_t *late)
{
    budget_t *b = user;
    budget_worst_t *w = worst_of(b, &late->task);
    uint64_t us = late->end_us - late->start_us;
    if (w != NULL && (us > w->late_us || w->late_at_us == 0)) {
        w->late_us = us;
        w->late_at_us = late->end_us;
    }
    if (b->next != NULL && b->next->late != NULL) {
        b->next->late(b->next_user, late);
    }
}

static void watch_mark(void *user, pipeline_mark_t mark, uint64_t at_us, uint64_t count)
{
    budget_t *b = user;
    if (mark == PIPELINE_MARK_DROPPED && count > b->drop_max) {
        b->drop_max = count;
        b->drop_at_us = (int64_t)at_us;
    } else if (mark == PIPELINE_MARK_CRC && count > b->crc_max) {
        b->crc_max = count;
        b->crc_at_us = (int64_t)at_us;
    }
    if (b->next != NULL && b->next->mark != NULL) {
        b->next->mark(b->next_user, mark, at_us, count);
    }
}

static void watch_text_line(void *user, uint64_t at_us, const char *line)
{
    budget_t *b = user;
    if (b->next != NULL && b->next->text_line != NULL) {
        b->next->text_line(b->next_user, at_us, line);
    }
}

static void watch_event(void *user, uint64_t at_us)
{
    budget_t *b = user;
    if (b->next != NULL && b->next->event != NULL) {
        b->next->event(b->next_user, at_us);
    }
}

static void watch_span(void *user, const pipeline_span_t *span)
{
    budget_t *b = user;
    if (b->next != NULL && b->next->span != NULL) {
        b->next->span(b->next_user, span);
    }
}

_Static_assert(sizeof(pipeline_observer_t) == 6 * sizeof(void (*)(void)),
    "pipeline_observer_t has a member the budget's watch does not pass on");

/* Two observers: with a next that has no text lines or events, those cost the pipeline nothing. */
static const pipeline_observer_t watch_all = {
    .slice = watch_slice, .late = watch_late, .mark = watch_mark, .text_line = watch_text_line, .event = watch_event,
    .span = watch_span,
};
static const pipeline_observer_t watch_own = {
    .slice = watch_slice, .late = watch_late, .mark = watch_mark, .span = watch_span,
};

static const pipeline_observer_t *budget_watch = &watch_own;

const pipeline_observer_t *budget_observer(void)
{
    return budget_watch;
}

void budget_chain(budget_t *b, const pipeline_observer_t *next, void *next_user)
{
    b->next = next;
    b->next_user = next_user;
    budget_watch = next != NULL && (next->text_line != NULL || next->event != NULL) ? &watch_all : &watch_own;
}

/* ---- the check ---- */

static int breach_add(budget_line_t *line, const char *task, budget_lim_t l, double value, int64_t at_us)
{
    budget_breach_t *x = realloc(line->breaches, (line->n_breaches + 1) * sizeof *x);
    if (x == NULL) {
        return -1;
    }
    line->breaches = x;
    x = &x[line->n_breaches++];
    snprintf(x->task, sizeof x->task, "%s", task);
    x->lim = l;
    x->limit = line->limit[l];
    x->value = value;
    x->at_us = at_us;
    return 0;
}

static void line_skip(budget_line_t *line, const char *why)
{
    if (line->skipped[0] == '\0') {
        snprintf(line->skipped, sizeof line->skipped, "%s", why);
    }
}

/* A task's figure of l in the file's unit; NAN when it has none (then *why says so). */
static double row_value(const stats_t *s, const stats_row_t *r, budget_lim_t l, const char **why)
{
    *why = NULL;
    switch (l) {
    case LIM_MAX_SLICE: return (double)r->f.max_us / 1000.0;
    case LIM_P99_SLICE: return (double)r->slice_pct[2] / 1000.0;
    case LIM_SHARE: return s->elapsed_us ? (double)r->f.total_us / (double)s->elapsed_us : 0.0;
    case LIM_LATE_MAX:
    case LIM_LATE_P99:
        if (r->late == NULL) {
            *why = "the device does not report lateness";
            return NAN;
        }
        return (double)(l == LIM_LATE_MAX ? r->late->max_us : r->late_pct[2]) / 1000.0;
    case LIM_ALLOC: {
        /* bytes per second of the session's device time, from a device that counts them; a lower
         * bound over the limit is a breach all the same */
        stats_mem_t m;
        stats_mem_of(s, &r->f, &m);
        if (!m.alloc_known) {
            *why = "the session has no allocation figures (the device did not report allocations)";
            return NAN;
        }
        return m.alloc_per_s;
    }
    default: return NAN;
    }
}

static int64_t row_worst_at(const budget_t *b, const char *name, budget_lim_t l)
{
    int found = 0;
    if (b->worst_cap == 0) {
        return -1;
    }
    const budget_worst_t *w = worst_find(b, name, &found);
    if (!found) {
        return -1;
    }
    if (l == LIM_MAX_SLICE || l == LIM_P99_SLICE) {
        return w->slice_us ? (int64_t)w->slice_at_us : -1;
    }
    if (l == LIM_LATE_MAX || l == LIM_LATE_P99) {
        return w->late_us ? (int64_t)w->late_at_us : -1;
    }
    return -1;
}

static int line_check_tasks(budget_t *b, budget_line_t *line, const stats_t *s, const stats_row_t *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const stats_row_t *r = &rows[i];
        if (fnmatch(line->pattern, r->name, 0) != 0) {
            continue;
        }
        line->matched++;
        for (int l = 0; l < LIMS; l++) {
            const char *why;
            if (!line->has[l]) {
                continue;
            }
            double v = row_value(s, r, (budget_lim_t)l, &why);
            if (why != NULL) {
                line_skip(line, why);
            } else if (v > line->limit[l] &&
                       breach_add(line, r->name, (budget_lim_t)l, v, row_worst_at(b, r->name, (budget_lim_t)l)) < 0) {
                return -1;
            }
        }
    }
    if (line->matched == 0) {
        line_skip(line, "no task of the session matched its pattern");
    }
    return 0;
}

static int line_check_stream(budget_t *b, budget_line_t *line, const stats_t *s)
{
    if (line->has[LIM_DROPS] && (double)s->stream.dropped_events > line->limit[LIM_DROPS] &&
        breach_add(line, "", LIM_DROPS, (double)s->stream.dropped_events, b->drop_at_us) < 0) {
        return -1;
    }
    if (line->has[LIM_CRC] && (double)s->stream.crc_errors > line->limit[LIM_CRC] &&
        breach_add(line, "", LIM_CRC, (double)s->stream.crc_errors, b->crc_at_us) < 0) {
        return -1;
    }
    return 0;
}

int budget_check(budget_t *b, const stats_t *s)
{
    size_t n = 0;
    stats_row_t *rows = stats_rows(s, 0, STATS_SORT_NAME, &n);
    if (rows == NULL && n) {
        return -1;
    }
    b->elapsed_s = (double)s->elapsed_us / 1e6;
    int broken = 0, rc = 0;
    for (size_t i = 0; i < b->n_lines; i++) {
        budget_line_t *line = &b->lines[i];
        free(line->breaches);
        line->breaches = NULL;
        line->n_breaches = line->matched = 0;
        line->skipped[0] = '\0';
        if ((line->pattern ? line_check_tasks(b, line, s, rows, n) : line_check_stream(b, line, s)) < 0) {
            rc = -1;
        }
        broken += line->n_breaches != 0;
    }
    free(rows);
    return rc < 0 ? -1 : broken;
}

/* ---- the text ---- */

void budget_value_text(budget_lim_t l, double v, char *out, size_t len)
{
    if (l == LIM_SHARE) {
        snprintf(out, len, "%.2f %%", v * 100.0);
    } else if (lims[l].to_stats == 1000.0) {
        snprintf(out, len, "%.3f ms", v);
    } else if (l == LIM_ALLOC) {
        snprintf(out, len, "%.1f/s", v);
    } else {
        snprintf(out, len, "%.0f", v);
    }
}

void budget_breach_text(const budget_breach_t *x, char *out, size_t len)
{
    char v[48], lim[48], at[48] = "";
    budget_value_text(x->lim, x->value, v, sizeof v);
    budget_value_text(x->lim, x->limit, lim, sizeof lim);
    if (x->at_us >= 0) {
        snprintf(at, sizeof at, ", the worst at %.3f s", (double)x->at_us / 1e6);
    }
    snprintf(out, len, "%s%s%s %s > %s%s", x->task, x->task[0] ? ": " : "", lims[x->lim].what, v, lim, at);
}

int budget_report(const budget_t *b, FILE *out)
{
    size_t broken = 0;
    char text[STATS_TEXT_MAX + 200];
    for (size_t i = 0; i < b->n_lines; i++) {
        const budget_line_t *line = &b->lines[i];
        broken += line->n_breaches != 0;
        for (size_t j = 0; j < line->n_breaches; j++) {
            budget_breach_text(&line->breaches[j], text, sizeof text);
            fprintf(out, "aioprof-top: budget broken (%s): %s.\n", line->label, text);
        }
        if (line->skipped[0]) {
            fprintf(out, "aioprof-top: budget %s: not all checked: %s.\n", line->label, line->skipped);
        }
    }
    if (broken)
        fprintf(out, "aioprof-top: the budget %s is broken: %zu of its %zu lines (exit status 3).\n", b->path, broken,
                b->n_lines);
    else
        fprintf(out, "aioprof-top: the budget %s is kept: %zu lines.\n", b->path, b->n_lines);
    return ferror(out) ? -1 : 0;
}
