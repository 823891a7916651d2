/* The device hook's own life and what it says of itself: HELLOs and heartbeats when idle, its
 * drain time, the drop count they carry, init's checks, close and reopen. The events it records are
 * test_device.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "fake_device.h"

static void heartbeat_and_periodic_hello_when_idle(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(30, 123, 4096);
    /* 33 s idle, drained every 10 ms */
    for (int i = 0; i < 3300; i++) {
        d->clock += 10000;
        aioprof_drain(&d->prof);
    }
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    assert_true(dec->frames >= 33);
    size_t hellos = count_kind(dec, AIOPROF_REC_HELLO);
    assert_int_equal(hellos, 5); /* boot, then every eighth period: 8, 16, 24 and 32 s */
    assert_true(dec->ev[0].flags & AIOPROF_HELLO_FLAG_BOOT);
    for (size_t i = 1; i < dec->n; i++) {
        assert_false(dec->ev[i].flags & AIOPROF_HELLO_FLAG_BOOT);
    }
    decoded_free(dec);
    fake_free(d);
}

static void init_rejects_bad_arguments(void **state)
{
    (void)state;
    aioprof_t p;
    uint8_t ring[256];
    static uint8_t big[65536];
    fake_device_t *owner = fake_new(32, 0, 256);
    aioprof_port_t port = {.ticks = fake_ticks, .write = fake_write, .user = owner, .tick_hz = 1000000,
        .tick_bits = 32, .platform = "x"};
    assert_int_equal(aioprof_init(&p, &port, ring, 64), -1);
    assert_int_equal(aioprof_init(&p, &port, big, sizeof big), -1);
    assert_int_equal(aioprof_init(&p, &port, big, sizeof big - 1), 0);
    port.tick_bits = 7;
    assert_int_equal(aioprof_init(&p, &port, ring, sizeof ring), -1);
    port.tick_bits = 32;
    port.write = NULL;
    memset(ring, 0xA5, sizeof ring);
    assert_int_equal(aioprof_init(&p, &port, ring, sizeof ring), -1);
    /* a profiler that failed to start records nothing, touches neither ring nor port, and does
     * not crash, however long it is driven */
    aioprof_task_t t;
    aioprof_task_created(&p, &t, "t", 1);
    aioprof_task_label(&p, &t, "l", 1);
    for (int i = 0; i < 1000; i++) {
        aioprof_enter(&p, &t);
        aioprof_exit(&p, &t, (unsigned)i & 3u);
        assert_int_equal(aioprof_drain(&p), 0);
    }
    aioprof_flush(&p);
    assert_int_equal(aioprof_drain(&p), 0);
    assert_int_equal(aioprof_pending(&p), 0);
    assert_true(aioprof_idle(&p));
    for (size_t i = 0; i < sizeof ring; i++) {
        assert_int_equal(ring[i], 0xA5);
    }
    fake_free(owner);
}

/* The drain time goes out in the device's own ticks, unconverted: a 2 MHz clock, a first drain whose
 * single write call takes 7000 ticks, then free writes; the periodic HELLO says 7000. */
static void drain_time_in_ticks(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(32, 0, 4096);
    d->port.tick_hz = 2000000;
    assert_int_equal(aioprof_init(&d->prof, &d->port, d->ring, 4096), 0);
    aioprof_task_t t;
    aioprof_task_created(&d->prof, &t, "t", 1);
    aioprof_enter(&d->prof, &t);
    d->clock += 100;
    aioprof_exit(&d->prof, &t, AIOPROF_EXIT_YIELD);
    aioprof_flush(&d->prof);
    d->write_ticks = 7000;
    assert_true(aioprof_drain(&d->prof) > 0);
    assert_int_equal(d->write_calls, 1);
    d->write_ticks = 0;
    for (int i = 0; i < 9 * 100; i++) {
        d->clock += 20000; /* 10 ms */
        aioprof_drain(&d->prof);
    }
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    assert_int_equal(count_kind(dec, AIOPROF_REC_HELLO), 2);
    unsigned seen = 0;
    for (size_t i = 0; i < dec->n; i++) {
        if (dec->ev[i].kind == AIOPROF_REC_HELLO) {
            assert_int_equal(dec->ev[i].drain_ticks, seen == 0 ? 0 : 7000);
            seen++;
        }
    }
    decoded_free(dec);
    fake_free(d);
}

/* A clock that steps back while the port writes (the qemu port's races with its interrupt): the
 * drain adds no time for it, not most of a wrap (which the host would show as an overhead of
 * thousands of times the device's time); a later drain counts its own time again. */
static void drain_time_ignores_a_step_back(void **state)
{
    (void)state;
    for (unsigned bits = 30; bits <= 32; bits += 2) {
        fake_device_t *d = fake_new(bits, 5000, 4096);
        aioprof_task_t t;
        aioprof_task_created(&d->prof, &t, "t", 1);
        aioprof_enter(&d->prof, &t);
        d->clock += 100;
        aioprof_exit(&d->prof, &t, AIOPROF_EXIT_YIELD);
        aioprof_flush(&d->prof);
        d->write_ticks = (uint32_t)(0u - 1000u); /* the clock reads 1000 ticks less after the write */
        assert_true(aioprof_drain(&d->prof) > 0);
        assert_int_equal(d->prof.drain_ticks, 0);
        d->clock += 2000;
        aioprof_enter(&d->prof, &t);
        aioprof_exit(&d->prof, &t, AIOPROF_EXIT_YIELD);
        aioprof_flush(&d->prof);
        d->write_ticks = 300;
        assert_true(aioprof_drain(&d->prof) > 0);
        assert_int_equal(d->prof.drain_ticks, 300);
        fake_free(d);
    }
}

/* aioprof_close: the HELLO that says "stopped" is the last thing sent; nothing is recorded after
 * it, no heartbeat follows, and the hook becomes idle. With a port that takes nothing at first,
 * the HELLO (and the drop count before it) goes out once the port takes bytes again. */
static void close_says_stopped_last(void **state)
{
    (void)state;
    for (int stuck = 0; stuck < 2; stuck++) {
        fake_device_t *d = fake_new(32, 5, 128);
        aioprof_task_t a, b;
        aioprof_task_created(&d->prof, &a, "a", 1);
        d->refuse = stuck;
        for (int i = 0; i < (stuck ? 60 : 3); i++) {
            aioprof_enter(&d->prof, &a);
            d->clock += 100;
            aioprof_exit(&d->prof, &a, AIOPROF_EXIT_YIELD);
            aioprof_drain(&d->prof);
        }
        uint32_t dropped = d->prof.dropped_total;
        assert_true(stuck ? dropped > 0 : dropped == 0);
        aioprof_close(&d->prof);
        aioprof_close(&d->prof); /* once is enough: a second call changes nothing */
        assert_false(aioprof_idle(&d->prof));
        /* after it: nothing recorded, no period ends */
        aioprof_task_created(&d->prof, &b, "b", 1);
        aioprof_enter(&d->prof, &a);
        d->clock += 3000000;
        aioprof_exit(&d->prof, &a, AIOPROF_EXIT_YIELD);
        d->refuse = 0;
        for (int i = 0; i < 50 && !aioprof_idle(&d->prof); i++) {
            d->clock += 1000000;
            aioprof_drain(&d->prof);
        }
        assert_true(aioprof_idle(&d->prof));
        size_t len = d->out_len;
        d->clock += 5000000;
        aioprof_drain(&d->prof);
        assert_int_equal(d->out_len, len);
        decoded_t *dec = decode_all(d->out, d->out_len);
        assert_true(dec->n > 0);
        const decoded_event_t *last = &dec->ev[dec->n - 1];
        assert_int_equal(last->kind, AIOPROF_REC_HELLO);
        assert_true(last->flags & AIOPROF_HELLO_FLAG_STOPPED);
        assert_int_equal(last->count, dropped); /* the HELLO's dropped_total */
        uint64_t reported = 0;
        for (size_t i = 0; i < dec->n; i++) {
            reported += dec->ev[i].kind == AIOPROF_REC_DROPPED ? dec->ev[i].count : 0;
            assert_true(dec->ev[i].kind != AIOPROF_REC_TASK_NEW || dec->ev[i].id == a.id);
        }
        assert_int_equal(reported, dropped);
        assert_int_equal(dec->reader.stats.crc_errors, 0);
        assert_int_equal(dec->reader.stats.lost_frames, 0);
        decoded_free(dec);
        fake_free(d);
    }
}

/* aioprof_reopen after aioprof_close: recording goes on in the same run. After the stop HELLO comes a
 * HELLO that is neither a start nor a stop, then the events; task ids and sequence numbers go on,
 * and a period ends again. Without a close it changes nothing. */
static void reopen_after_close_goes_on(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(32, 5, 4096);
    aioprof_task_t a, b;
    aioprof_task_created(&d->prof, &a, "a", 1);
    aioprof_enter(&d->prof, &a);
    d->clock += 100;
    aioprof_exit(&d->prof, &a, AIOPROF_EXIT_RETURN);
    aioprof_reopen(&d->prof); /* not closed: nothing happens */
    assert_int_equal(d->prof.pending, 0);
    aioprof_close(&d->prof);
    for (int i = 0; i < 10 && !aioprof_idle(&d->prof); i++) {
        aioprof_drain(&d->prof);
    }
    assert_true(aioprof_idle(&d->prof));
    size_t stopped_at = d->out_len;
    d->clock += 10000000; /* the program runs without asyncio for a while */
    aioprof_reopen(&d->prof);
    aioprof_task_created(&d->prof, &b, "b", 1);
    aioprof_enter(&d->prof, &b);
    d->clock += 200;
    aioprof_exit(&d->prof, &b, AIOPROF_EXIT_YIELD);
    d->clock += 1000000; /* a period ends again: the frame goes */
    aioprof_drain(&d->prof);
    assert_true(d->out_len > stopped_at);
    aioprof_close(&d->prof);
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    assert_int_equal(dec->reader.stats.crc_errors, 0);
    assert_int_equal(dec->reader.stats.lost_frames, 0);
    unsigned hello_flags[8];
    size_t hellos = 0, b_enter = 0;
    for (size_t i = 0; i < dec->n; i++) {
        if (dec->ev[i].kind == AIOPROF_REC_HELLO && hellos < 8) {
            hello_flags[hellos++] = dec->ev[i].flags;
        }
        if (dec->ev[i].kind == AIOPROF_REC_TASK_NEW && strcmp(dec->ev[i].name, "b") == 0) {
            assert_int_equal(dec->ev[i].id, a.id + 1);
        }
        if (dec->ev[i].kind == AIOPROF_REC_ENTER && dec->ev[i].id == b.id) {
            b_enter = i;
            assert_true(dec->ev[i].time >= 5 + 100 + 10000000);
        }
    }
    assert_int_equal(hellos, 4); /* the start, the stop, the reopening, the last stop */
    assert_int_equal(hello_flags[0], AIOPROF_HELLO_FLAG_BOOT);
    assert_int_equal(hello_flags[1], AIOPROF_HELLO_FLAG_STOPPED);
    assert_int_equal(hello_flags[2], 0);
    assert_int_equal(hello_flags[3], AIOPROF_HELLO_FLAG_STOPPED);
    assert_true(b_enter > 0);
    assert_int_equal(dec->ev[dec->n - 1].kind, AIOPROF_REC_HELLO);
    decoded_free(dec);
    fake_free(d);
}

/* The ring stays nearly full (the port takes a little now and then): the heartbeat at a period's
 * end carries the drop count even before a quarter of the ring is free, so no stretch without
 * frames goes unexplained. */
static void heartbeat_carries_the_drop_count(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(32, 0, 256);
    aioprof_task_t a;
    aioprof_task_created(&d->prof, &a, "a", 1);
    d->refuse = 1;
    for (int i = 0; i < 100; i++) {
        aioprof_enter(&d->prof, &a);
        d->clock += 100;
        aioprof_exit(&d->prof, &a, AIOPROF_EXIT_YIELD);
    }
    assert_true(d->prof.dropped_total > 0);
    d->refuse = 0;
    d->write_limit = 30; /* under a quarter of the ring per drain */
    size_t hb_dropped = 0;
    for (int i = 0; i < 3; i++) {
        d->clock += 1000000;
        aioprof_drain(&d->prof);
    }
    d->write_limit = 0;
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    for (size_t i = 0; i < dec->n; i++) {
        hb_dropped += dec->ev[i].kind == AIOPROF_REC_DROPPED ? dec->ev[i].count : 0;
    }
    assert_int_equal(hb_dropped, d->prof.dropped_total);
    decoded_free(dec);
    fake_free(d);
}

/* The same with the eighth period's HELLO: the frame it opens at the period's end carries the count
 * too, right after the HELLO (a host sees why no frame came for a while). */
static void hello_frame_carries_the_drop_count(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(32, 0, 1024);
    aioprof_task_t a;
    aioprof_task_created(&d->prof, &a, "a", 1);
    /* seven periods go by, all sent */
    for (int i = 0; i < 7; i++) {
        d->clock += 1000000;
        aioprof_drain(&d->prof);
    }
    /* in the eighth, the port stops taking bytes: the ring fills, events are dropped */
    d->refuse = 1;
    for (int i = 0; i < 400; i++) {
        aioprof_enter(&d->prof, &a);
        d->clock += 100;
        aioprof_exit(&d->prof, &a, AIOPROF_EXIT_YIELD);
    }
    assert_true(d->prof.dropped_total > 0);
    /* it takes 200 bytes: room for the HELLO's frame, not a quarter of the ring */
    d->refuse = 0;
    d->write_limit = 200;
    aioprof_drain(&d->prof);
    d->refuse = 1;
    assert_true(aioprof_fw_room(&d->prof.fw) < 1024 / 4);
    d->clock += 1000000;
    aioprof_drain(&d->prof); /* the eighth period ends: its HELLO is due */
    d->refuse = 0;
    d->write_limit = 0;
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    size_t hello = 0;
    for (size_t i = 1; i < dec->n; i++) {
        if (dec->ev[i].kind == AIOPROF_REC_HELLO && !(dec->ev[i].flags & AIOPROF_HELLO_FLAG_BOOT)) {
            hello = i;
        }
    }
    assert_true(hello > 0 && hello + 1 < dec->n);
    assert_int_equal(dec->ev[hello + 1].kind, AIOPROF_REC_DROPPED);
    assert_int_equal(dec->ev[hello + 1].count, d->prof.dropped_total);
    decoded_free(dec);
    fake_free(d);
}

/* An idle device whose port takes nothing (nobody has the port open): heartbeats fill the ring,
 * then none fits. The first frame once the port takes bytes again starts with a DROPPED of no
 * events: the host learns why no frame came, and that nothing was lost. */
static void heartbeats_that_could_not_go_are_said(void **state)
{
    (void)state;
    fake_device_t *d = fake_new(32, 0, 256);
    d->refuse = 1;
    for (int i = 0; i < 40; i++) {
        d->clock += 1000000;
        aioprof_drain(&d->prof);
    }
    assert_int_equal(d->prof.dropped_total, 0);
    d->refuse = 0;
    for (int i = 0; i < 3; i++) {
        d->clock += 1000000;
        aioprof_drain(&d->prof);
    }
    fake_flush_all(d);
    decoded_t *dec = decode_all(d->out, d->out_len);
    size_t dropped = 0;
    for (size_t i = 0; i < dec->n; i++) {
        if (dec->ev[i].kind == AIOPROF_REC_DROPPED) {
            assert_int_equal(dec->ev[i].count, 0);
            dropped++;
        }
    }
    assert_int_equal(dropped, 1);
    assert_int_equal(dec->reader.stats.lost_frames, 0);
    decoded_free(dec);
    fake_free(d);
}



int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heartbeat_and_periodic_hello_when_idle),
        cmocka_unit_test(init_rejects_bad_arguments),
        cmocka_unit_test(drain_time_in_ticks),
        cmocka_unit_test(drain_time_ignores_a_step_back),
        cmocka_unit_test(close_says_stopped_last),
        cmocka_unit_test(reopen_after_close_goes_on),
        cmocka_unit_test(heartbeat_carries_the_drop_count),
        cmocka_unit_test(hello_frame_carries_the_drop_count),
        cmocka_unit_test(heartbeats_that_could_not_go_are_said),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
