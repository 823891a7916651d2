#include "sim_workloads.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim_sched.h"

/* ---- seed: the example from the aioprof discussion, slow and quicker under main ---- */

static sim_next_t seed_slow(sim_t *s, sim_task_t *t)
{
    sim_work(s, 80000);
    t->sleep_us = 20000;
    return SIM_NEXT_SLEEP;
}

static sim_next_t seed_quicker(sim_t *s, sim_task_t *t)
{
    sim_work(s, 1000);
    t->sleep_us = 20000;
    return SIM_NEXT_SLEEP;
}

/* seed-half: the seed after a "fix" that halves quicker's wait behind slow: it sleeps 60 ms,
 * so that it falls due 40 ms into slow's next slice instead of 1 ms after its start, and runs
 * about 40 ms late instead of 80, as often as before (a slice every 100 ms); slow and main are as
 * in the seed. Two recordings of seed and seed-half are what --compare is tested on. */
static sim_next_t seed_quicker_half(sim_t *s, sim_task_t *t)
{
    sim_work(s, 1000);
    t->sleep_us = 60000;
    return SIM_NEXT_SLEEP;
}

static sim_next_t seed_main(sim_t *s, sim_task_t *t)
{
    (void)t;
    sim_work(s, 40);
    sim_spawn(s, "slow", seed_slow, 0);
    sim_spawn(s, "quicker", strcmp(s->opt->workload, "seed-half") == 0 ? seed_quicker_half : seed_quicker, 0);
    sim_work(s, 20);
    /* await asyncio.gather(slow, quicker): they never end */
    return SIM_NEXT_WAIT;
}

static void seed_start(sim_t *s)
{
    sim_spawn(s, "main", seed_main, 0);
}

/* ---- instances: many instances of one bound task, from two creators, with every ending ---- */

enum { ROLE_SENSOR = 1, ROLE_BUSY };
#define SENSOR_HOG 1u        /* param flag: this instance computes for milliseconds */
#define SENSOR_LATE_LABEL 2u /* param flag: it labels itself in its first slice */

static sim_next_t sensor_go(sim_t *s, sim_task_t *t)
{
    uint64_t work;
    if (t->slices == 0) {
        t->limit = sim_rand(s, 1, 60);
        if (sim_rng_chance(&s->rng, 8)) {
            t->param |= SENSOR_HOG;
            t->work_us = sim_rand(s, 2000, 6000);
        } else {
            t->work_us = sim_rand(s, 80, 600);
        }
        if (t->param & SENSOR_LATE_LABEL) {
            char label[32];
            snprintf(label, sizeof label, "late %" PRIu32, t->prof.id);
            sim_label(s, t, label);
        }
    }
    work = t->work_us / 2u + sim_rand(s, 0, t->work_us);
    /* a hog now and then blocks past the slow threshold */
    if ((t->param & SENSOR_HOG) && sim_rng_chance(&s->rng, 10))
        work = sim_rand(s, 20001, 30000);
    sim_work(s, work);
    if (t->slices + 1u >= t->limit)
        return sim_rng_chance(&s->rng, 70) ? SIM_NEXT_RETURN : SIM_NEXT_RAISE;
    t->sleep_us = sim_rand(s, 5000, 50000);
    return SIM_NEXT_SLEEP;
}

static sim_task_t *sensor_new(sim_t *s)
{
    sim_task_t *t = sim_spawn(s, "Sensor._go", sensor_go, 0);
    if (t != NULL)
        t->role = ROLE_SENSOR;
    return t;
}

static sim_next_t manager_spawn(sim_t *s, sim_task_t *t)
{
    sim_task_t *sensor;
    char label[32];
    sim_work(s, sim_rand(s, 100, 300));
    sensor = sensor_new(s);
    t->param++;
    if (sensor != NULL) {
        if (t->param % 3u == 1u) {
            snprintf(label, sizeof label, "sensor %" PRIu64, t->param);
            sim_label(s, sensor, label);
        } else if (t->param % 3u == 2u) {
            sensor->param |= SENSOR_LATE_LABEL;
        }
    }
    sim_work(s, sim_rand(s, 50, 150));
    t->sleep_us = sim_rand(s, 30000, 50000);
    return SIM_NEXT_SLEEP;
}

static sim_next_t instances_main(sim_t *s, sim_task_t *t)
{
    if (t->slices == 0) {
        char label[32];
        sim_work(s, 80);
        sim_spawn(s, "Manager.spawn", manager_spawn, 0);
        for (int i = 0; i < 3; i++) {
            snprintf(label, sizeof label, "main %d", i);
            sim_label(s, sensor_new(s), label);
        }
        t->sleep_us = 100000;
        return SIM_NEXT_SLEEP;
    }
    sim_work(s, sim_rand(s, 40, 160));
    sensor_new(s);
    /* task.cancel() on one of them: sometimes one that has not even run yet */
    if (sim_rng_chance(&s->rng, 70))
        sim_cancel(s, sim_pick(s, ROLE_SENSOR));
    sim_work(s, 30);
    t->sleep_us = 250000;
    return SIM_NEXT_SLEEP;
}

static void instances_start(sim_t *s)
{
    sim_spawn(s, "main", instances_main, 0);
}

/* ---- busy: forty short tasks (or --tasks N), the high event rate ---- */

static const char *const busy_names[] = {
    "uart.rx", "i2c.read", "ui.draw", "net.poll", "led.blink",
    "adc.sample", "log.flush", "mqtt.ping", "btn.scan", "pid.step",
};
#define BUSY_NAMES (sizeof busy_names / sizeof busy_names[0])

static sim_next_t busy_task(sim_t *s, sim_task_t *t)
{
    /* started past the first batch: wait for main's start event (see busy_main) */
    if (t->slices == 0 && t->role == ROLE_BUSY) {
        sim_work(s, 5);
        return SIM_NEXT_WAIT;
    }
    sim_work(s, t->work_us / 2u + sim_rand(s, 0, t->work_us));
    /* param: the longest sleep; 0 for a task that only ever does asyncio.sleep(0) */
    t->sleep_us = t->param ? sim_rand(s, 0, t->param) : 0;
    return SIM_NEXT_SLEEP;
}

/* More than a batch of tasks (--tasks): main creates them a batch per slice with an
 * asyncio.sleep(0) between, so that their announcements never overflow the hook's ring (all in
 * one slice, thousands of them would, and the run would drop events). Each task first awaits a
 * start event that main sets when it has created them all, so that main is not queued behind
 * every task made so far (a start-up quadratic in the number of tasks). Forty or fewer: all in
 * one slice, no event. main's t->param counts the tasks created so far. */
#define BUSY_BATCH 40u

static sim_next_t busy_main(sim_t *s, sim_task_t *t)
{
    unsigned tasks = s->opt->tasks ? s->opt->tasks : SIM_BUSY_TASKS;
    unsigned end = tasks - (unsigned)t->param > BUSY_BATCH ? (unsigned)t->param + BUSY_BATCH : tasks;
    for (unsigned i = (unsigned)t->param; i < end; i++) {
        char label[16];
        sim_task_t *b = sim_spawn(s, busy_names[i % BUSY_NAMES], busy_task, 0);
        if (b == NULL)
            break;
        if (tasks > BUSY_BATCH)
            b->role = ROLE_BUSY;
        b->work_us = sim_rand(s, 20, 400);
        b->param = sim_rng_chance(&s->rng, 30) ? 0 : sim_rand(s, 1000, 10000);
        snprintf(label, sizeof label, "#%u", i / (unsigned)BUSY_NAMES);
        sim_label(s, b, label);
        sim_work(s, 5);
    }
    t->param = end;
    if (end < tasks) {
        t->sleep_us = 0;
        return SIM_NEXT_SLEEP;
    }
    if (tasks > BUSY_BATCH) {
        /* start.set(): every task waiting for it is ready, in the order they were made */
        for (size_t i = 0; i < s->ntasks; i++) {
            if (s->tasks[i]->role == ROLE_BUSY) {
                s->tasks[i]->role = 0;
                sim_wake(s, s->tasks[i]);
            }
        }
    }
    return SIM_NEXT_WAIT;
}

static void busy_start(sim_t *s)
{
    sim_spawn(s, "main", busy_main, 0);
}

/* ---- nested: a task resumed inside another's slice, two levels deep ---- */

static sim_next_t nested_innermost(sim_t *s, sim_task_t *t)
{
    (void)t;
    sim_work(s, sim_rand(s, 30, 60));
    return SIM_NEXT_SLEEP;
}

static sim_next_t nested_inner(sim_t *s, sim_task_t *t)
{
    if (t->slices == 0)
        t->peer = sim_spawn(s, "innermost", nested_innermost, 1);
    sim_work(s, sim_rand(s, 250, 350));
    if (t->slices % 3u == 2u)
        sim_nest(s, t->peer);
    sim_work(s, 50);
    return SIM_NEXT_SLEEP;
}

static sim_next_t nested_outer(sim_t *s, sim_task_t *t)
{
    if (t->slices == 0)
        t->peer = sim_spawn(s, "inner", nested_inner, 1);
    sim_work(s, sim_rand(s, 150, 250));
    sim_nest(s, t->peer);
    sim_work(s, 100);
    t->sleep_us = 5000;
    return SIM_NEXT_SLEEP;
}

static sim_next_t nested_bystander(sim_t *s, sim_task_t *t)
{
    sim_work(s, sim_rand(s, 300, 700));
    t->sleep_us = 3000;
    return SIM_NEXT_SLEEP;
}

static sim_next_t nested_main(sim_t *s, sim_task_t *t)
{
    (void)t;
    sim_work(s, 50);
    sim_spawn(s, "outer", nested_outer, 0);
    sim_spawn(s, "bystander", nested_bystander, 0);
    return SIM_NEXT_WAIT;
}

static void nested_start(sim_t *s)
{
    sim_spawn(s, "main", nested_main, 0);
}

/* ---- hog: a few steady tasks, and once every three seconds a rare hog (--capture-hogs) ---- */

static sim_next_t hog_steady(sim_t *s, sim_task_t *t)
{
    sim_work(s, sim_rand(s, 100, 900));
    t->sleep_us = t->param;
    return SIM_NEXT_SLEEP;
}

/* ota.check: sleeps three seconds, then hogs the loop for 100 to 200 ms (a blocking flash read) */
static sim_next_t hog_rare(sim_t *s, sim_task_t *t)
{
    if (t->slices > 0) {
        sim_work(s, sim_rand(s, 100000, 200000));
    } else {
        sim_work(s, 50);
    }
    t->sleep_us = 3000000;
    return SIM_NEXT_SLEEP;
}

static sim_next_t hog_main(sim_t *s, sim_task_t *t)
{
    (void)t;
    sim_work(s, 50);
    static const char *const names[] = {"sensor.read", "net.poll", "ui.draw"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        sim_task_t *k = sim_spawn(s, names[i], hog_steady, 0);
        if (k != NULL)
            k->param = 10000u * (uint32_t)(i + 1);
    }
    sim_spawn(s, "ota.check", hog_rare, 0);
    return SIM_NEXT_WAIT;
}

static void hog_start(sim_t *s)
{
    sim_spawn(s, "main", hog_main, 0);
}

/* ---- spans: the seed-style example with spans (docs/usage.md, "Spans") ---- */

/* sensors: every 20 ms a slice of 3 ms in span "read", with "i2c" (1 ms) nested in it */
static sim_next_t spans_sensors(sim_t *s, sim_task_t *t)
{
    static aioprof_span_t read = AIOPROF_SPAN_INIT("read"), i2c = AIOPROF_SPAN_INIT("i2c");
    (void)t;
    sim_work(s, 100);
    sim_span_enter(s, &read);
    sim_work(s, 1000);
    sim_span_enter(s, &i2c);
    sim_work(s, 1000);
    sim_span_exit(s);
    sim_work(s, 1000);
    sim_span_exit(s);
    sim_work(s, 50);
    t->sleep_us = 20000;
    return SIM_NEXT_SLEEP;
}

/* net: span "send" across an await: opened in one slice (1 ms), the task awaits 5 ms in it, and
 * closes it in the next (2 ms); then 30 ms outside any span */
static sim_next_t spans_net(sim_t *s, sim_task_t *t)
{
    static aioprof_span_t send = AIOPROF_SPAN_INIT("send");
    if (t->param == 0) {
        sim_work(s, 30);
        sim_span_enter(s, &send);
        sim_work(s, 1000);
        t->param = 1;
        t->sleep_us = 5000;
    } else {
        sim_work(s, 2000);
        sim_span_exit(s);
        sim_work(s, 20);
        t->param = 0;
        t->sleep_us = 30000;
    }
    return SIM_NEXT_SLEEP;
}

/* ui: the hog, span "draw" of 40 ms every 200 ms, and 500 µs outside it */
static sim_next_t spans_ui(sim_t *s, sim_task_t *t)
{
    static aioprof_span_t draw = AIOPROF_SPAN_INIT("draw");
    sim_work(s, 500);
    sim_span_enter(s, &draw);
    sim_work(s, 40000);
    sim_span_exit(s);
    t->sleep_us = 200000;
    return SIM_NEXT_SLEEP;
}

/* job: opens span "job" and raises inside it (param 1), or awaits inside it until main cancels
 * it (param 0): spans a task's end closes */
static sim_next_t spans_job(sim_t *s, sim_task_t *t)
{
    static aioprof_span_t job = AIOPROF_SPAN_INIT("job");
    sim_work(s, 200);
    sim_span_enter(s, &job);
    sim_work(s, 700);
    if (t->param)
        return SIM_NEXT_RAISE;
    return SIM_NEXT_WAIT;
}

/* main: makes the three, then every 100 ms a job that raises and one that main cancels 100 ms
 * later */
static sim_next_t spans_main(sim_t *s, sim_task_t *t)
{
    if (t->limit == 0) {
        sim_spawn(s, "sensors", spans_sensors, 0);
        sim_spawn(s, "net", spans_net, 0);
        sim_spawn(s, "ui", spans_ui, 0);
        t->limit = 1;
    } else {
        sim_cancel(s, t->peer);
        sim_task_t *j = sim_spawn(s, "job", spans_job, 0);
        if (j != NULL)
            j->param = 1;
        t->peer = sim_spawn(s, "job", spans_job, 0);
    }
    sim_work(s, 30);
    t->sleep_us = 100000;
    return SIM_NEXT_SLEEP;
}

static void spans_start(sim_t *s)
{
    sim_spawn(s, "main", spans_main, 0);
}

/* ---- alloc: one task allocates heavily, one never, one a little (docs/usage.md, "Memory") ---- */

/* parser: 2 to 5 ms of JSON decoding in four pieces, each allocating 0.8 to 2 KB: a collection
 * comes every few slices, inside its slice */
static sim_next_t alloc_parser(sim_t *s, sim_task_t *t)
{
    for (int i = 0; i < 4; i++) {
        sim_work(s, sim_rand(s, 500, 1200));
        sim_alloc(s, sim_rand(s, 800, 2000));
    }
    t->sleep_us = 10000;
    return SIM_NEXT_SLEEP;
}

/* blinker: 100 us every 4 ms, allocating nothing: late behind parser and the collections */
static sim_next_t alloc_blinker(sim_t *s, sim_task_t *t)
{
    sim_work(s, 100);
    t->sleep_us = 4000;
    return SIM_NEXT_SLEEP;
}

/* logger: a 64-byte line every 50 ms */
static sim_next_t alloc_logger(sim_t *s, sim_task_t *t)
{
    sim_work(s, 150);
    sim_alloc(s, 64);
    sim_work(s, 150);
    t->sleep_us = 50000;
    return SIM_NEXT_SLEEP;
}

static sim_next_t alloc_main(sim_t *s, sim_task_t *t)
{
    (void)t;
    sim_work(s, 40);
    sim_alloc(s, 200);
    sim_spawn(s, "parser", alloc_parser, 0);
    sim_spawn(s, "blinker", alloc_blinker, 0);
    sim_spawn(s, "logger", alloc_logger, 0);
    sim_work(s, 20);
    return SIM_NEXT_WAIT;
}

static void alloc_start(sim_t *s)
{
    sim_spawn(s, "main", alloc_main, 0);
}

/* ---- seed-spans: the seed with the two more tasks (docs/usage.md, "Memory per span") ----
 * slow and quicker as in the seed; sensors runs three spans a slice, read, parse and render (the
 * 30 ms hog), each allocating, as tests/micropython/aio_seed.py does on a board; parser allocates
 * 3 to 8 KB a slice inside span "decode", a piece at a time in span "chunk" nested in it, so that
 * the collections come inside nested spans. */

static sim_next_t seed_sensors(sim_t *s, sim_task_t *t)
{
    static aioprof_span_t read = AIOPROF_SPAN_INIT("read"), parse = AIOPROF_SPAN_INIT("parse"),
                          render = AIOPROF_SPAN_INIT("render");
    sim_work(s, 50);
    sim_alloc(s, 32); /* outside any span: the task's, no span's */
    sim_span_enter(s, &read);
    sim_work(s, 2000);
    sim_alloc(s, 128);
    sim_span_exit(s);
    sim_span_enter(s, &parse);
    sim_work(s, 400);
    sim_alloc(s, sim_rand(s, 600, 1400));
    sim_work(s, 600);
    sim_span_exit(s);
    sim_span_enter(s, &render);
    sim_work(s, 15000);
    sim_alloc(s, 256);
    sim_work(s, 15000);
    sim_span_exit(s);
    t->sleep_us = 150000;
    return SIM_NEXT_SLEEP;
}

static sim_next_t seed_parser(sim_t *s, sim_task_t *t)
{
    static aioprof_span_t decode = AIOPROF_SPAN_INIT("decode"), chunk = AIOPROF_SPAN_INIT("chunk");
    sim_work(s, 30);
    sim_span_enter(s, &decode);
    sim_alloc(s, 48);
    for (int i = 0; i < 4; i++) {
        sim_work(s, sim_rand(s, 100, 300));
        sim_span_enter(s, &chunk);
        sim_work(s, sim_rand(s, 50, 150));
        sim_alloc(s, sim_rand(s, 800, 2000));
        sim_work(s, 20);
        sim_span_exit(s);
    }
    sim_span_exit(s);
    sim_work(s, 20);
    t->sleep_us = 20000;
    return SIM_NEXT_SLEEP;
}

static sim_next_t seed_spans_main(sim_t *s, sim_task_t *t)
{
    (void)t;
    sim_work(s, 40);
    sim_spawn(s, "slow", seed_slow, 0);
    sim_spawn(s, "quicker", seed_quicker, 0);
    sim_spawn(s, "sensors", seed_sensors, 0);
    sim_spawn(s, "parser", seed_parser, 0);
    sim_work(s, 20);
    return SIM_NEXT_WAIT;
}

static void seed_spans_start(sim_t *s)
{
    sim_spawn(s, "main", seed_spans_main, 0);
}

static const sim_workload_t workloads[] = {
    {"seed", "main creates slow (80 ms slices) and quicker (1 ms), then awaits them", seed_start},
    {"seed-half", "the seed with quicker sleeping 60 ms: about 40 ms late instead of 80", seed_start},
    {"instances", "many Sensor._go instances from two creators; returns, raises, cancels, labels",
     instances_start},
    {"busy", "40 tasks (--tasks) with slices of tens to hundreds of microseconds", busy_start},
    {"nested", "outer resumes inner inside its slice, inner sometimes resumes innermost",
     nested_start},
    {"hog", "three steady tasks, and every 3 s ota.check hogs the loop for 100 to 200 ms", hog_start},
    {"spans", "sensors, net and ui with spans (nested, across an await, a 40 ms hog), jobs that end inside one",
     spans_start},
    {"alloc", "parser allocates 3-8 KB a slice, blinker nothing, logger 64 B; collections in slices and between",
     alloc_start},
    {"seed-spans", "the seed, sensors with spans read, parse and render (a 30 ms hog), parser allocating in spans",
     seed_spans_start},
};
#define WORKLOADS (sizeof workloads / sizeof workloads[0])

const sim_workload_t *sim_workload_find(const char *name)
{
    for (size_t i = 0; i < WORKLOADS; i++) {
        if (strcmp(workloads[i].name, name) == 0)
            return &workloads[i];
    }
    return NULL;
}

void sim_workloads_print_names(FILE *f)
{
    for (size_t i = 0; i < WORKLOADS; i++)
        fprintf(f, "%s%s", workloads[i].name, i + 2 < WORKLOADS ? ", " : i + 1 < WORKLOADS ? " or " : "");
}

void sim_workloads_print_help(FILE *f)
{
    for (size_t i = 0; i < WORKLOADS; i++)
        fprintf(f, "%8s%-10s %s\n", "", workloads[i].name, workloads[i].about);
}
