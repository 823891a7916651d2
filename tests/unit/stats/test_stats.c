/* host/stats/stats.c: exact name totals whatever happens to instance rows, and bounded memory under
 * streams built to exhaust it (a million short-lived instances, tens of thousands of names). */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline.h"
#include "stats.h"

#include "stats_gen.h"

static const stats_name_t *row(const stats_t *s, const char *name)
{
    for (size_t i = 0; i < s->n_names; i++) {
        if (strcmp(s->names[i].name, name) == 0) {
            return &s->names[i];
        }
    }
    return NULL;
}

/* A million instances, each created, run once and finished: instance rows stay at the cap, the
 * per-name totals are exact. */
static void test_million_instances(void **state)
{
    (void)state;
    enum { N = 1000000, NAMES = 7 };
    static const char *names[NAMES] = {"a", "bb", "ccc", "Sensor._go", "x", "y", "z"};
    uint64_t want_count[NAMES] = {0}, want_total[NAMES] = {0}, want_max[NAMES] = {0}, want_err[NAMES] = {0};
    pipeline_config_t cfg = {0};
    gen_t *g = calloc(1, sizeof *g);
    g->p = pipeline_new(&cfg);
    assert_non_null(g->p);
    uint32_t rng = 1;
    for (uint32_t id = 1; id <= N; id++) {
        unsigned k = id % NAMES;
        rng = rng * 1664525u + 1013904223u;
        uint32_t len = 1 + (rng >> 20);
        unsigned kind = (rng & 0xF) == 0 ? AIOPROF_EXIT_RAISE : AIOPROF_EXIT_RETURN;
        gen_task(g, id, names[k]);
        gen_slice(g, id, 3, len, kind);
        want_count[k]++;
        want_total[k] += len;
        want_max[k] = len > want_max[k] ? len : want_max[k];
        want_err[k] += kind == AIOPROF_EXIT_RAISE;
    }
    gen_flush(g);
    pipeline_finish(g->p);
    const stats_t *s = pipeline_stats(g->p);
    for (unsigned k = 0; k < NAMES; k++) {
        const stats_name_t *r = row(s, names[k]);
        assert_non_null(r);
        assert_int_equal(r->f.count, want_count[k]);
        assert_int_equal(r->f.total_us, want_total[k]);
        assert_int_equal(r->f.max_us, want_max[k]);
        assert_int_equal(r->f.errors, want_err[k]);
        assert_int_equal(r->instances, want_count[k]);
    }
    /* bounded: the instance rows and their table did not grow */
    assert_int_equal(s->inst_cap, STATS_INSTANCE_CAP_DEFAULT);
    assert_true(s->inst_used <= s->inst_cap);
    assert_int_equal(s->folded_instances, N - s->inst_cap);
    size_t n;
    stats_row_t *rows = stats_rows(s, 1, STATS_SORT_TOTAL, &n);
    assert_int_equal(n, s->inst_cap);
    /* the rows kept are the newest: the oldest finished ones were folded first */
    for (size_t i = 0; i < n; i++) {
        assert_true(rows[i].inst->id > N - s->inst_cap);
    }
    free(rows);
    assert_int_equal(s->stream.events, 2ull * N);
    assert_int_equal(s->stream.unmatched, 0);
    pipeline_free(g->p);
    free(g);
}

/* Tens of thousands of distinct names: the first STATS_NAME_CAP get rows, the rest are counted
 * in "(other names)"; every slice is somewhere. */
static void test_name_cap(void **state)
{
    (void)state;
    enum { N = 3 * STATS_NAME_CAP };
    pipeline_config_t cfg = {0};
    gen_t *g = calloc(1, sizeof *g);
    g->p = pipeline_new(&cfg);
    uint64_t total = 0, over_total = 0;
    for (uint32_t id = 1; id <= N; id++) {
        char name[32];
        snprintf(name, sizeof name, "task_%u", id);
        gen_task(g, id, name);
        gen_slice(g, id, 1, id, AIOPROF_EXIT_RETURN);
        total += id;
        if (id > STATS_NAME_CAP) {
            over_total += id;
        }
    }
    gen_flush(g);
    const stats_t *s = pipeline_stats(g->p);
    assert_int_equal(s->n_names, STATS_NAME_CAP + 1);
    const stats_name_t *other = row(s, "(other names)");
    assert_non_null(other);
    assert_int_equal(other->kind, STATS_ROW_OTHER);
    assert_int_equal(other->f.count, N - STATS_NAME_CAP);
    assert_int_equal(other->f.total_us, over_total);
    assert_int_equal(other->instances, N - STATS_NAME_CAP);
    size_t n;
    stats_row_t *rows = stats_rows(s, 0, STATS_SORT_NAME, &n);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += rows[i].f.total_us;
    }
    assert_int_equal(sum, total);
    assert_int_equal(n, STATS_NAME_CAP + 1);
    free(rows);
    pipeline_free(g->p);
    free(g);
}

/* Instances that never finish, far more than the cap (a 20,000-task application): a live row is
 * never folded, the rows grow instead, so no live task is counted twice and every figure stays
 * exact, per name and per instance; unnamed ones stay rows of their own. */
static void test_live_never_folded(void **state)
{
    (void)state;
    enum { TASKS = 4000 };
    pipeline_config_t cfg = {0};
    cfg.instance_cap = 300;
    gen_t *g = calloc(1, sizeof *g);
    g->p = pipeline_new(&cfg);
    uint64_t named = 0, named_n = 0, unnamed = 0, unnamed_n = 0;
    for (uint32_t round = 0; round < 3; round++) {
        for (uint32_t id = 1; id <= TASKS; id++) {
            if (round == 0 && id % 2) {
                gen_task(g, id, "forever");
            } else if (id % 2) {
                /* the device's announcement: a row that was folded would learn its name again */
                gen_task_op(g, AIOPROF_OP_TASK_INFO, id, "forever");
            }
            gen_slice(g, id, 2, 10 + id % 7, AIOPROF_EXIT_YIELD);
            if (id % 2) {
                named += 10 + id % 7;
                named_n++;
            } else {
                unnamed += 10 + id % 7;
                unnamed_n++;
            }
        }
    }
    gen_flush(g);
    const stats_t *s = pipeline_stats(g->p);
    assert_int_equal(s->inst_cap, 300);
    assert_int_equal(s->inst_used, TASKS);
    assert_int_equal(s->folded_instances, 0);
    assert_int_equal(s->past_cap, -1);
    const stats_name_t *forever = row(s, "forever");
    assert_int_equal(forever->f.total_us, named);
    assert_int_equal(forever->f.count, named_n);
    assert_int_equal(forever->instances, TASKS / 2);
    assert_false(forever->lower_bound);
    size_t n;
    stats_row_t *rows = stats_rows(s, 0, STATS_SORT_NAME, &n);
    /* by name, the unnamed with the most time have rows of their own, the others are summed in
     * "(unnamed tasks)" (nothing was folded for good) */
    uint64_t sum_unnamed = 0, cnt_unnamed = 0, own = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(rows[i].name, "task #", 6) == 0 || rows[i].kind == STATS_ROW_UNNAMED) {
            sum_unnamed += rows[i].f.total_us;
            cnt_unnamed += rows[i].f.count;
            own += rows[i].inst != NULL;
        }
    }
    assert_int_equal(own, STATS_UNNAMED_ROWS);
    free(rows);
    assert_int_equal(sum_unnamed, unnamed);
    assert_int_equal(cnt_unnamed, unnamed_n);
    /* and per instance: every named one, and the unnamed ones by name shows, with their three
     * slices */
    rows = stats_rows(s, 1, STATS_SORT_NAME, &n);
    assert_int_equal(n, TASKS - stats_unnamed_folded(s));
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].f.count, 3);
        assert_int_equal(rows[i].f.total_us, 3 * (10 + rows[i].inst->id % 7));
        assert_false(rows[i].lower_bound);
    }
    free(rows);
    pipeline_free(g->p);
    free(g);
}

/* More live tasks than the rows may ever hold (a stream built to exhaust memory): the rows stop at
 * STATS_LIVE_FACTOR times the cap; the tasks past it are counted in "(tasks past the cap)", their
 * names are marked as lower bounds, every slice is still somewhere, and the rows of finished
 * instances are still reused first. */
static void test_past_the_cap(void **state)
{
    (void)state;
    past_cap_t c;
    gen_t *g = past_cap_stream(&c);
    enum { CAP = PAST_CAP, LIVE = PAST_LIVE, LATE = PAST_LATE };
    uint64_t total = c.total, past = c.past, past_n = c.past_n;
    const stats_t *s = pipeline_stats(g->p);
    assert_int_equal(s->inst_alloc, LIVE + 1);
    assert_int_equal(s->folded_instances, 2 * CAP + LATE);
    const stats_name_t *over = row(s, "(tasks past the cap)");
    assert_non_null(over);
    assert_int_equal(over->kind, STATS_ROW_OTHER);
    assert_true(over->lower_bound);
    assert_int_equal(over->f.count, past_n);
    assert_int_equal(over->f.total_us, past);
    /* the names of the tasks past the cap lack them: marked; the others are exact */
    assert_true(row(s, "odd")->lower_bound);
    assert_true(row(s, "even")->lower_bound);
    assert_int_equal(row(s, "odd")->instances + row(s, "even")->instances, LIVE);
    assert_false(row(s, "short")->lower_bound);
    assert_int_equal(row(s, "short")->instances, 2 * CAP);
    assert_false(row(s, "late")->lower_bound);
    assert_int_equal(row(s, "late")->instances, LATE);
    assert_int_equal(row(s, "late")->f.total_us, 3 * LATE);
    assert_int_equal(row(s, "odd")->f.errors + row(s, "even")->f.errors, LATE);
    size_t n;
    stats_row_t *rows = stats_rows(s, 0, STATS_SORT_NAME, &n);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += rows[i].f.total_us;
    }
    free(rows);
    assert_int_equal(sum, total);
    pipeline_free(g->p);
    free(g);
}

/* The stats API directly: reset keeps the stream counters and the running instances' names. */
static void test_reset_and_sort(void **state)
{
    (void)state;
    stats_t s;
    assert_int_equal(stats_init(&s, 0, 100), 0);
    int32_t a = stats_instance_get(&s, 1), b = stats_instance_get(&s, 2), c = stats_instance_get(&s, 3);
    stats_instance_describe(&s, a, (const uint8_t *)"alpha", 5, NULL, 0, 0, 1);
    stats_instance_describe(&s, b, (const uint8_t *)"beta", 4, (const uint8_t *)"L", 1, 1, 1);
    stats_instance_describe(&s, c, (const uint8_t *)"beta", 4, NULL, 0, 1, 1);
    stats_slice(&s, &s.inst[a], 50);
    stats_slice(&s, &s.inst[a], 250);
    stats_slice(&s, &s.inst[b], 120);
    stats_slice(&s, &s.inst[c], 10);
    stats_slice(&s, &s.inst[c], 10);
    stats_slice(&s, &s.inst[c], 10);
    stats_instance_end(&s, &s.inst[c], 3 /* cancel */);
    s.stream.frames = 42;
    s.elapsed_us = 1000;
    const char *by_total[] = {"alpha", "beta"}, *by_count[] = {"beta", "alpha"};
    size_t n;
    stats_row_t *rows = stats_rows(&s, 0, STATS_SORT_TOTAL, &n);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(rows[i].name, by_total[i]);
    }
    assert_int_equal(rows[0].f.slow, 1);
    assert_int_equal(rows[1].f.errors, 1);
    assert_int_equal(rows[1].instances, 2);
    assert_int_equal(rows[1].f.min_us, 10);
    free(rows);
    rows = stats_rows(&s, 0, STATS_SORT_COUNT, &n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(rows[i].name, by_count[i]);
    }
    free(rows);
    rows = stats_rows(&s, 1, STATS_SORT_MAX, &n);
    assert_int_equal(n, 3);
    assert_int_equal(rows[0].inst->id, 1);
    assert_int_equal(rows[1].inst->id, 2);
    assert_string_equal(rows[1].inst->label, "L");
    assert_string_equal(rows[1].parent_name, "alpha");
    free(rows);

    stats_reset(&s);
    assert_int_equal(s.stream.frames, 42);
    assert_int_equal(s.elapsed_us, 0);
    rows = stats_rows(&s, 1, STATS_SORT_NAME, &n);
    assert_int_equal(n, 2); /* the cancelled instance is gone */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].f.count, 0);
    }
    free(rows);
    stats_slice(&s, &s.inst[b], 7);
    stats_sync(&s); /* the name rows take their instances' slices in */
    assert_int_equal(row(&s, "beta")->f.total_us, 7);
    assert_int_equal(row(&s, "beta")->instances, 1);
    /* ids of a new epoch are new instances */
    stats_new_epoch(&s);
    assert_int_equal(stats_instance_find(&s, 2), -1);
    int32_t b2 = stats_instance_get(&s, 2);
    assert_true(b2 != b);
    stats_free(&s);
}

/* Thousands of live instances whose names never came: a view by name shows STATS_UNNAMED_ROWS of
 * them, those with the most time, and sums the others in "(unnamed tasks)" with the instances
 * folded for good; every slice, resume and instance is in exactly one row (the model: sums kept
 * here as they are fed). */
static void test_unnamed_bounded(void **state)
{
    (void)state;
    enum { N = 3000 }; /* live rows up to 16 x 256 = 4096: all have one */
    stats_t s;
    assert_int_equal(stats_init(&s, 256, 1000), 0);
    s.device.late_unit = 1000;
    uint64_t count = 0, total = 0, resumes = 0, late_total = 0, max = 0;
    int32_t named = stats_instance_get(&s, 1);
    stats_instance_describe(&s, named, (const uint8_t *)"named", 5, NULL, 0, 0, 1);
    stats_slice(&s, &s.inst[named], 7);
    for (uint32_t id = 2; id < 2 + N; id++) {
        stats_instance_t *in = &s.inst[stats_instance_get(&s, id)];
        uint64_t us = 10 + (id * 7919u) % 997u;
        stats_slice(&s, in, us);
        stats_late_resume(&s, in, (id % 3) * 1000u);
        count++;
        total += us;
        resumes++;
        late_total += (id % 3) * 1000u;
        max = us > max ? us : max;
        if (id % 10 == 0) {
            stats_instance_end(&s, in, 1); /* finished: folded for good when rows are wanted */
        }
    }
    size_t n;
    stats_row_t *rows = stats_rows(&s, 0, STATS_SORT_TOTAL, &n);
    assert_non_null(rows);
    size_t own = 0;
    uint64_t got_count = 0, got_total = 0, got_inst = 0, got_resumes = 0, got_late = 0, least_own = UINT64_MAX;
    const stats_row_t *u = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].name, "named") == 0) {
            assert_int_equal(rows[i].f.total_us, 7);
            continue;
        }
        got_count += rows[i].f.count;
        got_total += rows[i].f.total_us;
        got_inst += rows[i].instances;
        assert_non_null(rows[i].late);
        got_resumes += rows[i].late->resumes;
        got_late += rows[i].late->total_us;
        if (rows[i].inst != NULL) {
            own++;
            least_own = rows[i].f.total_us < least_own ? rows[i].f.total_us : least_own;
        } else {
            assert_string_equal(rows[i].name, "(unnamed tasks)");
            u = &rows[i];
        }
    }
    assert_int_equal(own, STATS_UNNAMED_ROWS);
    assert_non_null(u);
    assert_int_equal(got_count, count);
    assert_int_equal(got_total, total);
    assert_int_equal(got_inst, N);
    assert_int_equal(got_resumes, resumes);
    assert_int_equal(got_late, late_total);
    /* no instance summed in the row has more time than one shown on its own */
    assert_true(u->f.max_us <= least_own || u->f.max_us <= max);
    uint64_t live_unnamed = 0;
    for (size_t i = 0; i < s.inst_used; i++) {
        live_unnamed += s.inst[i].in_use && s.inst[i].name < 0;
    }
    assert_int_equal(stats_unnamed_folded(&s), live_unnamed - STATS_UNNAMED_ROWS);
    free(rows);
    /* by instance, the same ones are listed, the others left out */
    rows = stats_rows(&s, 1, STATS_SORT_TOTAL, &n);
    size_t unnamed_rows = 0;
    for (size_t i = 0; i < n; i++) {
        unnamed_rows += rows[i].inst->name < 0;
    }
    assert_int_equal(unnamed_rows, STATS_UNNAMED_ROWS);
    free(rows);
    stats_free(&s);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The views' percentiles of slice lengths, by name and by instance, against histograms of every
 * slice the stream had, view after view while instances end (a view moves their slice lengths to
 * the name row once), fold away past the cap, and are resumed after they said they ended (a
 * hostile stream). */
enum { PCT_TASKS = 1200, PCT_SLICES = 5, PCT_BATCH = 100 };

static void check_pcts(const stats_row_t *r, const stats_hist_t *want, uint64_t want_n)
{
    assert_int_equal(r->f.count, want_n);
    assert_int_equal(stats_hist_total(want), want_n);
    for (unsigned p = 0; p < STATS_PCTS; p++) {
        uint64_t exact = stats_hist_quantile(want, stats_pcts[p], r->f.min_us, r->f.max_us);
        if (r->slice_pct[p] != exact) {
            fail_msg("%s #%lu p%.0f: %llu, every slice's %llu", r->name, r->inst ? (unsigned long)r->inst->id : 0ul,
                100 * stats_pcts[p], (unsigned long long)r->slice_pct[p], (unsigned long long)exact);
        }
    }
}

static void test_pcts_across_views(void **state)
{
    (void)state;
    pipeline_config_t cfg = {0};
    cfg.instance_cap = 300;
    gen_t *g = calloc(1, sizeof *g);
    stats_hist_t *own = calloc(PCT_TASKS + 1, sizeof *own);
    uint64_t *own_n = calloc(PCT_TASKS + 1, sizeof *own_n);
    stats_hist_t all = {0};
    uint64_t all_n = 0;
    assert_non_null(g);
    assert_non_null(own);
    assert_non_null(own_n);
    g->p = pipeline_new(&cfg);
    for (uint32_t id = 1; id <= PCT_TASKS; id++) {
        gen_task(g, id, "worker");
        for (uint32_t j = 0; j < PCT_SLICES; j++) {
            uint32_t len = 3 + (id * 37u + j * 1009u) % (j == 0 ? 90000u : 4000u);
            unsigned kind = j + 1 < PCT_SLICES ? AIOPROF_EXIT_YIELD : AIOPROF_EXIT_RETURN;
            gen_slice(g, id, 5, len, kind);
            stats_hist_add(&own[id], len);
            stats_hist_add(&all, len);
            own_n[id]++;
            all_n++;
        }
        /* one in seven, ended at the last view, runs again: its name row and its own show it */
        if (id > PCT_BATCH && id % 7 == 0) {
            uint32_t back = id - PCT_BATCH + 3;
            gen_slice(g, back, 5, 20000 + id, AIOPROF_EXIT_YIELD);
            stats_hist_add(&own[back], 20000 + id);
            stats_hist_add(&all, 20000 + id);
            own_n[back]++;
            all_n++;
        }
        if (id % PCT_BATCH != 0) {
            continue;
        }
        gen_flush(g);
        const stats_t *s = pipeline_stats(g->p);
        size_t n;
        stats_row_t *rows = stats_rows(s, 0, STATS_SORT_NAME, &n);
        assert_non_null(rows);
        int seen = 0;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(rows[i].name, "worker") == 0) {
                check_pcts(&rows[i], &all, all_n);
                seen++;
            }
        }
        assert_int_equal(seen, 1);
        free(rows);
        rows = stats_rows(s, 1, STATS_SORT_NAME, &n);
        assert_non_null(rows);
        assert_true(n > 0);
        for (size_t i = 0; i < n; i++) {
            assert_non_null(rows[i].inst);
            check_pcts(&rows[i], &own[rows[i].inst->id], own_n[rows[i].inst->id]);
        }
        free(rows);
    }
    assert_true(pipeline_stats(g->p)->folded_instances > 0);
    for (uint32_t id = 0; id <= PCT_TASKS; id++) {
        stats_hist_drop(&own[id]);
    }
    stats_hist_drop(&all);
    free(own);
    free(own_n);
    pipeline_free(g->p);
    free(g);
}

/* The log-bucket histogram against the exact nearest-rank percentiles of the same values: within
 * 1/16 of the value (docs/usage.md, "Percentiles"), within [min, max], for spreads from one value
 * to eight decades; and merging two gives what adding both gives. */
static void test_hist_percentiles(void **state)
{
    (void)state;
    enum { N = 20000 };
    static uint64_t v[N];
    uint64_t x = 88172645463325252ull;
    for (unsigned spread = 0; spread <= 26; spread += 2) {
        stats_hist_t h = {0}, a = {0}, b = {0};
        uint64_t min = UINT64_MAX, max = 0;
        for (unsigned i = 0; i < N; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            /* log-uniform over 2^spread from a base of 37 us */
            v[i] = spread ? 37u + (x % (1ull << (x % (spread + 1u)))) : 80000u;
            stats_hist_add(&h, v[i]);
            stats_hist_add(i % 2 ? &a : &b, v[i]);
            min = v[i] < min ? v[i] : min;
            max = v[i] > max ? v[i] : max;
        }
        assert_int_equal(stats_hist_total(&h), N);
        stats_hist_merge(&a, &b);
        qsort(v, N, sizeof *v, cmp_u64);
        for (unsigned p = 0; p < STATS_PCTS; p++) {
            uint64_t exact = v[(size_t)(stats_pcts[p] * N + 0.999999) - 1];
            uint64_t got = stats_hist_quantile(&h, stats_pcts[p], min, max);
            assert_true(got >= min && got <= max);
            double err = got > exact ? (double)(got - exact) : (double)(exact - got);
            if (err > (double)exact / 16.0 + 0.5) {
                fail_msg("spread 2^%u, p%.0f: %llu, exactly %llu", spread, 100 * stats_pcts[p],
                    (unsigned long long)got, (unsigned long long)exact);
            }
            assert_int_equal(stats_hist_quantile(&a, stats_pcts[p], min, max), got);
        }
        stats_hist_drop(&h);
        stats_hist_drop(&a);
        stats_hist_drop(&b);
    }
    /* beyond 2^32 us: the last bucket, shown within the row's extremes */
    /* the small values' table is the bucket function's */
    stats_t st;
    assert_int_equal(stats_init(&st, 0, 1000), 0);
    for (uint32_t x = 0; x < STATS_HIST_SMALL; x++) {
        assert_int_equal(stats_hist_small[x], stats_hist_bucket(x));
    }
    stats_free(&st);
    stats_hist_t big = {0};
    stats_hist_add(&big, 1ull << 40);
    assert_int_equal(stats_hist_quantile(&big, 0.5, 1ull << 40, 1ull << 40), 1ull << 40);
    stats_hist_drop(&big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_million_instances),
        cmocka_unit_test(test_name_cap),
        cmocka_unit_test(test_live_never_folded),
        cmocka_unit_test(test_past_the_cap),
        cmocka_unit_test(test_reset_and_sort),
        cmocka_unit_test(test_unnamed_bounded),
        cmocka_unit_test(test_hist_percentiles),
        cmocka_unit_test(test_pcts_across_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
