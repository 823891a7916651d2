/* A small cooperative scheduler, the shape of MicroPython's asyncio loop: tasks are step
 * functions run one slice at a time, and every slice is wrapped in the hook's enter and exit.
 * Frames leave from the loop itself: after every slice and while idle, aioprof_drain hands the
 * ring's bytes to the UART.
 *
 * It keeps its own account (account.h) from the tick readings the hook stamped its events with:
 * the port's ticks function is sched_ticks, which remembers the last reading. */
#ifndef SCHED_H
#define SCHED_H

#include <stdint.h>

#include "account.h"
#include "aioprof.h"
#include "board.h"

#define SCHED_SLOTS 16

/* What a slice asks for next; the last three end the task (the EXIT kinds of the hook). */
typedef enum sched_next {
    SCHED_YIELD,  /* run again on the next pass */
    SCHED_SLEEP,  /* run again after sleep_us */
    SCHED_RETURN,
    SCHED_RAISE,
    SCHED_CANCEL,
} sched_next_t;

typedef struct sched sched_t;
typedef struct sched_task sched_task_t;
typedef sched_next_t (*sched_step_t)(sched_t *s, sched_task_t *t);

struct sched_task {
    aioprof_task_t prof; /* the hook's part, embedded as aioprof.h asks */
    sched_step_t step;
    account_row_t *row;
    uint32_t wake_us;
    uint32_t sleep_us; /* set by a step that returns SCHED_SLEEP */
    uint32_t slices;   /* run so far */
    uint32_t param;    /* the workload's own state */
    uint32_t state;
    uint8_t used;
    uint8_t sleeping;
};

struct sched {
    aioprof_t *prof;
    sched_task_t tasks[SCHED_SLOTS];
    account_t account;
    uint32_t stamp; /* the last tick the hook read (sched_ticks) */
};

void sched_init(sched_t *s, aioprof_t *prof);

/* The port's ticks function: the board's microsecond clock, remembered in s->stamp. */
uint32_t sched_ticks(void *user);

/* Creates a task (by the one running now, if any). Returns NULL when every slot is taken. */
sched_task_t *sched_spawn(sched_t *s, const char *name, sched_step_t step, uint32_t param);

/* Runs the tasks until run_us have passed (the slice running then finishes first). */
void sched_run(sched_t *s, uint32_t run_us);

/* Busy work for us microseconds: what a slice of a real task spends computing. */
void sched_work(uint32_t us);

/* Microseconds from `from` to `to` on the wrapping clock. */
static inline uint32_t sched_since(uint32_t from, uint32_t to)
{
    return (to - from) & ((1u << TIMER_US_BITS) - 1u);
}

#endif
