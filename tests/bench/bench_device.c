/* The device hook's cost per event, all in: recording, frame writing, COBS stuffing, CRC and the
 * drain that hands the bytes to a UART. Meant to run under callgrind twice (N and 2N events):
 * the difference of the two instruction counts divided by N is the cost of one event, with
 * start-up and table set-up cancelled out (tests/bench/run.sh does that).
 *
 * The pattern is what an asyncio application looks like to the hook: a handful of long-lived
 * tasks, each slice an enter then a yield, slices of tens to thousands of microseconds with idle
 * gaps, a drain between slices; now and then (one slice in 200) a task spawns a short-lived worker
 * that runs three slices and returns, so worker ids keep growing (past 127 after a while: escaped
 * ENTER ids of two bytes). --churn is the harsher pattern: instead of spawning, the task itself
 * returns and is created anew, so after a while every task has a large id.
 *
 * Built twice: bench_device compiles the hook with its port bound at compile time
 * (-DAIOPROF_PORT_HEADER="bench_port.h": the clock read inline, no critical section, as a firmware
 * whose events all come from one context builds it); bench_device_runtime links the library that
 * the simulator and the MicroPython binding use, which calls the port through pointers.
 *
 * --spans adds one span (aioprof_span_enter/exit) to every slice: the difference from a run
 * without is what a span pair costs.
 *
 * Usage: bench_device EVENTS [--no-hook] [--churn] [--late] [--spans]   Prints the events and bytes written (and a wall-clock
 * figure, which means little under valgrind). --no-hook runs the same loop (pattern, clock) without
 * calling the hook, so that its instructions can be taken away from the hook's. Exit code 1 on a
 * bad argument or if the hook wrote nothing. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aioprof.h"

#define BENCH_TASKS 6u
#define BENCH_WORKER BENCH_TASKS /* the slot of the short-lived worker */
#define BENCH_WORKER_SLICES 3u
#define BENCH_PATTERN 4096u   /* precomputed steps: the driver costs a table read per event */
#define BENCH_RING 4096u

typedef struct bench_step {
    uint16_t slice;  /* ticks inside the task */
    uint16_t gap;    /* ticks before the next enter */
    uint8_t task;    /* which task runs (BENCH_WORKER: the worker) */
    uint8_t ends;    /* 0: it yields; 1: it returns (--churn: and is replaced by a new task) */
    uint8_t spawns;  /* it creates the worker during this slice */
} bench_step_t;

static bench_step_t bench_pattern[BENCH_PATTERN];
static uint8_t bench_ring[BENCH_RING];
static uint64_t bench_bytes;

/* The clock: a variable the loop advances. bench_port.h reads it directly when the hook is
 * built with its port bound at compile time (bench_device); bench_device_runtime calls this. */
uint32_t bench_now = 1000u;

static uint32_t bench_ticks(void *user)
{
    (void)user;
    return bench_now;
}

/* A UART that is never busy: takes everything, keeps nothing. */
static size_t bench_write(void *user, const uint8_t *data, size_t len)
{
    (void)user;
    (void)data;
    bench_bytes += len;
    return len;
}

/* xorshift32: fixed seed, so both callgrind runs see the same pattern. */
static uint32_t bench_random(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

/* Slices are mostly short with a long tail: tens of ticks typically, thousands now and then. */
static void bench_pattern_fill(int churn)
{
    uint32_t seed = 0x2545F491u;
    unsigned worker_left = 0;
    for (unsigned i = 0; i < BENCH_PATTERN; i++) {
        uint32_t r = bench_random(&seed);
        bench_step_t *s = &bench_pattern[i];
        unsigned scale = (r >> 28) < 12u ? 100u : ((r >> 28) < 15u ? 1000u : 4000u);
        s->slice = (uint16_t)(10u + (r & 0xFFFFu) % scale);
        s->gap = (uint16_t)(5u + (r >> 16) % 300u);
        s->task = (uint8_t)(bench_random(&seed) % BENCH_TASKS);
        int rare = bench_random(&seed) % 200u == 0u;
        s->ends = 0;
        s->spawns = 0;
        if (churn) {
            s->ends = (uint8_t)rare;
        } else if (worker_left > 0) {
            s->task = BENCH_WORKER;
            s->ends = (uint8_t)(--worker_left == 0);
        } else if (rare && i + BENCH_WORKER_SLICES < BENCH_PATTERN) {
            s->spawns = 1;
            worker_left = BENCH_WORKER_SLICES;
        }
    }
}

int main(int argc, char **argv)
{
    static const char *const names[BENCH_TASKS] = {
        "sensor_loop", "blink", "mqtt_keepalive", "ui_refresh", "Reader._go", "watchdog",
    };
    char *end = NULL;
    unsigned long events = argc >= 2 ? strtoul(argv[1], &end, 10) : 0;
    int hook = 1;
    int churn = 0;
    int late = 0;
    int spans = 0;
    int bad = argc < 2 || end == argv[1] || *end != '\0' || events < 2 || events > 1000000000ul;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--no-hook") == 0) {
            hook = 0;
        } else if (strcmp(argv[i], "--churn") == 0) {
            churn = 1;
        } else if (strcmp(argv[i], "--late") == 0) {
            late = 1;
        } else if (strcmp(argv[i], "--spans") == 0) {
            spans = 1;
        } else {
            bad = 1;
        }
    }
    if (bad) {
        fprintf(stderr, "usage: bench_device EVENTS [--no-hook] [--churn] [--late] [--spans] (EVENTS an even number, 2..1000000000)\n");
        return 1;
    }

    /* --late: the port reports lateness in milliseconds, and every resume says how late it was
     * (aioprof_enter_late), 0 to 7 units as the pattern's slice lengths give: every value a byte,
     * as asyncio's lateness mostly is (docs/protocol.md, "Lateness") */
    const aioprof_port_t port = {
        .ticks = bench_ticks,
        .write = bench_write,
        .tick_hz = 1000000u,
        .tick_bits = 30,
        .platform = "bench x86-64",
        .late_unit = late ? 1000u : 0u,
    };
    static aioprof_t prof;
    static aioprof_task_t tasks[BENCH_TASKS + 1];
    static aioprof_span_t bench_spans[BENCH_TASKS + 1] = {
        AIOPROF_SPAN_INIT("read"), AIOPROF_SPAN_INIT("toggle"), AIOPROF_SPAN_INIT("ping"),
        AIOPROF_SPAN_INIT("draw"), AIOPROF_SPAN_INIT("parse"), AIOPROF_SPAN_INIT("feed"),
        AIOPROF_SPAN_INIT("work"),
    };

    bench_pattern_fill(churn);
    if (aioprof_init(&prof, &port, bench_ring, sizeof bench_ring) != 0) {
        fprintf(stderr, "bench_device: aioprof_init refused the port\n");
        return 1;
    }
    for (unsigned i = 0; i < BENCH_TASKS; i++) {
        aioprof_task_created(&prof, &tasks[i], names[i], strlen(names[i]));
    }

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long slices = events / 2u;
    for (unsigned long i = 0; i < slices; i++) {
        const bench_step_t *s = &bench_pattern[i % BENCH_PATTERN];
        aioprof_task_t *t = &tasks[s->task];
        if (!hook) {
            /* the loop alone: what the hook's figure must not include */
            bench_now += s->slice + s->gap;
            __asm__ volatile("" ::: "memory");
            continue;
        }
        if (late) {
            aioprof_enter_late(&prof, t, (uint32_t)(s->slice >> 6) & 7u);
        } else {
            aioprof_enter(&prof, t);
        }
        if (spans) {
            /* --spans: one span per slice, from 2 ticks in to 2 before its end (each task its
             * own name), what one `with aioprof.span(...)` per slice costs */
            bench_now += 2u;
            aioprof_span_enter(&prof, &bench_spans[s->task]);
            bench_now += s->slice - 4u;
            aioprof_span_exit(&prof);
            bench_now += 2u;
        } else {
            bench_now += s->slice;
        }
        if (s->spawns) {
            aioprof_task_created(&prof, &tasks[BENCH_WORKER], "worker", 6);
        }
        if (!s->ends) {
            aioprof_exit(&prof, t, AIOPROF_EXIT_YIELD);
        } else {
            aioprof_exit(&prof, t, AIOPROF_EXIT_RETURN);
            if (churn) {
                /* The task returns and a new instance of it is created between slices, as a
                 * supervisor loop that restarts a worker would. */
                aioprof_task_created(&prof, t, names[s->task], strlen(names[s->task]));
            }
        }
        bench_now += s->gap;
        aioprof_drain(&prof);
    }
    aioprof_flush(&prof);
    aioprof_drain(&prof);
    clock_gettime(CLOCK_MONOTONIC, &t1);

    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    printf("events %lu bytes %" PRIu64 " bytes_per_event %.3f dropped %" PRIu32 " ns_per_event %.1f\n",
        slices * 2u, bench_bytes, (double)bench_bytes / (double)(slices * 2u), prof.dropped_total,
        ns / (double)(slices * 2u));
    return bench_bytes > 0 ? 0 : 1;
}
