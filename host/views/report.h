/* The non-interactive views: a text table and a JSON document of a pipeline's statistics. */
#ifndef AIOPROF_REPORT_H
#define AIOPROF_REPORT_H

#include <stdio.h>

#include "pipeline.h"
#include "sort_key.h"
#include "stats.h"

typedef struct report_options {
    sort_key_t sort;
    int unicode;          /* box drawing (a UTF-8 locale) or plain ASCII */
    int by_instance;      /* one row per task instance instead of per name */
    const char *source;   /* what was read: "/dev/ttyACM0 @ 115200", "session.aiop" */
} report_options_t;

/* Return 0, or -1 when writing failed. */
int report_text(FILE *out, const pipeline_t *p, const report_options_t *o);
int report_json(FILE *out, const pipeline_t *p, const report_options_t *o);

/* Pieces of the JSON report (docs/json.md), for the JSON lines (report_lines.c): the "device"
 * object (a JSON null without a HELLO), the "stream" object, and the "tasks" array (by name) or
 * the "instances" one (by_instance). NULL when out of memory. */
struct cJSON;
struct cJSON *report_json_device(const stats_t *s);
struct cJSON *report_json_stream(const stats_t *s);
struct cJSON *report_json_tasks(const stats_t *s, int by_instance, sort_key_t sort);

#endif
