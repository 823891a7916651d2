/* Reset and the vector table. The Cortex-M3 reads the initial stack pointer and the reset address
 * from the first two words at address 0 (where mps2_an385.ld puts .vectors); the reset handler
 * sets up C (copies .data, clears .bss) and calls main. No interrupt is used: the hook runs from
 * the main loop, and its critical section only matters once a port records from an interrupt. */
#include <stdint.h>

#include "board.h"

/* QEMU's exit status when the core faults: CI sees a crash as a failure, not as a hang. */
#define STARTUP_FAULT_STATUS 3u

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

int main(void);
void startup_reset(void);
void startup_fault(void);

void startup_reset(void)
{
    uint32_t *src = __data_load;
    for (uint32_t *dst = __data_start; dst < __data_end; dst++) {
        *dst = *src++;
    }
    for (uint32_t *dst = __bss_start; dst < __bss_end; dst++) {
        *dst = 0;
    }
    semihost_exit((uint32_t)main());
}

/* NMI, HardFault and the configurable faults all end the run. */
void startup_fault(void)
{
    semihost_exit(STARTUP_FAULT_STATUS);
}

/* The 16 system entries; the board's interrupts (entries 16 and up) stay disabled. */
__attribute__((section(".vectors"), used)) const uintptr_t startup_vectors[16] = {
    (uintptr_t)__stack_top,
    (uintptr_t)startup_reset,
    (uintptr_t)startup_fault, /* NMI */
    (uintptr_t)startup_fault, /* HardFault */
    (uintptr_t)startup_fault, /* MemManage */
    (uintptr_t)startup_fault, /* BusFault */
    (uintptr_t)startup_fault, /* UsageFault */
    0, 0, 0, 0,               /* reserved */
    (uintptr_t)startup_fault, /* SVCall: nothing here calls SVC */
    (uintptr_t)startup_fault, /* DebugMonitor */
    0,                        /* reserved */
    (uintptr_t)startup_fault, /* PendSV */
    (uintptr_t)startup_fault, /* SysTick: never enabled */
};
