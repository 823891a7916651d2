/* --metrics: the session's figures in the OpenMetrics text format (docs/usage.md, "Metrics for
 * Prometheus"), for a scraper; http_serve (base/) serves them. */
#ifndef AIOPROF_METRICS_TEXT_H
#define AIOPROF_METRICS_TEXT_H

#include <stddef.h>

#include "metrics_window.h"
#include "stats.h"

#define METRICS_CONTENT_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"
/* Prometheus' older text format, for a scraper that does not ask for OpenMetrics (promtool, curl):
 * the same samples, without the UNIT and EOF lines, its TYPE lines naming the counters' _total. */
#define METRICS_CONTENT_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
/* Histograms go to the task names with the most own time, at most this many (each is about
 * 5 KB of text a scrape); the counters go to every name. */
#define METRICS_HIST_NAMES 64u
/* The histograms' bucket bounds: values below 2^k us for k = METRICS_LE_FIRST .. METRICS_LE_LAST,
 * each a bound of the percentiles' buckets (stats_hist), so that the counts are exact. */
#define METRICS_LE_FIRST 3u
#define METRICS_LE_LAST 31u

/* The text for s (synced by pipeline_stats; its lateness summed here), every sample labelled
 * board="board" and platform= the HELLO's; OpenMetrics, or the older text format (openmetrics 0).
 * win gives the gauge of the last seconds' longest slice (NULL: that family is left out). Returns a
 * malloc'ed buffer of *len bytes, or NULL when out of memory. */
char *metrics_text(stats_t *s, const metrics_window_t *win, const char *board, int openmetrics, size_t *len);

/* Does a request's head ask for OpenMetrics (its Accept header names it)? */
int metrics_wants_openmetrics(const char *head);

#endif
