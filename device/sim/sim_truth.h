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
} sim_truth_instance_t;

typedef struct sim_truth {
    sim_truth_instance_t *inst;
    size_t len;
    size_t cap;
    uint64_t slow_us;
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

void sim_truth_init(sim_truth_t *t, uint64_t slow_us);
void sim_truth_free(sim_truth_t *t);

/* A task instance was created. Returns its index, or (size_t)-1 when out of memory. */
size_t sim_truth_add(sim_truth_t *t, uint32_t id, const char *name, uint32_t parent,
                     const char *parent_name);
/* Returns 0, or -1 when out of memory. */
int sim_truth_label(sim_truth_t *t, size_t index, const char *label);
/* One slice of the instance ended; us is its exclusive time (nested slices not included). */
void sim_truth_slice(sim_truth_t *t, size_t index, uint64_t us);
void sim_truth_end(sim_truth_t *t, size_t index, sim_end_t end);

/* Writes the JSON document to path. Returns 0, or -1 after printing one sentence on stderr. */
int sim_truth_write(const sim_truth_t *t, const sim_truth_run_t *run, const char *path);

#endif
