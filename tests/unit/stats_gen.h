/* A stream generator for the stats' tests and the views' (tests/unit/stats/test_stats.c,
 * tests/unit/views/test_top_rows.c): closed frames go straight into a pipeline, and one stream
 * built to exhaust the instance rows. Static functions: each test program takes its own copy. */
#ifndef AIOPROF_TEST_STATS_GEN_H
#define AIOPROF_TEST_STATS_GEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame_builder.h"
#include "pipeline.h"
#include "stats.h"

typedef struct gen {
    uint8_t body[AIOPROF_BODY_MAX];
    size_t body_len;
    uint8_t seq;
    pipeline_t *p;
    uint64_t t;     /* device time of the last event */
    uint64_t last;  /* of the last event in the open frame (or its base) */
    int open;
} gen_t;

static void gen_flush(gen_t *g)
{
    if (!g->open) {
        return;
    }
    uint8_t enc[AIOPROF_COBS_MAX(AIOPROF_BODY_MAX + 2) + 2];
    pipeline_feed(g->p, enc, put_frame(enc, g->body, g->body_len));
    g->open = 0;
}

/* Room for a record of up to `need` body bytes, opening a new frame when needed. */
static void gen_room(gen_t *g, size_t need)
{
    if (g->open && g->body_len + need + 2 > AIOPROF_BODY_MAX) {
        gen_flush(g);
    }
    if (!g->open) {
        g->body_len = put_header(g->body, g->seq++, 32, (uint32_t)g->t, 0);
        g->last = g->t;
        g->open = 1;
    }
}

static void gen_task_op(gen_t *g, unsigned op, uint32_t id, const char *name)
{
    gen_room(g, 2 + 3 * AIOPROF_VARINT_MAX + strlen(name));
    uint8_t b[96];
    size_t n = 0, len = strlen(name);
    n += put_varint(b + n, id);
    n += put_varint(b + n, 0);
    n += put_varint(b + n, (uint32_t)len);
    memcpy(b + n, name, len);
    n += len;
    g->body_len += put_control(g->body + g->body_len, op, b, n);
}

static void gen_task(gen_t *g, uint32_t id, const char *name)
{
    gen_task_op(g, AIOPROF_OP_TASK_NEW, id, name);
}

/* One slice of `len` µs after `gap` µs outside; ends the task when kind is not YIELD. */
static void gen_slice(gen_t *g, uint32_t id, uint32_t gap, uint32_t len, unsigned kind)
{
    gen_room(g, 4 * AIOPROF_VARINT_MAX);
    g->t += gap;
    g->body_len += put_enter(g->body + g->body_len, id, (uint32_t)(g->t - g->last));
    g->t += len;
    g->body_len += put_exit(g->body + g->body_len, kind, len);
    g->last = g->t;
}

/* More live tasks than the rows may ever hold: STATS_LIVE_FACTOR times the cap, OVER more, after
 * finished ones; then LATE of them end and LATE new ones come. What the names must add up to. */
enum { PAST_CAP = STATS_INSTANCE_CAP_MIN, PAST_LIVE = PAST_CAP * STATS_LIVE_FACTOR, PAST_OVER = 900,
       PAST_LATE = 300 };
typedef struct past_cap {
    uint64_t total;  /* every slice's time */
    uint64_t past;   /* of the slices of the tasks past the cap */
    uint64_t past_n; /* and how many */
} past_cap_t;

static gen_t *past_cap_stream(past_cap_t *c)
{
    enum { CAP = PAST_CAP, LIVE = PAST_LIVE, OVER = PAST_OVER, LATE = PAST_LATE };
    pipeline_config_t cfg = {0};
    cfg.instance_cap = CAP;
    gen_t *g = calloc(1, sizeof *g);
    g->p = pipeline_new(&cfg);
    uint64_t total = 0, past = 0, past_n = 0;
    /* finished ones first: their rows are taken again before the rows grow */
    uint32_t id = 1;
    for (; id <= 2 * CAP; id++) {
        gen_task(g, id, "short");
        gen_slice(g, id, 1, 5, AIOPROF_EXIT_RETURN);
        total += 5;
    }
    /* then LIVE + OVER tasks that never end, two slices each */
    uint32_t first = id, end = first + LIVE + OVER;
    for (uint32_t round = 0; round < 2; round++) {
        for (id = first; id < end; id++) {
            if (round == 0) {
                gen_task(g, id, id % 2 ? "odd" : "even");
            }
            uint32_t len = 1 + id % 13;
            gen_slice(g, id, 1, len, AIOPROF_EXIT_YIELD);
            total += len;
            if (id >= first + LIVE) {
                past += len;
                past_n++;
            }
        }
    }
    /* the first LATE of them end (raise): their rows go to new tasks, not past the cap */
    for (id = first; id < first + LATE; id++) {
        gen_slice(g, id, 1, 2, AIOPROF_EXIT_RAISE);
        total += 2;
    }
    for (id = end; id < end + LATE; id++) {
        gen_task(g, id, "late");
        gen_slice(g, id, 1, 3, AIOPROF_EXIT_YIELD);
        total += 3;
    }
    gen_flush(g);
    *c = (past_cap_t){.total = total, .past = past, .past_n = past_n};
    return g;
}

#endif
