/* host/report_text.c and host/report_json.c: the device library on a fake clock runs a known
 * workload; the reports must show exactly what it did, and nothing a hostile name holds. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <cmocka.h>

#include "fake_device.h"
#include "pipeline.h"
#include "report.h"
#include "stats.h"

#define EVIL "\x1B[2J\x1B]0;owned\x07\x9B" "31m"

typedef struct truth {
    uint64_t count[3], total[3], max[3], slow[3];
} truth_t;

/* main creates three workers (one with a hostile name, one labelled), they run slices of known
 * lengths; returns what they did. */
static fake_device_t *workload(truth_t *tr, int starve)
{
    static aioprof_task_t main_t, w[3];
    static const char *names[3] = {"worker", "worker", EVIL};
    fake_device_t *d = fake_new(30, 1000, starve ? 256 : 8192);
    assert_non_null(d);
    memset(tr, 0, sizeof *tr);
    aioprof_task_created(&d->prof, &main_t, "main", 4);
    aioprof_enter(&d->prof, &main_t);
    d->clock += 5;
    for (int i = 0; i < 3; i++) {
        aioprof_task_created(&d->prof, &w[i], names[i], strlen(names[i]));
    }
    aioprof_task_label(&d->prof, &w[1], "left", 4);
    aioprof_exit(&d->prof, &main_t, AIOPROF_EXIT_YIELD);
    fake_flush_all(d);
    if (starve) {
        d->refuse = 1; /* the host stops reading: the ring fills, events are dropped */
    }
    for (int round = 0; round < 200; round++) {
        if (starve && round == 150) {
            d->refuse = 0;
        }
        for (int i = 0; i < 3; i++) {
            d->clock += 37;
            aioprof_enter(&d->prof, &w[i]);
            uint64_t len = 100 + (uint64_t)((round * 7 + i * 13) % 50) * (i == 0 ? 1000 : 1);
            d->clock += len;
            unsigned kind = round == 199 ? (i == 2 ? AIOPROF_EXIT_RAISE : AIOPROF_EXIT_RETURN) : AIOPROF_EXIT_YIELD;
            aioprof_exit(&d->prof, &w[i], kind);
            tr->count[i]++;
            tr->total[i] += len;
            tr->max[i] = len > tr->max[i] ? len : tr->max[i];
            tr->slow[i] += len > 20000;
            aioprof_drain(&d->prof);
        }
    }
    d->clock += 500;
    fake_flush_all(d);
    return d;
}

static pipeline_t *feed(fake_device_t *d)
{
    pipeline_config_t cfg = {0};
    cfg.slow_us = 20000;
    pipeline_t *p = pipeline_new(&cfg);
    assert_non_null(p);
    pipeline_feed(p, d->out, d->out_len);
    pipeline_finish(p);
    return p;
}

static char *render(const pipeline_t *p, int json, stats_sort_t sort, int unicode, int by_instance, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    report_options_t o = {sort, unicode, by_instance, "unit test"};
    assert_int_equal(json ? report_json(f, p, &o) : report_text(f, p, &o), 0);
    fclose(f);
    return buf;
}

static void assert_no_controls(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        uint8_t b = (uint8_t)s[i];
        assert_false(b < 0x20 && b != '\n' && b != '\t');
        assert_false(b == 0x7F);
    }
    assert_null(strstr(s, "\xC2\x9B"));
}

static void test_text_report(void **state)
{
    (void)state;
    truth_t tr;
    fake_device_t *d = workload(&tr, 0);
    pipeline_t *p = feed(d);
    size_t len;
    char *out = render(p, 0, STATS_SORT_TOTAL, 1, 0, &len);
    assert_no_controls(out, len);
    assert_non_null(strstr(out, "┌"));
    assert_non_null(strstr(out, "(outside tasks)"));
    assert_non_null(strstr(out, "unit test"));
    assert_non_null(strstr(out, "\\e[2J\\e]0;owned\\x07\\x9B31m"));
    /* worker: two instances; its total in ms with three decimals, exactly */
    char want[64];
    uint64_t wt = tr.total[0] + tr.total[1];
    snprintf(want, sizeof want, " %llu.%03llu ", (unsigned long long)(wt / 1000), (unsigned long long)(wt % 1000));
    const char *line = strstr(out, "│ worker");
    assert_non_null(line);
    const char *eol = strchr(line, '\n');
    char row[512];
    snprintf(row, sizeof row, "%.*s", (int)(eol - line), line);
    assert_non_null(strstr(row, want));
    snprintf(want, sizeof want, " %llu ", (unsigned long long)(tr.count[0] + tr.count[1]));
    assert_non_null(strstr(row, want));
    assert_non_null(strstr(row, "│         2 │")); /* instances */
    /* sorted by total: worker (ms-long slices) before the hostile one and main */
    assert_true(strstr(out, "│ worker") < strstr(out, "│ \\e[2J"));
    assert_true(strstr(out, "│ \\e[2J") < strstr(out, "│ main"));
    assert_null(strstr(out, "≥"));
    free(out);

    /* ASCII: not a byte above 0x7F */
    out = render(p, 0, STATS_SORT_NAME, 0, 0, &len);
    for (size_t i = 0; i < len; i++) {
        assert_true((uint8_t)out[i] < 0x80);
    }
    assert_non_null(strstr(out, "+-"));
    /* by name: the escaped hostile name sorts first ('\\' < 'm' < 'w') */
    assert_true(strstr(out, "| \\e[2J") < strstr(out, "| main"));
    assert_true(strstr(out, "| main") < strstr(out, "| worker"));
    free(out);

    /* per instance: ids, the label, the creator, how it ended */
    out = render(p, 0, STATS_SORT_TOTAL, 1, 1, &len);
    assert_no_controls(out, len);
    assert_non_null(strstr(out, "worker #3 [left]"));
    assert_non_null(strstr(out, "main #1"));
    assert_non_null(strstr(out, "raised"));
    assert_non_null(strstr(out, "returned"));
    free(out);
    pipeline_free(p);
    fake_free(d);
}

static cJSON *task_named(cJSON *tasks, const char *name)
{
    cJSON *t;
    cJSON_ArrayForEach(t, tasks)
    {
        if (strcmp(cJSON_GetObjectItem(t, "name")->valuestring, name) == 0) {
            return t;
        }
    }
    return NULL;
}

static double num(cJSON *o, const char *key)
{
    cJSON *v = cJSON_GetObjectItem(o, key);
    assert_non_null(v);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

static void test_json_report(void **state)
{
    (void)state;
    truth_t tr;
    fake_device_t *d = workload(&tr, 0);
    pipeline_t *p = feed(d);
    size_t len;
    char *out = render(p, 1, STATS_SORT_COUNT, 1, 0, &len);
    assert_no_controls(out, len);
    cJSON *root = cJSON_Parse(out);
    assert_non_null(root);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "tool"), "name")->valuestring, "aioprof-top");
    assert_string_equal(cJSON_GetObjectItem(root, "source")->valuestring, "unit test");
    cJSON *dev = cJSON_GetObjectItem(root, "device");
    assert_string_equal(cJSON_GetObjectItem(dev, "platform")->valuestring, "test");
    assert_int_equal(num(dev, "tick_bits"), 30);
    cJSON *stream = cJSON_GetObjectItem(root, "stream");
    assert_int_equal(num(stream, "events"), 2 + 2 * 3 * 200);
    assert_int_equal(num(stream, "dropped_events"), 0);
    assert_int_equal(num(stream, "bytes"), d->out_len);
    cJSON *tasks = cJSON_GetObjectItem(root, "tasks");
    assert_int_equal(cJSON_GetArraySize(tasks), 3);
    cJSON *w = task_named(tasks, "worker");
    assert_non_null(w);
    assert_int_equal(num(w, "count"), tr.count[0] + tr.count[1]);
    assert_int_equal(num(w, "total_us"), tr.total[0] + tr.total[1]);
    assert_int_equal(num(w, "max_us"), tr.max[0] > tr.max[1] ? tr.max[0] : tr.max[1]);
    assert_int_equal(num(w, "instances"), 2);
    assert_int_equal(num(w, "slow"), tr.slow[0] + tr.slow[1]);
    assert_true(tr.slow[0] > 0);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(w, "lower_bound")));
    cJSON *evil = task_named(tasks, "\\e[2J\\e]0;owned\\x07\\x9B31m");
    assert_non_null(evil);
    assert_int_equal(num(evil, "total_us"), tr.total[2]);
    assert_int_equal(num(evil, "errors"), 1);
    /* sorted by count: worker (400 slices) first */
    assert_ptr_equal(cJSON_GetArrayItem(tasks, 0), w);
    /* time adds up: tasks + outside = elapsed (nothing was lost or nested) */
    double sum = num(root, "outside_us");
    cJSON *t;
    cJSON_ArrayForEach(t, tasks)
    {
        sum += num(t, "total_us");
    }
    assert_int_equal(sum, num(root, "elapsed_us"));
    /* instances: creator names and ends */
    cJSON *insts = cJSON_GetObjectItem(root, "instances");
    assert_int_equal(cJSON_GetArraySize(insts), 4);
    int labelled = 0;
    cJSON_ArrayForEach(t, insts)
    {
        const char *name = cJSON_GetObjectItem(t, "name")->valuestring;
        if (strcmp(name, "main") != 0) {
            assert_string_equal(cJSON_GetObjectItem(t, "parent_name")->valuestring, "main");
            assert_int_equal(num(t, "parent"), 1);
        }
        if (strcmp(cJSON_GetObjectItem(t, "label")->valuestring, "left") == 0) {
            labelled++;
            assert_int_equal(num(t, "total_us"), tr.total[1]);
            assert_string_equal(cJSON_GetObjectItem(t, "end")->valuestring, "returned");
        }
    }
    assert_int_equal(labelled, 1);
    cJSON_Delete(root);
    free(out);
    pipeline_free(p);
    fake_free(d);
}

/* The host stopped reading for a while: the device dropped events; the reports say the figures
 * are lower bounds, and they are indeed not above the truth. */
static void test_lower_bounds(void **state)
{
    (void)state;
    truth_t tr;
    fake_device_t *d = workload(&tr, 1);
    pipeline_t *p = feed(d);
    const stats_t *s = pipeline_stats(p);
    assert_true(s->stream.dropped_events > 0);
    size_t len;
    char *out = render(p, 0, STATS_SORT_TOTAL, 1, 0, &len);
    assert_non_null(strstr(out, "≥"));
    assert_non_null(strstr(out, "dropped events"));
    free(out);
    out = render(p, 1, STATS_SORT_TOTAL, 1, 0, &len);
    cJSON *root = cJSON_Parse(out);
    assert_non_null(root);
    cJSON *w = task_named(cJSON_GetObjectItem(root, "tasks"), "worker");
    assert_non_null(w);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(w, "lower_bound")));
    assert_true(num(w, "count") < tr.count[0] + tr.count[1]);
    assert_true(num(w, "total_us") <= tr.total[0] + tr.total[1]);
    assert_true(num(cJSON_GetObjectItem(root, "stream"), "dropped_events") > 0);
    cJSON_Delete(root);
    free(out);
    pipeline_free(p);
    fake_free(d);
}

static void test_empty_stream(void **state)
{
    (void)state;
    pipeline_config_t cfg = {0};
    pipeline_t *p = pipeline_new(&cfg);
    pipeline_finish(p);
    size_t len;
    char *out = render(p, 0, STATS_SORT_TOTAL, 1, 0, &len);
    assert_non_null(strstr(out, "no HELLO"));
    free(out);
    out = render(p, 1, STATS_SORT_MEAN, 0, 1, &len);
    cJSON *root = cJSON_Parse(out);
    assert_non_null(root);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(root, "device")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "tasks")), 0);
    cJSON_Delete(root);
    free(out);
    pipeline_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_report),
        cmocka_unit_test(test_json_report),
        cmocka_unit_test(test_lower_bounds),
        cmocka_unit_test(test_empty_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
