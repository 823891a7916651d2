/* COBS, varints and CRC: known vectors, edge cases and random round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aioprof_cobs.h"
#include "aioprof_crc16.h"
#include "aioprof_records.h"
#include "aioprof_varint.h"
#include "aioprof_wire.h"

static void check_cobs(const uint8_t *in, size_t len, const uint8_t *want, size_t want_len)
{
    uint8_t enc[2048];
    uint8_t dec[2048];
    size_t n = aioprof_cobs_encode(in, len, enc);
    assert_int_equal(n, want_len);
    assert_memory_equal(enc, want, want_len);
    assert_true(n <= AIOPROF_COBS_MAX(len));
    assert_null(memchr(enc, 0, n));
    long d = aioprof_cobs_decode(enc, n, dec);
    assert_int_equal(d, (long)len);
    if (len) {
        assert_memory_equal(dec, in, len);
    }
}

static void cobs_known_vectors(void **state)
{
    (void)state;
    check_cobs((const uint8_t *)"", 0, (const uint8_t[]){0x01}, 1);
    check_cobs((const uint8_t[]){0x00}, 1, (const uint8_t[]){0x01, 0x01}, 2);
    check_cobs((const uint8_t[]){0x00, 0x00}, 2, (const uint8_t[]){0x01, 0x01, 0x01}, 3);
    check_cobs((const uint8_t[]){0x11, 0x22, 0x00, 0x33}, 4, (const uint8_t[]){0x03, 0x11, 0x22, 0x02, 0x33}, 5);
    check_cobs((const uint8_t[]){0x11, 0x00, 0x00, 0x00}, 4, (const uint8_t[]){0x02, 0x11, 0x01, 0x01, 0x01}, 5);
}

static void cobs_long_runs(void **state)
{
    (void)state;
    uint8_t in[600];
    uint8_t want[700];
    for (size_t i = 0; i < sizeof in; i++) {
        in[i] = (uint8_t)(1 + i % 255);
    }
    /* 254 non-zero bytes: one full block, then the empty last run */
    want[0] = 0xFF;
    memcpy(want + 1, in, 254);
    want[255] = 0x01;
    check_cobs(in, 254, want, 256);
    /* 253: one short block */
    want[0] = 0xFE;
    memcpy(want + 1, in, 253);
    check_cobs(in, 253, want, 254);
    /* 255: a full block and a one-byte run */
    want[0] = 0xFF;
    memcpy(want + 1, in, 254);
    want[255] = 0x02;
    want[256] = in[254];
    check_cobs(in, 255, want, 257);
}

static void cobs_all_zeros(void **state)
{
    (void)state;
    uint8_t in[300] = {0};
    uint8_t want[301];
    memset(want, 0x01, sizeof want);
    check_cobs(in, sizeof in, want, sizeof want);
}

static void cobs_rejects_bad_segments(void **state)
{
    (void)state;
    uint8_t out[16];
    assert_int_equal(aioprof_cobs_decode((const uint8_t *)"", 0, out), -1);
    /* a code byte pointing past the end */
    assert_int_equal(aioprof_cobs_decode((const uint8_t[]){0x05, 0x11, 0x22}, 3, out), -1);
    /* a zero inside */
    assert_int_equal(aioprof_cobs_decode((const uint8_t[]){0x03, 0x11, 0x00}, 3, out), -1);
    assert_int_equal(aioprof_cobs_decode((const uint8_t[]){0x00}, 1, out), -1);
}

static void cobs_random_round_trips(void **state)
{
    (void)state;
    uint8_t in[1000];
    uint8_t enc[1100];
    uint8_t dec[1100];
    srand(7);
    for (int round = 0; round < 2000; round++) {
        size_t len = (size_t)rand() % sizeof in;
        int zero_odds = 1 + rand() % 64;
        for (size_t i = 0; i < len; i++) {
            in[i] = (rand() % zero_odds == 0) ? 0 : (uint8_t)(1 + rand() % 255);
        }
        size_t n = aioprof_cobs_encode(in, len, enc);
        assert_true(n <= AIOPROF_COBS_MAX(len));
        assert_null(memchr(enc, 0, n));
        assert_int_equal(aioprof_cobs_decode(enc, n, dec), (long)len);
        assert_memory_equal(dec, in, len);
    }
}

static void varint_limits(void **state)
{
    (void)state;
    static const struct {
        uint32_t value;
        size_t len;
        uint8_t bytes[5];
    } cases[] = {
        {0, 1, {0x00}},
        {1, 1, {0x01}},
        {127, 1, {0x7F}},
        {128, 2, {0x80, 0x01}},
        {300, 2, {0xAC, 0x02}},
        {16383, 2, {0xFF, 0x7F}},
        {16384, 3, {0x80, 0x80, 0x01}},
        {(1u << 28) - 1, 4, {0xFF, 0xFF, 0xFF, 0x7F}},
        {1u << 28, 5, {0x80, 0x80, 0x80, 0x80, 0x01}},
        {0xFFFFFFFFu, 5, {0xFF, 0xFF, 0xFF, 0xFF, 0x0F}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t buf[8];
        uint32_t back = 12345;
        assert_int_equal(aioprof_varint_put(buf, cases[i].value), cases[i].len);
        assert_int_equal(aioprof_varint_len(cases[i].value), cases[i].len);
        assert_memory_equal(buf, cases[i].bytes, cases[i].len);
        assert_int_equal(aioprof_varint_get(buf, cases[i].len, &back), cases[i].len);
        assert_int_equal(back, cases[i].value);
        /* cut short: not a varint */
        assert_int_equal(aioprof_varint_get(buf, cases[i].len - 1, &back), 0);
    }
}

static void varint_rejects_overlong(void **state)
{
    (void)state;
    uint32_t v;
    /* bit 32 set */
    assert_int_equal(aioprof_varint_get((const uint8_t[]){0xFF, 0xFF, 0xFF, 0xFF, 0x1F}, 5, &v), 0);
    /* a sixth byte */
    assert_int_equal(aioprof_varint_get((const uint8_t[]){0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 6, &v), 0);
    /* zero-padded five bytes are still a value (writers never make them) */
    assert_int_equal(aioprof_varint_get((const uint8_t[]){0x81, 0x80, 0x80, 0x80, 0x00}, 5, &v), 5);
    assert_int_equal(v, 1);
}

static void crc_check_value(void **state)
{
    (void)state;
    const uint8_t *check = (const uint8_t *)"123456789";
    assert_int_equal(aioprof_crc16(AIOPROF_CRC16_INIT, check, 9), 0x29B1);
    uint16_t crc = AIOPROF_CRC16_INIT;
    for (int i = 0; i < 9; i++) {
        crc = aioprof_crc16_byte(crc, check[i]);
    }
    assert_int_equal(crc, 0x29B1);
    assert_int_equal(aioprof_crc16(AIOPROF_CRC16_INIT, check, 0), 0xFFFF);
    assert_int_equal(aioprof_crc16_fast(AIOPROF_CRC16_INIT, check, 9), 0x29B1);
}

static void crc_table_matches_bytewise(void **state)
{
    (void)state;
    for (unsigned i = 0; i < 256; i++) {
        assert_int_equal(aioprof_crc16_table[i], aioprof_crc16_byte(0, (uint8_t)i));
        assert_int_equal(aioprof_crc16_table2[i], aioprof_crc16_byte(aioprof_crc16_byte(0, (uint8_t)i), 0));
    }
    /* two bytes at once, from every register value */
    for (unsigned c = 0; c < 0x10000u; c += 7u) {
        uint8_t b0 = (uint8_t)(c * 31u), b1 = (uint8_t)(c >> 3);
        assert_int_equal(aioprof_crc16_step2((uint16_t)c, b0, b1),
            aioprof_crc16_byte(aioprof_crc16_byte((uint16_t)c, b0), b1));
    }
    /* every length to past a body's largest, from the usual register and from others (the fast
     * one folds 16 bytes at a time past 32, where the processor has the instructions) */
    uint8_t buf[AIOPROF_BODY_MAX + 40];
    srand(3);
    for (int round = 0; round < 2000; round++) {
        size_t len = round < (int)sizeof buf ? (size_t)round : (size_t)rand() % sizeof buf;
        uint16_t from = round % 3 ? AIOPROF_CRC16_INIT : (uint16_t)rand();
        uint16_t a = from;
        for (size_t i = 0; i < len; i++) {
            buf[i] = (uint8_t)rand();
            a = aioprof_crc16_byte(a, buf[i]);
        }
        assert_int_equal(aioprof_crc16(from, buf, len), a);
        assert_int_equal(aioprof_crc16_fast(from, buf, len), a);
    }
}

/* aioprof_rec_pair on the 8 bytes at w (a pair is at most 5) against the records read one by one (aioprof_rec_event):
 * it takes exactly the ENTERs whose dt and id fit their one-byte forms followed by such an
 * EXIT_YIELD, with the same dts and id, and nothing else. Returns whether it took the pair. */
static int check_pair(const uint8_t *w)
{
    uint32_t edt = 0, id = 0, ydt = 0, dt, rid = 0;
    const uint8_t *after = aioprof_rec_pair(w, w + 8, &edt, &id, &ydt);
    unsigned len = after ? (unsigned)(after - w) : 0u;
    unsigned tag = w[0];
    const uint8_t *enter_end = AIOPROF_TAG_IS_ENTER(tag) ? aioprof_rec_event(w + 1, w + 8, tag, &dt, &rid) : NULL;
    unsigned short_enter = 1u + ((tag >> AIOPROF_ENTER_DT_BITS) & 1u) + (((tag >> AIOPROF_ENTER_ID_SHIFT) & 0x0Fu) == 0);
    if (enter_end == NULL || (unsigned)(enter_end - w) != short_enter || *enter_end >= AIOPROF_TAG_EXIT_RETURN) {
        assert_int_equal(len, 0);
        return 0;
    }
    unsigned ytag = *enter_end;
    uint32_t rydt, unused = 0;
    const uint8_t *exit_end = aioprof_rec_event(enter_end + 1, w + 8, ytag, &rydt, &unused);
    if (exit_end == NULL || (unsigned)(exit_end - enter_end) != 1u + ((ytag >> AIOPROF_YIELD_DT_BITS) & 1u)) {
        assert_int_equal(len, 0);
        return 0;
    }
    assert_int_equal(len, (unsigned)(exit_end - w));
    assert_int_equal(edt, dt);
    assert_int_equal(id, rid);
    assert_int_equal(ydt, rydt);
    /* the same from a copy that ends right after its longest form (a sanitizer build sees any
     * read past it); fewer bytes: never */
    uint8_t *just = malloc(AIOPROF_REC_PAIR_MAX);
    assert_non_null(just);
    memcpy(just, w, AIOPROF_REC_PAIR_MAX);
    uint32_t edt5 = 0, id5 = 0, ydt5 = 0;
    assert_ptr_equal(aioprof_rec_pair(just, just + AIOPROF_REC_PAIR_MAX, &edt5, &id5, &ydt5), just + len);
    assert_true(edt5 == edt && id5 == id && ydt5 == ydt);
    assert_null(aioprof_rec_pair(just, just + AIOPROF_REC_PAIR_MAX - 1, &edt5, &id5, &ydt5));
    free(just);
    return 1;
}

static void pair_matches_records(void **state)
{
    (void)state;
    /* the bytes where each part of a pair may fall, at the edges of what it takes */
    static const uint8_t edges[] = {0x00, 0x01, 0x05, 0x1F, 0x20, 0x21, 0x3F, 0x40, 0x5A, 0x70, 0x7F, 0x80, 0x81, 0xC5,
        0xFF};
    enum { N = sizeof edges };
    uint8_t w[8];
    long taken = 0, tried = 0;
    for (unsigned tag = 0; tag < 256; tag++) {
        for (unsigned a = 0; a < N * N * N * N; a++) {
            w[0] = (uint8_t)tag;
            w[1] = edges[a % N];
            w[2] = edges[a / N % N];
            w[3] = edges[a / N / N % N];
            w[4] = edges[a / N / N / N];
            w[5] = w[6] = w[7] = 0x80; /* what follows the pair does not matter */
            taken += check_pair(w);
            tried++;
        }
    }
    srand(11);
    for (int i = 0; i < 1000000; i++) {
        for (int k = 0; k < 8; k++) {
            w[k] = (uint8_t)(rand() & (rand() & 1 ? 0x7F : 0xFF));
        }
        w[0] |= 0x80u;
        taken += check_pair(w);
        tried++;
    }
    /* both sides of the check were met often */
    assert_true(taken > tried / 20 && taken < tried - tried / 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cobs_known_vectors),
        cmocka_unit_test(cobs_long_runs),
        cmocka_unit_test(cobs_all_zeros),
        cmocka_unit_test(cobs_rejects_bad_segments),
        cmocka_unit_test(cobs_random_round_trips),
        cmocka_unit_test(varint_limits),
        cmocka_unit_test(varint_rejects_overlong),
        cmocka_unit_test(crc_check_value),
        cmocka_unit_test(crc_table_matches_bytewise),
        cmocka_unit_test(pair_matches_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
