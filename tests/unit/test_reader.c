/* The incremental reader on damaged, cut, interleaved and hostile input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "aioprof_cobs.h"
#include "aioprof_crc16.h"
#include "aioprof_frame_writer.h"
#include "fake_device.h"

/* A device stream of n slices of one task, frames closed every `per_frame` slices. */
static fake_device_t *stream(int slices, int per_frame)
{
    fake_device_t *d = fake_new(32, 1, 65535);
    static aioprof_task_t a;
    aioprof_task_created(&d->prof, &a, "worker", 6);
    for (int i = 0; i < slices; i++) {
        aioprof_enter(&d->prof, &a);
        d->clock += 100 + (uint64_t)i % 7;
        aioprof_exit(&d->prof, &a, AIOPROF_EXIT_YIELD);
        d->clock += 10;
        if ((i + 1) % per_frame == 0) {
            aioprof_flush(&d->prof);
        }
        aioprof_drain(&d->prof);
    }
    fake_flush_all(d);
    return d;
}

/* Offsets of the frame delimiters (every 0x00) in a stream. */
static size_t zeros(const uint8_t *data, size_t len, size_t *at, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n < max; i++) {
        if (data[i] == 0) {
            at[n++] = i;
        }
    }
    return n;
}

static void piecewise_feeding_equals_whole(void **state)
{
    (void)state;
    fake_device_t *d = stream(500, 37);
    decoded_t *whole = decode_all(d->out, d->out_len);
    static const aioprof_reader_sink_t sink = {dec_frame, dec_record, dec_text};
    decoded_t *bytes = calloc(1, sizeof *bytes);
    aioprof_reader_init(&bytes->reader, &sink, bytes);
    for (size_t i = 0; i < d->out_len; i++) {
        aioprof_reader_feed(&bytes->reader, d->out + i, 1);
    }
    aioprof_reader_finish(&bytes->reader);
    assert_int_equal(whole->n, bytes->n);
    assert_int_equal(whole->reader.stats.frames, bytes->reader.stats.frames);
    for (size_t i = 0; i < whole->n; i++) {
        assert_int_equal(whole->ev[i].kind, bytes->ev[i].kind);
        assert_int_equal(whole->ev[i].time, bytes->ev[i].time);
    }
    assert_int_equal(count_kind(whole, AIOPROF_REC_ENTER), 500);
    decoded_free(whole);
    decoded_free(bytes);
    fake_free(d);
}

static void flipped_bit_costs_one_frame_only(void **state)
{
    (void)state;
    fake_device_t *d = stream(400, 20);
    decoded_t *clean = decode_all(d->out, d->out_len);
    size_t at[256];
    size_t nz = zeros(d->out, d->out_len, at, 256);
    assert_true(nz > 20);
    /* flip a bit in the middle of the 5th frame (between delimiters 9 and 10: 00 F 00 00 F 00 ...) */
    size_t mid = (at[8] + at[9]) / 2;
    d->out[mid] ^= 0x10;
    decoded_t *hurt = decode_all(d->out, d->out_len);
    assert_int_equal(hurt->reader.stats.crc_errors, 1);
    assert_int_equal(hurt->reader.stats.frames, clean->reader.stats.frames - 1);
    assert_int_equal(hurt->reader.stats.lost_frames, 1);
    /* what the other frames hold is still there: 20 slices fewer */
    assert_int_equal(count_kind(hurt, AIOPROF_REC_ENTER), count_kind(clean, AIOPROF_REC_ENTER) - 20);
    decoded_free(clean);
    decoded_free(hurt);
    fake_free(d);
}

static void garbage_and_deleted_bytes_resync(void **state)
{
    (void)state;
    fake_device_t *d = stream(300, 10);
    decoded_t *clean = decode_all(d->out, d->out_len);
    /* delete a run of bytes inside a frame, then insert binary garbage between two frames */
    uint8_t *buf = malloc(d->out_len + 64);
    size_t at[128];
    zeros(d->out, d->out_len, at, 128);
    size_t cut_from = at[10] + 3, cut_len = 4;
    size_t n = 0;
    memcpy(buf, d->out, cut_from);
    n = cut_from;
    size_t rest_from = cut_from + cut_len;
    size_t insert_at = at[21] + 1; /* just after a frame's trailing delimiter (odd: 00 F 00) */
    memcpy(buf + n, d->out + rest_from, insert_at - rest_from);
    n += insert_at - rest_from;
    static const uint8_t garbage[] = {0x01, 0x02, 0x03, 0xFE, 0xFF, 0x11, 0x00, 0x05, 0x06};
    memcpy(buf + n, garbage, sizeof garbage);
    n += sizeof garbage;
    memcpy(buf + n, d->out + insert_at, d->out_len - insert_at);
    n += d->out_len - insert_at;
    decoded_t *hurt = decode_all(buf, n);
    assert_int_equal(hurt->reader.stats.crc_errors, 3); /* the cut frame and two garbage segments */
    assert_int_equal(hurt->reader.stats.frames, clean->reader.stats.frames - 1);
    assert_int_equal(count_kind(hurt, AIOPROF_REC_ENTER), count_kind(clean, AIOPROF_REC_ENTER) - 10);
    free(buf);
    decoded_free(clean);
    decoded_free(hurt);
    fake_free(d);
}

static void joining_late_is_not_damage(void **state)
{
    (void)state;
    fake_device_t *d = stream(200, 10);
    size_t at[64];
    zeros(d->out, d->out_len, at, 64);
    /* start inside the 3rd frame */
    size_t from = at[4] + 5;
    decoded_t *dec = decode_all(d->out + from, d->out_len - from);
    assert_int_equal(dec->reader.stats.crc_errors, 0);
    assert_true(dec->reader.stats.skipped_bytes > 0);
    assert_int_equal(dec->reader.stats.lost_frames, 0);
    decoded_free(dec);
    fake_free(d);
}

static void truncated_tail_counts_as_damage(void **state)
{
    (void)state;
    fake_device_t *d = stream(100, 10);
    decoded_t *dec = decode_all(d->out, d->out_len - 6);
    assert_int_equal(dec->reader.stats.crc_errors, 1);
    decoded_free(dec);
    fake_free(d);
}

static void text_segments(void **state)
{
    (void)state;
    /* a banner before any frame, ANSI text, a long line, then binary noise that is not text */
    uint8_t buf[4000];
    size_t n = 0;
    const char *banner = "MicroPython v1.24.0 on 2024-10-01; Raspberry Pi Pico with RP2040\r\n";
    memcpy(buf, banner, strlen(banner));
    n += strlen(banner);
    buf[n++] = 0;
    const char *ansi = "\x1b[2J\x1b[31mred\x07\r\n";
    memcpy(buf + n, ansi, strlen(ansi));
    n += strlen(ansi);
    buf[n++] = 0;
    memset(buf + n, 'x', 2500); /* longer than any frame */
    n += 2500;
    buf[n++] = '\n';
    buf[n++] = 0;
    decoded_t *dec = decode_all(buf, n);
    assert_int_equal(dec->reader.stats.crc_errors, 0);
    assert_int_equal(dec->reader.stats.text_bytes, strlen(banner) + strlen(ansi) + 2501);
    assert_memory_equal(dec->text, banner, strlen(banner));
    decoded_free(dec);
    /* the same long segment with a control byte in its tail is damage, counted once */
    buf[n - 100] = 0x02;
    dec = decode_all(buf, n);
    assert_int_equal(dec->reader.stats.crc_errors, 1);
    decoded_free(dec);
}

/* Builds one frame from a body (header + records), CRC and COBS added, with delimiters. */
static size_t make_frame(const uint8_t *body, size_t len, uint8_t *out)
{
    uint8_t full[600];
    memcpy(full, body, len);
    uint16_t crc = aioprof_crc16(AIOPROF_CRC16_INIT, body, len);
    full[len] = (uint8_t)crc;
    full[len + 1] = (uint8_t)(crc >> 8);
    out[0] = 0;
    size_t n = aioprof_cobs_encode(full, len + 2, out + 1);
    out[n + 1] = 0;
    return n + 2;
}

static void malformed_unknown_and_unsupported(void **state)
{
    (void)state;
    uint8_t out[2000];
    size_t n = 0;
    /* version 2 frame */
    const uint8_t v2[] = {0, (2u << 5) | 31u, 0, 0, 0, 0, 0, 0x81};
    n += make_frame(v2, sizeof v2, out + n);
    /* good CRC, unknown control op 0x7F with a 3-byte body, then an enter of id 1 */
    const uint8_t unknown[] = {1, AIOPROF_FORMAT(32), 0, 0, 0, 0, 0, 0x7F, 3, 9, 9, 9, 0x88};
    n += make_frame(unknown, sizeof unknown, out + n);
    /* good CRC: an enter, then a control record whose length runs past the body */
    const uint8_t bad[] = {2, AIOPROF_FORMAT(32), 0, 0, 0, 0, 0, 0x88, 0x71, 40, 1};
    n += make_frame(bad, sizeof bad, out + n);
    /* good CRC: enter with a 6-byte dt varint */
    const uint8_t overlong[] = {3, AIOPROF_FORMAT(32), 0, 0, 0, 0, 0, 0x8C, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    n += make_frame(overlong, sizeof overlong, out + n);
    /* good CRC: base above 2^30 in a 30-bit frame */
    const uint8_t base[] = {4, AIOPROF_FORMAT(30), 0, 0, 0, 0x40, 0};
    n += make_frame(base, sizeof base, out + n);
    decoded_t *dec = decode_all(out, n);
    assert_int_equal(dec->reader.stats.unsupported, 1);
    assert_int_equal(dec->reader.stats.malformed, 2);
    assert_int_equal(dec->reader.stats.crc_errors, 0);
    /* the unknown op was skipped; the enters before each fault were passed on */
    assert_int_equal(count_kind(dec, AIOPROF_REC_ENTER), 2);
    decoded_free(dec);
}

static void sequence_gaps_and_boot(void **state)
{
    (void)state;
    uint8_t out[2000];
    size_t n = 0;
    const uint8_t f0[] = {10, AIOPROF_FORMAT(32), 0, 0, 0, 0, 0};
    const uint8_t f1[] = {11, AIOPROF_FORMAT(32), 1, 0, 0, 0, 0};
    const uint8_t f4[] = {14, AIOPROF_FORMAT(32), 2, 0, 0, 0, 0};
    /* a device reset: seq 0, starting with a boot HELLO */
    const uint8_t boot[] = {0, AIOPROF_FORMAT(32), 3, 0, 0, 0, 0, 0x70, 12, 1, 0xC0, 0x84, 0x3D, 32, 0x80, 0x02, 1, 3, 0, 0, 0, 0};
    n += make_frame(f0, sizeof f0, out + n);
    n += make_frame(f1, sizeof f1, out + n);
    n += make_frame(f4, sizeof f4, out + n);
    n += make_frame(boot, sizeof boot, out + n);
    decoded_t *dec = decode_all(out, n);
    assert_int_equal(dec->reader.stats.frames, 4);
    assert_int_equal(dec->reader.stats.lost_frames, 2);
    assert_int_equal(dec->reader.stats.malformed, 0);
    assert_int_equal(count_kind(dec, AIOPROF_REC_HELLO), 1);
    assert_true(dec->ev[0].flags & AIOPROF_HELLO_FLAG_BOOT);
    decoded_free(dec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(piecewise_feeding_equals_whole),
        cmocka_unit_test(flipped_bit_costs_one_frame_only),
        cmocka_unit_test(garbage_and_deleted_bytes_resync),
        cmocka_unit_test(joining_late_is_not_damage),
        cmocka_unit_test(truncated_tail_counts_as_damage),
        cmocka_unit_test(text_segments),
        cmocka_unit_test(malformed_unknown_and_unsupported),
        cmocka_unit_test(sequence_gaps_and_boot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
