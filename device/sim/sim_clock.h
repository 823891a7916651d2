/* Device time for the simulator. Virtual: a counter the scheduler moves, deterministic and as
 * fast as the host can go. Real: CLOCK_MONOTONIC, with "work" done by sleeping, so device time
 * follows the wall clock (aioprof-top --demo).
 *
 * In both modes the time the device library sees is `now`, which only changes when the simulator
 * says so (sample, advance) or while it drains: the ground truth then uses exactly the ticks the
 * library recorded. */
#ifndef SIM_CLOCK_H
#define SIM_CLOCK_H

#include <stdint.h>
#include <time.h>

typedef enum sim_clock_mode { SIM_CLOCK_VIRTUAL, SIM_CLOCK_REAL } sim_clock_mode_t;

typedef struct sim_clock {
    sim_clock_mode_t mode;
    uint64_t now;        /* microseconds since the start */
    uint32_t start_tick; /* the tick counter at now == 0 */
    int live;            /* real mode: ticks() reads the clock itself (during drain) */
    struct timespec origin;
} sim_clock_t;

void sim_clock_init(sim_clock_t *c, sim_clock_mode_t mode, uint32_t start_tick);

/* Real mode: reads the monotonic clock into now. Virtual: now as it is. Returns now. */
uint64_t sim_clock_sample(sim_clock_t *c);

/* The running task computes (or blocks) for us microseconds. */
void sim_clock_advance(sim_clock_t *c, uint64_t us);

/* Nothing to run: time passes until t (no-op when t <= now). */
void sim_clock_idle_until(sim_clock_t *c, uint64_t t);

/* The tick counter as the device library reads it (it masks it to tick_bits). */
uint32_t sim_clock_ticks(sim_clock_t *c);

/* Host wall time in microseconds (monotonic), for statistics and time-outs. */
uint64_t sim_wall_us(void);

#endif
