/* The hook's spans with memory (docs/protocol.md, "Memory"; docs/usage.md, "Memory per span"):
 * what the task allocated goes as an ALLOC record before each span record, so that a reader
 * credits it to the span open while it was allocated; nothing before one when nothing was
 * allocated; and a port that does not count memory sends exactly the bytes it sends without any
 * allocation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "aioprof_wire.h"
#include "fake_device.h"

#if AIOPROF_SPANS && AIOPROF_ALLOC

#define MEM (AIOPROF_MEM_ALLOC_EXACT | AIOPROF_MEM_GC_COUNT | 1u << AIOPROF_MEM_UNIT_SHIFT)

/* One slice of task a: 10 bytes, span outer { 20 bytes, span inner { 40 } , nothing }, 80 bytes. */
static void slice(fake_device_t *d, aioprof_task_t *a)
{
    static aioprof_span_t outer = AIOPROF_SPAN_INIT("outer"), inner = AIOPROF_SPAN_INIT("inner");
    aioprof_enter(&d->prof, a);
    d->clock += 10;
    d->allocated += 10;
    aioprof_span_enter(&d->prof, &outer);
    d->clock += 10;
    d->allocated += 20;
    aioprof_span_enter(&d->prof, &inner);
    d->clock += 10;
    d->allocated += 40;
    aioprof_span_exit(&d->prof);
    d->clock += 10;
    aioprof_span_exit(&d->prof);
    d->clock += 10;
    d->allocated += 80;
    aioprof_exit(&d->prof, a, AIOPROF_EXIT_YIELD);
    d->clock += 100;
}

/* The records of the slices, without the HELLO, names and frames: kind and, for an ALLOC, amount. */
static size_t sequence(const decoded_t *dec, aioprof_rec_kind_t *kind, uint32_t *amount, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < dec->n && n < max; i++) {
        aioprof_rec_kind_t k = dec->ev[i].kind;
        if (k == AIOPROF_REC_ENTER || k == AIOPROF_REC_EXIT || k == AIOPROF_REC_SPAN_ENTER ||
            k == AIOPROF_REC_SPAN_EXIT || k == AIOPROF_REC_ALLOC) {
            kind[n] = k;
            amount[n++] = k == AIOPROF_REC_ALLOC ? dec->ev[i].count : 0;
        }
    }
    return n;
}

static void alloc_before_span_records(void **state)
{
    (void)state;
    fake_device_t *d = fake_new_mem(32, 0, 4096, 0, MEM);
    assert_non_null(d);
    aioprof_task_t a;
    aioprof_task_created(&d->prof, &a, "a", 1);
    for (int i = 0; i < 3; i++) {
        slice(d, &a);
    }
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    aioprof_rec_kind_t kind[64];
    uint32_t amount[64];
    size_t n = sequence(dec, kind, amount, 64);
    /* per slice: ENTER, ALLOC 10, SPAN_ENTER, ALLOC 20, SPAN_ENTER, ALLOC 40, SPAN_EXIT,
     * SPAN_EXIT (nothing allocated since: no ALLOC), ALLOC 80, EXIT */
    static const aioprof_rec_kind_t want[] = {AIOPROF_REC_ENTER, AIOPROF_REC_ALLOC, AIOPROF_REC_SPAN_ENTER,
        AIOPROF_REC_ALLOC, AIOPROF_REC_SPAN_ENTER, AIOPROF_REC_ALLOC, AIOPROF_REC_SPAN_EXIT, AIOPROF_REC_SPAN_EXIT,
        AIOPROF_REC_ALLOC, AIOPROF_REC_EXIT};
    static const uint32_t want_amount[] = {0, 10, 0, 20, 0, 40, 0, 0, 80, 0};
    const size_t per = sizeof want / sizeof want[0];
    assert_int_equal(n, 3 * per);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(kind[i], want[i % per]);
        assert_int_equal(amount[i], want_amount[i % per]);
    }
    assert_int_equal(dec->reader.stats.crc_errors, 0);
    decoded_free(dec);
    fake_free(d);
}

/* A port with mem 0: the allocation counter is never read into the stream, and its bytes are those
 * of the same run where nothing was allocated. */
static void no_mem_same_bytes(void **state)
{
    (void)state;
    fake_device_t *x = fake_new_mem(32, 0, 4096, 0, 0), *y = fake_new_mem(32, 0, 4096, 0, 0);
    assert_non_null(x);
    assert_non_null(y);
    aioprof_task_t a, b;
    aioprof_task_created(&x->prof, &a, "a", 1);
    aioprof_task_created(&y->prof, &b, "a", 1);
    for (int i = 0; i < 3; i++) {
        slice(x, &a);
        uint32_t kept = y->allocated;
        slice(y, &b);
        y->allocated = kept; /* y allocates nothing */
    }
    fake_flush_all(x);
    fake_flush_all(y);
    assert_int_equal(x->out_len, y->out_len);
    assert_memory_equal(x->out, y->out, x->out_len);
    decoded_t *dec = decode_all(x->out, x->out_len);
    assert_int_equal(count_kind(dec, AIOPROF_REC_ALLOC), 0);
    assert_int_equal(count_kind(dec, AIOPROF_REC_SPAN_ENTER), 6);
    decoded_free(dec);
    fake_free(x);
    fake_free(y);
}

/* Span records dropped for a full ring (a host that does not read): what was allocated before
 * them is not lost with them but goes with the next record that has room, so that every byte
 * allocated is in some ALLOC (no event was dropped here, only span records). */
static void dropped_span_records_keep_amounts(void **state)
{
    (void)state;
    static aioprof_span_t sp = AIOPROF_SPAN_INIT("s");
    fake_device_t *d = fake_new_mem(32, 0, 256, 0, MEM);
    assert_non_null(d);
    aioprof_task_t a;
    aioprof_task_created(&d->prof, &a, "a", 1);
    fake_flush_all(d);
    aioprof_enter(&d->prof, &a);
    d->refuse = 1;
    uint32_t total = 0;
    for (int i = 0; i < 400 && d->prof.dropped_total < 4; i++) {
        d->clock += 3;
        d->allocated += 7;
        total += 7;
        if (i % 2 == 0) {
            aioprof_span_enter(&d->prof, &sp);
        } else {
            aioprof_span_exit(&d->prof);
        }
        aioprof_drain(&d->prof);
    }
    assert_true(d->prof.dropped_total >= 4);
    d->refuse = 0;
    fake_flush_all(d);
    d->clock += 5;
    d->allocated += 1;
    total += 1;
    aioprof_exit(&d->prof, &a, AIOPROF_EXIT_YIELD);
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    uint64_t sum = 0;
    for (size_t i = 0; i < dec->n; i++) {
        sum += dec->ev[i].kind == AIOPROF_REC_ALLOC ? dec->ev[i].count : 0;
    }
    assert_int_equal(count_kind(dec, AIOPROF_REC_ENTER), 1);
    assert_int_equal(count_kind(dec, AIOPROF_REC_EXIT), 1);
    assert_int_equal(sum, total);
    decoded_free(dec);
    fake_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alloc_before_span_records),
        cmocka_unit_test(no_mem_same_bytes),
        cmocka_unit_test(dropped_span_records_keep_amounts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    printf("test_device_span_mem: this build of the hook has no spans or no memory: nothing to test\n");
    return 0;
}

#endif
