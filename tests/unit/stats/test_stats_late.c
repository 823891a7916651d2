/* host/stats/stats_late.c: a row's blocked by (its culprits, the time counted as unknown) against a model
 * of what docs/usage.md says: an instance row keeps the first 32 culprits it meets, a name row the
 * 32 of its instances' sum that took the most. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aioprof_wire.h"
#include "stats.h"

static const stats_name_t *row(const stats_t *s, const char *name)
{
    for (size_t i = 0; i < s->n_names; i++) {
        if (strcmp(s->names[i].name, name) == 0) {
            return &s->names[i];
        }
    }
    return NULL;
}

/* A name row's lateness as a view gives it (stats_rows, which sums its blocked by). */
static const stats_late_t *view_late(const stats_t *s, const char *name)
{
    size_t n;
    const stats_late_t *l = NULL;
    stats_row_t *rows = stats_rows(s, 0, STATS_SORT_NAME, &n);
    assert_non_null(rows);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].name, name) == 0) {
            l = rows[i].late;
        }
    }
    free(rows);
    assert_non_null(l);
    return l;
}

typedef struct blame_model {
    int32_t who[STATS_BLAME_MAX];
    uint64_t us[STATS_BLAME_MAX];
    uint32_t n;
    uint64_t other_us, outside_us, unknown_us;
} blame_model_t;

/* us more on who: the first STATS_BLAME_MAX culprits a row meets are named, in that order; the
 * time of the others is counted, not named. */
static void model_add(blame_model_t *m, int32_t who, uint64_t us)
{
    for (uint32_t i = 0; i < m->n; i++) {
        if (m->who[i] == who) {
            m->us[i] += us;
            return;
        }
    }
    if (m->n == STATS_BLAME_MAX) {
        m->other_us += us;
        return;
    }
    m->who[m->n] = who;
    m->us[m->n++] = us;
}

static void model_check(const blame_model_t *m, const stats_late_t *l)
{
    assert_int_equal(l->n_blame, m->n);
    for (uint32_t i = 0; i < m->n; i++) {
        assert_int_equal(l->blame[i].who, m->who[i]);
        assert_int_equal(l->blame[i].us, m->us[i]);
    }
    assert_int_equal(l->other_us, m->other_us);
    assert_int_equal(l->outside_us, m->outside_us);
    assert_int_equal(l->unknown_us, m->unknown_us);
}

/* A name row's list by the rule of docs/usage.md: the lists of its instances (parts) summed, the
 * STATS_BLAME_MAX culprits that took the most named (among equals, the first in byte order of their
 * names), the time of the others and the parts' other time counted, not named. */
static const stats_t *model_stats;

static int model_compare(const void *a, const void *b)
{
    const int64_t *x = a, *y = b; /* {who, us} */
    if (x[1] != y[1]) {
        return x[1] < y[1] ? 1 : -1;
    }
    return strcmp(stats_late_who_name(model_stats, (int32_t)x[0]), stats_late_who_name(model_stats, (int32_t)y[0]));
}

static void model_sum(const stats_t *s, const blame_model_t *const *parts, size_t n_parts, blame_model_t *out)
{
    int64_t sum[256][2];
    size_t n = 0;
    memset(out, 0, sizeof *out);
    for (size_t p = 0; p < n_parts; p++) {
        for (uint32_t i = 0; i < parts[p]->n; i++) {
            size_t at = 0;
            while (at < n && sum[at][0] != parts[p]->who[i]) {
                at++;
            }
            if (at == n) {
                assert_true(n < 256);
                sum[n][0] = parts[p]->who[i];
                sum[n++][1] = 0;
            }
            sum[at][1] += (int64_t)parts[p]->us[i];
        }
        out->other_us += parts[p]->other_us;
        out->outside_us += parts[p]->outside_us;
        out->unknown_us += parts[p]->unknown_us;
    }
    model_stats = s;
    qsort(sum, n, sizeof sum[0], model_compare);
    for (size_t i = 0; i < n; i++) {
        if (i < STATS_BLAME_MAX) {
            out->who[out->n] = (int32_t)sum[i][0];
            out->us[out->n++] = (uint64_t)sum[i][1];
        } else {
            out->other_us += (uint64_t)sum[i][1];
        }
    }
}

/* A name row against model_sum's: the same culprits and times (a sum has no order of its own). */
static void model_check_sum(const blame_model_t *m, const stats_late_t *l)
{
    assert_int_equal(l->n_blame, m->n);
    for (uint32_t i = 0; i < m->n; i++) {
        uint32_t at = 0;
        while (at < l->n_blame && l->blame[at].who != m->who[i]) {
            at++;
        }
        assert_true(at < l->n_blame);
        assert_int_equal(l->blame[at].us, m->us[i]);
    }
    assert_int_equal(l->other_us, m->other_us);
    assert_int_equal(l->outside_us, m->outside_us);
    assert_int_equal(l->unknown_us, m->unknown_us);
}

/* Windows of random culprits, among more names than there are slots (stats_late_slot) and more
 * than a row keeps, given with their slots or without (a walked window): each instance row lists
 * what the model lists, in the same order; its name row sums its instances' lists (an instance
 * named late included, one renamed or folded away kept), keeping the culprits that took the most. */
static void test_late_blame(void **state)
{
    (void)state;
    enum { NAMES = 100, WINDOWS = 4000 };
    stats_t *s = malloc(sizeof *s);
    assert_non_null(s);
    assert_int_equal(stats_init(s, 0, 20000), 0);
    int32_t culprit[NAMES + 1];
    char name[16];
    for (int i = 0; i < NAMES; i++) {
        int32_t idx = stats_instance_get(s, (uint32_t)(1000 + i));
        snprintf(name, sizeof name, "c%d", i);
        stats_instance_describe(s, idx, (const uint8_t *)name, strlen(name), NULL, 0, 0, 1);
        culprit[i] = s->inst[idx].name;
    }
    culprit[NAMES] = STATS_WHO_UNNAMED;
    int32_t victim = stats_instance_get(s, 1), nameless = stats_instance_get(s, 2);
    stats_instance_describe(s, victim, (const uint8_t *)"victim", 6, NULL, 0, 0, 1);
    blame_model_t mi = {0}, mu = {0}, mn;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int w = 0; w < WINDOWS; w++) {
        /* a window's culprits: distinct, in a random order, some with no time */
        int32_t who[NAMES + 1];
        uint8_t slot[NAMES + 1];
        uint64_t us[NAMES + 1];
        size_t n = 0;
        int narrow = w < WINDOWS / 2; /* first few culprits, then all of them */
        for (int c = 0; c <= NAMES; c++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if (x % 8u < (narrow ? (c < 12 ? 5u : 0u) : 2u)) {
                size_t at = n++;
                for (; at > 0 && (x >> 20) % 3u == 0; at--) {
                    who[at] = who[at - 1];
                    us[at] = us[at - 1];
                }
                who[at] = culprit[c];
                us[at] = (x >> 8) % 4u == 0 ? 0 : (x >> 12) % 1000u;
            }
        }
        for (size_t i = 0; i < n; i++) {
            slot[i] = stats_late_slot(s, who[i]);
        }
        uint64_t outside = (x >> 30) % 50u, unknown = (x >> 40) % 3u;
        stats_instance_t *in = &s->inst[w % 3 == 2 ? victim : nameless]; /* most to the one named late */
        stats_late_window(s, in, who, w % 5 == 4 ? NULL : slot, us, n, outside, unknown);
        blame_model_t *m = w % 3 == 2 ? &mi : &mu;
        for (size_t i = 0; i < n; i++) {
            if (us[i] != 0) {
                model_add(m, who[i], us[i]);
            }
        }
        m->outside_us += outside;
        m->unknown_us += unknown;
    }
    model_check(&mi, &s->inst[victim].late);
    model_check(&mu, &s->inst[nameless].late);
    stats_late_sync(s);
    const blame_model_t *victims[] = {&mi, &mu};
    model_sum(s, victims, 1, &mn);
    model_check_sum(&mn, &row(s, "victim")->late);
    /* named now: the name row sums both lists, more culprits than it keeps */
    stats_instance_describe(s, nameless, (const uint8_t *)"victim", 6, NULL, 0, 0, 0);
    stats_late_sync(s);
    model_sum(s, victims, 2, &mn);
    assert_true(mi.n + mu.n > STATS_BLAME_MAX);
    model_check_sum(&mn, &row(s, "victim")->late);
    /* renamed: its old name row keeps what it counted, the new one has none of it */
    stats_instance_describe(s, nameless, (const uint8_t *)"renamed", 7, NULL, 0, 0, 0);
    stats_late_sync(s);
    model_check_sum(&mn, &row(s, "victim")->late);
    assert_int_equal(row(s, "renamed")->late.n_blame, 0);
    stats_free(s);
    free(s);
}

/* Instances of one name, each blamed on a few of many culprits, finished, more than the rows hold:
 * those folded away go to the list their name row keeps for them, each in its turn under the rule
 * (the 32 that took the most kept); the name row sums that list and its live instances'. */
static void test_late_fold(void **state)
{
    (void)state;
    enum { NAMES = 100, VICTIMS = 600, WINDOWS = 6, PER = 8 };
    stats_t *s = malloc(sizeof *s);
    blame_model_t *m = calloc(VICTIMS, sizeof *m);
    assert_non_null(s);
    assert_non_null(m);
    assert_int_equal(stats_init(s, STATS_INSTANCE_CAP_MIN, 20000), 0);
    int32_t culprit[NAMES];
    char name[16];
    for (int i = 0; i < NAMES; i++) {
        int32_t idx = stats_instance_get(s, (uint32_t)(1000 + i));
        snprintf(name, sizeof name, "c%d", i);
        stats_instance_describe(s, idx, (const uint8_t *)name, strlen(name), NULL, 0, 0, 1);
        culprit[i] = s->inst[idx].name;
    }
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (int v = 0; v < VICTIMS; v++) {
        int32_t idx = stats_instance_get(s, (uint32_t)(1 + v));
        stats_instance_describe(s, idx, (const uint8_t *)"victim", 6, NULL, 0, 0, 1);
        for (int w = 0; w < WINDOWS; w++) {
            int32_t who[PER];
            uint64_t us[PER];
            size_t n = 0;
            for (int c = 0; c < PER; c++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                int32_t pick = culprit[x % NAMES];
                size_t at = 0;
                while (at < n && who[at] != pick) {
                    at++;
                }
                if (at == n) {
                    who[n] = pick;
                    us[n++] = 1 + (x >> 12) % (v < VICTIMS / 2 ? 100u : 1000u);
                }
            }
            stats_late_window(s, &s->inst[idx], who, NULL, us, n, 7, 1);
            for (size_t i = 0; i < n; i++) {
                model_add(&m[v], who[i], us[i]);
            }
            m[v].outside_us += 7;
            m[v].unknown_us += 1;
        }
        stats_instance_end(s, &s->inst[idx], AIOPROF_EXIT_RETURN);
    }
    s->device.late_unit = 1; /* its lateness known: the view gives it */
    /* the oldest finished were folded first, each in its turn */
    size_t folded = (size_t)s->folded_instances;
    assert_true(folded > 0 && folded < VICTIMS);
    blame_model_t kept = {0}, sum;
    for (size_t v = 0; v < folded; v++) {
        const blame_model_t *parts[] = {&kept, &m[v]};
        model_sum(s, parts, 2, &sum);
        kept = sum;
    }
    const blame_model_t **parts = malloc((VICTIMS - folded + 1) * sizeof *parts);
    assert_non_null(parts);
    parts[0] = &kept;
    for (size_t v = folded; v < VICTIMS; v++) {
        parts[v - folded + 1] = &m[v];
    }
    model_sum(s, parts, VICTIMS - folded + 1, &sum);
    assert_true(sum.other_us > 0); /* more culprits than a row keeps */
    model_check_sum(&sum, view_late(s, "victim"));
    free(parts);
    free(m);
    stats_free(s);
    free(s);
}

/* A name row's figures (resumes, late ones, total, min, max, percentiles, gaps) are its instances'
 * summed when a view is made: the live ones', those folded away past the instance cap, and what a
 * renamed one counted before (it stays with the old name). Percentiles are held within the row's
 * own min and max: resumes all 79 to 81 ms late give a p50 in that range, not the bucket's
 * middle below it. */
static void test_late_name_figures(void **state)
{
    (void)state;
    enum { VICTIMS = 700, RESUMES = 5 };
    stats_t *s = malloc(sizeof *s);
    assert_non_null(s);
    assert_int_equal(stats_init(s, STATS_INSTANCE_CAP_MIN, 20000), 0);
    s->device.late_unit = 1;
    stats_hist_t model = {0};
    uint64_t resumes = 0, late = 0, total = 0, min = UINT64_MAX, max = 0, outside = 0;
    uint64_t x = 88172645463325252ull;
    for (int v = 0; v < VICTIMS; v++) {
        int32_t idx = stats_instance_get(s, (uint32_t)(1 + v));
        stats_instance_describe(s, idx, (const uint8_t *)"victim", 6, NULL, 0, 0, 1);
        for (int r = 0; r < RESUMES; r++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            uint64_t us = 79000 + x % 2001; /* 79 to 81 ms */
            stats_late_resume(s, &s->inst[idx], us);
            stats_late_gap(s, &s->inst[idx], 1, 3);
            stats_hist_add(&model, us);
            resumes++;
            late++;
            total += us;
            min = us < min ? us : min;
            max = us > max ? us : max;
            outside += 3;
        }
        if (v % 50 == 49) {
            /* renamed: what it counted stays with victim, what comes next goes to other */
            stats_instance_describe(s, idx, (const uint8_t *)"other", 5, NULL, 0, 0, 1);
            stats_late_resume(s, &s->inst[idx], 0);
        }
        stats_instance_end(s, &s->inst[idx], AIOPROF_EXIT_RETURN);
    }
    assert_true(s->folded_instances > 0);
    size_t n;
    stats_row_t *rows = stats_rows(s, 0, STATS_SORT_NAME, &n);
    assert_non_null(rows);
    const stats_row_t *victim = NULL, *other = NULL;
    for (size_t i = 0; i < n; i++) {
        victim = strcmp(rows[i].name, "victim") == 0 ? &rows[i] : victim;
        other = strcmp(rows[i].name, "other") == 0 ? &rows[i] : other;
    }
    assert_non_null(victim);
    assert_non_null(victim->late);
    assert_int_equal(victim->late->resumes, resumes);
    assert_int_equal(victim->late->count, late);
    assert_int_equal(victim->late->total_us, total);
    assert_int_equal(victim->late->min_us, min);
    assert_int_equal(victim->late->max_us, max);
    assert_int_equal(victim->late->outside_us, outside);
    for (unsigned i = 0; i < STATS_PCTS; i++) {
        assert_int_equal(victim->late_pct[i], stats_hist_quantile(&model, stats_pcts[i], min, max));
        assert_true(victim->late_pct[i] >= 79000 && victim->late_pct[i] <= 81000);
    }
    assert_non_null(other);
    assert_int_equal(other->late->resumes, VICTIMS / 50);
    assert_int_equal(other->late->count, 0);
    assert_int_equal(other->late->max_us, 0);
    free(rows);
    stats_hist_drop(&model);
    stats_free(s);
    free(s);
}

/* The same figures view after view while instances end between them (a view takes the resumes of
 * the ended ones in their name row once): against a model of every resume, by name and by
 * instance, with ended instances resumed again and waiting still coming to them (a hostile
 * stream), renamed after they ended, and folded away past the cap. */
typedef struct late_model {
    uint64_t resumes, count, total, min, max, outside;
    stats_hist_t hist;
} late_model_t;

static void late_model_add(late_model_t *m, uint64_t us)
{
    stats_hist_add(&m->hist, us);
    m->min = m->resumes == 0 || us < m->min ? us : m->min;
    m->max = us > m->max ? us : m->max;
    m->resumes++;
    m->count += us != 0;
    m->total += us;
}

static void late_model_check(const stats_row_t *r, const late_model_t *m)
{
    assert_non_null(r->late);
    assert_int_equal(r->late->resumes, m->resumes);
    assert_int_equal(r->late->count, m->count);
    assert_int_equal(r->late->total_us, m->total);
    assert_int_equal(r->late->min_us, m->min);
    assert_int_equal(r->late->max_us, m->max);
    assert_int_equal(r->late->outside_us, m->outside);
    for (unsigned i = 0; i < STATS_PCTS; i++) {
        assert_int_equal(r->late_pct[i], stats_hist_quantile(&m->hist, stats_pcts[i], m->min, m->max));
    }
}

static void test_late_across_views(void **state)
{
    (void)state;
    enum { TASKS = 900, BATCH = 60, RESUMES = 4 };
    stats_t *s = malloc(sizeof *s);
    late_model_t *own = calloc(TASKS + 1, sizeof *own);
    late_model_t victim = {0}, other = {0};
    assert_non_null(s);
    assert_non_null(own);
    assert_int_equal(stats_init(s, STATS_INSTANCE_CAP_MIN, 20000), 0);
    s->device.late_unit = 1;
    uint64_t x = 88172645463325252ull;
    int renamed[TASKS + 1] = {0};
    for (uint32_t id = 1; id <= TASKS; id++) {
        int32_t idx = stats_instance_get(s, id);
        stats_instance_describe(s, idx, (const uint8_t *)"victim", 6, NULL, 0, 0, 1);
        for (int r = 0; r < RESUMES; r++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            uint64_t us = id == 1 && r == 0 ? 1 : x % (r == 0 ? 900000u : 5000u);
            stats_late_resume(s, &s->inst[idx], us);
            late_model_add(&own[id], us);
            late_model_add(&victim, us);
        }
        stats_instance_end(s, &s->inst[idx], AIOPROF_EXIT_RETURN);
        /* ended at the last view or before: resumed again, or waiting that comes after its end,
         * or renamed (what it counted stays with victim, the rest goes to other) */
        uint32_t back = id > BATCH ? id - BATCH + 1 : 0;
        int32_t bidx = back ? stats_instance_get(s, back) : -1;
        if (back && !renamed[back] && s->inst[bidx].name >= 0 && id % 5 == 0) {
            uint64_t us = 950000u + id;
            stats_late_resume(s, &s->inst[bidx], us);
            late_model_add(&own[back], us);
            late_model_add(&victim, us);
        } else if (back && !renamed[back] && id % 5 == 1) {
            stats_late_gap(s, &s->inst[bidx], 1, 7);
            own[back].outside += 7;
            victim.outside += 7;
        } else if (back && !renamed[back] && id % 11 == 2) {
            stats_instance_describe(s, bidx, (const uint8_t *)"other", 5, NULL, 0, 0, 1);
            renamed[back] = 1;
            stats_hist_drop(&own[back].hist);
            memset(&own[back], 0, sizeof own[back]);
            stats_late_resume(s, &s->inst[bidx], 3);
            late_model_add(&own[back], 3);
            late_model_add(&other, 3);
        }
        if (id % BATCH != 0) {
            continue;
        }
        size_t n;
        stats_row_t *rows = stats_rows(s, 0, STATS_SORT_NAME, &n);
        assert_non_null(rows);
        for (size_t i = 0; i < n; i++) {
            if (strcmp(rows[i].name, "victim") == 0) {
                late_model_check(&rows[i], &victim);
            } else if (strcmp(rows[i].name, "other") == 0) {
                late_model_check(&rows[i], &other);
            }
        }
        free(rows);
        rows = stats_rows(s, 1, STATS_SORT_NAME, &n);
        assert_non_null(rows);
        for (size_t i = 0; i < n; i++) {
            late_model_check(&rows[i], &own[rows[i].inst->id]);
        }
        free(rows);
    }
    assert_true(s->folded_instances > 0);
    for (uint32_t id = 0; id <= TASKS; id++) {
        stats_hist_drop(&own[id].hist);
    }
    stats_hist_drop(&victim.hist);
    stats_hist_drop(&other.hist);
    free(own);
    stats_free(s);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_blame),
        cmocka_unit_test(test_late_fold),
        cmocka_unit_test(test_late_name_figures),
        cmocka_unit_test(test_late_across_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
