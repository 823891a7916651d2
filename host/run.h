/* --run in the session: the raw REPL client (raw_repl.c) between the port and main's loop. It
 * writes what the client has to say to the port, tells the client the time and what the
 * pipeline holds, and says on stderr (the table's message line) how the program is doing.
 *
 *   read -> run_take (the handshake's bytes) -> recorder, pipeline (the program's)
 *   every turn: run_turn (write, time outs, the program's end); keys: run_key; end: run_leave */
#ifndef AIOPROF_RUN_H
#define AIOPROF_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"
#include "raw_repl.h"
#include "source.h"
#include "top_view.h"

typedef struct run {
    raw_repl_t *repl;
    source_t *src;
    int live;                 /* the table is the view: the keys are there */
    raw_repl_state_t said;    /* the last state said */
} run_t;

typedef enum run_status {
    RUN_GOING,                /* the handshake, or the program runs, or the board is on its own */
    RUN_PROGRAM_ENDED,        /* the program ended just now */
    RUN_FAILED,               /* said on stderr */
} run_status_t;

/* Reads the program (path) and makes the client; with enable, the program is sent after a
 * one-line prologue that imports aioprof and enables it (RUN_PROLOGUE: the app need not mention
 * aioprof; one that calls enable() itself gets the engine already running). Returns 0, or -1 with
 * one sentence in err. */
int run_open(run_t *r, const char *path, int live, int enable, int reset, char *err, size_t errlen);
void run_close(run_t *r);

/* The link is up (at first, or back): the handshake starts if the program was not sent yet. */
void run_link_up(run_t *r, source_t *src, uint64_t now_us);
void run_link_lost(run_t *r);

/* Bytes read: returns how many of them, from the start, were the handshake's. */
size_t run_take(run_t *r, const uint8_t *data, size_t len, uint64_t now_us);

/* Every turn of the loop. */
run_status_t run_turn(run_t *r, const pipeline_t *p, uint64_t now_us);

/* How long main's read may wait: short while the program goes out paced. */
int run_read_timeout_ms(const run_t *r, int usual_ms);

/* The handshake is under way (the raw REPL entered, the board reset, the program sent): every
 * answer of the board matters at once, so main does not let bytes gather. */
int run_handshaking(const run_t *r);

/* The table's keys k and Ctrl-D. */
void run_key(run_t *r, top_action_t a);

/* The session ends: the board back to its friendly REPL, written out within a short while. */
void run_leave(run_t *r);

/* A device text line, cleaned of the raw REPL's markers in place; 0 when it is to be dropped. */
int run_text_line(const run_t *r, char *line);

#endif
