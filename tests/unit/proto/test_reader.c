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
    static const aioprof_reader_sink_t sink = {.frame = dec_frame, .record = dec_record, .text = dec_text};
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
    /* a control byte in the long line's tail does not make it damage: it is still text */
    buf[n - 100] = 0x02;
    dec = decode_all(buf, n);
    assert_int_equal(dec->reader.stats.crc_errors, 0);
    assert_int_equal(dec->reader.stats.text_bytes, strlen(banner) + strlen(ansi) + 2501);
    decoded_free(dec);
    /* binary noise as long: damage, counted once, however it arrives */
    for (size_t i = 0; i < 2500; i++) {
        buf[strlen(banner) + strlen(ansi) + 2 + i] = (uint8_t)(1u + i % 31u);
    }
    dec = decode_all(buf, n);
    assert_int_equal(dec->reader.stats.crc_errors, 1);
    assert_int_equal(dec->reader.stats.text_bytes, strlen(banner) + strlen(ansi));
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
    /* and counted, with its operation, for the host to say so */
    assert_int_equal(dec->reader.stats.unknown_ops, 1);
    assert_int_equal(dec->reader.stats.unknown_op_mask, 1u << 15);
    decoded_free(dec);
}

/* Span records (docs/protocol.md, "Spans"): read at a dt after the frame's last event, never
 * moving the events' time line; a damaged one damages its frame. */
static void span_records(void **state)
{
    (void)state;
    uint8_t out[200];
    size_t n = 0;
    /* enter 1 at +3; name 1 "a"; span enter at +3+5, span 1; exit at +3+7; span exit at +10+2 */
    const uint8_t good[] = {0, AIOPROF_FORMAT(32), 0, 0, 0, 0, 0, 0x8B, 0x78, 2, 1, 'a', 0x75, 2, 5, 1, 0x07, 0x76, 1, 2};
    n += make_frame(good, sizeof good, out + n);
    /* a span enter of id 0 is damaged */
    const uint8_t bad[] = {1, AIOPROF_FORMAT(32), 0, 0, 0, 0, 0, 0x88, 0x75, 2, 5, 0};
    n += make_frame(bad, sizeof bad, out + n);
    decoded_t *dec = decode_all(out, n);
    assert_int_equal(count_kind(dec, AIOPROF_REC_SPAN_NAME), 1);
    assert_int_equal(count_kind(dec, AIOPROF_REC_SPAN_ENTER), 1);
    assert_int_equal(count_kind(dec, AIOPROF_REC_SPAN_EXIT), 1);
    assert_int_equal(count_kind(dec, AIOPROF_REC_EXIT), 1);
    assert_int_equal(dec->reader.stats.malformed, 1);
    assert_int_equal(dec->reader.stats.unknown_ops, 0);
    for (size_t i = 0; i < dec->n; i++) {
        const decoded_event_t *r = &dec->ev[i];
        if (r->kind == AIOPROF_REC_SPAN_ENTER) {
            assert_int_equal(r->time, 8);
            assert_int_equal(r->id, 1);
        } else if (r->kind == AIOPROF_REC_EXIT) {
            assert_int_equal(r->time, 10);
        } else if (r->kind == AIOPROF_REC_SPAN_EXIT) {
            assert_int_equal(r->time, 12);
        }
    }
    decoded_free(dec);
}

/* LATE (docs/protocol.md, "Lateness"): read with its values counted; one whose values run past its
 * body (a varint cut) makes its frame malformed, the records before it passed on. */
static void late_record(void **state)
{
    (void)state;
    uint8_t out[600];
    size_t n = 0;
    /* two enters of id 1, then LATE: 200 (two bytes), 0 */
    const uint8_t good[] = {0, AIOPROF_FORMAT(32), 0, 0, 0, 0, 0, 0x88, 0x00, 0x88, 0x74, 3, 0xC8, 0x01, 0x00};
    n += make_frame(good, sizeof good, out + n);
    /* an enter, then LATE whose one value is a varint cut by the record's end */
    const uint8_t cut[] = {1, AIOPROF_FORMAT(32), 0, 0, 0, 0, 0, 0x88, 0x74, 1, 0x80};
    n += make_frame(cut, sizeof cut, out + n);
    decoded_t *dec = decode_all(out, n);
    assert_int_equal(dec->reader.stats.malformed, 1);
    assert_int_equal(count_kind(dec, AIOPROF_REC_LATE), 1);
    assert_int_equal(count_kind(dec, AIOPROF_REC_ENTER), 3);
    for (size_t i = 0; i < dec->n; i++) {
        if (dec->ev[i].kind == AIOPROF_REC_LATE) {
            assert_int_equal(dec->ev[i].count, 2);
        }
    }
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

/* The segments of a stream, each with its delimiters: where frame k starts (its leading 0x00) and
 * ends (past its trailing one), for a stream of frames only. */
static size_t frame_spans(const uint8_t *data, size_t len, size_t *start, size_t *end, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i + 1 < len && n < max; i++) {
        if (data[i] == 0 && data[i + 1] != 0) {
            size_t j = i + 1;
            while (j < len && data[j] != 0) {
                j++;
            }
            start[n] = i;
            end[n++] = j + 1;
            i = j - 1;
        }
    }
    return n;
}

static void duplicated_stretch_is_skipped(void **state)
{
    (void)state;
    fake_device_t *d = stream(1500, 10);
    decoded_t *clean = decode_all(d->out, d->out_len);
    size_t start[256], end[256];
    size_t nf = frame_spans(d->out, d->out_len, start, end, 256);
    assert_true(nf > 120);
    /* d[:cut] + d[from:] for cuts at frame boundaries and inside frames, from 1 to 100 frames back */
    static const size_t back[] = {1, 2, 7, 40, 100};
    for (size_t k = 0; k < sizeof back / sizeof back[0]; k++) {
        for (int inside = 0; inside < 2; inside++) {
            size_t at = 110 + k;
            size_t cut = inside ? (start[at] + end[at]) / 2 : end[at];
            size_t from = inside ? (start[at - back[k]] + end[at - back[k]]) / 2 + 1 : start[at - back[k]];
            /* repeated whole: from frame at - back to frame at; the two halves are one damaged segment */
            size_t repeated = inside ? back[k] - 1 : back[k] + 1;
            size_t len = cut + (d->out_len - from);
            uint8_t *buf = malloc(len);
            memcpy(buf, d->out, cut);
            memcpy(buf + cut, d->out + from, d->out_len - from);
            decoded_t *dup = decode_all(buf, len);
            /* every frame once; the repeated ones skipped and counted; nothing lost */
            assert_int_equal(dup->reader.stats.frames, clean->reader.stats.frames);
            assert_int_equal(dup->reader.stats.lost_frames, 0);
            assert_int_equal(dup->reader.stats.duplicates, repeated);
            assert_int_equal(dup->reader.stats.crc_errors, inside ? 1 : 0);
            assert_int_equal(dup->n, clean->n);
            for (size_t i = 0; i < clean->n; i++) {
                assert_int_equal(dup->ev[i].kind, clean->ev[i].kind);
                assert_int_equal(dup->ev[i].time, clean->ev[i].time);
            }
            decoded_free(dup);
            free(buf);
        }
    }
    decoded_free(clean);
    fake_free(d);
}

static void late_frame_and_wrapped_sequence(void **state)
{
    (void)state;
    uint8_t out[2000];
    size_t n = 0;
    /* seq 10, 11, 13, then 12 late (behind the last, base among the seen ones): skipped */
    const uint8_t f10[] = {10, AIOPROF_FORMAT(32), 0x00, 0x10, 0, 0, 0};
    const uint8_t f11[] = {11, AIOPROF_FORMAT(32), 0x00, 0x20, 0, 0, 0};
    const uint8_t f13[] = {13, AIOPROF_FORMAT(32), 0x00, 0x40, 0, 0, 0};
    const uint8_t f12[] = {12, AIOPROF_FORMAT(32), 0x00, 0x30, 0, 0, 0};
    /* then seq 5: behind too, but its base is far after every base seen: 247 frames were lost */
    const uint8_t f5[] = {5, AIOPROF_FORMAT(32), 0x00, 0x00, 0x50, 0, 0};
    n += make_frame(f10, sizeof f10, out + n);
    n += make_frame(f11, sizeof f11, out + n);
    n += make_frame(f13, sizeof f13, out + n);
    n += make_frame(f12, sizeof f12, out + n);
    n += make_frame(f5, sizeof f5, out + n);
    decoded_t *dec = decode_all(out, n);
    assert_int_equal(dec->reader.stats.frames, 4);
    assert_int_equal(dec->reader.stats.duplicates, 1);
    assert_int_equal(dec->reader.stats.lost_frames, 1 + 247);
    decoded_free(dec);
}

static size_t append(uint8_t *buf, size_t n, const void *data, size_t len)
{
    memcpy(buf + n, data, len);
    return n + len;
}

static void device_text_with_control_bytes(void **state)
{
    (void)state;
    fake_device_t *d = stream(30, 10);
    uint8_t buf[8192];
    size_t n = 0;
    /* a control byte in text before the first delimiter: still text */
    static const char boot[] = "boot log\x01 with a stray control byte\r\n";
    n = append(buf, n, boot, strlen(boot));
    n = append(buf, n, d->out, d->out_len);
    /* the end of MicroPython's raw REPL: the last prints, EOT, the (empty) error text, EOT, prompt */
    static const char repl[] = "line 7\r\nline 8\r\n\x04\x04>";
    n = append(buf, n, repl, strlen(repl));
    decoded_t *dec = decode_all(buf, n);
    assert_int_equal(dec->reader.stats.crc_errors, 0);
    assert_int_equal(dec->reader.stats.skipped_bytes, 0);
    assert_int_equal(dec->reader.stats.text_bytes, strlen(boot) + strlen(repl));
    assert_memory_equal(dec->text, boot, strlen(boot));
    assert_memory_equal(dec->text + strlen(boot), repl, strlen(repl));
    decoded_free(dec);
    fake_free(d);
}

/* Every byte of every frame of a stream damaged in turn (changed, deleted, an extra one inserted,
 * the frame cut there): the damage is counted, as a CRC error or, when the damaged frame passed
 * for text, as a lost frame at the next frame. Never silently. (Not the stream's first frame: a
 * reader that never saw a frame cannot miss one.) */
static void damaged_frames_are_never_silent(void **state)
{
    (void)state;
    fake_device_t *d = stream(120, 3);
    size_t start[256], end[256];
    size_t nf = frame_spans(d->out, d->out_len, start, end, 256);
    static const aioprof_reader_sink_t none = {0};
    aioprof_reader_t before, r;
    aioprof_reader_init(&before, &none, NULL);
    aioprof_reader_feed(&before, d->out, end[0]);
    uint64_t damaged = 0, counted = 0;
    for (size_t f = 1; f + 1 < nf; f++) {
        size_t flen = end[f] - start[f];
        for (size_t i = 1; i + 1 < flen; i++) {
            for (int how = 0; how < 4; how++) {
                uint8_t buf[1024];
                size_t n = 0;
                n = append(buf, n, d->out + start[f], i);
                if (how == 0) {
                    buf[n++] = (uint8_t)(d->out[start[f] + i] ^ 0x5A);
                    n = append(buf, n, d->out + start[f] + i + 1, flen - i - 1);
                } else if (how == 1) {
                    n = append(buf, n, d->out + start[f] + i + 1, flen - i - 1);
                } else if (how == 2) {
                    buf[n++] = 0xA7;
                    n = append(buf, n, d->out + start[f] + i, flen - i);
                } else {
                    buf[n++] = 0;
                }
                n = append(buf, n, d->out + start[f + 1], end[f + 1] - start[f + 1]);
                r = before;
                aioprof_reader_feed(&r, buf, n);
                damaged++;
                if (r.stats.crc_errors > before.stats.crc_errors || r.stats.lost_frames > before.stats.lost_frames) {
                    counted++;
                } else {
                    print_message("frame %zu, byte %zu, damage %d: not counted\n", f, i, how);
                }
            }
        }
        aioprof_reader_feed(&before, d->out + start[f], end[f] - start[f]);
    }
    assert_true(damaged > 1000);
    assert_int_equal(counted, damaged);
    fake_free(d);
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
        cmocka_unit_test(span_records),
        cmocka_unit_test(late_record),
        cmocka_unit_test(sequence_gaps_and_boot),
        cmocka_unit_test(duplicated_stretch_is_skipped),
        cmocka_unit_test(late_frame_and_wrapped_sequence),
        cmocka_unit_test(device_text_with_control_bytes),
        cmocka_unit_test(damaged_frames_are_never_silent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
