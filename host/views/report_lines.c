/* --json-lines: one JSON object per interval (report_lines.h; docs/json.md, "JSON lines"). */
#include "report_lines.h"

#include <cJSON.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

struct report_lines {
    FILE *out;
    uint64_t interval_us;
    report_options_t ro;
    pipeline_t *window;       /* the interval's figures: its statistics are reset at every line */
    uint64_t start_us;        /* where the current interval began on the session's time line */
    uint64_t seq;             /* lines written */
    stats_stream_t at_start;  /* the session's stream counters when the interval began */
    int failed;               /* errno of a failed write: nothing more is written */
};

/* The stream counters, by name, in docs/json.md's order: the interval gives their differences. */
static const struct {
    const char *name;
    size_t offset;
} lines_counters[] = {
    {"bytes", offsetof(stats_stream_t, bytes)},
    {"frames", offsetof(stats_stream_t, frames)},
    {"events", offsetof(stats_stream_t, events)},
    {"crc_errors", offsetof(stats_stream_t, crc_errors)},
    {"lost_frames", offsetof(stats_stream_t, lost_frames)},
    {"dropped_events", offsetof(stats_stream_t, dropped_events)},
    {"text_lines", offsetof(stats_stream_t, text_lines)},
    {"resets", offsetof(stats_stream_t, resets)},
    {"reconnects", offsetof(stats_stream_t, reconnects)},
    {"malformed", offsetof(stats_stream_t, malformed)},
    {"unsupported", offsetof(stats_stream_t, unsupported)},
    {"unmatched", offsetof(stats_stream_t, unmatched)},
    {"duplicates", offsetof(stats_stream_t, duplicates)},
    {"clock_steps_back", offsetof(stats_stream_t, clock_steps_back)},
    {"skipped_bytes", offsetof(stats_stream_t, skipped_bytes)},
};

static uint64_t lines_counter(const stats_stream_t *s, size_t i)
{
    uint64_t v;
    memcpy(&v, (const char *)s + lines_counters[i].offset, sizeof v);
    return v;
}

report_lines_t *report_lines_open(FILE *out, uint64_t interval_us, uint64_t slow_us, const report_options_t *ro)
{
    report_lines_t *l = calloc(1, sizeof *l);
    pipeline_config_t pc = {.slow_us = slow_us};
    if (l == NULL || (l->window = pipeline_new(&pc)) == NULL) {
        free(l);
        return NULL;
    }
    l->out = out;
    l->interval_us = interval_us > 0 ? interval_us : 1000000u;
    l->ro = *ro;
    return l;
}

void report_lines_close(report_lines_t *l)
{
    if (l != NULL) {
        pipeline_free(l->window);
        free(l);
    }
}

void report_lines_feed(report_lines_t *l, const uint8_t *data, size_t len)
{
    if (l != NULL) {
        pipeline_feed(l->window, data, len);
    }
}

void report_lines_link(report_lines_t *l, int up)
{
    if (l == NULL) {
        return;
    }
    if (up) {
        pipeline_link_up(l->window);
    } else {
        pipeline_link_down(l->window);
    }
}

void report_lines_input_damaged(report_lines_t *l)
{
    if (l != NULL) {
        pipeline_input_damaged(l->window);
    }
}

void report_lines_finish(report_lines_t *l, int ended)
{
    if (l == NULL) {
        return;
    }
    if (ended) {
        pipeline_end_of_input(l->window);
    } else {
        pipeline_finish(l->window);
    }
}

static int lines_num(cJSON *o, const char *key, double v)
{
    return cJSON_AddNumberToObject(o, key, v) != NULL;
}

static int lines_attach(cJSON *o, const char *key, cJSON *item)
{
    if (item == NULL) {
        return 0;
    }
    cJSON_AddItemToObject(o, key, item);
    return 1;
}

/* The interval's own object: its time, its stream counters, its rows. */
static cJSON *lines_interval(const report_lines_t *l, const stats_t *w, const stats_t *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *stream = cJSON_CreateObject();
    if (o == NULL || !lines_attach(o, "elapsed_us", cJSON_CreateNumber((double)w->elapsed_us)) ||
        !lines_num(o, "outside_us", (double)w->outside_us) || !lines_attach(o, "stream", stream)) {
        cJSON_Delete(stream);
        cJSON_Delete(o);
        return NULL;
    }
    for (size_t i = 0; i < sizeof lines_counters / sizeof lines_counters[0]; i++) {
        if (!lines_num(stream, lines_counters[i].name,
                       (double)(lines_counter(&t->stream, i) - lines_counter(&l->at_start, i)))) {
            cJSON_Delete(o);
            return NULL;
        }
    }
    if (!lines_attach(o, l->ro.by_instance ? "instances" : "tasks",
                      report_json_tasks(w, l->ro.by_instance, l->ro.sort))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The totals so far: the JSON report's figures, without the instance list unless asked for. */
static cJSON *lines_totals(const report_lines_t *l, const stats_t *t)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL || !lines_num(o, "elapsed_us", (double)t->elapsed_us) ||
        !lines_num(o, "outside_us", (double)t->outside_us) || !lines_num(o, "epochs", (double)t->epoch + 1) ||
        !lines_num(o, "folded_instances", (double)t->folded_instances) ||
        !lines_attach(o, "stream", report_json_stream(t)) ||
        !lines_attach(o, l->ro.by_instance ? "instances" : "tasks",
                      report_json_tasks(t, l->ro.by_instance, l->ro.sort))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Writes the line of [l->start_us, end_us) and starts the next interval there. */
static int lines_write(report_lines_t *l, const pipeline_t *totals, uint64_t end_us, int final)
{
    const stats_t *t = pipeline_stats(totals);
    const stats_t *w = pipeline_stats(l->window);
    char *text = NULL;
    int rc = -1;
    if (l->failed) {
        errno = l->failed;
        return -1;
    }
    cJSON *root = cJSON_CreateObject();
    if (root == NULL || !lines_num(root, "seq", (double)(l->seq + 1)) ||
        !cJSON_AddBoolToObject(root, "final", final) || !lines_num(root, "t_s", (double)end_us / 1e6) ||
        !lines_num(root, "interval_s", (double)(end_us - l->start_us) / 1e6) ||
        !(l->ro.source ? cJSON_AddStringToObject(root, "source", l->ro.source) != NULL
                       : cJSON_AddNullToObject(root, "source") != NULL) ||
        !lines_attach(root, "interval", lines_interval(l, w, t)) || !lines_attach(root, "totals", lines_totals(l, t)) ||
        !lines_attach(root, "device", report_json_device(t)) || (text = cJSON_PrintUnformatted(root)) == NULL) {
        l->failed = ENOMEM;
        goto out;
    }
    errno = 0;
    if (fputs(text, l->out) < 0 || fputc('\n', l->out) == EOF || fflush(l->out) != 0) {
        l->failed = errno != 0 ? errno : EIO;
        goto out;
    }
    rc = 0;
out:
    cJSON_free(text);
    cJSON_Delete(root);
    /* the next interval starts here whatever happened: its slices are its own */
    pipeline_reset_stats(l->window);
    l->at_start = t->stream;
    l->start_us = end_us;
    l->seq++;
    if (rc < 0) {
        errno = l->failed;
    }
    return rc;
}

int report_lines_tick(report_lines_t *l, const pipeline_t *totals, uint64_t now_us)
{
    if (l == NULL) {
        return 0;
    }
    while (now_us >= l->start_us + l->interval_us) {
        uint64_t n = (now_us - l->start_us) / l->interval_us;
        /* a long gap (a recording's) is one line, not thousands of empty ones */
        uint64_t step = n > REPORT_LINES_SKIP_MAX ? n : 1;
        if (lines_write(l, totals, l->start_us + step * l->interval_us, 0) < 0) {
            return -1;
        }
    }
    return 0;
}

int report_lines_end(report_lines_t *l, const pipeline_t *totals, uint64_t now_us)
{
    if (l == NULL) {
        return 0;
    }
    if (report_lines_tick(l, totals, now_us) < 0) {
        return -1;
    }
    return lines_write(l, totals, now_us > l->start_us ? now_us : l->start_us, 1);
}
