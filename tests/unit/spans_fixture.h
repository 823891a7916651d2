/* For the span tests of the events layer (test_events_spans.c, _span_list.c, _span_mem.c): the
 * frames of events_fixture.h, and a span view row found by its task's and its own name. */
#ifndef AIOPROF_TEST_SPANS_FIXTURE_H
#define AIOPROF_TEST_SPANS_FIXTURE_H

#include "events_fixture.h"
#include "events.h"
#include "stats_spans.h"

/* The span view row of (task name, span name); NULL when there is none. */
static inline const stats_span_view_t *span_row(const stats_span_view_t *v, size_t n, const stats_t *s,
    const char *task, const char *span)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].task_name >= 0 && strcmp(s->names[v[i].task_name].name, task) == 0 && strcmp(v[i].span, span) == 0) {
            return &v[i];
        }
    }
    return NULL;
}

#endif
