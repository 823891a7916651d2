/* --metrics: the session's figures served to a scraper (Prometheus) while it runs
 * (docs/usage.md, "Metrics for Prometheus"). The listening socket is made before the input opens,
 * so that a port in use is said before the board is touched; the loop's chores answer the
 * scrapes. */
#include <stdio.h>
#include <stdlib.h>

#include "metrics_text.h"
#include "monotonic.h"
#include "session.h"

/* The board label: the port's stable name (/dev/serial/by-id/...) where it has one, else what the
 * source is called (a port, a recording, the demo's pty). */
static const char *metrics_board(session_t *s)
{
    if (s->src == NULL)
        return "";
    if (s->metrics_board[0] == '\0' && !source_stable_name(s->src->name, s->metrics_board, sizeof s->metrics_board))
        snprintf(s->metrics_board, sizeof s->metrics_board, "%s", s->src->name);
    return s->metrics_board;
}

static char *metrics_body(void *user, const char *head, size_t *len, const char **content_type)
{
    session_t *s = user;
    int om = metrics_wants_openmetrics(head);
    *content_type = om ? METRICS_CONTENT_TYPE : METRICS_CONTENT_TYPE_TEXT;
    if (s->p == NULL) {
        *len = 0;
        return calloc(1, 1);
    }
    return metrics_text((stats_t *)pipeline_stats(s->p), s->metrics_window, metrics_board(s), om, len);
}

int session_metrics_open(session_t *s)
{
    if (s->o->metrics == NULL)
        return 0;
    char err[600];
    int bad_spec = 0;
    s->metrics =
        http_serve_open(s->o->metrics, "/metrics", METRICS_CONTENT_TYPE, metrics_body, s, err, sizeof err, &bad_spec);
    if (s->metrics == NULL) {
        fprintf(stderr, "aioprof-top: %s.\n", err);
        return bad_spec ? EXIT_USAGE : EXIT_FAILURE_RUNTIME;
    }
    s->metrics_window = metrics_window_new();
    if (s->metrics_window == NULL) {
        fputs("aioprof-top: --metrics: out of memory.\n", stderr);
        return EXIT_FAILURE_RUNTIME;
    }
    if (s->o->verbose)
        fprintf(stderr, "aioprof-top: metrics at http://%s/metrics (port %u)\n", s->o->metrics,
            http_serve_port(s->metrics));
    return 0;
}

void session_metrics_observe(session_t *s, pipeline_config_t *pc)
{
    if (s->metrics_window == NULL)
        return;
    pc->observer = metrics_window_observer(s->metrics_window, pc->observer, pc->observer_user);
    pc->observer_user = s->metrics_window;
}

void session_metrics_restart(session_t *s)
{
    if (s->metrics_window != NULL)
        metrics_window_clear(s->metrics_window);
}

void session_metrics_tick(session_t *s)
{
    http_serve_tick(s->metrics, monotonic_us());
}

void session_metrics_close(session_t *s)
{
    http_serve_close(s->metrics);
    s->metrics = NULL;
    metrics_window_free(s->metrics_window);
    s->metrics_window = NULL;
}
