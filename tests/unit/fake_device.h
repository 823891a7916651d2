/* Test helpers: the device library on a fake clock and a capturing port, and a reader that keeps
 * what it decoded as a list. Header-only so each test program stays one file. */
#ifndef AIOPROF_TEST_FAKE_DEVICE_H
#define AIOPROF_TEST_FAKE_DEVICE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aioprof.h"
#include "aioprof_frame_reader.h"

typedef struct fake_device {
    aioprof_t prof;
    aioprof_port_t port;
    uint64_t clock;          /* true time, never wraps */
    uint8_t *out;            /* everything the port took */
    size_t out_len, out_cap;
    size_t write_limit;      /* 0: take everything; else at most this many bytes per call */
    uint32_t write_ticks;    /* the clock moves this much during each write call (a slow UART) */
    int refuse;              /* take nothing (a host that does not read) */
    unsigned write_calls;
    int lock_depth;          /* inside the hook's critical section */
    uint32_t allocated;      /* the port's allocation counter (AIOPROF_ALLOC), moved by the tests */
    unsigned lock_calls;
    uint8_t ring[1 << 16];
} fake_device_t;

static inline uint32_t fake_ticks(void *user)
{
    return (uint32_t)((fake_device_t *)user)->clock;
}

/* The critical section, checked: the hook never nests its own, always leaves it, and never calls
 * write inside it. The state handed back is checked too. */
static inline uint32_t fake_lock(void *user)
{
    fake_device_t *d = user;
    assert_int_equal(d->lock_depth, 0);
    d->lock_depth++;
    d->lock_calls++;
    return 0x5EC7u + d->lock_calls;
}

static inline void fake_unlock(void *user, uint32_t state)
{
    fake_device_t *d = user;
    assert_int_equal(d->lock_depth, 1);
    assert_int_equal(state, 0x5EC7u + d->lock_calls);
    d->lock_depth--;
}

/* The same three bound at compile time (tests/unit/fake_port_bound.h), for the builds of these
 * tests that compile the hook with AIOPROF_PORT_HEADER. */
#ifdef AIOPROF_TEST_BOUND_PORT
uint32_t fake_bound_ticks(void *user)
{
    return fake_ticks(user);
}
uint32_t fake_bound_lock(void *user)
{
    return fake_lock(user);
}
void fake_bound_unlock(void *user, uint32_t state)
{
    fake_unlock(user, state);
}
#endif

static inline void fake_append(fake_device_t *d, const uint8_t *data, size_t len)
{
    if (d->out_len + len > d->out_cap) {
        d->out_cap = (d->out_len + len) * 2 + 4096;
        d->out = realloc(d->out, d->out_cap);
    }
    memcpy(d->out + d->out_len, data, len);
    d->out_len += len;
}

static inline size_t fake_write(void *user, const uint8_t *data, size_t len)
{
    fake_device_t *d = user;
    assert_int_equal(d->lock_depth, 0);
    d->write_calls++;
    d->clock += d->write_ticks;
    if (d->refuse) {
        return 0;
    }
    if (d->write_limit && len > d->write_limit) {
        len = d->write_limit;
    }
    fake_append(d, data, len);
    return len;
}

#if AIOPROF_ALLOC
static inline uint32_t fake_alloc(void *user)
{
    fake_device_t *d = user;
    assert_true(d->lock_depth <= 1); /* at init outside the critical section, else inside */
    return d->allocated;
}
#endif

/* A fake device whose port reports lateness in late_unit ticks (0: it does not) and, with
 * AIOPROF_ALLOC, its allocations and collections as the HELLO's mem field says (0: it does not). */
static inline fake_device_t *fake_new_mem(unsigned tick_bits, uint64_t start, uint32_t ring_size, uint32_t late_unit,
    uint32_t mem)
{
    fake_device_t *d = calloc(1, sizeof *d);
    d->clock = start;
    d->port.ticks = fake_ticks;
    d->port.write = fake_write;
    d->port.lock = fake_lock;
    d->port.unlock = fake_unlock;
    d->port.user = d;
    d->port.tick_hz = 1000000;
    d->port.tick_bits = (uint8_t)tick_bits;
    d->port.platform = "test";
    d->port.late_unit = late_unit;
#if AIOPROF_ALLOC
    d->port.alloc = fake_alloc;
    d->port.mem = mem;
#else
    (void)mem;
#endif
    if (aioprof_init(&d->prof, &d->port, d->ring, ring_size) != 0) {
        free(d);
        return NULL;
    }
    return d;
}

static inline fake_device_t *fake_new_late(unsigned tick_bits, uint64_t start, uint32_t ring_size, uint32_t late_unit)
{
    return fake_new_mem(tick_bits, start, ring_size, late_unit, 0);
}

static inline fake_device_t *fake_new(unsigned tick_bits, uint64_t start, uint32_t ring_size)
{
    return fake_new_late(tick_bits, start, ring_size, 0);
}

static inline void fake_free(fake_device_t *d)
{
    assert_int_equal(d->lock_depth, 0);
    free(d->out);
    free(d);
}

/* Sends everything: flush, then drain until the ring is empty. */
static inline void fake_flush_all(fake_device_t *d)
{
    aioprof_flush(&d->prof);
    for (int i = 0; i < 100000 && aioprof_pending(&d->prof) > 0; i++) {
        aioprof_drain(&d->prof);
    }
}

/* What a reader decoded, in order, with absolute times rebuilt from frame bases. */
typedef struct decoded_event {
    aioprof_rec_kind_t kind;
    uint64_t time;       /* unwrapped ticks */
    uint32_t id, parent, exit_kind, count, flags;
    uint32_t drain_ticks; /* HELLO */
    char name[64], label[64];
} decoded_event_t;

typedef struct decoded {
    aioprof_reader_t reader;
    decoded_event_t *ev;
    size_t n, cap;
    uint64_t frame_time; /* unwrapped base of the current frame */
    uint32_t last_base;
    unsigned tick_bits;
    int have_base;
    size_t frames;
    char text[8192];
    size_t text_len;
} decoded_t;

static inline void dec_frame(void *user, const aioprof_frame_info_t *f)
{
    decoded_t *d = user;
    uint64_t mod = f->tick_bits == 32 ? (1ull << 32) : (1ull << f->tick_bits);
    if (!d->have_base) {
        d->frame_time = f->base;
        d->have_base = 1;
    } else {
        d->frame_time += ((uint64_t)f->base - d->last_base + mod) % mod;
    }
    d->last_base = f->base;
    d->frames++;
}

static inline void dec_record(void *user, const aioprof_record_t *r)
{
    decoded_t *d = user;
    if (d->n == d->cap) {
        d->cap = d->cap * 2 + 64;
        d->ev = realloc(d->ev, d->cap * sizeof *d->ev);
    }
    decoded_event_t *e = &d->ev[d->n++];
    memset(e, 0, sizeof *e);
    e->kind = r->kind;
    e->time = d->frame_time + r->offset;
    e->id = r->id;
    e->parent = r->parent;
    e->exit_kind = r->exit_kind;
    e->count = r->count;
    if (r->kind == AIOPROF_REC_HELLO) {
        e->flags = r->hello.flags;
        e->count = r->hello.dropped_total;
        e->drain_ticks = r->hello.drain_ticks;
    }
    if (r->kind == AIOPROF_REC_TASK_NEW || r->kind == AIOPROF_REC_TASK_INFO) {
        memcpy(e->name, r->name, r->name_len < 63 ? r->name_len : 63);
        memcpy(e->label, r->label, r->label_len < 63 ? r->label_len : 63);
    }
}

static inline void dec_text(void *user, const uint8_t *text, size_t len)
{
    decoded_t *d = user;
    if (d->text_len + len < sizeof d->text) {
        memcpy(d->text + d->text_len, text, len);
        d->text_len += len;
    }
}

static inline decoded_t *decode_all(const uint8_t *data, size_t len)
{
    static const aioprof_reader_sink_t sink = {.frame = dec_frame, .record = dec_record, .text = dec_text};
    decoded_t *d = calloc(1, sizeof *d);
    aioprof_reader_init(&d->reader, &sink, d);
    aioprof_reader_feed(&d->reader, data, len);
    aioprof_reader_finish(&d->reader);
    return d;
}

static inline void decoded_free(decoded_t *d)
{
    free(d->ev);
    free(d);
}

static inline size_t count_kind(const decoded_t *d, aioprof_rec_kind_t kind)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++) {
        n += d->ev[i].kind == kind;
    }
    return n;
}

#endif
