/* The mps2-an385 board (ARM MPS2 with the AN385 image: a Cortex-M3 at 25 MHz), as QEMU emulates
 * it: the few peripherals the aioprof hook needs, and what the port builds from them.
 *
 *   uart.c      CMSDK APB UART0: the byte pipe the frames leave by (non-blocking)
 *   timer.c     CMSDK timer 0: the microsecond clock the hook stamps events with
 *   critical.c  PRIMASK: the critical section around the hook's ring
 *   semihost.c  ending a run under QEMU with an exit status
 *
 * Addresses and bits are from the AN385 application note and the CMSDK technical reference. */
#ifndef BOARD_H
#define BOARD_H

#include <stddef.h>
#include <stdint.h>

#define BOARD_CPU_HZ 25000000u /* the CPU and the APB peripherals share one 25 MHz clock */

#define BOARD_REG(addr) (*(volatile uint32_t *)(addr))

/* CMSDK APB UART0 */
#define UART0_BASE 0x40004000u
#define UART_DATA BOARD_REG(UART0_BASE + 0x00u)
#define UART_STATE BOARD_REG(UART0_BASE + 0x04u)
#define UART_CTRL BOARD_REG(UART0_BASE + 0x08u)
#define UART_BAUDDIV BOARD_REG(UART0_BASE + 0x10u)
#define UART_STATE_TX_FULL 0x1u
#define UART_STATE_RX_FULL 0x2u
#define UART_CTRL_TX_EN 0x1u
#define UART_CTRL_RX_EN 0x2u

/* CMSDK APB timer 0: a 32-bit down counter on the 25 MHz APB clock */
#define TIMER0_BASE 0x40000000u
#define TIMER_CTRL BOARD_REG(TIMER0_BASE + 0x00u)
#define TIMER_VALUE BOARD_REG(TIMER0_BASE + 0x04u)
#define TIMER_RELOAD BOARD_REG(TIMER0_BASE + 0x08u)
#define TIMER_CTRL_EN 0x1u

/* The microsecond clock wraps at 2^27 (134 s): the widest power of two whose 25 ticks per
 * microsecond still fit the 32-bit counter. A power of two makes tick differences wrap like the
 * hook expects; no interrupt and no software extension is needed. */
#define TIMER_US_BITS 27u
#define TIMER_TICKS_PER_US (BOARD_CPU_HZ / 1000000u)
#define TIMER_RELOAD_VALUE (TIMER_TICKS_PER_US * (1u << TIMER_US_BITS) - 1u)

void uart_init(uint32_t baud);
/* Writes as many of len bytes as the transmitter takes now; returns how many. Never waits. */
size_t uart_write(const uint8_t *data, size_t len);
/* Writes all len bytes, waiting for the transmitter: for text, never for the hook. */
void uart_write_all(const uint8_t *data, size_t len);
/* A received byte (0..255), or -1 when none is waiting. */
int uart_read(void);

/* Starts timer 0 so that the microsecond clock reads `start_us` now. */
void timer_init(uint32_t start_us);

/* The raw 25 MHz counter, counting up (modulo its period): 40 ns, one per 40 instructions under
 * QEMU's -icount shift=0. Inline, for port_bound.h; timer.c has the callable ones. */
static inline uint32_t board_timer_raw(void)
{
    return TIMER_RELOAD_VALUE - TIMER_VALUE;
}

/* Microseconds, modulo 2^TIMER_US_BITS. */
static inline uint32_t board_timer_us(void)
{
    return board_timer_raw() / TIMER_TICKS_PER_US;
}

uint32_t timer_us(void);
uint32_t timer_raw(void);

/* PRIMASK masks every configurable interrupt. Returns the previous state, which
 * board_primask_restore puts back, so sections nest. Inline, for port_bound.h. */
static inline uint32_t board_primask_disable(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
    return primask;
}

static inline void board_primask_restore(uint32_t state)
{
    __asm__ volatile("msr primask, %0" : : "r"(state) : "memory");
}

/* The critical section as the port's lock and unlock (critical.c). */
uint32_t critical_lock(void *user);
void critical_unlock(void *user, uint32_t state);

/* Ends the program under QEMU (-semihosting-config enable=on,target=native) with `status` as
 * QEMU's exit code. Without a debugger or QEMU it stops the core in a breakpoint. */
void semihost_exit(uint32_t status) __attribute__((noreturn));

#endif
