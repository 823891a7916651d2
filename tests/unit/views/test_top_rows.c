/* The live table's rows (host/views/top/top_rows.c) built from the statistics: what a row says
 * of its lateness, and the rows past the instance cap. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats.h"
#include "stats_gen.h"
#include "top_private.h"

/* The live table's one "blocked by" column names what took most of a row's waiting: a task, or
 * "(outside tasks)" when the time outside any slice (the scheduler, the drain) took more. */
static const top_row_t *table_row(top_rows_t *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(top_rows_str(r, r->rows[i].name), name) == 0) {
            return &r->rows[i];
        }
    }
    fail_msg("no row %s", name);
    return NULL;
}

/* Instance id of s, named (as a TASK_NEW names it). */
static int32_t task_named(stats_t *s, uint32_t id, const char *name)
{
    int32_t idx = stats_instance_get(s, id);
    stats_instance_describe(s, idx, (const uint8_t *)name, strlen(name), NULL, 0, 0, 1);
    return idx;
}

/* Builds the table's rows of s and checks what row's blocked by cell says. */
static void assert_blocked_by(top_view_t *v, const stats_t *s, const char *row, const char *culprit,
    uint32_t permille)
{
    assert_int_equal(top_rows_build(&v->base[0], s, 0, &v->hist), 0);
    const top_row_t *r = table_row(&v->base[0], row);
    assert_string_equal(top_rows_str(&v->base[0], r->culprit), culprit);
    assert_int_equal(r->culprit_permille, permille);
}

static void test_table_blocked_by(void **state)
{
    (void)state;
    stats_t s;
    assert_int_equal(stats_init(&s, 0, 20000), 0);
    int32_t w = task_named(&s, 1, "waiter"), h = task_named(&s, 2, "hog");
    int32_t who[1] = {s.inst[h].name};
    uint64_t us[1] = {2000};
    stats_late_resume(&s, &s.inst[w], 10000);
    stats_late_window(&s, &s.inst[w], who, NULL, us, 1, 8000, 0);
    top_view_t *v = calloc(1, sizeof *v);
    assert_non_null(v);
    assert_blocked_by(v, &s, "waiter", "(outside tasks)", 800);
    /* then the hog takes most of it: 22 ms of 30 */
    us[0] = 20000;
    stats_late_resume(&s, &s.inst[w], 20000);
    stats_late_window(&s, &s.inst[w], who, NULL, us, 1, 0, 0);
    assert_blocked_by(v, &s, "waiter", "hog", 733);
    /* a task never late names nothing */
    assert_blocked_by(v, &s, "hog", "", 0);
    top_rows_free(&v->base[0]);
    free(v);
    stats_free(&s);
}

/* A device's task named like one of the host's own culprits is not shown as it: "(gc)" (a
 * collection between slices) and "(outside tasks)" are the host's; a task with either name is
 * shown with its "(" escaped, so blocked by tells them apart. */
static void test_blocked_by_pseudo_names(void **state)
{
    (void)state;
    stats_t s;
    assert_int_equal(stats_init(&s, 0, 20000), 0);
    int32_t w = task_named(&s, 1, "waiter"), g = task_named(&s, 2, "(gc)");
    int32_t o = task_named(&s, 3, "(outside tasks)"), w2 = task_named(&s, 4, "other waiter");
    /* the task "(gc)" and a real collection are two culprits, in two rows of two names */
    int32_t gc = stats_gc_row(&s);
    assert_int_not_equal(s.inst[g].name, gc);
    assert_string_equal(s.names[gc].name, "(gc)");
    assert_string_equal(s.names[s.inst[g].name].name, "\\x28gc)");
    int32_t who[2] = {s.inst[g].name, gc};
    uint64_t us[2] = {15000, 4000};
    stats_late_resume(&s, &s.inst[w], 20000);
    stats_late_window(&s, &s.inst[w], who, NULL, us, 2, 1000, 0);
    /* the task "(outside tasks)" took more of the waiting than the time outside tasks */
    int32_t who2[1] = {s.inst[o].name};
    uint64_t us2[1] = {12000};
    stats_late_resume(&s, &s.inst[w2], 20000);
    stats_late_window(&s, &s.inst[w2], who2, NULL, us2, 1, 8000, 0);
    top_view_t *v = calloc(1, sizeof *v);
    assert_non_null(v);
    assert_blocked_by(v, &s, "waiter", "\\x28gc)", 750);
    assert_blocked_by(v, &s, "other waiter", "\\x28outside tasks)", 600);
    /* the task's own row is under its escaped name */
    table_row(&v->base[0], "\\x28outside tasks)");
    top_rows_free(&v->base[0]);
    free(v);
    stats_free(&s);
}

/* "late mean" is one figure in every view: the mean over every resume (on time ones as 0), here
 * against the model's sum over count; the table's cell shows it as the report does. */
static void test_late_mean_one_definition(void **state)
{
    (void)state;
    stats_t s;
    assert_int_equal(stats_init(&s, 0, 20000), 0);
    s.device.late_unit = 1000;
    int32_t w = stats_instance_get(&s, 1);
    stats_instance_describe(&s, w, (const uint8_t *)"waiter", 6, NULL, 0, 0, 1);
    static const uint64_t late[] = {0, 0, 11000, 0, 12000, 0, 0, 10000, 0, 0, 0};
    uint64_t sum = 0, n = sizeof late / sizeof late[0];
    for (size_t i = 0; i < n; i++) {
        stats_late_resume(&s, &s.inst[w], late[i]);
        sum += late[i];
    }
    top_view_t *v = calloc(1, sizeof *v);
    assert_non_null(v);
    assert_int_equal(top_rows_build(&v->base[0], &s, 0, &v->hist), 0);
    const top_row_t *r = table_row(&v->base[0], "waiter");
    uint64_t want = (sum + n / 2) / n; /* 3000 us: 33 ms over 11 resumes, not 11 ms over 3 late */
    assert_int_equal(r->late_mean_us, want);
    char cell[64], model[64];
    top_class_t cls;
    top_table_cell(v, r, TOP_COL_LATE_MEAN, 11, cell, sizeof cell, &cls);
    top_format_ms(model, sizeof model, want, 11);
    assert_string_equal(cell, model);
    top_rows_free(&v->base[0]);
    free(v);
    stats_free(&s);
}

/* The live table's instance rows of a stream with more live tasks than the rows hold
 * (tests/unit/stats/test_stats.c checks its figures): "(tasks past the cap)" named as the report
 * names it, without a task number no task has; every task keeps its own. */
static void test_past_the_cap_rows(void **state)
{
    (void)state;
    past_cap_t c;
    gen_t *g = past_cap_stream(&c);
    const stats_t *s = pipeline_stats(g->p);
    top_view_t *v = calloc(1, sizeof *v);
    assert_non_null(v);
    v->by_instance = 1;
    assert_int_equal(top_rows_build(&v->base[1], s, 1, &v->hist), 0);
    size_t past_rows = 0;
    for (size_t i = 0; i < v->base[1].n; i++) {
        const top_row_t *r = &v->base[1].rows[i];
        char name[512], want[64];
        top_table_name(v, r, name, sizeof name);
        if (strcmp(top_rows_str(&v->base[1], r->name), "(tasks past the cap)") == 0) {
            past_rows++;
            assert_string_equal(name, "(tasks past the cap)");
            assert_int_equal(r->cum.count, c.past_n);
        } else {
            snprintf(want, sizeof want, " #%" PRIu32, r->id);
            assert_non_null(strstr(name, want));
            assert_int_not_equal(r->id, 0);
        }
    }
    assert_int_equal(past_rows, 1);
    top_rows_free(&v->base[1]);
    free(v);
    pipeline_free(g->p);
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_blocked_by),
        cmocka_unit_test(test_blocked_by_pseudo_names),
        cmocka_unit_test(test_late_mean_one_definition),
        cmocka_unit_test(test_past_the_cap_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
