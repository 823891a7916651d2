/* aioprof-top: opens the input (a port, a recording, the simulator), pumps its bytes through the
 * recorder and the pipeline until the end, Ctrl-C or --duration, showing the live table as it
 * goes, or a report at the end (session_outputs.c makes the outputs and the report).
 *
 *   source_read -> (--run: the raw REPL's handshake) -> recorder_data -> pipeline_feed -> (view)
 *
 * Live and replay share every line after the read; a port going away is a link event for both. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "board_install.h"
#include "compare_session.h"
#include "events.h"
#include "session.h"
#include "monotonic.h"

#define READ_TIMEOUT_MS 50      /* how often the loop looks at signals, the clock, the recorder */
#define MAIN_STOP (-1)          /* main_link_lost(): end the session normally */
/* The loop's chores (the table's turn: keys, a redraw when due; the recorder, the trace, the log,
 * the demo) are done at most this often while bytes flow, and whenever the input is quiet. */
#define MAIN_TURN_US 10000u
/* A live read that took less than a tty's line discipline holds emptied the port's queue, and so
 * does one that finds it empty after a full one: the loop then lets bytes gather before it reads
 * again, instead of waking for every few, for up to MAIN_GATHER_MS (30 ms: a third of the table's
 * refresh; a UART's 11.5 kB/s gathers 350 bytes; the loop's wake-ups, not the bytes, were most of
 * a trickle's cost at 10 ms), and never longer than the kernel holds at the rate the bytes come
 * (source_pace_gather_ms: at 1 MB/s 2 ms). */
#define MAIN_GATHER_BELOW (SOURCE_TTY_HOLDS - 1u)
#define MAIN_GATHER_MS 30
#define MAIN_SEEK_STEP_US 10000000u /* the table's left and right keys: 10 s */

static volatile sig_atomic_t main_stop;

static void main_on_signal(int sig)
{
    main_stop = sig;
}

/* A line of device text (escaped): to the log, and to the table's pane, or to stderr beside a
 * report when there is no log. (With no view at all the outputs hold it: the recording, the
 * trace, the log.) */
static void main_text_line(void *user, const char *text)
{
    session_t *s = user;
    char line[EVENTS_LINE_MAX * 4 + 8];
    snprintf(line, sizeof line, "%s", text);
    if (!run_text_line(&s->run, line))
        return;
    text_log_line(s->log, s->feed_us, line);
    if (s->view != NULL)
        top_view_text_line(s->view, line);
    else if (s->log == NULL && s->kind != VIEW_NONE)
        fprintf(stderr, "device: %s\n", line);
}

/* The pipeline's word on the stream (another device on the link): on stderr, which the live table
 * shows as its message line. */
static void main_note(void *user, const char *sentence)
{
    (void)user;
    fprintf(stderr, "aioprof-top: %s\n", sentence);
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

/* The report's and the header's name of the input: a port by its stable name once it is known;
 * a replay by its file's, also when its recording's link came back. */
static void main_label(session_t *s)
{
    if (s->o->replay != NULL)
        snprintf(s->label, sizeof s->label, "%s", s->src->name);
    else if (s->demo != NULL)
        snprintf(s->label, sizeof s->label, "demo (aioprof-sim on %s)", s->src->name);
    else
        snprintf(s->label, sizeof s->label, "%s @ %d", s->src->name, s->o->baud);
}

/* Opens what the options name. Returns 0, or an exit code after printing why. */
static int main_open_input(session_t *s)
{
    const options_t *o = s->o;
    char err[600];

    if (o->replay != NULL) {
        /* pacing is for watching (main_session chose it); a report reads as fast as it can */
        double speed = s->speed;
        s->src = source_file_open(o->replay, speed, o->verbose, err, sizeof err);
        if (s->src == NULL)
            goto error;
        s->replay = replay_new(s->src, o->replay, speed, s->kind == VIEW_LIVE);
        if (s->replay == NULL) {
            snprintf(err, sizeof err, "out of memory.");
            goto error;
        }
        main_label(s);
        return 0;
    }
    const char *path = o->port;
    unsigned flags = 0;
    if (o->demo) {
        int usage = 0;
        s->demo = demo_start(o->workload, o->text_every >= 0 ? o->text_every : OPTIONS_TEXT_DEMO, o->run != NULL,
                             o->verbose, err, sizeof err, &usage);
        if (s->demo == NULL) {
            fprintf(stderr, "aioprof-top: %s\n", err);
            return usage ? EXIT_USAGE : EXIT_FAILURE_RUNTIME;
        }
        path = demo_pty(s->demo);
    } else if (!o->no_reconnect) {
        /* a board not plugged in yet is waited for, as tio does */
        flags |= SOURCE_DEVICE_WAIT;
    }
    if (o->run != NULL)
        flags |= SOURCE_DEVICE_WRITE;
    flags |= (o->dtr_off ? SOURCE_DEVICE_DTR_OFF : 0u) | (o->rts_off ? SOURCE_DEVICE_RTS_OFF : 0u);
    s->src = source_device_open(path, o->baud, flags, o->verbose, err, sizeof err);
    if (s->src == NULL)
        goto error;
    main_label(s);
    return 0;

error:
    fprintf(stderr, "aioprof-top: %s\n", err);
    return EXIT_FAILURE_RUNTIME;
}

static void main_take(session_t *s, const uint8_t *data, long n, uint64_t host_us)
{
    /* --run: the raw REPL's handshake is not the program's: neither profiled nor recorded */
    size_t handshake = run_take(&s->run, data, (size_t)n, monotonic_us());
    data += handshake;
    n -= (long)handshake;
    if (n == 0)
        return;
    s->feed_us = host_us;
    recorder_data(s->rec, host_us, data, (size_t)n);
    /* not pipeline_stats: it would sum the name rows after every read */
    uint64_t before = pipeline_elapsed_us(s->p);
    session_hogs_feed(s, host_us, data, (size_t)n); /* pipeline_feed, and the hogs' ring */
    if (s->replay != NULL)
        replay_fed(s->replay, (size_t)n, before, pipeline_elapsed_us(s->p));
    report_lines_feed(s->lines, data, (size_t)n);
    compare_feed_bytes(s->cmp, data, (size_t)n);
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

/* The replay reached its end in the live table: the pipeline finishes, and the table stays on it
 * until the user quits or seeks back. */
static void main_input_ended(session_t *s)
{
    s->ended = 1;
    session_pipeline_end(s);
    s->status.link = TOP_LINK_ENDED;
    if (s->replay != NULL)
        replay_ended(s->replay);
}

/* The table's seek keys: 10 s back or forward, the start, the end. */
static void main_seek(session_t *s, top_action_t a)
{
    char err[600];
    uint64_t len = 0, at = replay_position_us(s->replay, monotonic_us()), to;
    int known = replay_length_us(s->replay, &len);
    switch (a) {
    case TOP_REPLAY_BACK: to = at > MAIN_SEEK_STEP_US ? at - MAIN_SEEK_STEP_US : 0; break;
    case TOP_REPLAY_FORWARD: to = at + MAIN_SEEK_STEP_US; break;
    case TOP_REPLAY_START: to = 0; break;
    default: to = known ? len : UINT64_MAX / 4; break; /* replay_seek takes it on to the end */
    }
    if (s->ended && to >= at)
        return; /* nothing lies after the end */
    /* the outputs written as it goes would write what lies before the target again */
    const char *no_rewind = NULL;
    if (s->trace != NULL)
        no_rewind = "a trace is exported (--export-trace): it would repeat the trace's events";
    else if (s->log != NULL)
        no_rewind = "the device text is logged (--log): it would repeat the log's lines";
    switch (replay_seek(s->replay, to, no_rewind, err, sizeof err)) {
    case REPLAY_SEEK_REFUSED:
        fprintf(stderr, "aioprof-top: %s\n", err);
        break;
    case REPLAY_SEEK_RESTART:
        /* everything before the target is read again: the figures are rebuilt from nothing */
        pipeline_restart(s->p);
        compare_feed_restart(s->cmp);
        session_hogs_restart(s);
        session_metrics_restart(s);
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
    case TOP_DEVICE_INTERRUPT:
    case TOP_DEVICE_RESET:
        run_key(&s->run, a);
        break;
    case TOP_HOG_OPEN:
        session_hogs_show(s, top_view_hog_chosen(s->view));
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
    stderr_capture_drain(&s->err, s->view);
    uint64_t now = monotonic_us();
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
    int quit = main_view_action(s, top_view_poll(s->view, s->p, &s->status, now));
    if (quit && s->end_how == NULL)
        s->end_how = "q";
    return quit;
}

/* The loop's chores: the recorder's, the trace's and the log's writes, the demo's output, the
 * table's turn. Returns 1 when the user quit. */
static int main_chores(session_t *s)
{
    s->turn_us = monotonic_us();
    s->turn_due = 0;
    recorder_tick(s->rec);
    export_trace_tick(s->trace);
    text_log_tick(s->log);
    session_metrics_tick(s);
    if (s->demo != NULL)
        demo_pump(s->demo);
    return main_view_turn(s);
}

/* The session's time line moved to host_us: --json-lines writes the intervals that ended. Returns
 * 0, or 1 when the lines cannot be written any more (the session ends: main_lines_failed). */
static int main_lines_tick(session_t *s, uint64_t host_us)
{
    if (host_us > s->now_us)
        s->now_us = host_us;
    return s->lines != NULL && report_lines_tick(s->lines, s->p, s->now_us) < 0;
}

/* --json-lines of a raw capture: its time line is the device time its frames carry, not the
 * receive times of its bytes (this replay's wall clock, which --speed changes, and which a slow
 * line made run on: a line after nearly every read). */
static int main_lines_device_time(const session_t *s)
{
    return s->lines != NULL && s->replay != NULL && source_file_is_raw(s->src);
}

/* A raw capture's read, a frame at a time: before each, the intervals that ended by the device
 * time the frames before it reached. Returns as main_lines_tick. */
static int main_take_frames(session_t *s, const uint8_t *data, long n, uint64_t host_us)
{
    long at = 0;
    while (at < n) {
        const uint8_t *zero = memchr(data + at, 0, (size_t)(n - at));
        long end = zero != NULL ? (long)(zero - data) + 1 : n;
        if (main_lines_tick(s, pipeline_elapsed_us(s->p)))
            return 1;
        main_take(s, data + at, end - at, host_us);
        at = end;
    }
    if (pipeline_elapsed_us(s->p) > s->now_us)
        s->now_us = pipeline_elapsed_us(s->p); /* where the last line ends, at the end */
    return 0;
}

/* Is --duration over? */
static int main_time_up(session_t *s)
{
    if (s->deadline_us == 0 || monotonic_us() < s->deadline_us)
        return 0;
    if (s->end_how == NULL)
        s->end_how = "--duration";
    return 1;
}

/* Waits for the link to be up (a port gone, or not there yet), the table alive. Returns 0 when it
 * is up, MAIN_STOP to end the session normally, or an exit code. */
static int main_wait_link(session_t *s)
{
    uint64_t host_us = s->last_us;
    s->status.link = TOP_LINK_WAITING;
    while (!main_stop) {
        if (main_view_turn(s))
            return MAIN_STOP;
        int r = source_reconnect(s->src, s->view != NULL ? READ_TIMEOUT_MS : SOURCE_RECONNECT_POLL_MS, &host_us);
        if (!main_lines_device_time(s) && main_lines_tick(s, host_us))
            return session_lines_failed(s);
        if (r == SOURCE_BACK) {
            s->status.link = TOP_LINK_CONNECTED;
            s->last_us = host_us;
            main_label(s);
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
        text_log_tick(s->log);
        if (main_time_up(s))
            return MAIN_STOP;
    }
    return MAIN_STOP;
}

/* The board is not there yet (the port does not exist, or no board was found): say so once (in
 * the table's header, or on stderr) and wait for it. Returns as main_wait_link. */
static int main_wait_first(session_t *s)
{
    char msg[600];
    if (s->o->port != NULL)
        snprintf(msg, sizeof msg, "waiting for %s", s->src->name);
    else
        snprintf(msg, sizeof msg, "waiting for a MicroPython board (aioprof-top --list shows the ports)");
    if (s->view != NULL)
        top_view_message(s->view, msg);
    else
        fprintf(stderr, "aioprof-top: %s (Ctrl-C to stop).\n", msg);
    int r = main_wait_link(s);
    if (r == 0 && s->view != NULL)
        top_view_message(s->view, NULL);
    else if (r == 0 && s->o->port != NULL)
        fprintf(stderr, "aioprof-top: %s is here.\n", s->src->name);
    return r;
}

/* The port went away: keep everything, say so once, and wait for the same path to return (or,
 * for a recording, read on to where it returned). Returns 0 when the link is back, MAIN_STOP to
 * end the session normally, or an exit code. */
static int main_link_lost(session_t *s)
{
    const options_t *o = s->o;
    int live = !s->src->is_file;

    pipeline_link_down(s->p);
    report_lines_link(s->lines, 0);
    compare_feed_link(s->cmp, 0);
    run_link_lost(&s->run);
    recorder_link(s->rec, 0, s->last_us);
    session_hogs_link(s, 0, s->last_us);
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
    int r = main_wait_link(s);
    if (r != 0)
        return r;
    pipeline_link_up(s->p);
    report_lines_link(s->lines, 1);
    compare_feed_link(s->cmp, 1);
    recorder_link(s->rec, 1, s->last_us);
    session_hogs_link(s, 1, s->last_us);
    run_link_up(&s->run, s->src, monotonic_us());
    if (live)
        fprintf(stderr, "aioprof-top: %s is back.\n", s->src->name);
    return 0;
}

/* The pump. Returns an exit code. The table's end of a replay stays in it: the table holds the
 * end until the user quits, or seeks back into the replay. */
static int main_run(session_t *s)
{
    const options_t *o = s->o;
    uint8_t buf[4096];
    if (s->src->down) {
        int r = main_wait_first(s);
        if (r != 0)
            return r == MAIN_STOP ? EXIT_OK : r;
    }
    run_link_up(&s->run, s->src, monotonic_us());
    /* --duration counts from when the board is there */
    if (o->duration_s > 0)
        s->deadline_us = monotonic_us() + (uint64_t)(o->duration_s * 1e6);
    s->turn_due = 1;
    int flowing = 0; /* a live read just returned bytes: the next one does not wait */
    source_pace_t pace; /* how long the bytes may gather: no longer than the port's kernel side holds */
    source_pace_quiet(&pace, monotonic_us());

    while (!main_stop) {
        uint64_t host_us = s->last_us, now = monotonic_us();
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
        /* while bytes flow, a read that finds none means the queue is drained: the bytes then
         * gather (below) instead of the loop waking for the next few */
        int timeout_ms = flowing ? 0 : run_read_timeout_ms(&s->run, READ_TIMEOUT_MS);
        long n = source_read(s->src, buf, want, timeout_ms, &host_us);
        int drained = flowing && n == SOURCE_TIMEOUT;
        flowing = n > 0 && !s->src->is_file && !run_handshaking(&s->run);
        /* before the bytes: an interval that ended is written without them */
        int device_time = main_lines_device_time(s);
        if (!device_time && main_lines_tick(s, host_us))
            return session_lines_failed(s);
        if (n > 0) {
            s->last_us = host_us;
            source_pace_took(&pace, (size_t)n);
            if (!device_time)
                main_take(s, buf, n, host_us);
            else if (main_take_frames(s, buf, n, host_us))
                return session_lines_failed(s);
            /* not while --run's handshake waits for the board's every answer */
            if (!s->src->is_file && (size_t)n < MAIN_GATHER_BELOW && !run_handshaking(&s->run))
                main_wait(s, source_pace_gather_ms(&pace, monotonic_us(), MAIN_GATHER_MS));
        } else if (n == SOURCE_TIMEOUT) {
            s->turn_due = 1;
            if (drained)
                main_wait(s, source_pace_gather_ms(&pace, monotonic_us(), MAIN_GATHER_MS));
            else
                source_pace_quiet(&pace, monotonic_us());
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
            source_pace_quiet(&pace, monotonic_us());
        } else if (n == SOURCE_HOLE) {
            pipeline_input_damaged(s->p);
            report_lines_input_damaged(s->lines);
            compare_feed_input_damaged(s->cmp);
        } else if (n == SOURCE_ERROR) {
            fprintf(stderr, "aioprof-top: %s\n", source_error(s->src));
            return EXIT_FAILURE_RUNTIME;
        }
        run_status_t rs = run_turn(&s->run, s->p, monotonic_us());
        if (rs == RUN_FAILED)
            return EXIT_FAILURE_RUNTIME;
        if (rs == RUN_PROGRAM_ENDED && s->view == NULL) {
            /* a report of the program: it ended, and so does the session */
            s->program_ended = 1;
            s->ended = 1;
            break;
        }
    }
    return EXIT_OK;
}

/* Opens the live table. Returns 0, or an exit code after it said why it cannot. */
static int main_view_open(session_t *s)
{
    const options_t *o = s->o;
    const char *no_colour = getenv("NO_COLOR");
    top_view_options_t vo = {
        .unicode = session_utf8(),
        .colour = no_colour == NULL || no_colour[0] == '\0',
        .sort = (int)o->sort,
        .by_instance = o->instances,
        .interval_us = (uint64_t)(o->interval_s * 1e6),
        .cmp_base = s->have_base ? &s->cmp_base : NULL,
        .cmp_live = s->cmp,
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
    session_t s = {.o = o};
    stderr_capture_init(&s.err);
    char err[600];
    int rc;
    s.kind = session_view_kind(o);
    int live = s.kind == VIEW_LIVE;

    pipeline_config_t pc = {
        .slow_us = (uint64_t)(o->slow_ms * 1000.0),
        .text_line = main_text_line,
        .note = main_note,
        .user = &s,
    };
    /* a replay in the live table is for watching: as recorded unless told otherwise */
    s.speed = o->speed_given ? o->speed : (live ? 1.0 : 0.0);
    /* the budget and the base first: a mistake in either leaves the terminal and the board alone */
    rc = session_checks_open(&s);
    if (rc == 0)
        rc = session_metrics_open(&s);
    if (rc == 0)
        rc = session_hogs_open(&s);
    if (rc != 0)
        goto cleanup;
    if (live) {
        /* before the input, so a terminal problem is said before a port is opened */
        rc = main_view_open(&s);
        if (rc != 0)
            goto cleanup;
    }
    if (o->run != NULL && run_open(&s.run, o->run, live, !o->no_enable, !o->no_reset, err, sizeof err) < 0) {
        /* before the port: a program that cannot be sent leaves the board alone */
        fprintf(stderr, "aioprof-top: %s\n", err);
        rc = EXIT_FAILURE_RUNTIME;
        goto cleanup;
    }
    rc = main_open_input(&s);
    if (rc != 0)
        goto cleanup;
    rc = session_outputs_open(&s, &pc);
    if (rc != 0)
        goto cleanup;
    rc = main_run(&s);
    run_leave(&s.run);
    /* a stream found to be neither a recording nor a capture (empty, another version) fails as such
     * a file fails to open: no report, and the outputs this run made are removed */
    if (rc != EXIT_OK && source_file_undecided(s.src))
        goto cleanup;
    rc = session_finish(&s, rc);
    rc = session_outputs_close(&s, rc, (int)main_stop);

cleanup:
    /* the terminal first, so what follows can be read */
    top_view_close(s.view);
    s.view = NULL;
    stderr_capture_stop(&s.err, s.view);
    session_outputs_free(&s);
    session_metrics_close(&s);
    replay_free(s.replay);
    source_close(s.src);
    demo_stop(s.demo);
    run_close(&s.run);
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
    if (o.install || o.uninstall) {
        int rc = o.install ? board_install(&o) : board_uninstall(&o);
        if (rc != EXIT_OK || o.run == NULL)
            return rc;
    } else if (o.in_ram) {
        /* a board without aioprof gets the python engine in RAM for this run */
        int rc = board_run_prepare(&o, &o.no_reset);
        if (rc != EXIT_OK)
            return rc;
    }
    if (o.compare_new != NULL)
        return compare_files(&o);
    return main_session(&o);
}
