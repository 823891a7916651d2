/* Ground truth: what the simulated workload really did, slice by slice, measured in the same
 * device ticks (microseconds) the hook recorded, written as JSON for the end-to-end tests to
 * compare aioprof-top's numbers against. */
#ifndef SIM_TRUTH_H
#define SIM_TRUTH_H

#include <stddef.h>
#include <stdint.h>

typedef enum sim_end {
    SIM_END_RUNNING,
    SIM_END_RETURN,
    SIM_END_RAISE,
    SIM_END_CANCEL,
} sim_end_t;

/* Per culprit name: the time its slices took of a task's waiting windows. */
typedef struct sim_truth_blame {
    uint64_t *us;          /* by name number (sim_truth_t.names), grown as names come */
    size_t len;
    uint64_t outside_us;   /* no task ran: the scheduler, the drain (a collection then is "(gc)") */
} sim_truth_blame_t;

/* Memory (the alloc workload): what an instance, or the scheduler, allocated and the collections
 * inside its slices (the scheduler's: between slices). */
typedef struct sim_truth_mem {
    uint64_t alloc_bytes;
    uint64_t gc_count;
    uint64_t gc_us;
} sim_truth_mem_t;

/* A turn's `who` while a collection runs between slices: the culprit "(gc)". */
#define SIM_TRUTH_WHO_GC (-2L)

/* Lateness: every resume (known: the device reports it), those that were late, how late. */
typedef struct sim_truth_late {
    uint64_t resumes;
    uint64_t count;
    uint64_t total_us;
    uint64_t max_us;
} sim_truth_late_t;

typedef struct sim_truth_instance {
    uint32_t id;
    uint32_t parent;
    char *name;
    char *label;
    char *parent_name;
    uint64_t count;
    uint64_t total_us;
    uint64_t max_us;
    uint64_t min_us;
    uint64_t slow;
    sim_end_t end;
    size_t name_no;        /* its name's number in sim_truth_t.names */
    sim_truth_late_t late;
    sim_truth_blame_t blame;
    sim_truth_mem_t mem;
} sim_truth_instance_t;

/* Who ran from `at` on (the innermost task's instance index, or -1: none): the time line the
 * waiting windows are laid on, as the hook stamped it. */
typedef struct sim_truth_turn {
    uint64_t at;
    long who;
} sim_truth_turn_t;

/* The turns kept: far more than the longest waiting window of any workload spans. */
#define SIM_TRUTH_TURNS (1u << 20)

typedef struct sim_truth {
    sim_truth_instance_t *inst;
    size_t len;
    size_t cap;
    uint64_t slow_us;
    char **names;          /* distinct task names, in order of first creation */
    size_t n_names;
    size_t names_cap;
    uint32_t late_unit;    /* ticks (microseconds) per unit of lateness; 0: not reported */
    sim_truth_turn_t *turns; /* a ring of SIM_TRUTH_TURNS */
    uint64_t n_turns;      /* turns so far (the ring holds the last SIM_TRUTH_TURNS) */
    uint64_t unknown_us;   /* waiting time before the oldest turn kept (never, in practice) */
    const struct sim_spans *spans; /* the spans' truth, written when there are any (sim_spans.h) */
    uint32_t mem;          /* the port's HELLO mem field; 0: memory is not reported (nor written) */
    size_t gc_name;        /* the name number of "(gc)", the culprit, once a collection ran between slices */
    sim_truth_mem_t outside; /* the scheduler's, between slices */
} sim_truth_t;

/* What the run as a whole did, for the document's header. */
typedef struct sim_truth_run {
    const char *workload;
    uint64_t seed;
    unsigned tick_bits;
    uint32_t start_tick;
    const char *clock;
    uint64_t events;
    uint64_t dropped_events;
    uint64_t bytes;
    uint64_t frame_bytes;
    uint64_t text_bytes;
    uint64_t frames;
    uint64_t duration_us;
    uint64_t text_lines;
    uint32_t ring_bytes;
    uint64_t clock_steps_back; /* readings behind the one before (--clock-back) */
} sim_truth_run_t;

/* Returns 0, or -1 when out of memory. */
int sim_truth_init(sim_truth_t *t, uint64_t slow_us, uint32_t late_unit);
void sim_truth_free(sim_truth_t *t);

/* A task instance was created. Returns its index, or (size_t)-1 when out of memory. */
size_t sim_truth_add(sim_truth_t *t, uint32_t id, const char *name, uint32_t parent,
                     const char *parent_name);
/* Returns 0, or -1 when out of memory. */
int sim_truth_label(sim_truth_t *t, size_t index, const char *label);
/* One slice of the instance ended; us is its exclusive time (nested slices not included). */
void sim_truth_slice(sim_truth_t *t, size_t index, uint64_t us);
void sim_truth_end(sim_truth_t *t, size_t index, sim_end_t end);

/* Memory: bytes allocated, or a collection of us, by instance `index` ((size_t)-1: the scheduler,
 * between slices). Returns 0, or -1 when out of memory. */
void sim_truth_alloc(sim_truth_t *t, size_t index, uint64_t bytes);
int sim_truth_gc(sim_truth_t *t, size_t index, uint64_t us);

/* From `at` on, the instance `who` runs (-1: none; SIM_TRUTH_WHO_GC: a collection between slices). */
void sim_truth_turn(sim_truth_t *t, uint64_t at, long who);

/* The instance resumes at `at`, `late` units after it was due: its waiting window, the `late`
 * units before `at` (as the host places it), is laid on the time line and each part of it blamed
 * on the name of the task that ran then, or on no task. Returns 0, or -1 when out of memory. */
int sim_truth_resume(sim_truth_t *t, size_t index, uint64_t at, uint64_t late);

/* Writes the JSON document to path. Returns 0, or -1 after printing one sentence on stderr. */
int sim_truth_write(const sim_truth_t *t, const sim_truth_run_t *run, const char *path);

#endif
