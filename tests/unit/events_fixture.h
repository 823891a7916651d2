/* The frame builder and pipeline runner the events tests share (test_events.c, test_events_link.c):
 * frames made with the frame writer so that every field is under the test's control, fed to a
 * pipeline in pieces, and the rows and text lines it gives. */
#ifndef EVENTS_FIXTURE_H
#define EVENTS_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frame_builder.h"
#include "pipeline.h"
#include "stats.h"

typedef struct fb {
    uint8_t body[AIOPROF_BODY_MAX];
    size_t body_len;
    uint8_t seq;
    unsigned bits;
    uint8_t *out;
    size_t len, cap;
} fb_t;

static inline void fb_init(fb_t *f, unsigned bits)
{
    memset(f, 0, sizeof *f);
    f->bits = bits;
    f->cap = 1 << 16;
    f->out = malloc(f->cap);
}

static void fb_append(fb_t *f, const uint8_t *d, size_t n)
{
    if (f->len + n > f->cap) {
        f->cap = (f->len + n) * 2;
        f->out = realloc(f->out, f->cap);
    }
    memcpy(f->out + f->len, d, n);
    f->len += n;
}

static inline void fb_open(fb_t *f, uint64_t base, uint32_t running)
{
    uint32_t mask = f->bits == 32 ? 0xFFFFFFFFu : (1u << f->bits) - 1u;
    f->body_len = put_header(f->body, f->seq++, f->bits, (uint32_t)base & mask, running);
}

static inline void fb_close(fb_t *f)
{
    uint8_t enc[AIOPROF_COBS_MAX(AIOPROF_BODY_MAX + 2) + 2];
    assert_true(f->body_len + 2 <= AIOPROF_BODY_MAX);
    size_t n = put_frame(enc, f->body, f->body_len);
    assert_true(n <= sizeof enc);
    fb_append(f, enc, n <= sizeof enc ? n : sizeof enc); /* the bound also tells the compiler */
}

static inline void fb_enter(fb_t *f, uint32_t id, uint32_t dt)
{
    f->body_len += put_enter(f->body + f->body_len, id, dt);
}

static inline void fb_exit(fb_t *f, unsigned kind, uint32_t dt)
{
    f->body_len += put_exit(f->body + f->body_len, kind, dt);
}

static inline void fb_control(fb_t *f, unsigned op, const uint8_t *b, size_t n)
{
    f->body_len += put_control(f->body + f->body_len, op, b, n);
}

static inline void fb_text(fb_t *f, const char *s)
{
    fb_append(f, (const uint8_t *)s, strlen(s));
}

/* A HELLO with the device's period in ticks, or without the field (period 0: an older device). */
static inline void fb_hello_period(fb_t *f, unsigned flags, uint32_t boot, uint32_t drain, uint32_t hz, uint32_t period);

static inline void fb_hello(fb_t *f, unsigned flags, uint32_t boot, uint32_t drain, uint32_t hz)
{
    fb_hello_period(f, flags, boot, drain, hz, 0);
}

static inline void fb_hello_period(fb_t *f, unsigned flags, uint32_t boot, uint32_t drain, uint32_t hz, uint32_t period)
{
    uint8_t b[64];
    size_t n = 0;
    n += put_varint(b + n, 1);
    n += put_varint(b + n, hz);
    b[n++] = (uint8_t)f->bits;
    n += put_varint(b + n, 4096);
    b[n++] = (uint8_t)flags;
    n += put_varint(b + n, boot);
    n += put_varint(b + n, drain);
    n += put_varint(b + n, 0);
    b[n++] = 4;
    memcpy(b + n, "test", 4);
    n += 4;
    if (period != 0) {
        n += put_varint(b + n, period);
    }
    fb_control(f, AIOPROF_OP_HELLO, b, n);
}

/* A HELLO with every field up to what an event costs the device (in 1/1024 tick). */
static inline void fb_hello_cost(fb_t *f, unsigned flags, uint32_t drain, uint32_t dropped, uint32_t hz, uint32_t cost)
{
    uint8_t b[64];
    size_t n = 0;
    n += put_varint(b + n, 1);
    n += put_varint(b + n, hz);
    b[n++] = (uint8_t)f->bits;
    n += put_varint(b + n, 4096);
    b[n++] = (uint8_t)flags;
    n += put_varint(b + n, 0);
    n += put_varint(b + n, drain);
    n += put_varint(b + n, dropped);
    b[n++] = 4;
    memcpy(b + n, "test", 4);
    n += 4;
    n += put_varint(b + n, hz);
    n += put_varint(b + n, cost);
    fb_control(f, AIOPROF_OP_HELLO, b, n);
}

/* A HELLO of a device that reports lateness in late_unit ticks (1 MHz) and, with_mem, its
 * memory (the field mem; docs/protocol.md, "Memory"). */
static inline void fb_hello_late_mem(fb_t *f, unsigned flags, uint32_t late_unit, int with_mem, uint32_t mem)
{
    uint8_t b[64];
    size_t n = 0;
    n += put_varint(b + n, 1);
    n += put_varint(b + n, 1000000);
    b[n++] = (uint8_t)f->bits;
    n += put_varint(b + n, 4096);
    b[n++] = (uint8_t)flags;
    n += put_varint(b + n, 0);
    n += put_varint(b + n, 0);
    n += put_varint(b + n, 0);
    b[n++] = 4;
    memcpy(b + n, "test", 4);
    n += 4;
    n += put_varint(b + n, 1000000);
    n += put_varint(b + n, 0);
    n += put_varint(b + n, late_unit);
    if (with_mem) {
        n += put_varint(b + n, mem);
    }
    fb_control(f, AIOPROF_OP_HELLO, b, n);
}

static inline void fb_hello_late(fb_t *f, unsigned flags, uint32_t late_unit)
{
    fb_hello_late_mem(f, flags, late_unit, 0, 0);
}

/* Span records (docs/protocol.md, "Spans"). */
static inline void fb_span_name(fb_t *f, uint32_t id, const char *name)
{
    uint8_t b[64];
    size_t n = put_varint(b, id), len = strlen(name);
    memcpy(b + n, name, len);
    fb_control(f, AIOPROF_OP_SPAN_NAME, b, n + len);
}

static inline void fb_span_enter(fb_t *f, uint32_t id, uint32_t dt)
{
    uint8_t b[16];
    size_t n = put_varint(b, dt);
    n += put_varint(b + n, id);
    fb_control(f, AIOPROF_OP_SPAN_ENTER, b, n);
}

static inline void fb_span_exit(fb_t *f, uint32_t dt)
{
    uint8_t b[8];
    fb_control(f, AIOPROF_OP_SPAN_EXIT, b, put_varint(b, dt));
}

static inline void fb_task(fb_t *f, unsigned op, uint32_t id, uint32_t parent, const char *name, const char *label)
{
    uint8_t b[256];
    size_t n = 0, nl = strlen(name), ll = label ? strlen(label) : 0;
    n += put_varint(b + n, id);
    n += put_varint(b + n, parent);
    n += put_varint(b + n, (uint32_t)nl);
    memcpy(b + n, name, nl);
    n += nl;
    memcpy(b + n, label ? label : "", ll);
    n += ll;
    fb_control(f, op, b, n);
}

static inline void fb_dropped(fb_t *f, uint32_t count)
{
    uint8_t b[8];
    fb_control(f, AIOPROF_OP_DROPPED, b, put_varint(b, count));
}

/* A GC record (docs/protocol.md, "Memory"): the collection ended dt ticks after the last event
 * and took duration ticks. */
static inline void fb_gc(fb_t *f, uint32_t dt, uint32_t duration)
{
    uint8_t b[16];
    size_t n = put_varint(b, dt);
    n += put_varint(b + n, duration);
    fb_control(f, AIOPROF_OP_GC, b, n);
}

/* ---- helpers on the results ---- */

static char lines[16][1200];
static int nlines;

static inline void on_line(void *user, const char *line)
{
    (void)user;
    if (nlines < 16) {
        snprintf(lines[nlines], sizeof lines[nlines], "%s", line);
    }
    nlines++;
}

static inline pipeline_t *run(fb_t *f, size_t piece)
{
    pipeline_config_t cfg = {0};
    cfg.text_line = on_line;
    nlines = 0;
    pipeline_t *p = pipeline_new(&cfg);
    assert_non_null(p);
    if (piece == 0) {
        piece = f->len ? f->len : 1;
    }
    for (size_t i = 0; i < f->len; i += piece) {
        pipeline_feed(p, f->out + i, f->len - i < piece ? f->len - i : piece);
    }
    pipeline_finish(p);
    return p;
}

static inline const stats_name_t *row(const pipeline_t *p, const char *name)
{
    const stats_t *s = pipeline_stats(p);
    for (size_t i = 0; i < s->n_names; i++) {
        if (strcmp(s->names[i].name, name) == 0) {
            return &s->names[i];
        }
    }
    return NULL;
}

static inline int row_lower(const pipeline_t *p, const char *name)
{
    size_t n;
    stats_row_t *rows = stats_rows(pipeline_stats(p), 0, STATS_SORT_NAME, &n);
    int lb = -1;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].name, name) == 0) {
            lb = rows[i].lower_bound;
        }
    }
    free(rows);
    return lb;
}

/* ---- tests ---- */

#endif
