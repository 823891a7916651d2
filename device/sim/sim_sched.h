/* The simulated device: a cooperative scheduler in the manner of MicroPython's asyncio, with the
 * real aioprof hook called on every task creation, resume and yield.
 *
 * A task is a step function that runs one slice: it "computes" with sim_work(), may create tasks,
 * resume another task inside its own slice (sim_nest) or cancel one, and says how the slice ended.
 * The scheduler adds a fixed overhead between slices, drains the hook after every slice and while
 * idle, and writes device text between frames. */
#ifndef SIM_SCHED_H
#define SIM_SCHED_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "aioprof.h"
#include "sim_clock.h"
#include "sim_options.h"
#include "sim_output.h"
#include "sim_queue.h"
#include "sim_rng.h"
#include "sim_spans.h"
#include "sim_truth.h"

/* How early the clock reads when it steps back (--clock-back): a millisecond, as MicroPython's qemu
 * port, which reads its millisecond counter and SysTick apart. */
#define SIM_CLOCK_BACK_US 1000u

typedef struct sim sim_t;
typedef struct sim_task sim_task_t;

/* How a slice ends. */
typedef enum sim_next {
    SIM_NEXT_SLEEP,  /* yield, ready again after t->sleep_us (0: asyncio.sleep(0)) */
    SIM_NEXT_WAIT,   /* yield and await something that never comes (gather of endless tasks) */
    SIM_NEXT_RETURN,
    SIM_NEXT_RAISE,
} sim_next_t;

typedef sim_next_t (*sim_step_fn)(sim_t *s, sim_task_t *t);

struct sim_task {
    aioprof_task_t prof;
    sim_step_fn step;
    sim_task_t *outer;     /* the task this one's slice is nested in */
    sim_task_t *peer;      /* workload use: the task it resumes inside its slices */
    sim_queue_item_t run;  /* ready from run.wake on; in the run queue unless waiting */
    uint64_t sleep_us;     /* set by a step that returns SIM_NEXT_SLEEP */
    uint64_t slice_start;  /* exclusive time of the open slice: resumed at, and so far */
    uint64_t slice_excl;
    size_t truth;
    uint64_t slices;
    uint8_t waiting;       /* not in the run queue (awaits forever, or only ever nested) */
    uint8_t cancel;        /* cancelled: its next resume throws CancelledError into it */
    uint8_t active;        /* inside one of its slices */
    /* workload state */
    int role;
    uint64_t limit;
    uint64_t work_us;
    uint64_t param;
    char name[AIOPROF_NAME_MAX + 1];
    char label[AIOPROF_NAME_MAX + 1];
    sim_span_stack_t spans; /* its open spans (sim_spans.h) */
};

struct sim {
    const sim_options_t *opt;
    sim_clock_t clock;
    sim_rng_t rng;
    sim_rng_t text_rng;    /* apart, so that --text leaves the workload exactly as it was */
    aioprof_t prof;
    aioprof_port_t port;
    uint8_t *ring;
    sim_output_t *out;
    sim_truth_t truth;
    sim_task_t **tasks;    /* live tasks */
    size_t ntasks;
    size_t cap_tasks;
    sim_queue_t queue;     /* the live tasks that are not waiting, by when they are due */
    sim_task_t *running;   /* innermost running task */
    uint64_t next_order;
    uint64_t events;       /* enter and exit calls */
    uint64_t slices;
    uint64_t text_due;     /* slices since the last print() */
    uint64_t text_owed;    /* print() lines waiting for the stream to be between frames */
    uint64_t text_made;
    uint64_t end_us;       /* device time when the run stopped */
    /* --clock-back: the clock as the hook reads it, and what the host makes of it */
    uint32_t clock_off;    /* read this much early during the current hook call */
    uint64_t glitch_due;   /* slices since the last early reading */
    int announced;         /* a task was created or labelled since the last enter or exit */
    uint64_t last_reading; /* the last enter's or exit's reading, microseconds */
    uint64_t seen;         /* the latest reading: the host's time line, which never goes back */
    uint64_t steps_back;   /* readings behind the one before */
    int oom;
    sim_spans_t spans;     /* the spans' truth (sim_spans.h) */
    /* memory (a workload that allocates: the port's mem is set): the allocation counter the hook
     * reads, what the heap holds since the last collection, and when the scheduler collects */
    uint64_t allocated;
    uint64_t heap;
    uint64_t gc_due_us;
};

/* Sets up clock, hook and truth for the options. Returns 0, or -1 after one sentence on stderr. */
int sim_init(sim_t *s, const sim_options_t *opt, sim_output_t *out);
void sim_free(sim_t *s);

/* Runs until the duration or event limit, a stop request or the consumer leaving. */
void sim_run(sim_t *s, volatile sig_atomic_t *stop);

/* Stops the hook (aioprof_close: its last HELLO says so) and drains until everything is sent (a
 * pty gives up after 2 s of no reader). */
void sim_finish(sim_t *s);

/* What the run did as a whole, for the truth's header (after sim_run, or sim_finish). */
void sim_run_summary(const sim_t *s, sim_truth_run_t *run);

/* For workloads, inside a slice (or before the run for the first task). */
sim_task_t *sim_spawn(sim_t *s, const char *name, sim_step_fn step, int waiting);
void sim_label(sim_t *s, sim_task_t *t, const char *label);
void sim_work(sim_t *s, uint64_t us);
void sim_nest(sim_t *s, sim_task_t *t);
void sim_cancel(sim_t *s, sim_task_t *t);
/* Memory (a workload whose port reports it, sim_sched.c): the running task (or, between slices,
 * the scheduler) allocates bytes; past SIM_HEAP_THRESHOLD since the last collection, a collection
 * runs at once, inside the allocation, as MicroPython's gc_alloc does. sim_gc: a collection now
 * (gc.collect()), of SIM_GC_MIN_US to SIM_GC_MAX_US. */
#define SIM_HEAP_THRESHOLD 24576u
#define SIM_GC_MIN_US 1500u
#define SIM_GC_MAX_US 4000u
void sim_alloc(sim_t *s, uint64_t bytes);
void sim_gc(sim_t *s);
/* What it awaited came (an event set): a waiting task is ready again. */
void sim_wake(sim_t *s, sim_task_t *t);
/* A live task of this role, chosen at random, that is neither running nor already cancelled;
 * NULL when there is none. */
sim_task_t *sim_pick(sim_t *s, int role);

static inline uint64_t sim_rand(sim_t *s, uint64_t lo, uint64_t hi)
{
    return sim_rng_range(&s->rng, lo, hi);
}

#endif
