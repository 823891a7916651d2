/* ARM semihosting: the core executes BKPT 0xAB with an operation in r0 and its argument in r1,
 * and the debugger (here QEMU) performs it. SYS_EXIT_EXTENDED (0x20) takes a block of
 * {reason, subcode}; with reason ADP_Stopped_ApplicationExit QEMU exits with the subcode as its
 * status, which plain SYS_EXIT cannot carry on a 32-bit core. */
#include "board.h"

#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

void semihost_exit(uint32_t status)
{
    uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, status};
    register uint32_t r0 __asm__("r0") = SYS_EXIT_EXTENDED;
    register uint32_t *r1 __asm__("r1") = block;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    for (;;) {
        /* no semihosting host: stay here */
    }
}
