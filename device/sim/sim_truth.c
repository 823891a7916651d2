#define _POSIX_C_SOURCE 200809L

#include "sim_truth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sim_file.h"
#include "sim_spans.h"

static const char *const end_names[] = {"running", "return", "raise", "cancel"};

int sim_truth_init(sim_truth_t *t, uint64_t slow_us, uint32_t late_unit)
{
    memset(t, 0, sizeof *t);
    t->slow_us = slow_us;
    t->late_unit = late_unit;
    if (late_unit == 0)
        return 0;
    t->turns = malloc(SIM_TRUTH_TURNS * sizeof *t->turns);
    if (t->turns == NULL)
        return -1;
    /* before the first event nothing runs */
    t->turns[0].at = 0;
    t->turns[0].who = -1;
    t->n_turns = 1;
    return 0;
}

void sim_truth_free(sim_truth_t *t)
{
    for (size_t i = 0; i < t->len; i++) {
        free(t->inst[i].name);
        free(t->inst[i].label);
        free(t->inst[i].parent_name);
        free(t->inst[i].blame.us);
    }
    for (size_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->names);
    free(t->inst);
    free(t->turns);
    memset(t, 0, sizeof *t);
}

/* The number of a task name, given when it first comes; (size_t)-1 when out of memory. */
static size_t name_number(sim_truth_t *t, const char *name)
{
    for (size_t i = 0; i < t->n_names; i++) {
        if (strcmp(t->names[i], name) == 0)
            return i;
    }
    if (t->n_names == t->names_cap) {
        size_t cap = t->names_cap ? t->names_cap * 2 : 16;
        char **grown = realloc(t->names, cap * sizeof *grown);
        if (grown == NULL)
            return (size_t)-1;
        t->names = grown;
        t->names_cap = cap;
    }
    t->names[t->n_names] = strdup(name);
    if (t->names[t->n_names] == NULL)
        return (size_t)-1;
    return t->n_names++;
}

size_t sim_truth_add(sim_truth_t *t, uint32_t id, const char *name, uint32_t parent,
                     const char *parent_name)
{
    sim_truth_instance_t *in;
    if (t->len == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        sim_truth_instance_t *grown = realloc(t->inst, cap * sizeof *grown);
        if (grown == NULL)
            return (size_t)-1;
        t->inst = grown;
        t->cap = cap;
    }
    in = &t->inst[t->len];
    memset(in, 0, sizeof *in);
    in->id = id;
    in->parent = parent;
    in->name = strdup(name);
    in->label = strdup("");
    in->parent_name = strdup(parent_name);
    in->name_no = name_number(t, name);
    if (in->name == NULL || in->label == NULL || in->parent_name == NULL || in->name_no == (size_t)-1) {
        free(in->name);
        free(in->label);
        free(in->parent_name);
        return (size_t)-1;
    }
    return t->len++;
}

int sim_truth_label(sim_truth_t *t, size_t index, const char *label)
{
    char *copy = strdup(label);
    if (copy == NULL)
        return -1;
    free(t->inst[index].label);
    t->inst[index].label = copy;
    return 0;
}

void sim_truth_slice(sim_truth_t *t, size_t index, uint64_t us)
{
    sim_truth_instance_t *in = &t->inst[index];
    if (in->count == 0 || us < in->min_us)
        in->min_us = us;
    if (us > in->max_us)
        in->max_us = us;
    in->count++;
    in->total_us += us;
    in->slow += us > t->slow_us;
}

void sim_truth_alloc(sim_truth_t *t, size_t index, uint64_t bytes)
{
    sim_truth_mem_t *m = index == (size_t)-1 ? &t->outside : &t->inst[index].mem;
    m->alloc_bytes += bytes;
}

int sim_truth_gc(sim_truth_t *t, size_t index, uint64_t us)
{
    sim_truth_mem_t *m = index == (size_t)-1 ? &t->outside : &t->inst[index].mem;
    m->gc_count++;
    m->gc_us += us;
    if (index == (size_t)-1 && t->gc_name == 0) {
        size_t no = name_number(t, "(gc)");
        if (no == (size_t)-1)
            return -1;
        t->gc_name = no + 1;
    }
    return 0;
}

void sim_truth_end(sim_truth_t *t, size_t index, sim_end_t end)
{
    t->inst[index].end = end;
}

void sim_truth_turn(sim_truth_t *t, uint64_t at, long who)
{
    if (t->turns == NULL)
        return;
    sim_truth_turn_t *last = &t->turns[(t->n_turns - 1) % SIM_TRUTH_TURNS];
    if (last->at == at) {
        last->who = who; /* nothing ran in between */
        return;
    }
    t->turns[t->n_turns % SIM_TRUTH_TURNS] = (sim_truth_turn_t){at, who};
    t->n_turns++;
}

/* us more of the blame on name number `name` (grown to hold it). */
static int blame_add(sim_truth_blame_t *b, size_t name, uint64_t us)
{
    if (name >= b->len) {
        size_t len = name + 8;
        uint64_t *grown = realloc(b->us, len * sizeof *grown);
        if (grown == NULL)
            return -1;
        memset(grown + b->len, 0, (len - b->len) * sizeof *grown);
        b->us = grown;
        b->len = len;
    }
    b->us[name] += us;
    return 0;
}

int sim_truth_resume(sim_truth_t *t, size_t index, uint64_t at, uint64_t late)
{
    sim_truth_instance_t *in = &t->inst[index];
    if (t->late_unit == 0)
        return 0;
    uint64_t wait = late * t->late_unit;
    in->late.resumes++;
    if (late == 0)
        return 0;
    in->late.count++;
    in->late.total_us += wait;
    if (wait > in->late.max_us)
        in->late.max_us = wait;
    /* the window [at - wait, at), walked back over the turns: each turn lasts until the next */
    uint64_t from = wait < at ? at - wait : 0, until = at;
    uint64_t oldest = t->n_turns > SIM_TRUTH_TURNS ? t->n_turns - SIM_TRUTH_TURNS : 0;
    for (uint64_t k = t->n_turns; k-- > oldest && until > from;) {
        const sim_truth_turn_t *turn = &t->turns[k % SIM_TRUTH_TURNS];
        if (turn->at >= until)
            continue;
        uint64_t start = turn->at > from ? turn->at : from;
        if (turn->who == SIM_TRUTH_WHO_GC) {
            if (blame_add(&in->blame, t->gc_name - 1, until - start) != 0)
                return -1;
        } else if (turn->who < 0)
            in->blame.outside_us += until - start;
        else if (blame_add(&in->blame, t->inst[turn->who].name_no, until - start) != 0)
            return -1;
        until = start;
    }
    t->unknown_us += until - from;
    return 0;
}

/* cJSON keeps numbers as doubles: exact for every count and time a run can reach (< 2^53). */
static int add_u64(cJSON *obj, const char *key, uint64_t v)
{
    return cJSON_AddNumberToObject(obj, key, (double)v) != NULL ? 0 : -1;
}

/* The lateness figures and the culprit (the name whose slices took the most of the waiting
 * windows; among equals the first in byte order), when the device reports lateness. */
static int late_json(const sim_truth_t *t, cJSON *o, const sim_truth_late_t *late, const sim_truth_blame_t *b)
{
    if (t->late_unit == 0)
        return 0;
    size_t best = (size_t)-1;
    for (size_t i = 0; i < b->len; i++) {
        if (b->us[i] == 0)
            continue;
        if (best == (size_t)-1 || b->us[i] > b->us[best] ||
            (b->us[i] == b->us[best] && strcmp(t->names[i], t->names[best]) < 0))
            best = i;
    }
    if (add_u64(o, "resumes", late->resumes) || add_u64(o, "late_count", late->count) ||
        add_u64(o, "late_total_us", late->total_us) || add_u64(o, "late_max_us", late->max_us) ||
        add_u64(o, "blocked_outside_us", b->outside_us))
        return -1;
    if (best == (size_t)-1)
        return cJSON_AddNullToObject(o, "blocked_by") != NULL && add_u64(o, "blocked_us", 0) == 0 ? 0 : -1;
    return cJSON_AddStringToObject(o, "blocked_by", t->names[best]) != NULL && add_u64(o, "blocked_us", b->us[best]) == 0
        ? 0 : -1;
}

/* The memory figures, when the port reports memory (every other truth stays as it was). */
static int mem_json(const sim_truth_t *t, cJSON *o, const sim_truth_mem_t *m)
{
    if (t->mem == 0)
        return 0;
    return add_u64(o, "alloc_bytes", m->alloc_bytes) || add_u64(o, "gc_count", m->gc_count) ||
        add_u64(o, "gc_us", m->gc_us) ? -1 : 0;
}

static cJSON *instance_json(const sim_truth_t *t, const sim_truth_instance_t *in)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    if (add_u64(o, "id", in->id) || cJSON_AddStringToObject(o, "name", in->name) == NULL ||
        cJSON_AddStringToObject(o, "label", in->label) == NULL || add_u64(o, "parent", in->parent) ||
        cJSON_AddStringToObject(o, "parent_name", in->parent_name) == NULL ||
        add_u64(o, "count", in->count) || add_u64(o, "total_us", in->total_us) ||
        add_u64(o, "max_us", in->max_us) || add_u64(o, "min_us", in->min_us) ||
        add_u64(o, "slow", in->slow) ||
        cJSON_AddStringToObject(o, "end", end_names[in->end]) == NULL ||
        late_json(t, o, &in->late, &in->blame) != 0 || mem_json(t, o, &in->mem) != 0) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Per name: the instances of that name folded together, in order of first creation. */
static cJSON *tasks_json(const sim_truth_t *t)
{
    cJSON *arr = cJSON_CreateArray();
    char *done = calloc(t->len ? t->len : 1, 1);
    if (arr == NULL || done == NULL)
        goto error;
    for (size_t i = 0; i < t->len; i++) {
        uint64_t count = 0, total = 0, max = 0, min = 0, slow = 0, instances = 0, errors = 0;
        sim_truth_late_t late = {0};
        sim_truth_blame_t blame = {0};
        sim_truth_mem_t mem = {0};
        cJSON *o;
        if (done[i])
            continue;
        for (size_t j = i; j < t->len; j++) {
            const sim_truth_instance_t *in = &t->inst[j];
            if (done[j] || strcmp(in->name, t->inst[i].name) != 0)
                continue;
            done[j] = 1;
            if (in->count > 0 && (count == 0 || in->min_us < min))
                min = in->min_us;
            if (in->max_us > max)
                max = in->max_us;
            count += in->count;
            total += in->total_us;
            slow += in->slow;
            instances++;
            errors += in->end == SIM_END_RAISE || in->end == SIM_END_CANCEL;
            mem.alloc_bytes += in->mem.alloc_bytes;
            mem.gc_count += in->mem.gc_count;
            mem.gc_us += in->mem.gc_us;
            late.resumes += in->late.resumes;
            late.count += in->late.count;
            late.total_us += in->late.total_us;
            if (in->late.max_us > late.max_us)
                late.max_us = in->late.max_us;
            blame.outside_us += in->blame.outside_us;
            for (size_t k = 0; k < in->blame.len; k++) {
                if (in->blame.us[k] != 0 && blame_add(&blame, k, in->blame.us[k]) != 0) {
                    free(blame.us);
                    goto error;
                }
            }
        }
        o = cJSON_CreateObject();
        int late_bad = o == NULL || late_json(t, o, &late, &blame) != 0;
        free(blame.us);
        if (late_bad || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            goto error;
        }
        if (cJSON_AddStringToObject(o, "name", t->inst[i].name) == NULL || add_u64(o, "count", count) ||
            add_u64(o, "total_us", total) || add_u64(o, "max_us", max) || add_u64(o, "min_us", min) ||
            add_u64(o, "instances", instances) || add_u64(o, "slow", slow) ||
            add_u64(o, "errors", errors) || mem_json(t, o, &mem) != 0)
            goto error;
    }
    free(done);
    return arr;

error:
    free(done);
    cJSON_Delete(arr);
    return NULL;
}

static cJSON *document(const sim_truth_t *t, const sim_truth_run_t *run)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *tasks, *instances;
    uint64_t events = run->events;
    if (doc == NULL)
        return NULL;
    if (cJSON_AddStringToObject(doc, "workload", run->workload) == NULL ||
        add_u64(doc, "seed", run->seed) || add_u64(doc, "tick_bits", run->tick_bits) ||
        add_u64(doc, "start_tick", run->start_tick) ||
        cJSON_AddStringToObject(doc, "clock", run->clock) == NULL ||
        add_u64(doc, "ring_bytes", run->ring_bytes) || add_u64(doc, "events", events) ||
        add_u64(doc, "dropped_events", run->dropped_events) || add_u64(doc, "bytes", run->bytes) ||
        add_u64(doc, "frame_bytes", run->frame_bytes) || add_u64(doc, "text_bytes", run->text_bytes) ||
        add_u64(doc, "frames", run->frames) ||
        cJSON_AddNumberToObject(doc, "bytes_per_event",
                                events ? (double)run->frame_bytes / (double)events : 0.0) == NULL ||
        add_u64(doc, "duration_us", run->duration_us) || add_u64(doc, "slow_us", t->slow_us) ||
        add_u64(doc, "text_lines", run->text_lines) ||
        add_u64(doc, "clock_steps_back", run->clock_steps_back) ||
        add_u64(doc, "late_unit", t->late_unit) || add_u64(doc, "late_unknown_us", t->unknown_us))
        goto error;
    tasks = tasks_json(t);
    if (tasks == NULL || !cJSON_AddItemToObject(doc, "tasks", tasks)) {
        cJSON_Delete(tasks);
        goto error;
    }
    instances = cJSON_AddArrayToObject(doc, "instances");
    if (instances == NULL)
        goto error;
    for (size_t i = 0; i < t->len; i++) {
        cJSON *o = instance_json(t, &t->inst[i]);
        if (o == NULL || !cJSON_AddItemToArray(instances, o)) {
            cJSON_Delete(o);
            goto error;
        }
    }
    if (t->mem != 0) {
        cJSON *out = cJSON_AddObjectToObject(doc, "outside_tasks");
        if (add_u64(doc, "mem", t->mem) || out == NULL || mem_json(t, out, &t->outside) != 0)
            goto error;
    }
    /* only a workload with spans has the array: every other truth stays as it was */
    if (t->spans && t->spans->len && sim_spans_json(t->spans, doc, t->mem != 0) != 0)
        goto error;
    return doc;

error:
    cJSON_Delete(doc);
    return NULL;
}

int sim_truth_write(const sim_truth_t *t, const sim_truth_run_t *run, const char *path)
{
    cJSON *doc = document(t, run);
    char *text = NULL;
    FILE *f;
    int err;

    if (doc == NULL)
        goto error_memory;
    text = cJSON_Print(doc);
    if (text == NULL)
        goto error_doc;
    int fd = sim_file_create(path, "the truth");
    if (fd < 0)
        goto error_said;
    f = fdopen(fd, "w");
    if (f == NULL) {
        err = errno;
        close(fd);
        errno = err;
        goto error_file;
    }
    if (fputs(text, f) == EOF || fputc('\n', f) == EOF) {
        err = errno;
        fclose(f);
        errno = err;
        goto error_file;
    }
    if (fclose(f) != 0)
        goto error_file;
    cJSON_free(text);
    cJSON_Delete(doc);
    return 0;

error_file:
    fprintf(stderr, "aioprof-sim: cannot write the truth to %s: %s.\n", path, strerror(errno));
error_said:
    cJSON_free(text);
    cJSON_Delete(doc);
    return -1;
error_doc:
    cJSON_Delete(doc);
error_memory:
    fprintf(stderr, "aioprof-sim: out of memory while writing the truth.\n");
    return -1;
}
