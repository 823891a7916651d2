/* The critical section as the hook's port calls it: PRIMASK masks every configurable interrupt.
 * The previous value is returned and restored, so a section inside another (or one entered with
 * interrupts already off) leaves them as it found them. */
#include "board.h"

uint32_t critical_lock(void *user)
{
    (void)user;
    return board_primask_disable();
}

void critical_unlock(void *user, uint32_t state)
{
    (void)user;
    board_primask_restore(state);
}
