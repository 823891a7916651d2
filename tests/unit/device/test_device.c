/* The device hook against the reader: what it records is what the reader decodes, across wraps,
 * drops, partial writes, text, nesting, late attach. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "fake_device.h"

typedef struct truth_event {
    aioprof_rec_kind_t kind;
    uint64_t time;
    uint32_t id;
    uint32_t exit_kind;
} truth_event_t;

/* Runs a two-task schedule and keeps the true times of every enter and exit. */
static size_t run_schedule(fake_device_t *d, aioprof_task_t *a, aioprof_task_t *b, int slices, truth_event_t *truth,
    uint64_t slice_a, uint64_t slice_b, uint64_t gap)
{
    size_t n = 0;
    for (int i = 0; i < slices; i++) {
        aioprof_task_t *t = (i % 2) ? b : a;
        aioprof_enter(&d->prof, t);
        truth[n++] = (truth_event_t){AIOPROF_REC_ENTER, d->clock, t->id, 0};
        d->clock += (i % 2) ? slice_b : slice_a;
        unsigned kind = (i == slices - 1) ? AIOPROF_EXIT_RETURN : AIOPROF_EXIT_YIELD;
        aioprof_exit(&d->prof, t, kind);
        truth[n++] = (truth_event_t){AIOPROF_REC_EXIT, d->clock, t->id, kind};
        d->clock += gap;
        aioprof_drain(&d->prof);
    }
    return n;
}

/* Compares the decoded enters/exits with the truth, times relative to the first one. */
static void check_against_truth(const decoded_t *dec, const truth_event_t *truth, size_t n)
{
    size_t k = 0;
    uint64_t t0 = 0, d0 = 0;
    for (size_t i = 0; i < dec->n; i++) {
        const decoded_event_t *e = &dec->ev[i];
        if (e->kind != AIOPROF_REC_ENTER && e->kind != AIOPROF_REC_EXIT) {
            continue;
        }
        assert_true(k < n);
        if (k == 0) {
            t0 = truth[0].time;
            d0 = e->time;
        }
        assert_int_equal(e->kind, truth[k].kind);
        assert_int_equal(e->time - d0, truth[k].time - t0);
        if (e->kind == AIOPROF_REC_ENTER) {
            assert_int_equal(e->id, truth[k].id);
        } else {
            assert_int_equal(e->exit_kind, truth[k].exit_kind);
        }
        k++;
    }
    assert_int_equal(k, n);
}

static void round_trip_basic(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(32, 1000, 4096);
    aioprof_task_t a, b;
    truth_event_t truth[64];
    aioprof_task_created(&d->prof, &a, "slow", 4);
    aioprof_task_created(&d->prof, &b, "quicker", 7);
    size_t n = run_schedule(d, &a, &b, 20, truth, 80000, 1000, 37);
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    assert_int_equal(dec->reader.stats.crc_errors, 0);
    assert_int_equal(dec->reader.stats.malformed, 0);
    assert_int_equal(dec->reader.stats.lost_frames, 0);
    /* HELLO (boot), TASK_NEW x2 first */
    assert_int_equal(dec->ev[0].kind, AIOPROF_REC_HELLO);
    assert_true(dec->ev[0].flags & AIOPROF_HELLO_FLAG_BOOT);
    assert_int_equal(dec->ev[1].kind, AIOPROF_REC_TASK_NEW);
    assert_string_equal(dec->ev[1].name, "slow");
    assert_int_equal(dec->ev[1].id, 1);
    assert_int_equal(dec->ev[2].kind, AIOPROF_REC_TASK_NEW);
    assert_string_equal(dec->ev[2].name, "quicker");
    assert_int_equal(dec->ev[2].id, 2);
    check_against_truth(dec, truth, n);
    decoded_free(dec);
    fake_free(d);
}

static void every_exit_kind_and_large_ids(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(32, 5, 65535);
    static aioprof_task_t tasks[40];
    for (int i = 0; i < 40; i++) {
        char name[8];
        snprintf(name, sizeof name, "t%d", i);
        aioprof_task_created(&d->prof, &tasks[i], "tasks", 5);
    }
    truth_event_t truth[200];
    size_t n = 0;
    for (int i = 0; i < 40; i++) {
        aioprof_enter(&d->prof, &tasks[i]);
        truth[n++] = (truth_event_t){AIOPROF_REC_ENTER, d->clock, tasks[i].id, 0};
        d->clock += (uint64_t)i * 1234567u % 3000000u; /* up to 3 s: long varints */
        unsigned kind = (unsigned)i % 4u;
        aioprof_exit(&d->prof, &tasks[i], kind);
        truth[n++] = (truth_event_t){AIOPROF_REC_EXIT, d->clock, tasks[i].id, kind};
        d->clock += 3;
    }
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    assert_int_equal(tasks[39].id, 40);
    check_against_truth(dec, truth, n);
    decoded_free(dec);
    fake_free(d);
}

static void wraps(unsigned bits, uint64_t start)
{
    fake_device_t *d = fake_new(bits, start, 4096);
    aioprof_task_t a, b;
    static truth_event_t truth[20000];
    aioprof_task_created(&d->prof, &a, "a", 1);
    aioprof_task_created(&d->prof, &b, "b", 1);
    /* 9000 slices of ~0.5 s: about 75 minutes, several 2^30 wraps (17.9 min each) */
    size_t n = run_schedule(d, &a, &b, 9000, truth, 480000, 20011, 3000);
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    assert_int_equal(dec->reader.stats.crc_errors + dec->reader.stats.malformed, 0);
    check_against_truth(dec, truth, n);
    decoded_free(dec);
    fake_free(d);
}

static void wraps_at_2_30(void **state)
{
    (void)state;
    wraps(30, (1ull << 30) - 2000);
}

static void wraps_at_2_32(void **state)
{
    (void)state;
    wraps(32, (1ull << 32) - 700);
}

static void drops_counted_exactly(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(32, 0, 128);
    aioprof_task_t a;
    aioprof_task_created(&d->prof, &a, "a", 1);
    d->refuse = 1;
    unsigned attempts = 0;
    for (int i = 0; i < 500; i++) {
        aioprof_enter(&d->prof, &a);
        d->clock += 100;
        aioprof_exit(&d->prof, &a, AIOPROF_EXIT_YIELD);
        d->clock += 10;
        aioprof_drain(&d->prof);
        attempts += 2;
    }
    uint32_t dropped = d->prof.dropped_total;
    assert_true(dropped > 0);
    d->refuse = 0;
    fake_flush_all(d);
    /* room again: the next events carry the DROPPED count first */
    aioprof_enter(&d->prof, &a);
    d->clock += 5;
    aioprof_exit(&d->prof, &a, AIOPROF_EXIT_YIELD);
    attempts += 2;
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    size_t recorded = count_kind(dec, AIOPROF_REC_ENTER) + count_kind(dec, AIOPROF_REC_EXIT);
    uint64_t reported = 0;
    for (size_t i = 0; i < dec->n; i++) {
        if (dec->ev[i].kind == AIOPROF_REC_DROPPED) {
            reported += dec->ev[i].count;
        }
    }
    assert_int_equal(reported, dropped);
    assert_int_equal(recorded + reported, attempts);
    assert_int_equal(dec->reader.stats.crc_errors, 0);
    assert_int_equal(dec->reader.stats.lost_frames, 0);
    decoded_free(dec);
    fake_free(d);
}

static void partial_writes_lose_nothing(void **state)
{
    (void)state;
    fake_device_t *whole = fake_new(30, 77, 2048);
    fake_device_t *bits = fake_new(30, 77, 2048);
    aioprof_task_t a1, b1, a2, b2;
    static truth_event_t truth[4000];
    aioprof_task_created(&whole->prof, &a1, "alpha", 5);
    aioprof_task_created(&whole->prof, &b1, "beta", 4);
    aioprof_task_created(&bits->prof, &a2, "alpha", 5);
    aioprof_task_created(&bits->prof, &b2, "beta", 4);
    run_schedule(whole, &a1, &b1, 1000, truth, 300, 45, 20);
    bits->write_limit = 3;
    run_schedule(bits, &a2, &b2, 1000, truth, 300, 45, 20);
    fake_flush_all(whole);
    fake_flush_all(bits);
    assert_int_equal(whole->prof.dropped_total, 0);
    assert_int_equal(bits->prof.dropped_total, 0);
    assert_true(bits->write_calls > whole->write_calls);
    assert_int_equal(bits->out_len, whole->out_len);
    assert_memory_equal(bits->out, whole->out, whole->out_len);
    fake_free(whole);
    fake_free(bits);
}

static void text_between_frames_reaches_host_intact(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(32, 0, 4096);
    aioprof_task_t a;
    static truth_event_t truth[64];
    size_t n = 0;
    char expect[4096] = "";
    aioprof_task_created(&d->prof, &a, "printer", 7);
    for (int i = 0; i < 30; i++) {
        aioprof_enter(&d->prof, &a);
        truth[n++] = (truth_event_t){AIOPROF_REC_ENTER, d->clock, a.id, 0};
        d->clock += 2000;
        aioprof_exit(&d->prof, &a, AIOPROF_EXIT_YIELD);
        truth[n++] = (truth_event_t){AIOPROF_REC_EXIT, d->clock, a.id, 0};
        d->clock += 500000; /* frames close every second */
        aioprof_drain(&d->prof);
        char line[64];
        int len = snprintf(line, sizeof line, "print %d: t=%llu\r\n", i, (unsigned long long)d->clock);
        fake_append(d, (const uint8_t *)line, (size_t)len);
        strcat(expect, line);
    }
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    assert_int_equal(dec->reader.stats.crc_errors, 0);
    assert_int_equal(dec->text_len, strlen(expect));
    assert_memory_equal(dec->text, expect, dec->text_len);
    check_against_truth(dec, truth, n);
    decoded_free(dec);
    fake_free(d);
}

static void nested_enter_and_running_header(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(32, 0, 4096);
    aioprof_task_t outer, inner;
    aioprof_task_created(&d->prof, &outer, "outer", 5);
    aioprof_enter(&d->prof, &outer);
    aioprof_task_created(&d->prof, &inner, "inner", 5);
    assert_int_equal(inner.parent, outer.id);
    d->clock += 10;
    aioprof_flush(&d->prof); /* the next frame opens while outer runs */
    aioprof_enter(&d->prof, &inner);
    d->clock += 20;
    aioprof_exit(&d->prof, &inner, AIOPROF_EXIT_RETURN);
    assert_ptr_equal(d->prof.current, &outer);
    d->clock += 30;
    aioprof_exit(&d->prof, &outer, AIOPROF_EXIT_YIELD);
    assert_null(d->prof.current);
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    assert_int_equal(dec->frames, 2);
    /* second frame: running = outer, then enter inner, exit, exit */
    size_t i = 0;
    while (dec->ev[i].kind != AIOPROF_REC_TASK_NEW || strcmp(dec->ev[i].name, "inner") != 0) {
        i++;
    }
    assert_int_equal(dec->ev[i].parent, outer.id);
    assert_int_equal(dec->ev[i + 1].kind, AIOPROF_REC_ENTER);
    assert_int_equal(dec->ev[i + 1].id, inner.id);
    assert_int_equal(dec->ev[i + 2].kind, AIOPROF_REC_EXIT);
    assert_int_equal(dec->ev[i + 2].time - dec->ev[i + 1].time, 20);
    assert_int_equal(dec->ev[i + 3].time - dec->ev[i + 2].time, 30);
    decoded_free(dec);
    fake_free(d);
}

/* A host that joins late learns every running task's name within seventeen seconds of device
 * time (sixteen periods since the name last went, and the frame's latency: docs/protocol.md
 * section 5), and a running task's name goes no more often than every sixteen periods. */
static void late_attach_learns_names(void **state)
{
    (void)state;
    enum { PERIOD_US = 1000000, EVERY = 16 };
    fake_device_t *d = fake_new(30, 0, 8192);
    static aioprof_task_t tasks[12];
    static const char *names[12] = {"a", "bb", "ccc", "Sensor._go", "Sensor._go", "main", "x", "y", "z", "w", "v", "u"};
    for (int i = 0; i < 12; i++) {
        aioprof_task_created(&d->prof, &tasks[i], names[i], strlen(names[i]));
    }
    aioprof_task_label(&d->prof, &tasks[4], "sensor 3", 8);
    /* an hour of running (each task runs every 216 ms), then note where the host attaches */
    size_t attach_at = 0;
    for (int i = 0; i < 200000; i++) {
        aioprof_task_t *t = &tasks[i % 12];
        aioprof_enter(&d->prof, t);
        d->clock += 7000;
        aioprof_exit(&d->prof, t, AIOPROF_EXIT_YIELD);
        d->clock += 11000;
        aioprof_drain(&d->prof);
        if (i == 190000) {
            attach_at = d->out_len;
        }
    }
    fake_flush_all(d);
    /* what the late host saw: the last 10000 slices, 180 s */
    decoded_t *dec = decode_all(d->out + attach_at, d->out_len - attach_at);
    int known[13] = {0}, sent[13] = {0};
    int label_seen = 0;
    for (size_t i = 0; i < dec->n; i++) {
        const decoded_event_t *e = &dec->ev[i];
        if (e->kind == AIOPROF_REC_TASK_INFO && e->id <= 12) {
            assert_string_equal(e->name, names[e->id - 1]);
            if (e->id == tasks[4].id) {
                assert_string_equal(e->label, "sensor 3");
                label_seen = 1;
            }
            sent[e->id]++;
            if (!known[e->id]) {
                known[e->id] = 1;
                /* relative to the first frame the late host saw */
                assert_true(e->time - dec->ev[0].time <= (EVERY + 1) * PERIOD_US);
            }
        }
    }
    for (int id = 1; id <= 12; id++) {
        assert_true(known[id]);
        /* 180 s: once in every sixteen periods, not in every period it ran */
        assert_true(sent[id] >= 180 / (EVERY + 1) && sent[id] <= 180 / EVERY + 1);
    }
    assert_true(label_seen);
    decoded_free(dec);
    fake_free(d);
}

/* Fills buf with prefix and then count copies of ch; returns the length. */
static size_t repeat_utf8(char *buf, const char *prefix, const char *ch, int count)
{
    size_t n = strlen(prefix);
    memcpy(buf, prefix, n);
    for (int i = 0; i < count; i++) {
        memcpy(buf + n, ch, strlen(ch));
        n += strlen(ch);
    }
    return n;
}

/* Names and labels longer than the 48 bytes they share are cut at the start of the character that
 * straddles the limit, never inside it; in bytes that are not UTF-8 the cut moves back at most
 * three bytes. */
static void names_cut_at_character_boundary(void **state)
{
    (void)state;
    static const struct {
        const char *prefix, *ch;
        int count;
        size_t want; /* bytes kept: the prefix and the whole characters that fit */
    } cases[] = {
        {"a", "\xc3\xa9", 30, 1 + 23 * 2},        /* e-acute, 2 bytes: 47, not 48 */
        {"", "\xe2\x82\xac", 20, 16 * 3},         /* euro sign, 3 bytes: exactly 48 */
        {"x", "\xe2\x82\xac", 20, 1 + 15 * 3},    /* 46 */
        {"xy", "\xe2\x82\xac", 20, 2 + 15 * 3},   /* 47 */
        {"ab", "\xf0\x9f\x98\x80", 12, 2 + 11 * 4}, /* a 4-byte character: 46 */
        {"", "\x80", 60, 45},                     /* not UTF-8: at most three bytes back */
        {"short", "\xc3\xa9", 3, 5 + 3 * 2},      /* fits: unchanged */
    };
    fake_device_t *d = fake_new(32, 0, 4096);
    enum { N = sizeof cases / sizeof cases[0] };
    static aioprof_task_t tasks[N + 2];
    static char names[N][256];
    for (size_t i = 0; i < N; i++) {
        size_t len = repeat_utf8(names[i], cases[i].prefix, cases[i].ch, cases[i].count);
        aioprof_task_created(&d->prof, &tasks[i], names[i], len);
        assert_int_equal(tasks[i].name_len, cases[i].want);
    }
    /* a label gets what the name leaves: 44 bytes after "slow", 43 after "abcde" */
    static char label[256];
    size_t label_len = repeat_utf8(label, "", "\xc3\xa9", 30);
    aioprof_task_created(&d->prof, &tasks[N], "slow", 4);
    aioprof_task_label(&d->prof, &tasks[N], label, label_len);
    assert_int_equal(tasks[N].label_len, 44);
    aioprof_task_created(&d->prof, &tasks[N + 1], "abcde", 5);
    aioprof_task_label(&d->prof, &tasks[N + 1], label, label_len);
    assert_int_equal(tasks[N + 1].label_len, 42);
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    size_t seen = 0;
    for (size_t i = 0; i < dec->n; i++) {
        const decoded_event_t *e = &dec->ev[i];
        if (e->kind == AIOPROF_REC_TASK_NEW && e->id <= N) {
            /* what the reader got is the name's first want bytes */
            assert_int_equal(strlen(e->name), cases[e->id - 1].want);
            assert_memory_equal(e->name, names[e->id - 1], cases[e->id - 1].want);
            seen++;
        }
        if (e->kind == AIOPROF_REC_TASK_INFO && e->id > N) {
            assert_int_equal(strlen(e->label), e->id == N + 1 ? 44 : 42);
            assert_memory_equal(e->label, label, strlen(e->label));
            seen++;
        }
    }
    assert_int_equal(seen, N + 2);
    decoded_free(dec);
    fake_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_basic),
        cmocka_unit_test(every_exit_kind_and_large_ids),
        cmocka_unit_test(wraps_at_2_30),
        cmocka_unit_test(wraps_at_2_32),
        cmocka_unit_test(drops_counted_exactly),
        cmocka_unit_test(partial_writes_lose_nothing),
        cmocka_unit_test(text_between_frames_reaches_host_intact),
        cmocka_unit_test(nested_enter_and_running_header),
        cmocka_unit_test(late_attach_learns_names),
        cmocka_unit_test(names_cut_at_character_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
