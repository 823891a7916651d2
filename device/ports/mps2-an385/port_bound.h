/* This port bound at compile time (AIOPROF_PORT_HEADER, see device/aioprof.h): the hook reads the
 * timer and PRIMASK in place instead of calling timer.c and critical.c through the port structure.
 * The Makefile builds bench_bound.elf with it, so that qemu_cost.sh can compare both ways. */
#ifndef MPS2_PORT_BOUND_H
#define MPS2_PORT_BOUND_H

#include <stdint.h>

#include "board.h"

#define AIOPROF_PORT_TICKS(user) ((void)(user), board_timer_us())
#define AIOPROF_PORT_LOCK(user) ((void)(user), board_primask_disable())
#define AIOPROF_PORT_UNLOCK(user, state) ((void)(user), board_primask_restore(state))

#endif
