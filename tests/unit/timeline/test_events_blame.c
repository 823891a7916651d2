/* Whose slices took a late task's waiting (events_late.c), against a schedule the test knows turn
 * by turn: tens of thousands of slices of many tasks, each ENTER late by a random amount, so that
 * the windows span from a few turns (walked) to thousands (the running sums and their
 * checkpoints), the names grow past the sums' first sixteen cells while checkpoints are kept,
 * past 256 culprits (the checkpoints thin out, as many fewer as the culprits are more: cells moved
 * in place while windows use them), and the turns wrap the ring of
 * EVENTS_TURNS (a window reaching past it is partly unknown). Each instance row's culprits are
 * compared with the time the schedule gives, microsecond for microsecond. */
#include "events_fixture.h"


typedef struct slice {
    uint64_t start, end; /* the task runs [start, end); nothing runs from end to the next start */
    uint32_t task;       /* 0 .. tasks - 1 (the far task: tasks) */
} slice_t;

typedef struct schedule {
    unsigned tasks;     /* tasks with a name of their own, t000 ..; one more, "far", late by all */
    slice_t *slices;
    size_t n;
    uint64_t *blame;    /* [task][culprit]: culprit a task (far: tasks), or tasks + 1 (no task) */
    uint64_t *late;     /* [task]: its lateness in total */
    uint64_t seed;
} schedule_t;

static uint32_t rnd(schedule_t *c, uint32_t below)
{
    c->seed = c->seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(c->seed >> 33) % below;
}

/* The window [from, until) before slice j's ENTER, laid on the schedule: to task j's row. */
static void oracle(schedule_t *c, size_t j, uint64_t from)
{
    unsigned cols = c->tasks + 2u, none = c->tasks + 1u;
    uint64_t *row = c->blame + (size_t)c->slices[j].task * cols;
    uint64_t until = c->slices[j].start;
    for (size_t k = j; k-- > 0 && until > from;) {
        const slice_t *s = &c->slices[k];
        /* no task from s->end to until, then s's task */
        uint64_t gap_from = s->end > from ? s->end : from;
        if (until > gap_from) {
            row[none] += until - gap_from;
        }
        uint64_t run_from = s->start > from ? s->start : from;
        if (s->end > run_from) {
            row[s->task] += s->end - run_from;
        }
        until = s->start;
    }
    if (until > from) {
        row[none] += until - from; /* before the first slice: no task (the device booted) */
    }
}

/* The stream of the schedule: tasks named as they first run, twenty slices a frame, each ENTER's
 * lateness (in microseconds, late_unit 1) in the frame's LATE record, last first. */
static void schedule_build(schedule_t *c, fb_t *f, unsigned tasks, size_t slices, size_t quiet_from, size_t quiet_to,
    uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->tasks = tasks;
    c->seed = seed;
    c->n = slices;
    c->slices = calloc(slices, sizeof *c->slices);
    c->blame = calloc((size_t)(tasks + 1u) * (tasks + 2u), sizeof *c->blame);
    c->late = calloc(tasks + 1u, sizeof *c->late);
    uint8_t *named = calloc(tasks + 1u, 1);
    uint32_t lates[20];
    assert_non_null(c->slices);
    fb_init(f, 32);
    uint64_t t = 0, last = 0;
    for (size_t j = 0; j < slices; j++) {
        slice_t *s = &c->slices[j];
        if (j % 20 == 0) {
            fb_open(f, last, 0);
            if (j == 0) {
                fb_hello_late(f, AIOPROF_HELLO_FLAG_BOOT, 1);
            }
        }
        t += rnd(c, 3) == 0 ? 1u + rnd(c, 30) : 0u;
        /* the tasks come one after another (a new name every 60 slices, while checkpoints are
         * kept); "far" every 997 slices, late by everything since the start */
        uint32_t known = (uint32_t)(j / 60u + 1u) < tasks ? (uint32_t)(j / 60u + 1u) : tasks;
        s->task = j % 997u == 996u ? tasks : rnd(c, known);
        s->start = t;
        t += 1u + rnd(c, 60);
        s->end = t;
        uint64_t from = 0;
        if (j >= quiet_from && j < quiet_to) {
            from = s->start; /* on time, and no LATE record */
        } else if (s->task == tasks) {
            from = 0;
        } else if (rnd(c, 4) != 0) {
            /* a window back to a random point within the last few, hundreds or thousands of
             * slices (always within the turns kept) */
            uint32_t r = rnd(c, 100);
            size_t back = 1u + rnd(c, r < 80 ? 8u : r < 98 ? 400u : 16000u);
            back = back < j ? back : j;
            uint64_t at = c->slices[j - back].start;
            from = at + rnd(c, (uint32_t)(s->start - at) + 1u);
        } else {
            from = s->start; /* on time */
        }
        if (!named[s->task]) {
            char name[8];
            snprintf(name, sizeof name, s->task == tasks ? "far" : "t%03u", s->task);
            fb_task(f, AIOPROF_OP_TASK_NEW, s->task + 1u, 0, name, NULL);
            named[s->task] = 1;
        }
        fb_enter(f, s->task + 1u, (uint32_t)(s->start - last));
        fb_exit(f, AIOPROF_EXIT_YIELD, (uint32_t)(s->end - s->start));
        last = s->end;
        lates[j % 20] = (uint32_t)(s->start - from);
        c->late[s->task] += s->start - from;
        oracle(c, j, from);
        if ((j % 20 == 19 || j + 1 == slices) && !(j >= quiet_from && j < quiet_to)) {
            uint8_t b[20 * 5];
            size_t n = 0;
            for (size_t k = j % 20 + 1; k-- > 0;) {
                n += put_varint(b + n, lates[k]);
            }
            fb_control(f, AIOPROF_OP_LATE, b, n);
        }
        if (j % 20 == 19 || j + 1 == slices) {
            fb_close(f);
        }
    }
    free(named);
}

static void schedule_free(schedule_t *c, fb_t *f)
{
    free(c->slices);
    free(c->blame);
    free(c->late);
    free(f->out);
}

/* The task of an instance row, from its name. */
static unsigned task_of(const schedule_t *c, const stats_t *s, const stats_instance_t *in)
{
    const char *name = s->names[in->name].name;
    return strcmp(name, "far") == 0 ? c->tasks : (unsigned)atoi(name + 1);
}

/* Each instance row against the schedule: its culprits' time (those it lists, the rest in
 * other_us), no task, unknown; returns how many rows had a window partly unknown. */
static unsigned check_rows(const schedule_t *c, const pipeline_t *p)
{
    const stats_t *s = pipeline_stats(p);
    stats_late_settle_all((stats_t *)s); /* the instance rows' lists made, as a view makes them */
    unsigned cols = c->tasks + 2u, rows = 0, unknown = 0;
    for (size_t i = 0; i < s->inst_used; i++) {
        const stats_instance_t *in = &s->inst[i];
        if (!in->in_use || in->name < 0) {
            continue;
        }
        rows++;
        unsigned task = task_of(c, s, in);
        const uint64_t *want = c->blame + (size_t)task * cols;
        const stats_late_t *l = &in->late;
        uint64_t named = 0, want_named = 0;
        for (unsigned k = 0; k <= c->tasks; k++) {
            want_named += want[k];
        }
        for (uint32_t b = 0; b < l->n_blame; b++) {
            const char *who = stats_late_who_name(s, l->blame[b].who);
            unsigned k = strcmp(who, "far") == 0 ? c->tasks : (unsigned)atoi(who + 1);
            named += l->blame[b].us;
            if (task != c->tasks) {
                /* a culprit listed from the first window it took time in: all of its time */
                if (l->blame[b].us != want[k]) {
                    fail_msg("%s blamed %s for %llu us, the schedule says %llu", s->names[in->name].name, who,
                        (unsigned long long)l->blame[b].us, (unsigned long long)want[k]);
                }
            } else {
                assert_true(l->blame[b].us <= want[k]);
            }
        }
        /* every microsecond of lateness somewhere: a culprit, no task, or unknown */
        if (named + l->other_us + l->outside_us + l->unknown_us != c->late[task]) {
            print_error("%s: named %llu other %llu outside %llu unknown %llu, late %llu\n", s->names[in->name].name,
                (unsigned long long)named, (unsigned long long)l->other_us, (unsigned long long)l->outside_us,
                (unsigned long long)l->unknown_us, (unsigned long long)c->late[task]);
        }
        assert_int_equal(named + l->other_us + l->outside_us + l->unknown_us, c->late[task]);
        assert_int_equal(l->total_us, c->late[task]);
        if (task == c->tasks) {
            unknown += l->unknown_us != 0;
            continue;
        }
        assert_int_equal(l->unknown_us, 0);
        assert_int_equal(l->outside_us, want[c->tasks + 1u]);
        assert_int_equal(named + l->other_us, want_named);
        if (l->n_blame < STATS_BLAME_MAX) {
            assert_int_equal(l->other_us, 0);
        }
    }
    assert_int_equal(rows, c->tasks + 1u);
    return unknown;
}

/* 20 names (and "far"): the sums grow past their first sixteen cells; 80,000 slices, 160,000
 * turns: the ring wraps, and far's later windows reach past it; 35,000 slices on time (frames with
 * no LATE record, so nothing is summed) take turns out of the ring before the sums pass them. */
static void test_blame_checkpoints(void **state)
{
    (void)state;
    schedule_t c;
    fb_t f;
    schedule_build(&c, &f, 20, 80000, 10000, 45000, 1);
    pipeline_t *p = run(&f, 0);
    assert_true(check_rows(&c, p) > 0);
    pipeline_free(p);
    /* the same stream in small pieces: frames are read whole whatever the reads */
    p = run(&f, 777);
    check_rows(&c, p);
    pipeline_free(p);
    schedule_free(&c, &f);
}

/* 300 names: past 256 culprits the checkpoints are half as many, each twice the cells; the rows
 * list 32 culprits at most, the others' time in other_us. */
static void test_blame_many_names(void **state)
{
    (void)state;
    schedule_t c;
    fb_t f;
    schedule_build(&c, &f, 300, 30000, 0, 0, 2);
    pipeline_t *p = run(&f, 0);
    check_rows(&c, p);
    pipeline_free(p);
    schedule_free(&c, &f);
}

/* 1,100 names: the checkpoints thin out three times (a checkpoint every 256 turns, 2,048 cells
 * each), with windows across each change. */
static void test_blame_thousand_names(void **state)
{
    (void)state;
    schedule_t c;
    fb_t f;
    schedule_build(&c, &f, 1100, 80000, 0, 0, 3);
    pipeline_t *p = run(&f, 0);
    check_rows(&c, p);
    pipeline_free(p);
    schedule_free(&c, &f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blame_checkpoints),
        cmocka_unit_test(test_blame_many_names),
        cmocka_unit_test(test_blame_thousand_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
