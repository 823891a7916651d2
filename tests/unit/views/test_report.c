/* host/views/report_text.c and host/views/report_json.c: the device library on a fake clock runs a known
 * workload; the reports must show exactly what it did, and nothing a hostile name holds. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* wcswidth */
#endif
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

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

static char *render(const pipeline_t *p, int json, sort_key_t sort, int unicode, int by_instance, size_t *len)
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
    char *out = render(p, 0, SORT_TOTAL, 1, 0, &len);
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
    out = render(p, 0, SORT_NAME, 0, 0, &len);
    for (size_t i = 0; i < len; i++) {
        assert_true((uint8_t)out[i] < 0x80);
    }
    assert_non_null(strstr(out, "+-"));
    /* by name: the escaped hostile name sorts first ('\\' < 'm' < 'w') */
    assert_true(strstr(out, "| \\e[2J") < strstr(out, "| main"));
    assert_true(strstr(out, "| main") < strstr(out, "| worker"));
    free(out);

    /* per instance: ids, the label, the creator, how it ended */
    out = render(p, 0, SORT_TOTAL, 1, 1, &len);
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
    char *out = render(p, 1, SORT_COUNT, 1, 0, &len);
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
    char *out = render(p, 0, SORT_TOTAL, 1, 0, &len);
    assert_non_null(strstr(out, "≥"));
    assert_non_null(strstr(out, "dropped events"));
    free(out);
    out = render(p, 1, SORT_TOTAL, 1, 0, &len);
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
    char *out = render(p, 0, SORT_TOTAL, 1, 0, &len);
    assert_non_null(strstr(out, "no HELLO"));
    free(out);
    out = render(p, 1, SORT_MEAN, 0, 1, &len);
    cJSON *root = cJSON_Parse(out);
    assert_non_null(root);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(root, "device")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "tasks")), 0);
    cJSON_Delete(root);
    free(out);
    pipeline_free(p);
}

/* pipeline_restart: a pipeline that read another stream (hostile names, drops, many instances),
 * once restarted, reads a stream to exactly the reports of a new pipeline. */
static void test_restart_is_fresh(void **state)
{
    (void)state;
    truth_t tr;
    fake_device_t *d = workload(&tr, 0);
    fake_device_t *other = workload(&tr, 1);
    pipeline_t *fresh = feed(d);
    pipeline_config_t cfg = {0};
    cfg.slow_us = 20000;
    pipeline_t *p = pipeline_new(&cfg);
    assert_non_null(p);
    pipeline_feed(p, other->out, other->out_len);
    pipeline_link_down(p);
    pipeline_feed(p, d->out, d->out_len / 2);
    pipeline_restart(p);
    pipeline_feed(p, d->out, d->out_len);
    pipeline_finish(p);
    for (int json = 0; json <= 1; json++) {
        for (int by_instance = 0; by_instance <= 1; by_instance++) {
            size_t a_len, b_len;
            char *a = render(fresh, json, SORT_TOTAL, 1, by_instance, &a_len);
            char *b = render(p, json, SORT_TOTAL, 1, by_instance, &b_len);
            assert_string_equal(a, b);
            free(a);
            free(b);
        }
    }
    pipeline_free(p);
    pipeline_free(fresh);
    fake_free(other);
    fake_free(d);
}

/* The display width of a line as a terminal shows it (wcswidth under the UTF-8 locale). */
static int line_columns(const char *line, size_t len)
{
    wchar_t wide[1024];
    char copy[4096];
    snprintf(copy, sizeof copy, "%.*s", (int)len, line);
    size_t n = mbstowcs(wide, copy, sizeof wide / sizeof wide[0]);
    assert_true(n != (size_t)-1);
    return wcswidth(wide, n);
}

/* Names in CJK (two columns a glyph), with combining marks and zero-width spaces (none): every line
 * of the table is as wide as the others, by name and by instance (with a label). */
static void test_text_report_columns(void **state)
{
    (void)state;
    static aioprof_task_t t[4];
    static const char *const names[4] = {
        "\xE4\xBC\xA0\xE6\x84\x9F\xE5\x99\xA8\xE4\xBB\xBB\xE5\x8A\xA1", /* 5 CJK ideographs */
        "e\xCC\x81te\xCC\x81_cafe\xCC\x81",                                   /* e + U+0301 ... */
        "zero\xE2\x80\x8Bwidth\xE2\x80\x8Bspace",                              /* U+200B twice */
        "plain",
    };
    fake_device_t *d = fake_new(30, 1000, 8192);
    assert_non_null(d);
    for (int i = 0; i < 4; i++) {
        aioprof_task_created(&d->prof, &t[i], names[i], strlen(names[i]));
    }
    aioprof_task_label(&d->prof, &t[0], "\xE6\xB8\xA9\xE5\xBA\xA6", 6); /* a CJK label */
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 4; i++) {
            d->clock += 10;
            aioprof_enter(&d->prof, &t[i]);
            d->clock += 100 + (uint64_t)i;
            aioprof_exit(&d->prof, &t[i], AIOPROF_EXIT_YIELD);
            aioprof_drain(&d->prof);
        }
    }
    fake_flush_all(d);
    pipeline_t *p = feed(d);
    for (int by_instance = 0; by_instance <= 1; by_instance++) {
        size_t len;
        char *out = render(p, 0, SORT_TOTAL, 1, by_instance, &len);
        /* each table (a run of lines that start with a box glyph) keeps its width */
        int width = -1, lines[4] = {0}, tables = 0;
        for (const char *line = out; *line;) {
            const char *eol = strchr(line, '\n');
            size_t n = eol ? (size_t)(eol - line) : strlen(line);
            if (strncmp(line, "\xE2\x94", 2) == 0) {
                int w = line_columns(line, n);
                if (width < 0) {
                    width = w;
                    tables++;
                }
                if (w != width) {
                    fprintf(stderr, "line %d of table %d is %d columns, its first %d:\n%s", lines[tables - 1],
                        tables, w, width, out);
                }
                assert_int_equal(w, width);
                assert_true(tables <= 4);
                lines[tables - 1]++;
            } else {
                width = -1;
            }
            line += n + (eol != NULL);
        }
        /* the figures (rules, head, rows, outside tasks) and the percentiles (rules, head, rows); this
         * device reports no lateness: no table of it */
        assert_int_equal(tables, 2);
        assert_int_equal(lines[0], 4 + 4 + 1 + 1);
        assert_int_equal(lines[1], 3 + 4 + 1);
        assert_non_null(strstr(out, names[0]));
        free(out);
    }
    pipeline_free(p);
    fake_free(d);
}

/* A name wider than the name column is cut, and in ASCII the cut is marked with ASCII: the report
 * of a C locale holds no byte above 0x7F (the UTF-8 ellipsis was its mark). */
static void test_ascii_cut_mark(void **state)
{
    (void)state;
    static aioprof_task_t t;
    char name[48];
    memset(name, 0x01, sizeof name); /* each escapes to "\x01": 192 columns */
    fake_device_t *d = fake_new(30, 1000, 8192);
    assert_non_null(d);
    aioprof_task_created(&d->prof, &t, name, sizeof name);
    aioprof_enter(&d->prof, &t);
    d->clock += 100;
    aioprof_exit(&d->prof, &t, AIOPROF_EXIT_RETURN);
    fake_flush_all(d);
    pipeline_t *p = feed(d);
    size_t len;
    char *out = render(p, 0, SORT_TOTAL, 0, 0, &len);
    for (size_t i = 0; i < len; i++) {
        assert_true((uint8_t)out[i] < 0x80);
    }
    assert_non_null(strstr(out, "~ |"));
    free(out);
    out = render(p, 0, SORT_TOTAL, 1, 0, &len);
    assert_non_null(strstr(out, "\xE2\x80\xA6 \xE2\x94\x82")); /* the ellipsis, then the rule */
    free(out);
    pipeline_free(p);
    fake_free(d);
}

int main(void)
{
    /* widths are the terminal's, under the locale; the tests use UTF-8 */
    if (setlocale(LC_ALL, "C.UTF-8") == NULL && setlocale(LC_ALL, "en_US.UTF-8") == NULL) {
        fputs("test_report: no UTF-8 locale here\n", stderr);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_report),
        cmocka_unit_test(test_json_report),
        cmocka_unit_test(test_lower_bounds),
        cmocka_unit_test(test_empty_stream),
        cmocka_unit_test(test_text_report_columns),
        cmocka_unit_test(test_restart_is_fresh),
        cmocka_unit_test(test_ascii_cut_mark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
