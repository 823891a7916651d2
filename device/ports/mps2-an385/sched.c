/* The cooperative scheduler: see sched.h. */
#include "sched.h"

#include <string.h>

#include "board.h"

/* A wake time is due once the clock has passed it by less than half its wrap. */
#define SCHED_HALF_WRAP (1u << (TIMER_US_BITS - 1u))

void sched_init(sched_t *s, aioprof_t *prof)
{
    memset(s, 0, sizeof *s);
    s->prof = prof;
}

uint32_t sched_ticks(void *user)
{
    sched_t *s = user;
    return s->stamp = timer_us();
}

void sched_work(uint32_t us)
{
    uint32_t start = timer_us();
    while (sched_since(start, timer_us()) < us) {
    }
}

sched_task_t *sched_spawn(sched_t *s, const char *name, sched_step_t step, uint32_t param)
{
    account_row_t *row = account_row(&s->account, name);
    sched_task_t *t = NULL;
    for (unsigned i = 0; i < SCHED_SLOTS && row != NULL; i++) {
        if (!s->tasks[i].used) {
            t = &s->tasks[i];
            break;
        }
    }
    if (t == NULL) {
        s->account.spawn_failed++;
        return NULL;
    }
    memset(t, 0, sizeof *t);
    t->used = 1;
    t->step = step;
    t->param = param;
    t->row = row;
    uint32_t dropped = s->prof->dropped_total;
    aioprof_task_created(s->prof, &t->prof, name, strlen(name));
    s->account.created_dropped += s->prof->dropped_total - dropped;
    s->account.created++;
    row->instances++;
    return t;
}

static unsigned sched_exit_kind(sched_next_t next)
{
    switch (next) {
    case SCHED_RETURN: return AIOPROF_EXIT_RETURN;
    case SCHED_RAISE: return AIOPROF_EXIT_RAISE;
    case SCHED_CANCEL: return AIOPROF_EXIT_CANCEL;
    default: return AIOPROF_EXIT_YIELD;
    }
}

/* One slice: enter, the step, exit. The account takes the slice's length from the two ticks the
 * hook stamped (s->stamp right after each call), and the drops from the hook's own counter. */
static void sched_slice(sched_t *s, sched_task_t *t)
{
    aioprof_t *p = s->prof;
    /* drops counted around each call: a creation inside the step is counted by sched_spawn */
    uint32_t dropped = p->dropped_total;
    aioprof_enter(p, &t->prof);
    uint32_t start = s->stamp;
    s->account.events_dropped += p->dropped_total - dropped;
    sched_next_t next = t->step(s, t);
    dropped = p->dropped_total;
    aioprof_exit(p, &t->prof, sched_exit_kind(next));
    uint32_t end = s->stamp;
    s->account.events_dropped += p->dropped_total - dropped;
    account_slice(&s->account, t->row, sched_since(start, end));
    t->slices++;
    switch (next) {
    case SCHED_YIELD:
        break;
    case SCHED_SLEEP:
        t->sleeping = 1;
        t->wake_us = end + t->sleep_us;
        break;
    case SCHED_RAISE:
    case SCHED_CANCEL:
        t->row->errors++;
        t->used = 0;
        break;
    case SCHED_RETURN:
        t->used = 0;
        break;
    }
}

void sched_run(sched_t *s, uint32_t run_us)
{
    uint32_t start = timer_us();
    while (sched_since(start, timer_us()) < run_us) {
        for (unsigned i = 0; i < SCHED_SLOTS; i++) {
            sched_task_t *t = &s->tasks[i];
            if (!t->used) {
                continue;
            }
            if (t->sleeping) {
                if (sched_since(t->wake_us, timer_us()) >= SCHED_HALF_WRAP) {
                    continue;
                }
                t->sleeping = 0;
            }
            sched_slice(s, t);
            aioprof_drain(s->prof);
        }
        /* the idle loop: nothing may be due, but the UART can take bytes */
        aioprof_drain(s->prof);
    }
}
