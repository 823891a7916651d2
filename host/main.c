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
#include <time.h>
#include <unistd.h>

#include "demo.h"
#include "export_trace.h"
#include "options.h"
#include "pipeline.h"
#include "recorder.h"
#include "replay.h"
#include "report.h"
#include "source.h"
#include "stderr_capture.h"
#include "top_view.h"

#define READ_TIMEOUT_MS 50      /* how often the loop looks at signals, the clock, the recorder */
#define MAIN_STOP (-1)          /* main_link_lost(): end the session normally */
/* The loop's chores (the table's turn: keys, a redraw when due; the recorder, the trace, the
 * demo) are done at most this often while bytes flow, and whenever the input is quiet. */
#define MAIN_TURN_US 10000u
/* A live read smaller than this is a trickle (a UART's few bytes at a time): the loop then lets
 * bytes gather for MAIN_GATHER_MS before it reads again, instead of waking for every few. */
#define MAIN_GATHER_BELOW 1024
#define MAIN_GATHER_MS 10
#define MAIN_SEEK_STEP_US 10000000u /* the table's left and right keys: 10 s */

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
    replay_t *replay;    /* -r: pace, pause, position, seeking */
    double speed;        /* the replay's pace at the start */
    stderr_capture_t err; /* while the table owns the terminal: stderr's lines come out here */
    uint64_t last_us;    /* the latest host time seen */
    uint64_t deadline_us; /* --duration: when the session ends (monotonic), or 0 */
    uint64_t turn_us;    /* when the loop's chores were last done */
    int turn_due;        /* do them now: the input is quiet, or a key is waiting */
    int ended;           /* the input ended (a replay's end, a raw capture's) */
    int finished;        /* the pipeline was told the input ended */
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

/* A line of stderr while the table owns the terminal: the table's message. */
static void main_err_line(void *user, const char *line)
{
    top_view_message(((session_t *)user)->view, line);
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
        s->replay = replay_new(s->src, o->replay, speed, o->view == VIEW_LIVE);
        if (s->replay == NULL) {
            snprintf(err, sizeof err, "out of memory.");
            goto error;
        }
        snprintf(s->label, sizeof s->label, "%s", s->src->name);
        return 0;
    }
    const char *path = o->port;
    if (o->demo) {
        int usage = 0;
        s->demo = demo_start(o->workload, o->text_every >= 0 ? o->text_every : OPTIONS_TEXT_DEMO, o->verbose, err,
                             sizeof err, &usage);
        if (s->demo == NULL) {
            fprintf(stderr, "aioprof-top: %s\n", err);
            return usage ? EXIT_USAGE : EXIT_FAILURE_RUNTIME;
        }
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
    uint64_t before = pipeline_stats(s->p)->elapsed_us;
    pipeline_feed(s->p, data, (size_t)n);
    if (s->replay != NULL)
        replay_fed(s->replay, before, pipeline_stats(s->p)->elapsed_us);
    s->bytes += (uint64_t)n;
}

/* Waits up to ms for a key (the table's), or just waits without a table: a trickle gathering, a
 * raw capture's pace. A key makes the table's turn due at once. */
static void main_wait(session_t *s, int ms)
{
    if (ms <= 0)
        return;
    if (s->view == NULL) {
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        return;
    }
    struct pollfd pfd = {.fd = top_view_fd(s->view), .events = POLLIN};
    if (poll(&pfd, 1, ms) > 0)
        s->turn_due = 1;
}

/* The replay reached its end (the table stays on it until the user quits or seeks back). */
static void main_input_ended(session_t *s)
{
    s->ended = 1;
    if (!s->finished)
        pipeline_end_of_input(s->p); /* the end of a recording: was anything left in the device? */
    s->finished = 1;
    s->status.link = TOP_LINK_ENDED;
    if (s->replay != NULL)
        replay_ended(s->replay);
}

/* The table's seek keys: 10 s back or forward, the start, the end. */
static void main_seek(session_t *s, top_action_t a)
{
    char err[600];
    uint64_t len = 0, at = replay_position_us(s->replay, source_monotonic_us()), to;
    int known = replay_length_us(s->replay, &len);
    switch (a) {
    case TOP_REPLAY_BACK: to = at > MAIN_SEEK_STEP_US ? at - MAIN_SEEK_STEP_US : 0; break;
    case TOP_REPLAY_FORWARD: to = at + MAIN_SEEK_STEP_US; break;
    case TOP_REPLAY_START: to = 0; break;
    default: to = known ? len : UINT64_MAX / 4; break; /* replay_seek takes it on to the end */
    }
    if (s->ended && to >= at)
        return; /* nothing lies after the end */
    switch (replay_seek(s->replay, to, s->trace == NULL, err, sizeof err)) {
    case REPLAY_SEEK_REFUSED:
        fprintf(stderr, "aioprof-top: %s\n", err);
        break;
    case REPLAY_SEEK_RESTART:
        /* everything before the target is read again: the figures are rebuilt from nothing */
        pipeline_restart(s->p);
        top_view_restart(s->view);
        s->ended = s->finished = 0;
        s->status.link = TOP_LINK_CONNECTED;
        break;
    default:
        break;
    }
}

/* The live table's keys that main acts on. Returns 1 to quit. */
static int main_view_action(session_t *s, top_action_t a)
{
    switch (a) {
    case TOP_QUIT:
        return 1;
    case TOP_REPLAY_PAUSE_TOGGLE:
        if (s->replay != NULL)
            replay_pause(s->replay, !replay_paused(s->replay));
        break;
    case TOP_REPLAY_FASTER:
        if (s->replay != NULL)
            replay_faster(s->replay);
        break;
    case TOP_REPLAY_SLOWER:
        if (s->replay != NULL)
            replay_slower(s->replay);
        break;
    case TOP_REPLAY_BACK:
    case TOP_REPLAY_FORWARD:
    case TOP_REPLAY_START:
    case TOP_REPLAY_END:
        if (s->replay != NULL)
            main_seek(s, a);
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
    stderr_capture_drain(&s->err, main_err_line, s);
    uint64_t now = source_monotonic_us();
    s->status.record_bytes = recorder_bytes(s->rec);
    if (s->replay != NULL) {
        uint64_t len;
        replay_scan(s->replay);
        s->status.replay_paused = replay_paused(s->replay);
        s->status.replay_speed = replay_speed(s->replay);
        s->status.replay_seeking = replay_seeking(s->replay);
        s->status.replay_position_s = (double)replay_position_us(s->replay, now) / 1e6;
        s->status.replay_length_s = replay_length_us(s->replay, &len) ? (double)len / 1e6 : -1;
    }
    return main_view_action(s, top_view_poll(s->view, s->p, &s->status, now));
}

/* The loop's chores: the table's turn, the recorder's and the trace's writes, the demo's
 * output. Returns 1 when the user quit. */
static int main_chores(session_t *s)
{
    s->turn_us = source_monotonic_us();
    s->turn_due = 0;
    recorder_tick(s->rec);
    export_trace_tick(s->trace);
    if (s->demo != NULL)
        demo_pump(s->demo);
    return main_view_turn(s);
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

/* The pump. Returns an exit code. The table's end of a replay stays in it: the table holds the
 * end until the user quits, or seeks back into the replay. */
static int main_run(session_t *s)
{
    const options_t *o = s->o;
    uint8_t buf[4096];
    if (o->duration_s > 0)
        s->deadline_us = source_monotonic_us() + (uint64_t)(o->duration_s * 1e6);
    s->turn_due = 1;

    while (!main_stop) {
        uint64_t host_us = s->last_us, now = source_monotonic_us();
        if ((s->turn_due || now - s->turn_us >= MAIN_TURN_US) && main_chores(s))
            break;
        if (main_time_up(s))
            break;
        if (s->ended || (s->replay != NULL && replay_paused(s->replay) && !replay_seeking(s->replay))) {
            main_wait(s, READ_TIMEOUT_MS);
            s->turn_due = 1;
            continue;
        }
        int due_ms = s->replay != NULL ? replay_due_ms(s->replay, now) : 0;
        if (due_ms > 0) {
            main_wait(s, due_ms); /* a raw capture paced by its device time */
            s->turn_due = 1;
            continue;
        }
        size_t want = s->replay != NULL ? replay_read_size(s->replay, sizeof buf) : sizeof buf;
        long n = source_read(s->src, buf, want, READ_TIMEOUT_MS, &host_us);
        if (n > 0) {
            s->last_us = host_us;
            main_take(s, buf, n, host_us);
            if (!s->src->is_file && n < MAIN_GATHER_BELOW)
                main_wait(s, MAIN_GATHER_MS);
        } else if (n == SOURCE_TIMEOUT) {
            s->turn_due = 1;
        } else if (n == SOURCE_EOF) {
            if (s->view == NULL) {
                s->ended = 1;
                break;
            }
            main_input_ended(s);
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
        .interval_us = (uint64_t)(o->interval_s * 1e6),
    };
    int usage = 0;
    s->view = top_view_open(&vo, &usage);
    if (s->view == NULL)
        return usage ? EXIT_USAGE : EXIT_FAILURE_RUNTIME;
    s->status.source = s->label;
    s->status.link = TOP_LINK_CONNECTED;
    s->status.record_path = o->write;
    s->status.replay = o->replay != NULL;
    if (stderr_capture_start(&s->err) != 0)
        top_view_message(s->view, "aioprof-top: cannot capture error messages; they may draw over the table.");
    return 0;
}

static int main_session(const options_t *o)
{
    session_t s = {.o = o, .err = {.pipe = -1, .saved = -1}};
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
        main_input_ended(&s);
    else if (!s.finished)
        pipeline_finish(s.p);
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
    stderr_capture_stop(&s.err);
    recorder_close(s.rec, s.last_us);
    /* still open here only when the session never started: a trace this run made goes */
    export_trace_discard(s.trace);
    replay_free(s.replay);
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
