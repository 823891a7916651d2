#define _POSIX_C_SOURCE 200809L

#include "sim_truth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sim_file.h"

static const char *const end_names[] = {"running", "return", "raise", "cancel"};

void sim_truth_init(sim_truth_t *t, uint64_t slow_us)
{
    memset(t, 0, sizeof *t);
    t->slow_us = slow_us;
}

void sim_truth_free(sim_truth_t *t)
{
    for (size_t i = 0; i < t->len; i++) {
        free(t->inst[i].name);
        free(t->inst[i].label);
        free(t->inst[i].parent_name);
    }
    free(t->inst);
    memset(t, 0, sizeof *t);
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
    if (in->name == NULL || in->label == NULL || in->parent_name == NULL) {
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

void sim_truth_end(sim_truth_t *t, size_t index, sim_end_t end)
{
    t->inst[index].end = end;
}

/* cJSON keeps numbers as doubles: exact for every count and time a run can reach (< 2^53). */
static int add_u64(cJSON *obj, const char *key, uint64_t v)
{
    return cJSON_AddNumberToObject(obj, key, (double)v) != NULL ? 0 : -1;
}

static cJSON *instance_json(const sim_truth_instance_t *in)
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
        cJSON_AddStringToObject(o, "end", end_names[in->end]) == NULL) {
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
        }
        o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(arr, o))
            goto error;
        if (cJSON_AddStringToObject(o, "name", t->inst[i].name) == NULL || add_u64(o, "count", count) ||
            add_u64(o, "total_us", total) || add_u64(o, "max_us", max) || add_u64(o, "min_us", min) ||
            add_u64(o, "instances", instances) || add_u64(o, "slow", slow) ||
            add_u64(o, "errors", errors))
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
        add_u64(doc, "clock_steps_back", run->clock_steps_back))
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
        cJSON *o = instance_json(&t->inst[i]);
        if (o == NULL || !cJSON_AddItemToArray(instances, o)) {
            cJSON_Delete(o);
            goto error;
        }
    }
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
