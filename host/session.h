/* One session of aioprof-top, shared by main.c (the loop: read, feed, the table, the link) and
 * session_outputs.c (what the session makes: the pipeline and its outputs, opened when the input
 * is, closed with a word at the end, and the report). Nothing else includes it. */
#ifndef AIOPROF_SESSION_H
#define AIOPROF_SESSION_H

#include <stdint.h>

#include "budget.h"
#include "compare_feed.h"
#include "demo.h"
#include "export_trace.h"
#include "http_serve.h"
#include "options.h"
#include "pipeline.h"
#include "recorder.h"
#include "replay.h"
#include "report_lines.h"
#include "run.h"
#include "source.h"
#include "stderr_capture.h"
#include "text_log.h"
#include "top_view.h"

typedef struct session {
    const options_t *o;
    source_t *src;
    recorder_t *rec;
    export_trace_t *trace; /* --export-trace */
    text_log_t *log;       /* --log */
    report_lines_t *lines; /* --json-lines */
    run_t run;             /* --run */
    int program_ended;     /* --run: the program ended (a report session ends with it) */
    int lines_failed;      /* ... could not be written (errno): no more lines */
    uint64_t now_us;       /* the latest time the source said (the session's time line) */
    uint64_t feed_us;      /* the host time of the bytes being fed: the text lines' */
    demo_t *demo;
    pipeline_t *p;
    top_view_t *view;    /* the live table, when it is the view */
    top_status_t status; /* what the live table's header shows */
    replay_t *replay;    /* -r: pace, pause, position, seeking */
    double speed;        /* the replay's pace at the start */
    stderr_capture_t err; /* while the table owns the terminal: stderr's lines come out here */
    uint64_t last_us;    /* the latest host time seen */
    uint64_t deadline_us; /* --duration: when the session ends (monotonic), or 0 */
    uint64_t turn_us;    /* when the loop's chores were last done */
    int turn_due;        /* do them now: the input is quiet, or a key is waiting */
    int ended;           /* the input ended (a replay's end, a raw capture's) */
    int finished;        /* the pipeline was told the input ended, or that the session did */
    const char *end_how; /* what else ended the session: "q", "--duration", a signal */
    view_kind_t kind;    /* the options' view, or VIEW_NONE (session_view_kind) */
    uint64_t bytes;
    char label[600];     /* the report's "source" */
    /* --compare BASE, --budget, --junit (session_checks.c) */
    stats_cmp_side_t cmp_base;
    int have_base;
    compare_feed_t *cmp;  /* the session's side of the comparison */
    budget_t *budget;
    int junit_fd, junit_created, junit_open;
    int budget_said_late; /* the budget's result is said once the live table is closed */
    /* --capture-hogs (session_hogs.c) */
    struct session_hogs *hogs;
    /* --metrics (session_metrics.c) */
    http_serve_t *metrics;
    struct metrics_window *metrics_window; /* the gauge of the last seconds' longest slice */
    char metrics_board[300]; /* the board label, found at the first scrape */
} session_t;

/* The view the session has: the options' one, or VIEW_NONE when no view was asked for, there is no
 * terminal for the table, and an output was (-w, --export-trace, --log). */
view_kind_t session_view_kind(const options_t *o);

/* A UTF-8 locale: box drawing and arrows in the table and the report. */
int session_utf8(void);

/* The pipeline (pc: its configuration, the trace's observer added here) and the outputs it feeds:
 * --export-trace, --json-lines, --log, -w, made once the input is open. Returns 0, or an exit code
 * after one sentence on stderr. */
int session_outputs_open(session_t *s, pipeline_config_t *pc);

/* --json-lines could not be written (errno): a reader that left (| head) ends the session quietly
 * (EXIT_OK), anything else is said (EXIT_FAILURE_RUNTIME). */
int session_lines_failed(session_t *s);

/* The pipeline finishes (once), as the session it holds did: stopped by its user, or at the end of
 * its input (s->ended). The end of a recording closed cleanly (END) is where its user or the tool
 * ended that session, which marked nothing, so neither does its replay; the end of anything else
 * (a capture, a recording cut off) came before the device said it stopped: pipeline_end_of_input. */
void session_pipeline_end(session_t *s);

/* The input is done (its end, a stop, an error): the pipeline finishes (unless the loop finished it
 * already: the live table's end of a replay), --json-lines writes its last line. Returns rc, or
 * the lines' exit code when they failed and rc was EXIT_OK. */
int session_finish(session_t *s, int rc);

/* The end: the outputs closed, each with a word when it is incomplete (or with -v), the trace
 * told how the session ended (signal: the signal that stopped it, or 0), and the report printed.
 * Returns rc, or the first failure's exit code when rc was EXIT_OK. */
int session_outputs_close(session_t *s, int rc, int signal);

/* Whatever is still open when the session never got going (a trace this run made is removed). */
void session_outputs_free(session_t *s);

/* ---- --capture-hogs (session_hogs.c) ---- */

typedef struct session_hogs session_hogs_t;
/* The directory checked and the ring made, before the input opens. Returns 0, or an exit code after
 * one sentence. */
int session_hogs_open(session_t *s);
/* The hogs' watch in front of the observer pc has. */
void session_hogs_observe(session_t *s, pipeline_config_t *pc);
/* A read's bytes into the pipeline (pipeline_feed) and, with --capture-hogs, into the ring a
 * segment at a time, each with the device time the decoder reached after it (a read of a capture
 * can hold seconds of it); the captures that are due written. */
void session_hogs_feed(session_t *s, uint64_t host_us, const uint8_t *data, size_t len);
void session_hogs_link(session_t *s, int up, uint64_t host_us);
/* A seek back: the input starts again. */
void session_hogs_restart(session_t *s);
/* The live table's list asked for capture i (TOP_HOG_OPEN): read here, shown by the view. A capture
 * that cannot be read is said on the screen. */
void session_hogs_show(session_t *s, size_t i);
/* The captures still waiting written with what there is, a sentence of how many; freed. */
void session_hogs_close(session_t *s);

/* ---- --metrics (session_metrics.c) ---- */

/* The listening socket, before the input opens. Returns 0, or an exit code after one sentence. */
int session_metrics_open(session_t *s);
/* The window of the last seconds' longest slices watching, in front of the observer pc has. */
void session_metrics_observe(session_t *s, pipeline_config_t *pc);
/* A seek back: the input starts again. */
void session_metrics_restart(session_t *s);
/* Answers the scrapes that are ready (the loop's chores). */
void session_metrics_tick(session_t *s);
void session_metrics_close(session_t *s);

/* ---- --compare BASE, --budget, --junit (session_checks.c) ---- */

struct file_out_files;
/* The budget read and checked, the base read: before the input opens. Returns 0 or an exit code. */
int session_checks_open(session_t *s);
/* --junit's file made with the other outputs. Returns 0 or an exit code. */
int session_checks_outputs(session_t *s, struct file_out_files *files);
/* The budget's watch in front of the observer pc has. */
void session_checks_observe(session_t *s, pipeline_config_t *pc);
/* The end: the comparison (as the report, *reported 1), the budget's check, report and JUnit XML.
 * Returns rc, or EXIT_BUDGET when it was EXIT_OK and a budget line is broken. */
int session_checks_close(session_t *s, int rc, int *reported);
void session_checks_free(session_t *s);

#endif
