/* The bench's port bound at compile time (see aioprof.h, AIOPROF_PORT_HEADER): the clock is a
 * variable read in place, and there is no critical section, as in a firmware whose scheduler
 * records from one context only. */
#ifndef BENCH_PORT_H
#define BENCH_PORT_H

#include <stdint.h>

extern uint32_t bench_now;

#define AIOPROF_PORT_TICKS(user) ((void)(user), bench_now)
#define AIOPROF_PORT_LOCK(user) ((void)(user), 0u)
#define AIOPROF_PORT_UNLOCK(user, state) ((void)(user), (void)(state))

#endif
