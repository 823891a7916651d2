/* The session's comparison and budget (session.h): --compare BASE against the session, --budget
 * and --junit. The base is read and the budget checked before the input opens (a mistake in
 * either leaves the board alone); the session's side of the comparison is fed as the bytes come;
 * at the end the comparison takes the report's place and the budget says what it found. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_report.h"
#include "compare_session.h"
#include "file_out.h"
#include "session.h"

int session_checks_open(session_t *s)
{
    const options_t *o = s->o;
    char err[600];
    uint64_t slow_us = (uint64_t)(o->slow_ms * 1000.0);
    if (o->budget != NULL) {
        s->budget = budget_load(o->budget, err, sizeof err);
        if (s->budget == NULL) {
            fprintf(stderr, "aioprof-top: %s\n", err);
            return EXIT_USAGE;
        }
    }
    if (o->compare_base != NULL) {
        if (compare_load(o->compare_base, slow_us, o->verbose, &s->cmp_base, err, sizeof err) < 0) {
            fprintf(stderr, "aioprof-top: %s\n", err);
            return EXIT_FAILURE_RUNTIME;
        }
        s->have_base = 1;
        s->cmp = compare_feed_open(slow_us, 0);
        if (s->cmp == NULL) {
            fputs("aioprof-top: out of memory.\n", stderr);
            return EXIT_FAILURE_RUNTIME;
        }
    }
    return EXIT_OK;
}

int session_checks_outputs(session_t *s, struct file_out_files *files)
{
    char err[600];
    if (s->o->junit == NULL)
        return EXIT_OK;
    s->junit_fd = file_out_create(s->o->junit, s->o->force, "JUnit report", files, &s->junit_created, err,
                                  sizeof err);
    if (s->junit_fd < 0) {
        fprintf(stderr, "aioprof-top: %s\n", err);
        return files->clash ? EXIT_USAGE : EXIT_FAILURE_RUNTIME;
    }
    s->junit_open = 1;
    return EXIT_OK;
}

void session_checks_observe(session_t *s, pipeline_config_t *pc)
{
    if (s->budget == NULL)
        return;
    budget_chain(s->budget, pc->observer, pc->observer_user);
    pc->observer = budget_observer();
    pc->observer_user = s->budget;
}

static void junit_on_fail(void *user, int errnum)
{
    session_t *s = user;
    fprintf(stderr, "aioprof-top: writing the JUnit report %s failed: %s.\n", s->o->junit, strerror(errnum));
}

/* The JUnit XML, built in memory and written whole. Returns 0, or -1 after saying why. */
static int session_junit(session_t *s)
{
    char *xml = NULL, buf[4096];
    size_t len = 0;
    FILE *mem = open_memstream(&xml, &len);
    file_out_t out;
    file_out_init(&out, s->junit_fd, s->o->junit, s->junit_created, buf, sizeof buf, junit_on_fail, s);
    s->junit_open = 0;
    if (mem == NULL || budget_junit(s->budget, mem, s->label) < 0 || fclose(mem) != 0) {
        if (mem != NULL && xml == NULL)
            fclose(mem);
        free(xml);
        fputs("aioprof-top: out of memory making the JUnit report.\n", stderr);
        file_out_discard(&out);
        return -1;
    }
    file_out_append(&out, xml, len);
    free(xml);
    return file_out_close(&out);
}

int session_checks_close(session_t *s, int rc, int *reported)
{
    *reported = 0;
    if (s->cmp != NULL && (s->kind == VIEW_REPORT || s->kind == VIEW_JSON)) {
        /* the comparison is the report */
        *reported = 1;
        compare_report_options_t ro = {.base_source = s->o->compare_base, .new_source = s->label,
                                       .unicode = compare_utf8()};
        int r = compare_feed_end(s->cmp, s->p, s->ended && !source_file_closed_cleanly(s->src));
        stats_cmp_side_t cur;
        compare_feed_take(s->cmp, &cur);
        if (r == 0)
            r = s->kind == VIEW_JSON ? compare_report_json(stdout, &s->cmp_base, &cur, &ro)
                                     : compare_report_text(stdout, &s->cmp_base, &cur, &ro);
        stats_cmp_free(&cur);
        if (fflush(stdout) != 0 || r < 0) {
            fputs("aioprof-top: cannot write the comparison to standard output.\n", stderr);
            if (rc == EXIT_OK)
                rc = EXIT_FAILURE_RUNTIME;
        }
    }
    if (s->budget == NULL)
        return rc;
    int broken = budget_check(s->budget, pipeline_stats(s->p));
    if (broken < 0) {
        fputs("aioprof-top: out of memory checking the budget.\n", stderr);
        return rc == EXIT_OK ? EXIT_FAILURE_RUNTIME : rc;
    }
    /* the live table holds stderr until it is closed (and says again only its last line): the
     * breaches are said after it, in session_checks_free */
    if (s->view != NULL)
        s->budget_said_late = 1;
    else
        budget_report(s->budget, stderr);
    if (s->junit_open && session_junit(s) < 0 && rc == EXIT_OK)
        rc = EXIT_FAILURE_RUNTIME;
    if (broken > 0 && rc == EXIT_OK)
        rc = EXIT_BUDGET;
    return rc;
}

void session_checks_free(session_t *s)
{
    if (s->junit_open) {
        /* the session never got to its end: a report this run made goes */
        file_out_t out;
        file_out_init(&out, s->junit_fd, s->o->junit, s->junit_created, NULL, 0, NULL, NULL);
        file_out_discard(&out);
        s->junit_open = 0;
    }
    if (s->budget_said_late)
        budget_report(s->budget, stderr);
    s->budget_said_late = 0;
    budget_free(s->budget);
    s->budget = NULL;
    compare_feed_close(s->cmp);
    s->cmp = NULL;
    if (s->have_base)
        stats_cmp_free(&s->cmp_base);
    s->have_base = 0;
}
