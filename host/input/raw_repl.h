/* --run: sends a program to a MicroPython board through its raw REPL, as mpremote run does, and
 * then lets its output (frames and text) through to be profiled. A state machine that never
 * blocks: main feeds it what the port gave, asks it what to write, and gives it the time.
 *
 *   interrupt:  "\r\x03\x03" (Ctrl-C twice: stop a running program) "\r\x01" (Ctrl-A)
 *   enter:      wait for "raw REPL; CTRL-B to exit\r\n>"
 *   soft reset: "\x04" (Ctrl-D at the raw prompt: a fresh VM, as mpremote starts), wait for
 *               "soft reboot\r\n", then "raw REPL; CTRL-B to exit\r\n" and the prompt ">"
 *   raw paste:  "\x05A\x01"; "R\x01" + window (u16 LE): the program in windows, each "\x01" the
 *               board sends frees another, "\x04" at the end, acknowledged by "\x04"
 *               ("R\x00", or a board older than raw paste: 256 bytes every 10 ms, "\x04", "OK")
 *   running:    the program's bytes, frames and text, are the profile's; its end is
 *               "\x04" <error text> "\x04>" in a text segment (the raw REPL's end markers)
 *
 * The bytes of the handshake (the interrupted program's last output, the banners) are taken by
 * this module: they are neither profiled nor recorded. The program's bytes pass through. */
#ifndef AIOPROF_RAW_REPL_H
#define AIOPROF_RAW_REPL_H

#include <stddef.h>
#include <stdint.h>

#define RAW_REPL_SCRIPT_MAX (1024u * 1024u) /* the largest program --run sends */
#define RAW_REPL_ENTER_TIMEOUT_US 10000000u /* to reach the raw REPL's prompt (mpremote's 10 s) */
#define RAW_REPL_RETRY_US 3000000u          /* Ctrl-C and Ctrl-A again after this long */
#define RAW_REPL_REPLY_TIMEOUT_US 10000000u /* between replies while the program is sent */
#define RAW_REPL_CHUNK 256u                 /* without raw paste: bytes per write, ... */
#define RAW_REPL_CHUNK_GAP_US 10000u        /* ... and the time between them (mpremote's) */

typedef enum raw_repl_state {
    RAW_REPL_IDLE,       /* not started (the link is not up yet) */
    RAW_REPL_ENTERING,   /* Ctrl-C, Ctrl-A sent: waiting for the raw REPL's banner and prompt */
    RAW_REPL_RESETTING,  /* Ctrl-D sent at the prompt: waiting for the soft reboot and the prompt */
    RAW_REPL_SENDING,    /* the program is going out (raw paste, or paced without it) */
    RAW_REPL_RUNNING,    /* the program runs: its bytes are the profile's */
    RAW_REPL_ENDED,      /* it ended: the board waits at the raw REPL's prompt */
    RAW_REPL_BOARD,      /* after a soft reset (the board runs its main.py) or a reconnect: hands off */
    RAW_REPL_FAILED,     /* raw_repl_error() says why */
} raw_repl_state_t;

typedef struct raw_repl raw_repl_t;

/* Copies the program (script[0..len)). Returns NULL with one sentence in err: too large, a control
 * byte the raw REPL would take as a command (0x01 to 0x05), or out of memory. name is what the
 * messages call the program ("app.py"). */
raw_repl_t *raw_repl_new(const char *name, const uint8_t *script, size_t len, char *err, size_t errlen);

/* raw_repl_new with the program read from path (named by its file name), after prologue (NULL:
 * none): text sent ahead of the program, as if it were its first line(s). */
raw_repl_t *raw_repl_open(const char *path, const char *prologue, char *err, size_t errlen);
void raw_repl_free(raw_repl_t *r);

/* --no-reset: the program goes to the board as it is, without the soft reset (as mpremote's
 * resume): what the board holds in RAM (a filesystem mounted there, a network) stays. */
void raw_repl_no_reset(raw_repl_t *r);

/* The link is up for the first time (now_us: monotonic): interrupt, enter, reset, send. */
void raw_repl_begin(raw_repl_t *r, uint64_t now_us);

/* Bytes the port gave. Returns how many of them, from the start, the handshake took; the rest
 * (data + returned .. len) belongs to the program, to be recorded and profiled. */
size_t raw_repl_take(raw_repl_t *r, const uint8_t *data, size_t len, uint64_t now_us);

/* What is waiting to be written: returns its length, *data where it is. raw_repl_wrote(r, n)
 * after n of them went out. */
size_t raw_repl_outgoing(const raw_repl_t *r, const uint8_t **data);
void raw_repl_wrote(raw_repl_t *r, size_t n);

/* Time passes: deadlines, paced sending; and, while the program runs, whether it ended (the
 * raw REPL's end markers at the end of what the pipeline holds, judged text by it:
 * pending_is_text is pipeline_pending_is_text's answer). Returns the state. */
raw_repl_state_t raw_repl_poll(raw_repl_t *r, uint64_t now_us, int pending_is_text);

raw_repl_state_t raw_repl_state(const raw_repl_t *r);
const char *raw_repl_error(const raw_repl_t *r);
const char *raw_repl_name(const raw_repl_t *r);
/* Was raw paste used (1), or the paced raw REPL (0)? */
int raw_repl_pasted(const raw_repl_t *r);
/* RAW_REPL_ENDED: did the program end with an exception (text between the end markers)? */
int raw_repl_ended_with_error(const raw_repl_t *r);

/* The keys: Ctrl-C to the program (it ends with KeyboardInterrupt); a soft reset that runs the
 * board's main.py (Ctrl-C twice, Ctrl-B to the friendly REPL, Ctrl-D there). Both only once the
 * program was sent; they return 0, or -1 when it is not the time (nothing is queued). */
int raw_repl_interrupt(raw_repl_t *r);
int raw_repl_soft_reset(raw_repl_t *r);

/* The link went away: what comes back is left alone (the program is not sent again). */
void raw_repl_link_lost(raw_repl_t *r);

/* The session ends: back to the friendly REPL ("\r\x02", as mpremote leaves) when the board is in
 * the raw REPL, so a terminal opened next finds the usual prompt. */
void raw_repl_leave(raw_repl_t *r);

/* A line of device text (escaped, as the pipeline gives it) in place: the raw REPL's end markers
 * ("\x04") removed. Returns 0 when nothing is left worth showing: the raw REPL's prompt after the
 * program ended. */
int raw_repl_clean_line(const raw_repl_t *r, char *line);

#endif
