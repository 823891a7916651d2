/* aioprof-top: opens the input (a port, a recording, the simulator), pumps its bytes through the
 * recorder and the pipeline until the end, Ctrl-C or --duration, showing the live table as it
 * goes, or a report at the end.
 *
 *   source_read -> recorder_data -> pipeline_feed -> (view)
 *
 * Live and replay share every line after the read; a port going away is a link event for both. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demo.h"
#include "export_trace.h"
#include "options.h"
#include "pipeline.h"
#include "recorder.h"
#include "report.h"
#include "source.h"
#include "top_view.h"

#define READ_TIMEOUT_MS 50      /* how often the loop looks at signals, the clock, the recorder */
#define MAIN_STOP (-1)          /* main_link_lost(): end the session normally */
#define SPEED_MAX 64.0          /* replay speed keys: halving and doubling within [1/64, 64] */

static volatile sig_atomic_t main_stop;

static void main_on_signal(int sig)
{
    main_stop = sig;
}

typedef struct session {
    const options_t *o;
    source_t *src;
    recorder_t *rec;
    export_trace_t *trace; /* --export-trace */
    demo_t *demo;
    pipeline_t *p;
    top_view_t *view;    /* the live table, when it is the view */
    top_status_t status; /* what the live table's header shows */
    int paused;          /* a replay held by the live table's space key */
    double speed;        /* the replay's pace */
    int err_pipe;        /* while the table owns the terminal: stderr's lines come out here */
    int saved_stderr;
    char err_line[512];
    size_t err_len;
    char err_last[512];  /* the last whole line, said again when the table closes */
    uint64_t last_us;    /* the latest host time seen */
    uint64_t deadline_us; /* --duration: when the session ends (monotonic), or 0 */
    int ended;           /* the input ended (a replay's end, a raw capture's) */
    uint64_t bytes;
    char label[600];     /* the report's "source" */
} session_t;

static void main_text_line(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "device: %s\n", line);
}

/* The pipeline's word on the stream (another device on the link): on stderr, which the live table
 * shows as its message line. */
static void main_note(void *user, const char *sentence)
{
    (void)user;
    fprintf(stderr, "aioprof-top: %s\n", sentence);
}

/* While the live table owns the terminal, whatever any part writes to stderr (a note about a cut
 * recording, a recorder's write error, the simulator's complaints) would draw over it: stderr
 * goes into a pipe instead, and its lines become the table's message line. */
static int main_capture_stderr(session_t *s)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stderr);
    s->saved_stderr = dup(STDERR_FILENO);
    if (s->saved_stderr < 0 || dup2(fds[1], STDERR_FILENO) < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    s->err_pipe = fds[0];
    return 0;
}

static void main_drain_stderr(session_t *s);

static void main_release_stderr(session_t *s)
{
    if (s->err_pipe < 0)
        return;
    fflush(stderr);
    dup2(s->saved_stderr, STDERR_FILENO);
    close(s->saved_stderr);
    /* what was said last is said again where it can be read */
    main_drain_stderr(s);
    if (s->err_len > 0)
        fprintf(stderr, "%.*s\n", (int)s->err_len, s->err_line);
    else if (s->err_last[0] != '\0')
        fprintf(stderr, "%s\n", s->err_last);
    close(s->err_pipe);
    s->err_pipe = -1;
}

static void main_drain_stderr(session_t *s)
{
    char buf[1024];
    ssize_t n;
    if (s->err_pipe < 0)
        return;
    fflush(stderr);
    while ((n = read(s->err_pipe, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                s->err_line[s->err_len] = '\0';
                top_view_message(s->view, s->err_line);
                memcpy(s->err_last, s->err_line, s->err_len + 1);
                s->err_len = 0;
            } else if (s->err_len + 1 < sizeof s->err_line) {
                s->err_line[s->err_len++] = buf[i];
            }
        }
    }
}

static void main_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = main_on_signal;
    sigemptyset(&sa.sa_mask);
    /* no SA_RESTART: a blocked read returns, and the loop sees the flag */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* a file size limit then fails the write (reported, recording stops) instead of killing us */
    signal(SIGXFSZ, SIG_IGN);
}

/* Opens what the options name. Returns 0, or an exit code after printing why. */
static int main_open_input(session_t *s)
{
    const options_t *o = s->o;
    char err[600];
    char *picked = NULL;

    if (o->replay != NULL) {
        /* pacing is for watching (main_session chose it); a report reads as fast as it can */
        double speed = s->speed;
        s->src = source_file_open(o->replay, speed, o->verbose, err, sizeof err);
        if (s->src == NULL)
            goto error;
        snprintf(s->label, sizeof s->label, "%s", s->src->name);
        return 0;
    }
    const char *path = o->port;
    if (o->demo) {
        s->demo = demo_start(o->workload, o->verbose, err, sizeof err);
        if (s->demo == NULL)
            goto error;
        path = demo_pty(s->demo);
    } else if (path == NULL) {
        picked = source_pick_port(o->verbose, err, sizeof err);
        if (picked == NULL)
            goto error;
        fprintf(stderr, "aioprof-top: using %s\n", picked);
        path = picked;
    }
    s->src = source_device_open(path, o->baud, o->verbose, err, sizeof err);
    if (s->src == NULL)
        goto error;
    if (o->demo)
        snprintf(s->label, sizeof s->label, "demo (aioprof-sim on %s)", path);
    else
        snprintf(s->label, sizeof s->label, "%s @ %d", path, o->baud);
    free(picked);
    return 0;

error:
    fprintf(stderr, "aioprof-top: %s\n", err);
    free(picked);
    return EXIT_FAILURE_RUNTIME;
}

static void main_take(session_t *s, const uint8_t *data, long n, uint64_t host_us)
{
    recorder_data(s->rec, host_us, data, (size_t)n);
    pipeline_feed(s->p, data, (size_t)n);
    s->bytes += (uint64_t)n;
}

/* The live table's keys that main acts on. Returns 1 to quit. */
static int main_view_action(session_t *s, top_action_t a)
{
    switch (a) {
    case TOP_QUIT:
        return 1;
    case TOP_REPLAY_PAUSE_TOGGLE:
        s->paused = !s->paused;
        if (!s->paused)
            source_file_set_speed(s->src, s->speed);
        break;
    case TOP_REPLAY_FASTER:
    case TOP_REPLAY_SLOWER:
        if (s->speed <= 0)
            break;
        s->speed = a == TOP_REPLAY_FASTER ? s->speed * 2 : s->speed / 2;
        if (s->speed > SPEED_MAX)
            s->speed = SPEED_MAX;
        if (s->speed < 1 / SPEED_MAX)
            s->speed = 1 / SPEED_MAX;
        source_file_set_speed(s->src, s->speed);
        break;
    case TOP_CONTINUE:
        break;
    }
    return 0;
}

/* Gives the live table its turn. Returns 1 when the user quit. */
static int main_view_turn(session_t *s)
{
    if (s->view == NULL)
        return 0;
    main_drain_stderr(s);
    s->status.record_bytes = recorder_bytes(s->rec);
    s->status.replay_paused = s->paused;
    s->status.replay_speed = s->speed;
    if (s->status.replay)
        s->status.replay_position_s = source_file_position_s(s->src);
    return main_view_action(s, top_view_poll(s->view, s->p, &s->status, source_monotonic_us()));
}

/* The end of a replay in the live table, the pipeline finished: the table stays until the user
 * quits. */
static void main_view_hold(session_t *s)
{
    s->status.link = TOP_LINK_ENDED;
    while (!main_stop && !main_view_turn(s)) {
        export_trace_tick(s->trace);
        struct pollfd pfd = {.fd = top_view_fd(s->view), .events = POLLIN};
        poll(&pfd, 1, 100);
    }
}

/* Is --duration over? */
static int main_time_up(const session_t *s)
{
    return s->deadline_us != 0 && source_monotonic_us() >= s->deadline_us;
}

/* The port went away: keep everything, say so once, and wait for the same path to return (or,
 * for a recording, read on to where it returned). Returns 0 when the link is back, MAIN_STOP to
 * end the session normally, or an exit code. */
static int main_link_lost(session_t *s)
{
    const options_t *o = s->o;
    int live = !s->src->is_file;
    uint64_t host_us = s->last_us;

    pipeline_link_down(s->p);
    recorder_link(s->rec, 0, s->last_us);
    if (live && s->demo != NULL) {
        fputs("aioprof-top: the simulator stopped sending (its pty closed).\n", stderr);
        return EXIT_FAILURE_RUNTIME;
    }
    if (live && o->no_reconnect) {
        fprintf(stderr, "aioprof-top: %s went away (--no-reconnect: stopping).\n", s->src->name);
        return EXIT_FAILURE_RUNTIME;
    }
    if (live)
        fprintf(stderr, "aioprof-top: %s went away; waiting for it to come back (Ctrl-C to stop).\n", s->src->name);
    s->status.link = TOP_LINK_WAITING;
    while (!main_stop) {
        if (main_view_turn(s))
            return MAIN_STOP;
        int r = source_reconnect(s->src, s->view != NULL ? READ_TIMEOUT_MS : SOURCE_RECONNECT_POLL_MS, &host_us);
        if (r == SOURCE_BACK) {
            s->status.link = TOP_LINK_CONNECTED;
            s->last_us = host_us;
            pipeline_link_up(s->p);
            recorder_link(s->rec, 1, host_us);
            if (live)
                fprintf(stderr, "aioprof-top: %s is back.\n", s->src->name);
            return 0;
        }
        if (r == SOURCE_EOF)
            return MAIN_STOP;
        if (r == SOURCE_ERROR) {
            fprintf(stderr, "aioprof-top: %s\n", source_error(s->src));
            return EXIT_FAILURE_RUNTIME;
        }
        recorder_tick(s->rec);
        export_trace_tick(s->trace);
        if (main_time_up(s))
            return MAIN_STOP;
    }
    return MAIN_STOP;
}

/* The pump. Returns an exit code. */
static int main_run(session_t *s)
{
    const options_t *o = s->o;
    uint8_t buf[4096];
    if (o->duration_s > 0)
        s->deadline_us = source_monotonic_us() + (uint64_t)(o->duration_s * 1e6);

    while (!main_stop) {
        uint64_t host_us = s->last_us;
        if (main_view_turn(s))
            break;
        if (main_time_up(s))
            break;
        if (s->paused) {
            struct pollfd pfd = {.fd = top_view_fd(s->view), .events = POLLIN};
            poll(&pfd, 1, READ_TIMEOUT_MS);
            continue;
        }
        long n = source_read(s->src, buf, sizeof buf, READ_TIMEOUT_MS, &host_us);
        if (n > 0) {
            s->last_us = host_us;
            main_take(s, buf, n, host_us);
        } else if (n == SOURCE_EOF) {
            s->ended = 1;
            break;
        } else if (n == SOURCE_GONE) {
            s->last_us = host_us;
            int r = main_link_lost(s);
            if (r == MAIN_STOP)
                break;
            if (r != 0)
                return r;
        } else if (n == SOURCE_HOLE) {
            pipeline_input_damaged(s->p);
        } else if (n == SOURCE_ERROR) {
            fprintf(stderr, "aioprof-top: %s\n", source_error(s->src));
            return EXIT_FAILURE_RUNTIME;
        }
        recorder_tick(s->rec);
        export_trace_tick(s->trace);
        if (s->demo != NULL)
            demo_pump(s->demo);
    }
    return EXIT_OK;
}

static int main_utf8(void)
{
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && strcmp(codeset, "UTF-8") == 0;
}

static int main_view_end(session_t *s, view_kind_t view)
{
    report_options_t ro = {
        .sort = s->o->sort,
        .by_instance = s->o->instances,
        .source = s->label,
    };
    ro.unicode = main_utf8();
    int r = view == VIEW_JSON ? report_json(stdout, s->p, &ro) : report_text(stdout, s->p, &ro);
    if (fflush(stdout) != 0 || r < 0) {
        fputs("aioprof-top: cannot write the report to standard output.\n", stderr);
        return EXIT_FAILURE_RUNTIME;
    }
    return EXIT_OK;
}

/* Opens the live table. Returns 0, or an exit code after it said why it cannot. */
static int main_view_open(session_t *s)
{
    const options_t *o = s->o;
    const char *no_colour = getenv("NO_COLOR");
    top_view_options_t vo = {
        .unicode = main_utf8(),
        .colour = no_colour == NULL || no_colour[0] == '\0',
        .sort = (int)o->sort,
        .by_instance = o->instances,
    };
    s->view = top_view_open(&vo);
    if (s->view == NULL)
        return EXIT_FAILURE_RUNTIME;
    s->status.source = s->label;
    s->status.link = TOP_LINK_CONNECTED;
    s->status.record_path = o->write;
    s->status.replay = o->replay != NULL;
    if (main_capture_stderr(s) != 0)
        top_view_message(s->view, "aioprof-top: cannot capture error messages; they may draw over the table.");
    return 0;
}

static int main_session(const options_t *o)
{
    session_t s = {.o = o, .err_pipe = -1, .saved_stderr = -1};
    char err[600];
    int rc;
    int live = o->view == VIEW_LIVE;

    pipeline_config_t pc = {
        .slow_us = (uint64_t)(o->slow_ms * 1000.0),
        .text_line = main_text_line,
        .note = main_note,
    };
    /* a replay in the live table is for watching: as recorded unless told otherwise */
    s.speed = o->speed_given ? o->speed : (live ? 1.0 : 0.0);
    if (live) {
        /* before anything else, so a terminal problem is said before a port is opened */
        rc = main_view_open(&s);
        if (rc != 0)
            return rc;
        pc.text_line = top_view_text_line_cb;
        pc.user = s.view;
    }
    rc = main_open_input(&s);
    if (rc != 0)
        goto cleanup;
    if (o->export_trace != NULL) {
        /* after the input: a recording that cannot be read leaves no empty trace behind */
        s.trace = export_trace_open(o->export_trace, o->force, o->replay, s.label, err, sizeof err);
        if (s.trace == NULL) {
            fprintf(stderr, "aioprof-top: %s\n", err);
            rc = EXIT_FAILURE_RUNTIME;
            goto cleanup;
        }
        pc.observer = export_trace_observer();
        pc.observer_user = s.trace;
    }
    s.p = pipeline_new(&pc);
    if (s.p == NULL) {
        fputs("aioprof-top: out of memory.\n", stderr);
        rc = EXIT_FAILURE_RUNTIME;
        goto cleanup;
    }
    if (o->write != NULL) {
        s.rec = recorder_open(o->write, o->force, s.label, o->baud, err, sizeof err);
        if (s.rec == NULL) {
            fprintf(stderr, "aioprof-top: %s\n", err);
            rc = EXIT_FAILURE_RUNTIME;
            goto cleanup;
        }
        if (o->verbose)
            fprintf(stderr, "aioprof-top: recording to %s\n", o->write);
    }
    rc = main_run(&s);
    if (s.ended)
        pipeline_end_of_input(s.p); /* the end of a recording: was anything left in the device? */
    else
        pipeline_finish(s.p);
    if (rc == EXIT_OK && s.ended && s.view != NULL)
        main_view_hold(&s);
    /* closed here also after Ctrl-C or SIGTERM: the file always ends as valid JSON */
    if (s.trace != NULL) {
        uint64_t events = export_trace_events(s.trace);
        int tr = export_trace_close(s.trace);
        s.trace = NULL;
        if (tr < 0) {
            fprintf(stderr, "aioprof-top: the trace %s is incomplete (see above).\n", o->export_trace);
            if (rc == EXIT_OK)
                rc = EXIT_FAILURE_RUNTIME;
        } else if (o->verbose) {
            fprintf(stderr, "aioprof-top: wrote %llu trace events to %s\n", (unsigned long long)events,
                    o->export_trace);
        }
    }
    if (recorder_close(s.rec, s.last_us) < 0 && rc == EXIT_OK && o->verbose)
        fprintf(stderr, "aioprof-top: the recording %s is incomplete (see above).\n", o->write);
    s.rec = NULL;
    if (main_stop && o->verbose)
        fprintf(stderr, "aioprof-top: stopped by signal %d\n", (int)main_stop);
    if (o->verbose)
        fprintf(stderr, "aioprof-top: read %llu bytes from %s\n", (unsigned long long)s.bytes, s.label);
    if (!live) {
        int vr = main_view_end(&s, o->view);
        if (rc == EXIT_OK)
            rc = vr;
    }

cleanup:
    /* the terminal first, so what follows can be read */
    top_view_close(s.view);
    s.view = NULL;
    main_release_stderr(&s);
    recorder_close(s.rec, s.last_us);
    /* still open here only when the session never started: a trace this run made goes */
    export_trace_discard(s.trace);
    source_close(s.src);
    demo_stop(s.demo);
    pipeline_free(s.p);
    return rc;
}

int main(int argc, char **argv)
{
    options_t o;
    char err[600];

    setlocale(LC_ALL, "");
    switch (options_parse(&o, argc, argv)) {
    case OPTIONS_DONE: return EXIT_OK;
    case OPTIONS_BAD: return EXIT_USAGE;
    case OPTIONS_RUN: break;
    }
    main_signals();
    if (o.list) {
        if (source_list_ports(stdout, err, sizeof err) < 0) {
            fprintf(stderr, "aioprof-top: %s\n", err);
            return EXIT_FAILURE_RUNTIME;
        }
        return EXIT_OK;
    }
    return main_session(&o);
}
