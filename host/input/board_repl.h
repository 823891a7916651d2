/* --install, --uninstall: MicroPython's raw REPL as a blocking client, for short commands whose
 * answers matter one by one (what the board is, a file's piece written, its hash), as mpremote's
 * fs commands use it. (--run's client, raw_repl.h, is the other one: a state machine inside the
 * profiling loop, for one long program whose output is the profile.)
 *
 *   enter:  "\r\x03\x03" (stop a program) "\r\x01" (Ctrl-A), wait for "raw REPL; CTRL-B to exit\r\n>";
 *           no soft reset: what the board holds in RAM (a mounted filesystem) stays
 *   exec:   raw paste ("\x05A\x01", "R\x01", window) and "\x04"; or, where the board answers
 *           "R\x00", the code in 256-byte pieces 10 ms apart, "\x04", "OK"; then its output up to
 *           "\x04", its exception's text up to "\x04", and the prompt ">"
 *   leave:  "\r\x02" (the friendly REPL) */
#ifndef AIOPROF_BOARD_REPL_H
#define AIOPROF_BOARD_REPL_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"

#define BOARD_REPL_OUT_MAX (64u * 1024u) /* the most of a command's output kept */

typedef struct board_repl {
    source_t *src;
    uint64_t bytes_out, bytes_in; /* over the link, both ways, since board_repl_init */
    int in_raw;
    char out[BOARD_REPL_OUT_MAX + 1]; /* the last command's output (NUL-terminated) */
    size_t out_len;
    char exc[2048];                   /* its exception's text, "" when none */
    char error[512];                  /* the sentence for a failure of the link or the protocol */
} board_repl_t;

void board_repl_init(board_repl_t *b, source_t *src);

/* Into the raw REPL. Returns 0, or -1 with b->error set: no banner within timeout_ms (not a
 * MicroPython REPL, or a program that does not stop), or the link failed. */
int board_repl_enter(board_repl_t *b, int timeout_ms);

/* Runs code (no byte 0x01..0x05 in it). Returns 0 when it ran to its end (b->out: what it printed),
 * 1 when it ended with an exception (b->exc: the traceback), -1 with b->error set when the link or
 * the protocol failed, or no answer came within timeout_ms of the last byte. */
int board_repl_exec(board_repl_t *b, const char *code, size_t len, int timeout_ms);

/* In the raw REPL: a soft reset (Ctrl-D at its prompt: a fresh VM), back at the raw prompt.
 * Returns 0, or -1 with b->error set. */
int board_repl_soft_reset(board_repl_t *b, int timeout_ms);

/* Back to the friendly REPL, when in the raw one. */
void board_repl_leave(board_repl_t *b);

#endif
