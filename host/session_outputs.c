/* What a session makes (session.h): the pipeline and its outputs (the trace, the JSON lines, the
 * text log, the recording), opened once the input is open and closed at the end with a word when
 * one is incomplete; the report; and what the trace says of how the session ended. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "session.h"

#include <errno.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "file_out.h"
#include "report.h"
#include "monotonic.h"

int session_utf8(void)
{
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && strcmp(codeset, "UTF-8") == 0;
}

/* The report at the end: --report or --json. */
static int session_report(session_t *s, view_kind_t view)
{
    report_options_t ro = {
        .sort = s->o->sort,
        .by_instance = s->o->instances,
        .source = s->label,
    };
    ro.unicode = session_utf8();
    int r = view == VIEW_JSON ? report_json(stdout, s->p, &ro) : report_text(stdout, s->p, &ro);
    if (fflush(stdout) != 0 || r < 0) {
        fputs("aioprof-top: cannot write the report to standard output.\n", stderr);
        return EXIT_FAILURE_RUNTIME;
    }
    return EXIT_OK;
}

view_kind_t session_view_kind(const options_t *o)
{
    int outputs = o->write != NULL || o->export_trace != NULL || o->log != NULL;
    int terminal = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    /* a budget checked where nobody watches (a CI job) ends with the text report its breaches
     * refer to */
    if (o->view == VIEW_LIVE && (o->budget != NULL || o->junit != NULL) && !terminal)
        return VIEW_REPORT;
    if (o->view == VIEW_LIVE && outputs && !terminal)
        return VIEW_NONE;
    return o->view;
}

int session_lines_failed(session_t *s)
{
    s->lines_failed = errno;
    if (errno == EPIPE)
        return EXIT_OK;
    fprintf(stderr, "aioprof-top: cannot write the JSON lines to standard output: %s.\n", strerror(errno));
    return EXIT_FAILURE_RUNTIME;
}

/* ---- the trace and the live table's timeline both watching: the pipeline has one observer ---- */

/* Each member of the observer has its forwarder below: a member added to pipeline_observer_t
 * fails this until it has one (late-core's late did once, and the trace beside the table lost it). */
_Static_assert(sizeof(pipeline_observer_t) == 6 * sizeof(void (*)(void)),
    "pipeline_observer_t has a member the tee does not forward");

static void tee_slice(void *user, const pipeline_slice_t *slice)
{
    session_t *s = user;
    export_trace_observer()->slice(s->trace, slice);
    top_view_observer()->slice(s->view, slice);
}

static void tee_late(void *user, const pipeline_late_t *late)
{
    session_t *s = user;
    export_trace_observer()->late(s->trace, late);
}

static void tee_mark(void *user, pipeline_mark_t mark, uint64_t at_us, uint64_t count)
{
    session_t *s = user;
    export_trace_observer()->mark(s->trace, mark, at_us, count);
}

static void tee_text_line(void *user, uint64_t at_us, const char *line)
{
    session_t *s = user;
    export_trace_observer()->text_line(s->trace, at_us, line);
}

static void tee_event(void *user, uint64_t at_us)
{
    session_t *s = user;
    export_trace_observer()->event(s->trace, at_us);
}

static void tee_span(void *user, const pipeline_span_t *span)
{
    session_t *s = user;
    if (export_trace_observer()->span) {
        export_trace_observer()->span(s->trace, span);
    }
    if (top_view_observer()->span) {
        top_view_observer()->span(s->view, span);
    }
}

/* The observer of a session: the trace's, the timeline's, both, or none. */
static void session_observe(session_t *s, pipeline_config_t *pc)
{
    const pipeline_observer_t *trace = export_trace_observer(), *view = top_view_observer();
    static pipeline_observer_t tee;
    if (s->trace != NULL && s->view != NULL) {
        /* only the trace's members that are there: a NULL one costs the pipeline nothing */
        tee = (pipeline_observer_t){
            .late = trace->late ? tee_late : NULL,
            .slice = trace->slice && view->slice ? tee_slice : NULL,
            .mark = trace->mark ? tee_mark : NULL,
            .text_line = trace->text_line ? tee_text_line : NULL,
            .event = trace->event ? tee_event : NULL,
            .span = trace->span || view->span ? tee_span : NULL,
        };
        pc->observer = &tee;
        pc->observer_user = s;
    } else if (s->trace != NULL) {
        pc->observer = trace;
        pc->observer_user = s->trace;
    } else if (s->view != NULL) {
        pc->observer = view;
        pc->observer_user = s->view;
    }
}

/* What ended the session, for a trace cut short. */
static const char *session_end_how(const session_t *s, int signal)
{
    if (s->program_ended)
        return "the end of the program";
    if (s->ended)
        return s->src->is_file ? "the end of the input" : "the end of the stream";
    if (s->end_how != NULL)
        return s->end_how;
    switch (signal) {
    case SIGINT: return "Ctrl-C";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "an error";
    }
}

/* The trace says how the session ended; a replay stopped before its end says so on stderr too. */
static void session_trace_ended(session_t *s, int signal)
{
    int cut = s->src != NULL && s->src->is_file && !s->ended;
    export_trace_ended(s->trace, !cut, session_end_how(s, signal));
    if (cut)
        fprintf(stderr, "aioprof-top: the trace %s is cut short: %s stopped the replay at %.1f s of %s "
                "(the file is valid; its otherData says \"complete\": false).\n", s->o->export_trace,
                session_end_how(s, signal), (double)replay_position_us(s->replay, monotonic_us()) / 1e6,
                s->src->name);
}

/* What the session reads and writes before its outputs (file_out_files_t), and then each output
 * claimed by its path: an output that is one of them, or two outputs that are one regular file,
 * whatever their names, are refused before any is opened, emptied or written. */
static int session_outputs_claim(session_t *s, file_out_files_t *files, char *err, size_t errlen)
{
    const options_t *o = s->o;
    if (o->replay != NULL)
        file_out_note(files, strcmp(o->replay, "-") == 0 ? STDIN_FILENO : -1, o->replay, 1,
                      "the recording being replayed");
    else if (!s->src->down)
        file_out_note(files, -1, s->src->name, 1, "the port being read");
    if (o->run != NULL)
        file_out_note(files, -1, o->run, 1, "the program --run sends");
    if (s->kind != VIEW_NONE)
        file_out_note(files, STDOUT_FILENO, NULL, 0, "standard output");
    if ((o->export_trace != NULL && file_out_claim(files, o->export_trace, "trace", err, errlen) < 0) ||
        (o->log != NULL && file_out_claim(files, o->log, "log", err, errlen) < 0) ||
        (o->write != NULL && file_out_claim(files, o->write, "recording", err, errlen) < 0) ||
        (o->junit != NULL && file_out_claim(files, o->junit, "JUnit report", err, errlen) < 0))
        return -1;
    return 0;
}

int session_outputs_open(session_t *s, pipeline_config_t *pc)
{
    const options_t *o = s->o;
    char err[600];
    file_out_files_t files = {0};

    /* after the input: a recording that cannot be read leaves no empty output behind */
    if (session_outputs_claim(s, &files, err, sizeof err) < 0) {
        fprintf(stderr, "aioprof-top: %s\n", err);
        return EXIT_USAGE;
    }
    if (o->export_trace != NULL) {
        s->trace = export_trace_open(o->export_trace, o->force, &files, s->label, err, sizeof err);
        if (s->trace == NULL) {
            fprintf(stderr, "aioprof-top: %s\n", err);
            return files.clash ? EXIT_USAGE : EXIT_FAILURE_RUNTIME;
        }
    }
    session_observe(s, pc);
    session_checks_observe(s, pc);
    session_hogs_observe(s, pc);
    session_metrics_observe(s, pc);
    s->p = pipeline_new(pc);
    if (s->p == NULL) {
        fputs("aioprof-top: out of memory.\n", stderr);
        return EXIT_FAILURE_RUNTIME;
    }
    if (s->kind == VIEW_JSON_LINES) {
        report_options_t ro = {.sort = o->sort, .by_instance = o->instances, .source = s->label};
        double interval = o->interval_s > 0 ? o->interval_s : OPTIONS_INTERVAL_LINES;
        s->lines = report_lines_open(stdout, (uint64_t)(interval * 1e6), pc->slow_us, &ro);
        if (s->lines == NULL) {
            fputs("aioprof-top: out of memory.\n", stderr);
            return EXIT_FAILURE_RUNTIME;
        }
    }
    if (o->log != NULL) {
        s->log = text_log_open(o->log, o->force, s->src->is_file, &files, err, sizeof err);
        if (s->log == NULL) {
            fprintf(stderr, "aioprof-top: %s\n", err);
            return files.clash ? EXIT_USAGE : EXIT_FAILURE_RUNTIME;
        }
    }
    if (o->write != NULL) {
        s->rec = recorder_open(o->write, o->force, s->label, o->baud, &files, err, sizeof err);
        if (s->rec == NULL) {
            fprintf(stderr, "aioprof-top: %s\n", err);
            return files.clash ? EXIT_USAGE : EXIT_FAILURE_RUNTIME;
        }
        if (o->verbose)
            fprintf(stderr, "aioprof-top: recording to %s\n", o->write);
    }
    return session_checks_outputs(s, &files);
}

/* The input ended by itself, not by its user's word (a recording's END is that word). */
static int session_ended_by_itself(const session_t *s)
{
    return s->ended && !source_file_closed_cleanly(s->src);
}

void session_pipeline_end(session_t *s)
{
    if (s->finished)
        return;
    if (session_ended_by_itself(s))
        pipeline_end_of_input(s->p); /* was anything left in the device? */
    else
        pipeline_finish(s->p);
    s->finished = 1;
}

int session_finish(session_t *s, int rc)
{
    session_pipeline_end(s);
    report_lines_finish(s->lines, session_ended_by_itself(s));
    if (s->lines != NULL && !s->lines_failed && report_lines_end(s->lines, s->p, s->now_us) < 0) {
        int lr = session_lines_failed(s);
        if (rc == EXIT_OK)
            rc = lr;
    }
    return rc;
}

int session_outputs_close(session_t *s, int rc, int signal)
{
    const options_t *o = s->o;
    /* the captures still waiting for their after-window: with what came */
    session_hogs_close(s);
    /* closed here also after Ctrl-C or SIGTERM: the file always ends as valid JSON */
    if (s->trace != NULL) {
        session_trace_ended(s, signal);
        uint64_t events = export_trace_events(s->trace);
        int tr = export_trace_close(s->trace);
        s->trace = NULL;
        if (tr < 0) {
            fprintf(stderr, "aioprof-top: the trace %s is incomplete (see above).\n", o->export_trace);
            if (rc == EXIT_OK)
                rc = EXIT_FAILURE_RUNTIME;
        } else if (o->verbose) {
            fprintf(stderr, "aioprof-top: wrote %llu trace events to %s\n", (unsigned long long)events,
                    o->export_trace);
        }
    }
    uint64_t logged = text_log_lines(s->log);
    if (text_log_close(s->log) < 0 && rc == EXIT_OK)
        rc = EXIT_FAILURE_RUNTIME;
    else if (o->verbose && o->log != NULL)
        fprintf(stderr, "aioprof-top: wrote %llu lines of device text to %s\n", (unsigned long long)logged, o->log);
    s->log = NULL;
    if (recorder_close(s->rec, s->last_us) < 0 && rc == EXIT_OK && o->verbose)
        fprintf(stderr, "aioprof-top: the recording %s is incomplete (see above).\n", o->write);
    s->rec = NULL;
    if (signal && o->verbose)
        fprintf(stderr, "aioprof-top: stopped by signal %d\n", signal);
    if (o->verbose)
        fprintf(stderr, "aioprof-top: read %llu bytes from %s\n", (unsigned long long)s->bytes, s->label);
    int reported = 0;
    rc = session_checks_close(s, rc, &reported);
    if (!reported && (s->kind == VIEW_REPORT || s->kind == VIEW_JSON)) {
        int vr = session_report(s, s->kind);
        if (rc == EXIT_OK)
            rc = vr;
    }
    return rc;
}

void session_outputs_free(session_t *s)
{
    /* still open here only when the session never started: an output this run made goes */
    recorder_discard(s->rec);
    s->rec = NULL;
    text_log_discard(s->log);
    s->log = NULL;
    export_trace_discard(s->trace);
    s->trace = NULL;
    session_hogs_close(s);
    pipeline_free(s->p);
    s->p = NULL;
    report_lines_close(s->lines);
    s->lines = NULL;
    session_checks_free(s);
}
