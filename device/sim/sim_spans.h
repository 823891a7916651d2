/* Spans in the simulator: what a workload calls to open and close a span in the running task
 * (the real hook's aioprof_span_enter/exit), and the ground truth of every span, per task
 * instance and span name (docs/usage.md, "Spans"): count, own, inclusive and wall time, the
 * longest occurrence and those its task's end closed. */
#ifndef SIM_SPANS_H
#define SIM_SPANS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "aioprof.h"

#define SIM_SPAN_DEPTH 8u

/* Memory inside a span: bytes allocated, collections, their time. */
typedef struct sim_span_mem {
    uint64_t alloc, gc_count, gc_us;
} sim_span_mem_t;

typedef struct sim_span_open {
    size_t entry;      /* its truth entry */
    uint64_t opened;   /* the hook's reading at its enter */
    uint64_t own, inclusive;
    sim_span_mem_t own_mem, incl_mem;
} sim_span_open_t;

/* Per task: its open spans, innermost last, and since when its running time is not credited. */
typedef struct sim_span_stack {
    sim_span_open_t open[SIM_SPAN_DEPTH];
    unsigned depth;
    uint64_t mark;
} sim_span_stack_t;

typedef struct sim_span_truth {
    uint32_t instance; /* the task instance's id */
    char task[AIOPROF_NAME_MAX + 1];
    const char *span;
    uint64_t count, own_us, inclusive_us, wall_us, max_us, unwound;
    sim_span_mem_t own_mem, incl_mem; /* of the spans that closed (docs/usage.md, "Memory per span") */
} sim_span_truth_t;

typedef struct sim_spans {
    sim_span_truth_t *entries;
    size_t len, cap;
} sim_spans_t;

struct sim;
struct sim_task;

/* For workloads, inside a slice: the running task opens span sp (a static AIOPROF_SPAN_INIT), or
 * closes its innermost. */
void sim_span_enter(struct sim *s, aioprof_span_t *sp);
void sim_span_exit(struct sim *s);

/* The scheduler's hook points, at the hook's reading now: t starts or stops running (its own
 * time: a nested task's slice is not its); t ended, its open spans close with it. */
void sim_spans_resume(struct sim_task *t, uint64_t now);
void sim_spans_pause(struct sim_task *t, uint64_t now);
void sim_spans_unwind(struct sim *s, struct sim_task *t, uint64_t now);

/* t, running, allocated bytes or collected (gc 1, of gc_us): its innermost open span's own
 * memory, and every open span's inclusive. */
void sim_spans_mem(struct sim_task *t, uint64_t bytes, uint64_t gc, uint64_t gc_us);

void sim_spans_free(sim_spans_t *sp);

/* The truth's "spans" array: appended to doc (a cJSON object), with their memory when the port
 * reports it (mem). Returns 0, or -1 out of memory. */
int sim_spans_json(const sim_spans_t *sp, void *doc, int mem);

#endif
