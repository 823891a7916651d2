/* The hook built with and without each of its parts (AIOPROF_LATE, AIOPROF_LABELS, AIOPROF_STOP:
 * docs/porting.md, "Building for size"), read by the host's own pipeline: whatever a build leaves
 * out, the host reads every event exactly, and shows what was left out as not reported (lateness
 * unknown, no label, a stream that never said it stopped), never as a wrong figure. tests/
 * CMakeLists.txt builds this file once per configuration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "fake_device.h"
#include "pipeline.h"
#include "stats.h"

enum { TASKS = 3, SLICES = 3000 };

static const char *const task_names[TASKS] = {"main", "sensor", "sensor"};

typedef struct truth {
    uint64_t count[TASKS], total_us[TASKS];
    uint64_t resumes[TASKS], late_count[TASKS], late_us[TASKS];
} truth_t;

/* Runs SLICES slices of three tasks (two of one name, one of them labelled), every resume given
 * its lateness in ticks, with pauses that cross periods and HELLOs; keeps the truth per task. */
static fake_device_t *run(aioprof_task_t *tasks, truth_t *truth)
{
    fake_device_t *d = fake_new_late(32, 1000, 4096, 1);
    assert_non_null(d);
    aioprof_task_created(&d->prof, &tasks[0], task_names[0], 4);
    aioprof_enter(&d->prof, &tasks[0]);
    d->clock += 20;
    for (int i = 1; i < TASKS; i++) {
        aioprof_task_created(&d->prof, &tasks[i], task_names[i], 6);
    }
#if AIOPROF_LABELS
    aioprof_task_label(&d->prof, &tasks[2], "sensor 3", 8);
#endif
    aioprof_exit(&d->prof, &tasks[0], AIOPROF_EXIT_YIELD);
    truth->count[0]++;
    truth->total_us[0] += 20;
    truth->resumes[0]++;
    uint32_t rng = 7;
    for (int i = 0; i < SLICES; i++) {
        rng = rng * 1664525u + 1013904223u;
        int k = (int)(rng >> 30) % TASKS;
        uint32_t gap = 40 + ((rng >> 8) & 63u);
        uint32_t late = (rng >> 16) & 1u ? 0u : ((rng >> 18) % gap);
        uint32_t len = 5 + ((rng >> 4) & 255u);
        if (i % 500 == 499) {
            gap += 3000000; /* three periods: heartbeats, a HELLO every eighth */
        }
        d->clock += gap;
        aioprof_enter_late(&d->prof, &tasks[k], late);
        d->clock += len;
        aioprof_exit(&d->prof, &tasks[k], AIOPROF_EXIT_YIELD);
        truth->count[k]++;
        truth->total_us[k] += len;
        truth->resumes[k]++;
        truth->late_count[k] += late != 0;
        truth->late_us[k] += late;
        aioprof_drain(&d->prof);
    }
#if AIOPROF_STOP
    aioprof_close(&d->prof);
    for (int i = 0; i < 100 && !aioprof_idle(&d->prof); i++) {
        aioprof_drain(&d->prof);
    }
    assert_true(aioprof_idle(&d->prof));
#else
    d->clock += 1000000; /* the last frame closes at the period's end */
    aioprof_drain(&d->prof);
    aioprof_flush(&d->prof);
    aioprof_drain(&d->prof);
#endif
    return d;
}

static void host_reads_every_part_it_was_sent(void **state)
{
    (void)state;
    static aioprof_task_t tasks[TASKS];
    truth_t truth = {0};
    fake_device_t *d = run(tasks, &truth);

    pipeline_config_t cfg = {0};
    pipeline_t *p = pipeline_new(&cfg);
    assert_non_null(p);
    pipeline_feed(p, d->out, d->out_len);
    pipeline_end_of_input(p);
    const stats_t *s = pipeline_stats(p);

    /* every event, nothing lost or damaged */
    assert_int_equal(s->stream.events, 2u * (SLICES + 1u));
    assert_int_equal(s->stream.dropped_events, 0);
    assert_int_equal(s->stream.crc_errors + s->stream.lost_frames + s->stream.malformed + s->stream.unknown_ops, 0);
    assert_true(s->device.have_hello);
    assert_int_equal(s->device.period_ticks, 1000000u);
    assert_int_equal(s->device.late_unit, AIOPROF_LATE ? 1u : 0u);
    /* the stop: said (nothing left behind), or never said, and the end is then a lower bound */
    assert_int_equal(s->stream.ended_before_stop, AIOPROF_STOP ? 0u : 1u);

    size_t n;
    stats_row_t *rows = stats_rows(s, 1, STATS_SORT_NAME, &n);
    assert_non_null(rows);
    assert_int_equal(n, TASKS);
    for (size_t i = 0; i < n; i++) {
        const stats_row_t *r = &rows[i];
        int k = -1;
        for (int j = 0; j < TASKS; j++) {
            k = tasks[j].id == r->inst->id ? j : k;
        }
        assert_true(k >= 0);
        assert_string_equal(r->name, task_names[k]);
        assert_int_equal(r->f.count, truth.count[k]);
        assert_int_equal(r->f.total_us, truth.total_us[k]);
        assert_string_equal(r->inst->label, AIOPROF_LABELS && k == 2 ? "sensor 3" : "");
        if (AIOPROF_LATE) {
            /* exact against the truth: every resume's lateness */
            assert_non_null(r->late);
            assert_int_equal(r->late->resumes, truth.resumes[k]);
            assert_int_equal(r->late->count, truth.late_count[k]);
            assert_int_equal(r->late->total_us, truth.late_us[k]);
        } else {
            /* not "on time": unknown */
            assert_null(r->late);
        }
    }
    free(rows);
    pipeline_free(p);
    fake_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_reads_every_part_it_was_sent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
