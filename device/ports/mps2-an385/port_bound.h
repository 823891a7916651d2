/* This port bound at compile time (AIOPROF_PORT_HEADER, see device/aioprof.h): the hook reads the
 * timer and PRIMASK in place instead of calling timer.c and critical.c through the port structure.
 * The Makefile builds bench_bound.elf with it, so that qemu_cost.sh can compare both ways. */
#ifndef MPS2_PORT_BOUND_H
#define MPS2_PORT_BOUND_H

#include <stdint.h>

#include "board.h"

static inline uint32_t port_bound_ticks(void)
{
    return (TIMER_RELOAD_VALUE - TIMER_VALUE) / TIMER_TICKS_PER_US;
}

static inline uint32_t port_bound_lock(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
    return primask;
}

static inline void port_bound_unlock(uint32_t state)
{
    __asm__ volatile("msr primask, %0" : : "r"(state) : "memory");
}

#define AIOPROF_PORT_TICKS(user) ((void)(user), port_bound_ticks())
#define AIOPROF_PORT_LOCK(user) ((void)(user), port_bound_lock())
#define AIOPROF_PORT_UNLOCK(user, state) ((void)(user), port_bound_unlock(state))

#endif
