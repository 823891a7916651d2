#define _POSIX_C_SOURCE 200809L

#include "sim_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_text.h"
#include "sim_workloads.h"

/* asyncio's own time between two slices (picking the next task, the queue pushes): fixed, so the
 * virtual run stays deterministic. */
#define SCHED_OVERHEAD_US 15u
/* What a cancelled task does between the CancelledError arriving and its exit. */
#define CANCEL_WORK_US 20u
/* The idle loop drains at least this often, so frames close and heartbeats go out. */
#define IDLE_STEP_VIRTUAL_US 100000u
#define IDLE_STEP_REAL_US 20000u
/* A pty nobody reads: how long the final drain waits for a reader. */
#define FINISH_PATIENCE_US 2000000u
#define FINISH_STEP_US 1000u

static uint32_t port_ticks(void *user)
{
    sim_t *s = user;
    return sim_clock_ticks(&s->clock) - s->clock_off;
}

static size_t port_write(void *user, const uint8_t *data, size_t len)
{
    sim_t *s = user;
    return sim_output_frames(s->out, data, len);
}

static uint32_t port_alloc(void *user)
{
    sim_t *s = user;
    return (uint32_t)s->allocated;
}

/* The workloads that allocate: their port reports memory (the HELLO's mem: bytes, exact, every
 * collection, timed); every other workload's stream stays what it was. */
#define SIM_MEM (AIOPROF_MEM_ALLOC_EXACT | AIOPROF_MEM_GC_COUNT | AIOPROF_MEM_GC_TIME | 1u << AIOPROF_MEM_UNIT_SHIFT)

static uint32_t workload_mem(const char *name)
{
    return strcmp(name, "alloc") == 0 || strcmp(name, "seed-spans") == 0 ? SIM_MEM : 0u;
}

int sim_init(sim_t *s, const sim_options_t *opt, sim_output_t *out)
{
    static char platform[AIOPROF_PLATFORM_MAX + 1];
    const sim_workload_t *w = sim_workload_find(opt->workload);

    memset(s, 0, sizeof *s);
    s->opt = opt;
    s->out = out;
    sim_clock_init(&s->clock, opt->clock, opt->start_tick);
    sim_rng_seed(&s->rng, opt->seed);
    sim_rng_seed(&s->text_rng, opt->seed ^ 0x7465787474657874ull);
    if (sim_truth_init(&s->truth, opt->slow_us, opt->late_unit) != 0) {
        fprintf(stderr, "aioprof-sim: out of memory for the truth's time line.\n");
        return -1;
    }
    s->truth.spans = &s->spans;

    s->ring = malloc(opt->ring_bytes);
    if (s->ring == NULL) {
        fprintf(stderr, "aioprof-sim: out of memory for a %u-byte ring.\n", (unsigned)opt->ring_bytes);
        sim_truth_free(&s->truth);
        return -1;
    }
    if (opt->platform != NULL)
        snprintf(platform, sizeof platform, "%s", opt->platform);
    else
        snprintf(platform, sizeof platform, "aioprof-sim %s", opt->workload);
    s->port.ticks = port_ticks;
    s->port.write = port_write;
    s->port.user = s;
    s->port.tick_hz = 1000000u;
    s->port.tick_bits = (uint8_t)opt->tick_bits;
    s->port.platform = platform;
    s->port.late_unit = opt->late_unit;
    s->port.alloc = port_alloc;
    s->port.mem = workload_mem(opt->workload);
    s->truth.mem = s->port.mem;
    if (aioprof_init(&s->prof, &s->port, s->ring, opt->ring_bytes) != 0) {
        fprintf(stderr, "aioprof-sim: the device library refused the port settings.\n");
        goto error_ring;
    }
    w->start(s);
    if (s->oom) {
        fprintf(stderr, "aioprof-sim: out of memory while starting the workload.\n");
        goto error_tasks;
    }
    return 0;

error_tasks:
    sim_free(s);
    return -1;
error_ring:
    free(s->ring);
    sim_spans_free(&s->spans);
    s->ring = NULL;
    sim_truth_free(&s->truth);
    return -1;
}

void sim_free(sim_t *s)
{
    sim_queue_free(&s->queue);
    for (size_t i = 0; i < s->ntasks; i++)
        free(s->tasks[i]);
    free(s->tasks);
    s->tasks = NULL;
    s->ntasks = 0;
    free(s->ring);
    s->ring = NULL;
    sim_spans_free(&s->spans);
    sim_truth_free(&s->truth);
}

static sim_task_t *task_of(sim_queue_item_t *item)
{
    return item ? (sim_task_t *)(void *)((char *)item - offsetof(sim_task_t, run)) : NULL;
}

static void make_ready(sim_t *s, sim_task_t *t, uint64_t when)
{
    t->run.wake = when;
    t->run.order = s->next_order++;
    /* a waiting task keeps its time for when it stops waiting, out of the queue */
    if (!t->waiting && sim_queue_put(&s->queue, &t->run) != 0)
        s->oom = 1;
}

sim_task_t *sim_spawn(sim_t *s, const char *name, sim_step_fn step, int waiting)
{
    sim_task_t *t;
    if (s->ntasks == s->cap_tasks) {
        size_t cap = s->cap_tasks ? s->cap_tasks * 2 : 32;
        sim_task_t **grown = realloc(s->tasks, cap * sizeof *grown);
        if (grown == NULL)
            goto error;
        s->tasks = grown;
        s->cap_tasks = cap;
    }
    t = calloc(1, sizeof *t);
    if (t == NULL)
        goto error;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->step = step;
    t->waiting = (uint8_t)(waiting != 0);
    make_ready(s, t, s->clock.now);
    aioprof_task_created(&s->prof, &t->prof, t->name, strlen(t->name));
    s->announced = 1;
    t->truth = sim_truth_add(&s->truth, t->prof.id, t->name, t->prof.parent,
                             s->running ? s->running->name : "");
    if (t->truth == (size_t)-1) {
        sim_queue_remove(&s->queue, &t->run);
        free(t);
        goto error;
    }
    s->tasks[s->ntasks++] = t;
    return t;

error:
    /* the workload carries on as if the task had finished at once; the run reports the failure */
    s->oom = 1;
    return NULL;
}

void sim_label(sim_t *s, sim_task_t *t, const char *label)
{
    if (t == NULL)
        return;
    snprintf(t->label, sizeof t->label, "%s", label);
    aioprof_task_label(&s->prof, &t->prof, t->label, strlen(t->label));
    s->announced = 1;
    if (sim_truth_label(&s->truth, t->truth, t->label) != 0)
        s->oom = 1;
}

void sim_work(sim_t *s, uint64_t us)
{
    sim_clock_advance(&s->clock, us);
}

void sim_gc(sim_t *s)
{
    uint64_t us = sim_rand(s, SIM_GC_MIN_US, SIM_GC_MAX_US);
    uint64_t start = sim_clock_sample(&s->clock);
    /* between slices the collection is the culprit of a wait: "(gc)" on the truth's time line */
    if (s->running == NULL)
        sim_truth_turn(&s->truth, start, SIM_TRUTH_WHO_GC);
    sim_work(s, us);
    if (sim_truth_gc(&s->truth, s->running ? s->running->truth : (size_t)-1, us) != 0)
        s->oom = 1;
    if (s->running != NULL)
        sim_spans_mem(s->running, 0, 1, us);
    s->heap = 0;
    aioprof_gc(&s->prof, (uint32_t)us);
    if (s->running == NULL)
        sim_truth_turn(&s->truth, sim_clock_sample(&s->clock), -1);
}

void sim_alloc(sim_t *s, uint64_t bytes)
{
    if (s->port.mem == 0)
        return;
    s->allocated += bytes;
    sim_truth_alloc(&s->truth, s->running ? s->running->truth : (size_t)-1, bytes);
    if (s->running != NULL)
        sim_spans_mem(s->running, bytes, 0, 0);
    s->heap += bytes;
    if (s->heap >= SIM_HEAP_THRESHOLD)
        sim_gc(s);
}

void sim_cancel(sim_t *s, sim_task_t *t)
{
    if (t == NULL || t->active || t->cancel)
        return;
    t->cancel = 1;
    /* asyncio's cancel() puts the task back in the run queue at once */
    t->waiting = 0;
    make_ready(s, t, s->clock.now);
}

void sim_wake(sim_t *s, sim_task_t *t)
{
    if (t == NULL || !t->waiting || t->active)
        return;
    t->waiting = 0;
    make_ready(s, t, s->clock.now);
}

sim_task_t *sim_pick(sim_t *s, int role)
{
    size_t n = 0, k;
    for (size_t i = 0; i < s->ntasks; i++)
        n += s->tasks[i]->role == role && !s->tasks[i]->active && !s->tasks[i]->cancel;
    if (n == 0)
        return NULL;
    k = (size_t)sim_rand(s, 0, n - 1);
    for (size_t i = 0; i < s->ntasks; i++) {
        sim_task_t *t = s->tasks[i];
        if (t->role == role && !t->active && !t->cancel && k-- == 0)
            return t;
    }
    return NULL;
}

static void remove_task(sim_t *s, sim_task_t *t)
{
    for (size_t i = 0; i < s->ntasks; i++) {
        if (s->tasks[i] == t) {
            s->tasks[i] = s->tasks[--s->ntasks];
            break;
        }
    }
    sim_queue_remove(&s->queue, &t->run);
    free(t);
}

/* The ground truth's clock is the one the hook reads: the sample taken here is the tick the hook
 * records, because the clock does not move during the call. With --clock-back some of those
 * readings are early; the truth then times slices as the host must (docs/protocol.md section 4):
 * on the latest reading, which never goes back, so a step back gives its slice nothing. */
static uint64_t hook_reading(sim_t *s, uint64_t now)
{
    uint64_t reading = now - s->clock_off;
    if (reading < s->last_reading)
        s->steps_back++;
    s->last_reading = reading;
    s->announced = 0;
    if (reading > s->seen)
        s->seen = reading;
    return s->seen;
}

/* due: when t became runnable (run.wake: its sleep's deadline, or when it was created, woken or
 * cancelled), for a task the scheduler took from its queue; a task resumed inside another's slice
 * (sim_nest) is on time. Its lateness goes in whole units of the port's late_unit, rounded down,
 * as a port that counts in microseconds and reports milliseconds would send it. */
static void hook_enter(sim_t *s, sim_task_t *t, int queued)
{
    uint64_t now = hook_reading(s, sim_clock_sample(&s->clock));
    uint64_t unit = s->opt->late_unit;
    uint64_t late = queued && unit && now > t->run.wake ? (now - t->run.wake) / unit : 0;
    if (s->running != NULL) {
        s->running->slice_excl += now - s->running->slice_start;
        sim_spans_pause(s->running, now);
    }
    sim_spans_resume(t, now);
    t->slice_start = now;
    t->slice_excl = 0;
    t->outer = s->running;
    t->active = 1;
    s->running = t;
    s->events++;
    if (sim_truth_resume(&s->truth, t->truth, now, late) != 0)
        s->oom = 1;
    sim_truth_turn(&s->truth, now, (long)t->truth);
    aioprof_enter_late(&s->prof, &t->prof, (uint32_t)late);
}

/* --clock-back: is this slice's end read early? Every Nth slice, unless a task was created or
 * labelled since the last event (the hook may have stamped a frame then, which the truth does not
 * see), then the next one. */
static uint32_t exit_reads_early(sim_t *s, uint64_t now)
{
    if (s->opt->clock_back == 0 || ++s->glitch_due < s->opt->clock_back || s->announced || now < SIM_CLOCK_BACK_US)
        return 0;
    s->glitch_due = 0;
    return SIM_CLOCK_BACK_US;
}

static void hook_exit(sim_t *s, sim_task_t *t, unsigned kind)
{
    uint64_t sample = sim_clock_sample(&s->clock);
    s->clock_off = exit_reads_early(s, sample);
    uint64_t now = hook_reading(s, sample);
    sim_truth_slice(&s->truth, t->truth, t->slice_excl + (now - t->slice_start));
    sim_truth_turn(&s->truth, now, t->outer != NULL ? (long)t->outer->truth : -1);
    sim_spans_pause(t, now);
    if (kind != AIOPROF_EXIT_YIELD)
        sim_spans_unwind(s, t, now); /* a task that ends closes its open spans */
    s->running = t->outer;
    if (s->running != NULL) {
        s->running->slice_start = now;
        sim_spans_resume(s->running, now);
    }
    t->outer = NULL;
    t->active = 0;
    s->events++;
    aioprof_exit(&s->prof, &t->prof, kind);
    s->clock_off = 0;
}

static void run_slice(sim_t *s, sim_task_t *t, int queued)
{
    sim_next_t next = SIM_NEXT_SLEEP;
    unsigned kind;

    hook_enter(s, t, queued);
    if (t->cancel) {
        sim_work(s, CANCEL_WORK_US);
        kind = AIOPROF_EXIT_CANCEL;
    } else {
        next = t->step(s, t);
        kind = next == SIM_NEXT_RETURN ? AIOPROF_EXIT_RETURN
             : next == SIM_NEXT_RAISE  ? AIOPROF_EXIT_RAISE
                                       : AIOPROF_EXIT_YIELD;
    }
    t->slices++;
    hook_exit(s, t, kind);

    switch (kind) {
    case AIOPROF_EXIT_YIELD:
        if (next == SIM_NEXT_WAIT) {
            t->waiting = 1;
            sim_queue_remove(&s->queue, &t->run);
        } else {
            make_ready(s, t, s->clock.now + t->sleep_us);
        }
        return;
    case AIOPROF_EXIT_RETURN:
        sim_truth_end(&s->truth, t->truth, SIM_END_RETURN);
        break;
    case AIOPROF_EXIT_RAISE:
        sim_truth_end(&s->truth, t->truth, SIM_END_RAISE);
        break;
    default:
        sim_truth_end(&s->truth, t->truth, SIM_END_CANCEL);
        break;
    }
    remove_task(s, t);
}

void sim_nest(sim_t *s, sim_task_t *t)
{
    if (t == NULL || t->active)
        return;
    run_slice(s, t, 0);
}

static sim_task_t *next_ready(const sim_t *s)
{
    return task_of(sim_queue_first(&s->queue));
}

static void drain(sim_t *s)
{
    /* in real mode the hook may time its own drain, as on a device */
    s->clock.live = s->clock.mode == SIM_CLOCK_REAL;
    aioprof_drain(&s->prof);
    s->clock.live = 0;
    sim_output_poll(s->out);
}

/* print() lines go out only while no frame is half sent, as the port's stdout would make sure of
 * on a device; until then they wait (the application's print() would block). */
static void emit_text(sim_t *s)
{
    char line[SIM_TEXT_LINE_MAX];
    if (s->opt->text_every == 0)
        return;
    if (++s->text_due >= s->opt->text_every) {
        s->text_due = 0;
        s->text_owed++;
    }
    while (s->text_owed > 0 && aioprof_pending(&s->prof) == 0 &&
           sim_output_text_room(s->out) >= SIM_TEXT_LINE_MAX) {
        size_t n = sim_text_line(line, s->text_made++, &s->text_rng, s->opt->hostile_text);
        sim_output_text(s->out, line, n);
        s->text_owed--;
    }
    sim_output_poll(s->out);
}

static int limit_reached(const sim_t *s)
{
    if (s->opt->duration_us != 0 && s->clock.now >= s->opt->duration_us)
        return 1;
    return s->opt->max_events != 0 && s->events >= s->opt->max_events;
}

/* Between two slices, in a workload that allocates: asyncio's own allocation (the queue's entry
 * for the task that yielded), and the program's gc.collect() once a second, as MicroPython's
 * advice for a steady heap goes. Both run while no task does. */
#define SCHED_ALLOC_BYTES 48u
#define SCHED_GC_EVERY_US 1000000u

static void scheduler_memory(sim_t *s)
{
    sim_alloc(s, SCHED_ALLOC_BYTES);
    uint64_t now = sim_clock_sample(&s->clock);
    if (now >= s->gc_due_us) {
        if (s->gc_due_us != 0)
            sim_gc(s);
        s->gc_due_us = now + SCHED_GC_EVERY_US;
    }
}

void sim_run(sim_t *s, volatile sig_atomic_t *stop)
{
    uint64_t idle_step = s->clock.mode == SIM_CLOCK_REAL ? IDLE_STEP_REAL_US : IDLE_STEP_VIRTUAL_US;

    drain(s);
    while (!*stop && !s->out->closed && !s->out->failed && !s->oom && !limit_reached(s)) {
        uint64_t now = sim_clock_sample(&s->clock);
        sim_task_t *t = next_ready(s);
        if (t == NULL || t->run.wake > now) {
            uint64_t until = now + idle_step;
            if (t != NULL && t->run.wake < until)
                until = t->run.wake;
            if (s->opt->duration_us != 0 && until > s->opt->duration_us)
                until = s->opt->duration_us;
            sim_clock_idle_until(&s->clock, until);
            drain(s);
            continue;
        }
        run_slice(s, t, 1);
        s->slices++;
        if (s->clock.mode == SIM_CLOCK_VIRTUAL)
            sim_clock_advance(&s->clock, SCHED_OVERHEAD_US);
        if (s->port.mem != 0)
            scheduler_memory(s);
        drain(s);
        emit_text(s);
    }
    s->end_us = s->clock.now;
}

static int all_sent(const sim_t *s)
{
    return aioprof_idle(&s->prof) && s->out->text_len == 0;
}

void sim_finish(sim_t *s)
{
    uint64_t virtual_limit = s->clock.now + 3600u * 1000000u;
    /* the device says it stopped: the host then knows nothing was left behind in the ring */
    aioprof_close(&s->prof);
    for (;;) {
        /* a DROPPED or HELLO the drain writes opens a frame again: close it on the next turn */
        aioprof_flush(&s->prof);
        drain(s);
        if (all_sent(s) || s->out->closed || s->out->failed)
            break;
        if (s->out->kind == SIM_OUT_PTY &&
            sim_wall_us() - s->out->last_progress_wall > FINISH_PATIENCE_US) {
            s->out->gave_up = 1;
            break;
        }
        if (s->clock.now > virtual_limit)
            break;
        /* time passes, so a baud-limited port takes more */
        sim_clock_idle_until(&s->clock, s->clock.now + FINISH_STEP_US);
        if (s->out->kind == SIM_OUT_PTY && s->clock.mode == SIM_CLOCK_VIRTUAL) {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
    }
}

void sim_run_summary(const sim_t *s, sim_truth_run_t *run)
{
    const sim_options_t *opt = s->opt;
    memset(run, 0, sizeof *run);
    run->workload = opt->workload;
    run->seed = opt->seed;
    run->tick_bits = opt->tick_bits;
    run->start_tick = opt->start_tick;
    run->clock = opt->clock == SIM_CLOCK_REAL ? "real" : "virtual";
    run->ring_bytes = opt->ring_bytes;
    run->events = s->events;
    run->dropped_events = s->prof.dropped_total;
    run->frame_bytes = s->out->frame_bytes;
    run->text_bytes = s->out->text_bytes;
    run->bytes = run->frame_bytes + run->text_bytes;
    run->frames = s->out->frames;
    run->duration_us = s->end_us;
    run->text_lines = s->out->text_lines;
    run->clock_steps_back = s->steps_back;
}
