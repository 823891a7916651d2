/* The trace export: a stream from the real device library through the pipeline and its observer
 * into a file, read back with cJSON. Checks what the file says against what the device did: the
 * slices' wall spans and exclusive times, track names, labels, counters, marks, text lines; and
 * that the file is valid JSON when closed and completable when cut short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "export_trace.h"
#include "file_out.h"
#include "fake_device.h"
#include "json_out.h"
#include "pipeline.h"
#include "stats.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_export_trace.XXXXXX");
    if (mkdtemp(dir) == NULL) {
        return -1;
    }
    snprintf(path, sizeof path, "%s/out.json", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    rmdir(dir);
    return 0;
}

static char *slurp(const char *p, size_t extra)
{
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = calloc(1, (size_t)n + extra + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}

static cJSON *load(const char *p)
{
    char *text = slurp(p, 0);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    return doc;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

static int is(const cJSON *e, const char *ph, const char *name)
{
    const char *p = str(e, "ph"), *n = str(e, "name");
    return p && strcmp(p, ph) == 0 && (name == NULL || (n && strcmp(n, name) == 0));
}

/* The n-th event (0-based) with this phase and name, or NULL. */
static const cJSON *find(const cJSON *doc, const char *ph, const char *name, int n)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents")) {
        if (is(e, ph, name) && n-- == 0) {
            return e;
        }
    }
    return NULL;
}

static int count(const cJSON *doc, const char *ph, const char *name)
{
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents")) {
        n += is(e, ph, name);
    }
    return n;
}

/* The thread_name of (pid, tid) last written. */
static const cJSON *track(const cJSON *doc, int pid, int tid)
{
    const cJSON *e, *found = NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents")) {
        if (is(e, "M", "thread_name") && num(e, "pid") == pid && num(e, "tid") == tid) {
            found = cJSON_GetObjectItemCaseSensitive(e, "args");
        }
    }
    return found;
}

static void feed(fake_device_t *d, export_trace_t *x)
{
    pipeline_config_t cfg = {0};
    cfg.observer = export_trace_observer();
    cfg.observer_user = x;
    pipeline_t *p = pipeline_new(&cfg);
    assert_non_null(p);
    pipeline_feed(p, d->out, d->out_len);
    pipeline_finish(p);
    pipeline_free(p);
}

/* main creates A (labelled) and B; A runs 1000 us, and B, nested in it, 200 of them. */
static void test_nested_slices(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(30, 5000, 4096);
    assert_non_null(d);
    aioprof_task_t m = {0}, a = {0}, b = {0};
    aioprof_task_created(&d->prof, &m, "main", 4);
    aioprof_enter(&d->prof, &m);
    aioprof_task_created(&d->prof, &a, "A", 1);
    aioprof_task_label(&d->prof, &a, "sensor 3", 8);
    aioprof_task_created(&d->prof, &b, "B", 1);
    d->clock += 10;
    aioprof_exit(&d->prof, &m, AIOPROF_EXIT_YIELD);
    uint64_t t0 = d->clock;
    aioprof_enter(&d->prof, &a);
    d->clock += 100;
    aioprof_enter(&d->prof, &b);
    d->clock += 200;
    aioprof_exit(&d->prof, &b, AIOPROF_EXIT_YIELD);
    d->clock += 700;
    aioprof_exit(&d->prof, &a, AIOPROF_EXIT_RETURN);
    d->clock += 50;
    aioprof_enter(&d->prof, &b);
    d->clock += 30;
    aioprof_exit(&d->prof, &b, AIOPROF_EXIT_RAISE);
    fake_flush_all(d);
    static const char text[] = "hello \x1b[2J world\n";
    fake_append(d, (const uint8_t *)text, sizeof text - 1);

    char err[256];
    export_trace_t *x = export_trace_open(path, 0, NULL, "unit test", err, sizeof err);
    assert_non_null(x);
    feed(d, x);
    assert_int_equal(export_trace_close(x), 0);
    fake_free(d);

    cJSON *doc = load(path);
    assert_int_equal(count(doc, "X", NULL), 4);
    const cJSON *sa = find(doc, "X", "A", 0), *sb = find(doc, "X", "B", 0), *sb2 = find(doc, "X", "B", 1);
    assert_non_null(sa);
    assert_non_null(sb);
    assert_non_null(sb2);
    const cJSON *aa = cJSON_GetObjectItemCaseSensitive(sa, "args");
    const cJSON *ba = cJSON_GetObjectItemCaseSensitive(sb, "args");
    /* A's wall span holds B's slice; its own time does not */
    assert_true(num(sa, "dur") == 1000.0);
    assert_true(num(aa, "self_us") == 800.0);
    assert_string_equal(str(aa, "exit"), "return");
    assert_string_equal(str(aa, "label"), "sensor 3");
    assert_true(num(sb, "ts") == num(sa, "ts") + 100.0);
    assert_true(num(sb, "dur") == 200.0);
    assert_true(num(ba, "self_us") == 200.0);
    assert_string_equal(str(ba, "exit"), "yield");
    assert_null(cJSON_GetObjectItemCaseSensitive(ba, "label")); /* the template's label went back */
    assert_string_equal(str(cJSON_GetObjectItemCaseSensitive(sb2, "args"), "exit"), "exception");
    assert_true(num(sb2, "ts") == num(sa, "ts") + 1050.0);
    /* the main slice started the time line: A started 10 us after it */
    assert_true(num(sa, "ts") - num(find(doc, "X", "main", 0), "ts") == (double)(t0 - 5000));

    /* tracks: "name #id", with the creator and the label */
    int pid = (int)num(sa, "pid"), tid = (int)num(sa, "tid");
    const cJSON *ta = track(doc, pid, tid);
    assert_non_null(ta);
    char want[64];
    snprintf(want, sizeof want, "A #%d", tid);
    assert_string_equal(str(ta, "name"), want);
    assert_string_equal(str(ta, "created_by"), "main #1");
    assert_string_equal(str(ta, "label"), "sensor 3");
    assert_null(str(track(doc, pid, 1), "created_by"));

    /* the counter counts every ENTER and EXIT once: 4 slices of 2 events */
    double events = 0;
    const cJSON *e;
    for (int i = 0; (e = find(doc, "C", "events per second", i)) != NULL; i++) {
        events += num(cJSON_GetObjectItemCaseSensitive(e, "args"), "events");
    }
    assert_true(events == 8.0);

    /* the device's text is a safe instant on the text track */
    const cJSON *line = find(doc, "i", NULL, 0);
    assert_non_null(line);
    assert_string_equal(str(line, "name"), "hello \\e[2J world");
    assert_true(num(line, "tid") == 1.0);
    cJSON_Delete(doc);
}

/* Straight to the observer: unnamed tasks, a name that comes late, the counter's quiet stretch,
 * and the marks. */
static void test_observer_direct(void **state)
{
    (void)state;
    char err[256];
    export_trace_t *x = export_trace_open(path, 0, NULL, "unit test", err, sizeof err);
    assert_non_null(x);
    const pipeline_observer_t *o = export_trace_observer();
    pipeline_slice_t s = {
        .task = {.epoch = 0, .id = 7, .name = NULL, .label = "", .parent = 0, .parent_name = NULL, .version = 1},
        .start_us = 100, .end_us = 150, .self_us = 50, .exit_kind = AIOPROF_EXIT_YIELD,
    };
    o->event(x, 100);
    o->event(x, 150);
    o->slice(x, &s);
    o->event(x, 200);
    s.start_us = 200;
    s.end_us = 260;
    s.self_us = 60;
    o->slice(x, &s);                       /* same track, same name: not named again */
    o->event(x, 260);
    o->event(x, 5000000);                  /* four quiet seconds later */
    s.task.name = "worker";
    s.task.parent = 3;
    s.task.version = 2; /* what the events stage says when a task's name or creator changed */
    s.start_us = 5000000;
    s.end_us = 5000010;
    s.self_us = 10;
    o->slice(x, &s);                       /* the name arrived: named again */
    o->event(x, 5000010);
    o->mark(x, PIPELINE_MARK_DROPPED, 5000020, 17);
    o->mark(x, PIPELINE_MARK_RESET, 5000030, 1);
    s.task.epoch = 1;
    s.task.id = 1;
    s.task.name = "main";
    s.task.parent = 0;
    o->slice(x, &s);                       /* a new boot: a new process */
    assert_int_equal(export_trace_close(x), 0);

    cJSON *doc = load(path);
    assert_int_equal(count(doc, "X", NULL), 4);
    assert_string_equal(str(find(doc, "X", NULL, 0), "name"), "task #7");
    assert_string_equal(str(find(doc, "X", NULL, 2), "name"), "worker");
    assert_string_equal(str(track(doc, 2, 7), "name"), "worker #7");
    assert_string_equal(str(track(doc, 2, 7), "created_by"), "task #3");
    /* named twice: unnamed first, then by its name */
    int named = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents")) {
        if (is(e, "M", "thread_name") && num(e, "pid") == 2 && num(e, "tid") == 7) {
            const char *want = named++ == 0 ? "task #7" : "worker #7";
            assert_string_equal(str(cJSON_GetObjectItemCaseSensitive(e, "args"), "name"), want);
        }
    }
    assert_int_equal(named, 2);
    assert_int_equal(count(doc, "M", "thread_sort_index"), 2);
    assert_int_equal(count(doc, "M", "process_name"), 3); /* the stream, boot 0, boot 1 */
    assert_true(num(find(doc, "X", "main", 0), "pid") == 3.0);

    /* second 0: 4 events; second 1: 0 (the quiet stretch); second 5: 2 */
    const cJSON *c0 = find(doc, "C", NULL, 0), *c1 = find(doc, "C", NULL, 1), *c2 = find(doc, "C", NULL, 2);
    assert_non_null(c2);
    assert_null(find(doc, "C", NULL, 3));
    assert_true(num(c0, "ts") == 0 && num(cJSON_GetObjectItemCaseSensitive(c0, "args"), "events") == 4);
    assert_true(num(c1, "ts") == 1e6 && num(cJSON_GetObjectItemCaseSensitive(c1, "args"), "events") == 0);
    assert_true(num(c2, "ts") == 5e6 && num(cJSON_GetObjectItemCaseSensitive(c2, "args"), "events") == 2);

    const cJSON *drop = find(doc, "i", "events dropped", 0);
    assert_non_null(drop);
    assert_true(num(drop, "ts") == 5000020.0);
    assert_true(num(cJSON_GetObjectItemCaseSensitive(drop, "args"), "count") == 17.0);
    assert_string_equal(str(drop, "s"), "g");
    assert_non_null(find(doc, "i", "device reset", 0));
    const cJSON *other = cJSON_GetObjectItemCaseSensitive(doc, "otherData");
    assert_true(num(other, "slices") == 4.0);
    assert_string_equal(str(other, "source"), "unit test");
    cJSON_Delete(doc);
}

/* A session killed before the close: what reached the file ends after a whole event, and "]}"
 * completes it. */
static void test_cut_short(void **state)
{
    (void)state;
    char err[256];
    export_trace_t *x = export_trace_open(path, 0, NULL, "unit test", err, sizeof err);
    assert_non_null(x);
    const pipeline_observer_t *o = export_trace_observer();
    pipeline_slice_t s = {.task = {.id = 2, .name = "n", .label = "a label"}, .exit_kind = AIOPROF_EXIT_YIELD};
    int n = 20000; /* more than the buffer holds: some of it must have been written */
    for (int i = 0; i < n; i++) {
        s.start_us = (uint64_t)i * 10u;
        s.end_us = s.start_us + 5u;
        s.self_us = 5u;
        o->slice(x, &s);
    }
    char *text = slurp(path, 2);
    size_t len = strlen(text);
    assert_true(len > 64 * 1024);
    assert_int_equal(text[len - 1], '}');
    memcpy(text + len, "]}", 2);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    int written = count(doc, "X", "n");
    assert_true(written > 0 && written < n);
    /* in order, none lost on the way */
    for (int i = 0; i < written; i++) {
        assert_true(num(find(doc, "X", "n", i), "ts") == i * 10.0);
        if (i > 200) {
            i += 97; /* a sample is enough */
        }
    }
    cJSON_Delete(doc);
    assert_int_equal(export_trace_close(x), 0);
    doc = load(path);
    assert_int_equal(count(doc, "X", "n"), n);
    cJSON_Delete(doc);
}

static void test_refusals(void **state)
{
    (void)state;
    char err[256];
    export_trace_t *x = export_trace_open(path, 0, NULL, "", err, sizeof err);
    assert_non_null(x);
    export_trace_discard(x);
    assert_int_equal(access(path, F_OK), -1); /* discarded: gone */

    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("precious", f);
    fclose(f);
    assert_null(export_trace_open(path, 0, NULL, "", err, sizeof err));
    assert_non_null(strstr(err, "--force"));
    /* the recording being read is never overwritten, --force or not, nor is another output */
    file_out_files_t files = {0};
    file_out_note(&files, -1, path, 1, "the recording being replayed");
    assert_null(export_trace_open(path, 1, &files, "", err, sizeof err));
    assert_non_null(strstr(err, "is the recording being replayed: name another file for the trace"));
    assert_true(files.clash);
    files = (file_out_files_t){0};
    file_out_note(&files, -1, path, 0, "standard output");
    assert_null(export_trace_open(path, 1, &files, "", err, sizeof err));
    assert_non_null(strstr(err, "is also standard output: name another file for the trace"));
    char *kept = slurp(path, 0);
    assert_string_equal(kept, "precious");
    free(kept);
    x = export_trace_open(path, 1, NULL, "", err, sizeof err);
    assert_non_null(x);
    assert_int_equal(export_trace_close(x), 0);
    cJSON *doc = load(path); /* an empty session is still a valid trace */
    assert_int_equal(count(doc, "X", NULL), 0);
    cJSON_Delete(doc);

    char bad[160];
    snprintf(bad, sizeof bad, "%s/no/such/dir/t.json", dir);
    assert_null(export_trace_open(bad, 1, NULL, "", err, sizeof err));
    assert_non_null(strstr(err, "cannot create"));
}

static void check_u64(uint64_t v);

/* json_string writes what cJSON writes for the same string, byte for byte, and cJSON reads it
 * back as it was: every byte value alone and among others, and random strings of every byte. */
static void check_string(const char *s)
{
    static char mine[JSON_STRING_MAX(512) + 1];
    assert_true(strlen(s) <= 512);
    mine[json_string(mine, s)] = '\0';
    cJSON *item = cJSON_CreateString(s);
    char *theirs = cJSON_PrintUnformatted(item);
    assert_string_equal(mine, theirs);
    cJSON *back = cJSON_Parse(mine);
    assert_non_null(back);
    assert_true(cJSON_IsString(back));
    assert_string_equal(back->valuestring, s);
    cJSON_Delete(back);
    cJSON_free(theirs);
    cJSON_Delete(item);
}

static void test_json_string_as_cjson(void **state)
{
    (void)state;
    char s[600];
    check_string("");
    for (int b = 1; b < 256; b++) {
        snprintf(s, sizeof s, "%c", b);
        check_string(s);
        snprintf(s, sizeof s, "a%cz\\\"%c", b, b);
        check_string(s);
    }
    uint32_t rng = 7;
    for (int round = 0; round < 2000; round++) {
        size_t n = round % 300;
        for (size_t i = 0; i < n; i++) {
            rng = rng * 1664525u + 1013904223u;
            s[i] = (char)(1 + (rng >> 24) % 255);
        }
        s[n] = '\0';
        check_string(s);
    }
    /* and the numbers */
    uint64_t values[] = {0, 9, 10, 99, 1000000, UINT64_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        check_u64(values[i]);
    }
}

/* json_u64 writes what printf writes, and nothing past JSON_U64_MAX bytes: each side of every
 * power of ten, and random numbers of every length. */
static void check_u64(uint64_t v)
{
    char d[JSON_U64_MAX + 16], want[32];
    memset(d, '#', sizeof d);
    size_t n = json_u64(d, v);
    for (size_t i = JSON_U64_MAX; i < sizeof d; i++) {
        assert_int_equal(d[i], '#');
    }
    d[n] = '\0';
    snprintf(want, sizeof want, "%llu", (unsigned long long)v);
    assert_string_equal(d, want);
#if JSON_WORDS
    /* json_word, what a slice writes twice: the same digits, and zeros after them in its word */
    if (v < 100000000u) {
        json_word_t w = json_word((uint32_t)v);
        char wd[9] = {0};
        memcpy(wd, &w.w, 8);
        assert_int_equal(w.n, strlen(want));
        assert_string_equal(wd, want);
    }
#endif
}

static void test_json_u64(void **state)
{
    (void)state;
    uint64_t ten = 1;
    for (int k = 0; k < 20; k++, ten *= 10u) {
        for (uint64_t near = 0; near < 3; near++) {
            check_u64(ten - 1u + near);
            check_u64(ten * 7u - near);
        }
    }
    check_u64(UINT64_MAX - 1u);
    uint64_t rng = 11;
    for (int round = 0; round < 200000; round++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        check_u64(rng >> (round % 64));
    }
    for (uint64_t v = 0; v < 100000; v++) {
        check_u64(v);
    }
    /* json_u64_near: what json_u64 writes, whatever came before: steps up, back, across 10^4s */
    json_near_t near = {0};
    uint64_t v = 0;
    for (int round = 0; round < 200000; round++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned how = (unsigned)(rng >> 61);
        v = how < 4 ? v + (rng >> 50) : how < 6 ? v - (v > 5000 ? (rng >> 52) : 0) : how < 7 ? rng >> (rng & 63) : UINT64_MAX - (rng >> 60);
        char d[JSON_U64_MAX + 16], want[32];
        memset(d, '#', sizeof d);
        size_t n = json_u64_near(&near, d, v);
        for (size_t i = JSON_U64_MAX; i < sizeof d; i++) {
            assert_int_equal(d[i], '#');
        }
        d[n] = '\0';
        snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        assert_string_equal(d, want);
    }
}

/* A slice whose name and label hold every kind of byte JSON escapes: the file parses, and says
 * them as they were. */
static void test_slice_escapes(void **state)
{
    (void)state;
    char err[256];
    export_trace_t *x = export_trace_open(path, 0, NULL, "unit test", err, sizeof err);
    assert_non_null(x);
    const pipeline_observer_t *o = export_trace_observer();
    static const char name[] = "a\"b\\c\x01\x1f\t\n\r\b\f\x7f\xc3\xa9/";
    static const char label[] = "\\x1b[31m \"quoted\"";
    pipeline_slice_t s = {
        .task = {.epoch = 0, .id = 70000, .name = name, .label = label, .parent = 0, .parent_name = NULL, .version = 1},
        .start_us = 18446744073709551ull, .end_us = 18446744073709600ull, .self_us = 49, .exit_kind = AIOPROF_EXIT_CANCEL,
    };
    o->slice(x, &s);
    /* a name and label too long for their track to keep what slices say of them: written out
     * again for each slice, the same */
    static char long_name[STATS_TEXT_MAX], long_label[STATS_TEXT_MAX];
    memset(long_name, 'n', sizeof long_name - 1);
    memset(long_label, '\\', sizeof long_label - 1);
    pipeline_slice_t l = s;
    l.task.id = 5;
    l.task.name = long_name;
    l.task.label = long_label;
    o->slice(x, &l);
    o->slice(x, &l);
    assert_int_equal(export_trace_close(x), 0);
    cJSON *doc = load(path);
    for (int n = 0; n < 2; n++) {
        const cJSON *ln = find(doc, "X", long_name, n);
        assert_non_null(ln);
        assert_string_equal(str(cJSON_GetObjectItemCaseSensitive(ln, "args"), "label"), long_label);
        assert_true(num(ln, "tid") == 5.0);
    }
    const cJSON *e = find(doc, "X", NULL, 0);
    assert_non_null(e);
    assert_string_equal(str(e, "name"), name);
    assert_true(num(e, "ts") == 18446744073709551.0);
    assert_true(num(e, "dur") == 49.0);
    assert_true(num(e, "tid") == 70000.0);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
    assert_string_equal(str(args, "label"), label);
    assert_string_equal(str(args, "exit"), "cancelled");
    assert_true(num(args, "self_us") == 49.0);
    cJSON_Delete(doc);
}

/* Late windows and span pieces: their names as they were, escapes and all, on the right track,
 * with their figures; a name the export kept (by its address) that changed there is written as it
 * is now; names too long to keep, and a track whose parts are too long to keep, the same. */
static const cJSON *window_n(const cJSON *doc, const char *cat, int n)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents")) {
        const char *c = str(e, "cat");
        if (c && strcmp(c, cat) == 0 && n-- == 0) {
            return e;
        }
    }
    return NULL;
}

static void check_window(const cJSON *e, const char *name, double ts, double dur, double pid, double tid)
{
    assert_non_null(e);
    assert_string_equal(str(e, "name"), name);
    assert_string_equal(str(e, "ph"), "X");
    assert_true(num(e, "ts") == ts && num(e, "dur") == dur && num(e, "pid") == pid && num(e, "tid") == tid);
}

static void test_window_names(void **state)
{
    (void)state;
    char err[256];
    export_trace_t *x = export_trace_open(path, 0, NULL, "unit test", err, sizeof err);
    assert_non_null(x);
    const pipeline_observer_t *o = export_trace_observer();
    static char culprit[64], span_name[64], long_culprit[STATS_TEXT_MAX], long_task[STATS_TEXT_MAX];
    static const char odd[] = "we\"ird\\na\x01me\t";
    memset(long_culprit, '"', sizeof long_culprit - 1);
    memset(long_task, '\\', sizeof long_task - 1);
    snprintf(culprit, sizeof culprit, "%s", "cul\"prit\\");
    pipeline_late_t l = {
        .task = {.epoch = 1, .id = 9, .name = odd, .label = "", .version = 1},
        .start_us = 1000, .end_us = 8000, .blocked_by = culprit, .blocked_us = 4000,
    };
    o->late(x, &l); /* 0 */
    l.start_us = 20000;
    l.end_us = 20500;
    o->late(x, &l); /* 1: the culprit kept */
    snprintf(culprit, sizeof culprit, "%s", "other\x1f");
    o->late(x, &l); /* 2: the same address, another name */
    l.blocked_by = NULL;
    o->late(x, &l); /* 3: none ran */
    l.blocked_by = long_culprit;
    l.task = (pipeline_task_t){.epoch = 0, .id = 4000000000u, .name = long_task, .label = long_task, .version = 3};
    o->late(x, &l); /* 4: a long culprit, a track that keeps no parts */
    o->late(x, &l); /* 5 */

    pipeline_span_t sp = {
        .task = {.epoch = 1, .id = 9, .name = odd, .label = "", .version = 1},
        .name = span_name, .start_us = 123456789012ull, .end_us = 123456799012ull, .depth = 2, .last = 1,
    };
    snprintf(span_name, sizeof span_name, "%s", "read \"x\"");
    o->span(x, &sp); /* 0 */
    sp.last = 0;
    o->span(x, &sp); /* 1: kept */
    snprintf(span_name, sizeof span_name, "%s", "parse\n");
    sp.task = l.task;
    o->span(x, &sp); /* 2: changed, on the long track */
    assert_int_equal(export_trace_close(x), 0);

    cJSON *doc = load(path);
    const char *blocked[] = {"cul\"prit\\", "cul\"prit\\", "other\x1f", NULL, long_culprit, long_culprit};
    const double start[] = {1000, 20000, 20000, 20000, 20000, 20000}, dur[] = {7000, 500, 500, 500, 500, 500};
    for (int n = 0; n < 6; n++) {
        const cJSON *e = window_n(doc, "late", n);
        check_window(e, "waiting", start[n], dur[n], n < 4 ? 3 : 2, n < 4 ? 9 : 4000000000.0);
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        if (blocked[n] != NULL) {
            assert_string_equal(str(args, "blocked_by"), blocked[n]);
        } else {
            assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(args, "blocked_by")));
        }
        assert_true(num(args, "blocked_us") == 4000);
    }
    assert_null(window_n(doc, "late", 6));
    const char *spans[] = {"read \"x\"", "read \"x\"", "parse\n"};
    for (int n = 0; n < 3; n++) {
        const cJSON *e = window_n(doc, "span", n);
        check_window(e, spans[n], 123456789012.0, 10000, n < 2 ? 3 : 2, n < 2 ? 9 : 4000000000.0);
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        assert_true(num(args, "depth") == 2);
        assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(args, "last")));
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "last")), n == 0);
    }
    assert_string_equal(str(track(doc, 3, 9), "name"), "we\"ird\\na\x01me\t #9");
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nested_slices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_observer_direct, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cut_short, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test(test_json_string_as_cjson),
        cmocka_unit_test(test_json_u64),
        cmocka_unit_test_setup_teardown(test_window_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slice_escapes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
