/* CMSDK timer 0 as the hook's microsecond clock. It counts down from RELOAD at 25 MHz and
 * reloads at 0; with RELOAD + 1 = 25 * 2^27 the elapsed count divided by 25 is a microsecond
 * counter that wraps at exactly 2^27, so the port says tick_bits = 27 and the hook does the rest.
 * Reading it is one load, a subtraction and a multiply (the compiler turns /25 into one). */
#include "board.h"

void timer_init(uint32_t start_us)
{
    uint32_t start = (start_us & ((1u << TIMER_US_BITS) - 1u)) * TIMER_TICKS_PER_US;
    TIMER_CTRL = 0;
    /* writing RELOAD also loads VALUE; VALUE then moves the clock to where the caller wants it */
    TIMER_RELOAD = TIMER_RELOAD_VALUE;
    TIMER_VALUE = TIMER_RELOAD_VALUE - start;
    TIMER_CTRL = TIMER_CTRL_EN;
}

uint32_t timer_raw(void)
{
    return board_timer_raw();
}

uint32_t timer_us(void)
{
    return board_timer_us();
}
