#define _POSIX_C_SOURCE 200809L

#include "sim_clock.h"

#include <errno.h>

static uint64_t ts_to_us(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000u + (uint64_t)ts->tv_nsec / 1000u;
}

uint64_t sim_wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts_to_us(&ts);
}

void sim_clock_init(sim_clock_t *c, sim_clock_mode_t mode, uint32_t start_tick)
{
    c->mode = mode;
    c->now = 0;
    c->start_tick = start_tick;
    c->live = 0;
    clock_gettime(CLOCK_MONOTONIC, &c->origin);
}

uint64_t sim_clock_sample(sim_clock_t *c)
{
    if (c->mode == SIM_CLOCK_REAL) {
        uint64_t t = sim_wall_us() - ts_to_us(&c->origin);
        /* never backwards, even if a caller moved now ahead of the clock */
        if (t > c->now)
            c->now = t;
    }
    return c->now;
}

/* Sleeps until origin + t. A signal (SIGINT to stop the run) only shortens a wait that is
 * restarted, so the slice still lasts as long as the workload asked. */
static void sleep_until(const sim_clock_t *c, uint64_t t)
{
    struct timespec when = c->origin;
    uint64_t ns = (uint64_t)when.tv_nsec + (t % 1000000u) * 1000u;
    when.tv_sec += (time_t)(t / 1000000u + ns / 1000000000u);
    when.tv_nsec = (long)(ns % 1000000000u);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &when, NULL) == EINTR) {
    }
}

void sim_clock_advance(sim_clock_t *c, uint64_t us)
{
    if (c->mode == SIM_CLOCK_VIRTUAL) {
        c->now += us;
        return;
    }
    sleep_until(c, c->now + us);
    sim_clock_sample(c);
}

void sim_clock_idle_until(sim_clock_t *c, uint64_t t)
{
    if (t <= c->now)
        return;
    if (c->mode == SIM_CLOCK_VIRTUAL) {
        c->now = t;
        return;
    }
    sleep_until(c, t);
    sim_clock_sample(c);
}

uint32_t sim_clock_ticks(sim_clock_t *c)
{
    if (c->live)
        sim_clock_sample(c);
    return c->start_tick + (uint32_t)c->now;
}
