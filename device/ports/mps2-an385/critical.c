/* The critical section: PRIMASK masks every configurable interrupt. The previous value is
 * returned and restored, so a section inside another (or one entered with interrupts already
 * off) leaves them as it found them. */
#include "board.h"

uint32_t critical_enter(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
    return primask;
}

void critical_exit(uint32_t state)
{
    __asm__ volatile("msr primask, %0" : : "r"(state) : "memory");
}
