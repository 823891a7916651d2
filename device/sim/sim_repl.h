/* aioprof-sim --repl: the simulated device as a MicroPython board with its REPL on the pty, for
 * aioprof-top --run and its tests. Written from MicroPython's behaviour (shared/runtime/pyexec.c,
 * a port's main.c), none of its code:
 *
 *   power on, soft reset (Ctrl-D at ">>> "):  "MPY: soft reboot", main.py (the -w workload) runs
 *   Ctrl-C while a program runs:              KeyboardInterrupt, its traceback, then the prompt
 *   friendly REPL ">>> ":                     Ctrl-A to the raw REPL, Ctrl-B the banner, Ctrl-D a reset
 *   raw REPL ">":                             a program ended by Ctrl-D ("OK", its output, "\x04",
 *                                             its error, "\x04", ">"); Ctrl-D alone a soft reset that
 *                                             stays in the raw REPL; Ctrl-B back to ">>> "
 *   raw paste ("\x05A\x01" at ">"):           "R\x01", the window (u16 LE) and 0x01, a 0x01 per
 *                                             window read, 0x04 for the end; a host that sends more
 *                                             than the windows allow overflows the 256-byte stdin
 *                                             buffer, and the program fails as it would on a board
 *
 * A program "runs" the workload its first lines name ("# aioprof-sim: -w NAME --duration SEC
 * --events N --text N"), else the -w workload until Ctrl-C. Every program starts the hook afresh
 * (a new boot in its HELLO); the device's clock runs on between them. With --truth, each program's
 * truth replaces the file when it ends. */
#ifndef SIM_REPL_H
#define SIM_REPL_H

#include <signal.h>

#include "sim_options.h"
#include "sim_output.h"

#define SIM_REPL_WINDOW 128u      /* half of MicroPython's default stdin buffer for raw paste */
#define SIM_REPL_LINE_MAX (2u * 1024u * 1024u) /* the largest program the raw REPL collects */

/* Runs the board until *stop (a signal). Returns the exit code. */
int sim_repl_main(const sim_options_t *opt, sim_output_t *out, volatile sig_atomic_t *stop);

#endif
