/* --run in the session (run.h). */
#include "run.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define RUN_PACED_READ_MS 5
#define RUN_LEAVE_PATIENCE_MS 300

/* One line, so that the program's own line numbers move by one only: aioprof imported and
 * enabled, or, on a board without it, an ImportError that says what to do. */
static const char run_prologue[] =
    "exec(\"try:\\n import aioprof\\nexcept ImportError as e:\\n raise ImportError('aioprof is not on this board "
    "(%s): aioprof-top --install puts it there, or add --in-ram to --run for this run only' % e)\\naioprof.enable()\")\n";

int run_open(run_t *r, const char *path, int live, int enable, int reset, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->live = live;
    r->said = RAW_REPL_IDLE;
    r->repl = raw_repl_open(path, enable ? run_prologue : NULL, err, errlen);
    if (r->repl != NULL && !reset)
        raw_repl_no_reset(r->repl);
    return r->repl != NULL ? 0 : -1;
}

void run_close(run_t *r)
{
    raw_repl_free(r->repl);
    r->repl = NULL;
}

/* Writes what the client has to say, as far as the port takes it now. */
static void run_write(run_t *r)
{
    const uint8_t *data;
    size_t n;
    while (r->src != NULL && (n = raw_repl_outgoing(r->repl, &data)) > 0) {
        long w = source_write(r->src, data, n);
        if (w <= 0) {
            /* full (0): later; gone: the read says so; an error: said once, by the read too */
            return;
        }
        raw_repl_wrote(r->repl, (size_t)w);
    }
}

void run_link_up(run_t *r, source_t *src, uint64_t now_us)
{
    r->src = src;
    if (r->repl != NULL && raw_repl_state(r->repl) == RAW_REPL_IDLE) {
        raw_repl_begin(r->repl, now_us);
        run_write(r);
    }
}

void run_link_lost(run_t *r)
{
    if (r->repl != NULL)
        raw_repl_link_lost(r->repl);
}

size_t run_take(run_t *r, const uint8_t *data, size_t len, uint64_t now_us)
{
    return r->repl != NULL ? raw_repl_take(r->repl, data, len, now_us) : 0;
}

/* What happened, once: on stderr, the table's message line. */
static run_status_t run_say(run_t *r, raw_repl_state_t st)
{
    const char *name = raw_repl_name(r->repl), *port = r->src != NULL ? r->src->name : "the board";
    if (st == r->said)
        return RUN_GOING;
    r->said = st;
    switch (st) {
    case RAW_REPL_RUNNING:
        fprintf(stderr, "aioprof-top: %s runs on %s (sent by %s)%s\n", name, port,
                raw_repl_pasted(r->repl) ? "raw paste" : "the raw REPL",
                r->live ? "; k sends it Ctrl-C, Ctrl-D soft-resets the board" : ".");
        return RUN_GOING;
    case RAW_REPL_ENDED:
        fprintf(stderr, "aioprof-top: %s ended%s%s\n", name,
                raw_repl_ended_with_error(r->repl) ? " with an exception (its traceback is in the device text)" : "",
                r->live ? "; Ctrl-D soft-resets the board (its main.py runs)" : ".");
        return RUN_PROGRAM_ENDED;
    case RAW_REPL_FAILED:
        fprintf(stderr, "aioprof-top: %s: %s\n", port, raw_repl_error(r->repl));
        return RUN_FAILED;
    default:
        return RUN_GOING;
    }
}

run_status_t run_turn(run_t *r, const pipeline_t *p, uint64_t now_us)
{
    if (r->repl == NULL)
        return RUN_GOING;
    raw_repl_state_t st = raw_repl_poll(r->repl, now_us, pipeline_pending_is_text(p));
    run_write(r);
    return run_say(r, st);
}

int run_read_timeout_ms(const run_t *r, int usual_ms)
{
    return r->repl != NULL && raw_repl_state(r->repl) == RAW_REPL_SENDING ? RUN_PACED_READ_MS : usual_ms;
}

int run_handshaking(const run_t *r)
{
    if (r->repl == NULL)
        return 0;
    raw_repl_state_t st = raw_repl_state(r->repl);
    return st == RAW_REPL_ENTERING || st == RAW_REPL_RESETTING || st == RAW_REPL_SENDING;
}

void run_key(run_t *r, top_action_t a)
{
    if (r->repl == NULL) {
        fputs("aioprof-top: k and Ctrl-D act on a program sent with --run.\n", stderr);
        return;
    }
    const char *name = raw_repl_name(r->repl);
    int rc = a == TOP_DEVICE_INTERRUPT ? raw_repl_interrupt(r->repl) : raw_repl_soft_reset(r->repl);
    if (rc < 0) {
        fprintf(stderr, "aioprof-top: %s is not running yet: the key waits for it.\n", name);
        return;
    }
    run_write(r);
    if (a == TOP_DEVICE_INTERRUPT) {
        fprintf(stderr, "aioprof-top: Ctrl-C sent.\n");
    } else {
        r->said = RAW_REPL_BOARD;
        fprintf(stderr, "aioprof-top: soft reset: the board starts again and runs its main.py (a new epoch).\n");
    }
}

void run_leave(run_t *r)
{
    if (r->repl == NULL || r->src == NULL || r->src->down)
        return;
    raw_repl_leave(r->repl);
    const uint8_t *data;
    for (int i = 0; i < RUN_LEAVE_PATIENCE_MS && raw_repl_outgoing(r->repl, &data) > 0; i++) {
        run_write(r);
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

int run_text_line(const run_t *r, char *line)
{
    return r->repl == NULL || raw_repl_clean_line(r->repl, line);
}
