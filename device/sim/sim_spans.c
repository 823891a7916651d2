/* Spans in the simulator (sim_spans.h): the hook's calls and their ground truth. */
#include "sim_spans.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sim_sched.h"

/* The truth entry of (instance, span name): found by a walk (a workload has a few). */
static size_t span_entry(sim_t *s, const sim_task_t *t, const aioprof_span_t *sp)
{
    sim_spans_t *all = &s->spans;
    for (size_t i = 0; i < all->len; i++) {
        if (all->entries[i].instance == t->prof.id && strcmp(all->entries[i].span, sp->name) == 0)
            return i;
    }
    if (all->len == all->cap) {
        size_t cap = all->cap ? all->cap * 2 : 16;
        sim_span_truth_t *e = realloc(all->entries, cap * sizeof *e);
        if (e == NULL) {
            s->oom = 1;
            return (size_t)-1;
        }
        all->entries = e;
        all->cap = cap;
    }
    sim_span_truth_t *e = &all->entries[all->len];
    memset(e, 0, sizeof *e);
    e->instance = t->prof.id;
    snprintf(e->task, sizeof e->task, "%s", t->name);
    e->span = sp->name;
    return all->len++;
}

/* Credits t's running time since its mark to its open spans: all of them inclusive, the
 * innermost own. */
static void credit(sim_task_t *t, uint64_t now)
{
    sim_span_stack_t *st = &t->spans;
    uint64_t d = now - st->mark;
    for (unsigned i = 0; i < st->depth; i++)
        st->open[i].inclusive += d;
    if (st->depth)
        st->open[st->depth - 1].own += d;
    st->mark = now;
}

static void mem_add(sim_span_mem_t *d, const sim_span_mem_t *m)
{
    d->alloc += m->alloc;
    d->gc_count += m->gc_count;
    d->gc_us += m->gc_us;
}

void sim_spans_mem(sim_task_t *t, uint64_t bytes, uint64_t gc, uint64_t gc_us)
{
    sim_span_stack_t *st = &t->spans;
    sim_span_mem_t m = {bytes, gc, gc_us};
    for (unsigned i = 0; i < st->depth; i++)
        mem_add(&st->open[i].incl_mem, &m);
    if (st->depth)
        mem_add(&st->open[st->depth - 1].own_mem, &m);
}

static void close_top(sim_t *s, sim_task_t *t, uint64_t now, int unwound)
{
    sim_span_stack_t *st = &t->spans;
    sim_span_open_t *o = &st->open[--st->depth];
    if (o->entry == (size_t)-1)
        return;
    sim_span_truth_t *e = &s->spans.entries[o->entry];
    e->count++;
    e->own_us += o->own;
    e->inclusive_us += o->inclusive;
    e->wall_us += now - o->opened;
    if (o->inclusive > e->max_us)
        e->max_us = o->inclusive;
    e->unwound += (uint64_t)unwound;
    mem_add(&e->own_mem, &o->own_mem);
    mem_add(&e->incl_mem, &o->incl_mem);
}

/* The hook reads the clock as the truth does: it does not move during a call. */
void sim_span_enter(sim_t *s, aioprof_span_t *sp)
{
    sim_task_t *t = s->running;
    uint64_t now = sim_clock_sample(&s->clock);
    if (t == NULL || t->spans.depth == SIM_SPAN_DEPTH)
        return;
    credit(t, now);
    sim_span_open_t *o = &t->spans.open[t->spans.depth++];
    o->entry = span_entry(s, t, sp);
    o->opened = now;
    o->own = o->inclusive = 0;
    memset(&o->own_mem, 0, sizeof o->own_mem);
    memset(&o->incl_mem, 0, sizeof o->incl_mem);
    aioprof_span_enter(&s->prof, sp);
}

void sim_span_exit(sim_t *s)
{
    sim_task_t *t = s->running;
    uint64_t now = sim_clock_sample(&s->clock);
    if (t == NULL || t->spans.depth == 0)
        return;
    credit(t, now);
    close_top(s, t, now, 0);
    aioprof_span_exit(&s->prof);
}

void sim_spans_resume(sim_task_t *t, uint64_t now)
{
    t->spans.mark = now;
}

void sim_spans_pause(sim_task_t *t, uint64_t now)
{
    credit(t, now);
}

void sim_spans_unwind(sim_t *s, sim_task_t *t, uint64_t now)
{
    while (t->spans.depth)
        close_top(s, t, now, 1);
}

void sim_spans_free(sim_spans_t *sp)
{
    free(sp->entries);
    memset(sp, 0, sizeof *sp);
}

static int mem_json(cJSON *o, const char *prefix, const sim_span_mem_t *m)
{
    char key[32];
    snprintf(key, sizeof key, "%salloc_bytes", prefix);
    if (cJSON_AddNumberToObject(o, key, (double)m->alloc) == NULL)
        return -1;
    snprintf(key, sizeof key, "%sgc_count", prefix);
    if (cJSON_AddNumberToObject(o, key, (double)m->gc_count) == NULL)
        return -1;
    snprintf(key, sizeof key, "%sgc_us", prefix);
    return cJSON_AddNumberToObject(o, key, (double)m->gc_us) == NULL ? -1 : 0;
}

int sim_spans_json(const sim_spans_t *sp, void *doc, int mem)
{
    cJSON *arr = cJSON_AddArrayToObject(doc, "spans");
    if (arr == NULL)
        return -1;
    for (size_t i = 0; i < sp->len; i++) {
        const sim_span_truth_t *e = &sp->entries[i];
        cJSON *o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(arr, o))
            return cJSON_Delete(o), -1;
        if (cJSON_AddNumberToObject(o, "instance", e->instance) == NULL ||
            cJSON_AddStringToObject(o, "task", e->task) == NULL || cJSON_AddStringToObject(o, "span", e->span) == NULL ||
            cJSON_AddNumberToObject(o, "count", (double)e->count) == NULL ||
            cJSON_AddNumberToObject(o, "own_us", (double)e->own_us) == NULL ||
            cJSON_AddNumberToObject(o, "inclusive_us", (double)e->inclusive_us) == NULL ||
            cJSON_AddNumberToObject(o, "wall_us", (double)e->wall_us) == NULL ||
            cJSON_AddNumberToObject(o, "max_us", (double)e->max_us) == NULL ||
            cJSON_AddNumberToObject(o, "unwound", (double)e->unwound) == NULL)
            return -1;
        if (mem && (mem_json(o, "", &e->incl_mem) != 0 || mem_json(o, "own_", &e->own_mem) != 0))
            return -1;
    }
    return 0;
}
