#include "aioprof_frame_writer.h"

#include <string.h>

#include "aioprof_crc16.h"
#include "aioprof_varint.h"

/* One CRC byte for closing frames: through the 512-byte table, or (AIOPROF_SMALL=1, for code size
 * first, or AIOPROF_FW_CRC_TABLE=0, for a link that keeps every constant in RAM: a MicroPython
 * native module) from the polynomial in a few more instructions; two bytes the same way. */
#ifndef AIOPROF_FW_CRC_TABLE
#define AIOPROF_FW_CRC_TABLE (!AIOPROF_SMALL)
#endif
#if AIOPROF_FW_CRC_TABLE
#define AIOPROF_FW_CRC_STEP(crc, b) (((crc) << 8) ^ aioprof_crc16_table[(((crc) >> 8) ^ (b)) & 0xFFu])
#define AIOPROF_FW_CRC_STEP2(crc, b0, b1) aioprof_crc16_step2((uint16_t)(crc), (b0), (b1))
#else
#define AIOPROF_FW_CRC_STEP(crc, b) aioprof_crc16_byte((uint16_t)(crc), (b))
#define AIOPROF_FW_CRC_STEP2(crc, b0, b1) aioprof_crc16_byte(aioprof_crc16_byte((uint16_t)(crc), (b0)), (b1))
#endif

#if AIOPROF_SMALL
uint32_t aioprof_fw_room(const aioprof_fw_t *w)
{
    uint32_t used = w->head >= w->tail ? w->head - w->tail : w->size - (w->tail - w->head);
    return w->size - 1u - used;
}

void aioprof_fw_advance(aioprof_fw_t *w, uint32_t n)
{
    w->head = (uint16_t)(w->head + n);
    w->budget = (uint16_t)(w->budget - n);
}

uint8_t *aioprof_fw_put(uint8_t *out, uint32_t v, unsigned first, unsigned bits)
{
    for (;;) {
        uint32_t rest = v >> bits;
        unsigned b = first | (v & ((1u << bits) - 1u));
        if (rest != 0) {
            b |= 1u << bits;
        }
        *out++ = (uint8_t)b;
        if (rest == 0) {
            return out;
        }
        v = rest;
        first = 0;
        bits = 7;
    }
}
#endif

/* The open frame may take what the ring has left after the closing reserve, up to its length
 * and without passing the ring's end (and the head of its LATE record kept back). Its callers
 * leave the budget alone once the frame's lateness list has begun: the list stays where it is. */
void aioprof_fw_rebudget(aioprof_fw_t *w)
{
    uint32_t room = aioprof_fw_room(w);
    uint32_t body = w->head - w->frame_pos - 1u;
    uint32_t left = AIOPROF_FW_BODY_MAX - 2u - body;
    uint32_t to_end = (uint32_t)w->size - 1u - w->head;
    room = room > AIOPROF_FW_CLOSE_COST ? room - AIOPROF_FW_CLOSE_COST : 0u;
    if (left > room) {
        left = room;
    }
    if (left > to_end) {
        left = to_end;
    }
    uint32_t reserve = aioprof_fw_late_reserve(w);
    w->budget = (uint16_t)(left > reserve ? left - reserve : 0u);
}

uint8_t *aioprof_fw_open(aioprof_fw_t *w, uint32_t n)
{
    n += AIOPROF_FW_OPEN_COST + aioprof_fw_late_reserve(w);
    uint32_t head = w->head;
    /* a frame that would not fit before the ring's end starts at its start (the bytes skipped
     * go as 0x00, empty segments) */
    uint32_t to_end = (uint32_t)w->size - head;
    uint32_t skip = to_end <= n ? to_end : 0u;
    if (aioprof_fw_room(w) < skip + n + AIOPROF_FW_CLOSE_COST) {
        return NULL;
    }
    if (skip) {
        memset(w->buf + head, 0, skip);
        head = 0;
    }
    /* the leading delimiter ends any device text printed since the last frame; then the first
     * code byte, known at close (both before the ring's end: to_end is more than n) */
    w->buf[head] = 0;
    w->buf[head + 1u] = 0;
    w->frame_pos = (uint16_t)(head + 1u);
    w->head = (uint16_t)(head + 2u);
    w->open = 1;
    w->late_len = 0;
    aioprof_fw_rebudget(w);
    return aioprof_fw_at(w);
}

#if !AIOPROF_SMALL
/* A machine word of frame bytes at a time (8 on 64-bit hosts, 4 on a Cortex-M): does it hold a
 * zero byte? Exact: no false positives. */
typedef size_t fw_word_t;
#define FW_ONES ((fw_word_t)-1 / 0xFFu)
static inline int fw_has_zero(fw_word_t v)
{
    return ((v - FW_ONES) & ~v & (FW_ONES << 7)) != 0;
}
#endif

/* One body byte through the CRC and the in-place COBS: a zero becomes the code byte of the run
 * after it, and the code byte before it gets the distance to it. Returns the CRC. */
AIOPROF_INLINE uint32_t fw_close_byte(uint32_t crc, uint8_t *q, uint8_t **code_at)
{
    crc = AIOPROF_FW_CRC_STEP(crc, *q);
    if (*q == 0) {
        **code_at = (uint8_t)(q - *code_at);
        *code_at = q;
    }
    return crc;
}

#if AIOPROF_LATE
#if !AIOPROF_SMALL
void aioprof_fw_late_long(aioprof_fw_t *w, uint32_t late)
{
    uint8_t *top = w->buf + w->head + w->budget + AIOPROF_LATE_HEAD_MAX;
    uint32_t n = 1;
    for (uint32_t v = late >> 7; v != 0; v >>= 7) {
        n++;
    }
    aioprof_fw_encode_varint(top - n, 0, late);
    w->budget = (uint16_t)(w->budget - n);
    w->late_len = (uint8_t)(w->late_len + n);
}
#endif

/* The LATE record at head, its list moved down to just after the record's head; none when every
 * ENTER of the frame was on time (a varint of 0 is one zero byte, any other has a non-zero byte). */
static void fw_late_record(aioprof_fw_t *w)
{
    uint8_t *list = w->buf + w->head + w->budget + AIOPROF_LATE_HEAD_MAX;
    uint32_t len = w->late_len;
    uint8_t *at = aioprof_fw_at(w);
    at[0] = (uint8_t)(AIOPROF_TAG_CONTROL | AIOPROF_OP_LATE);
    uint32_t head = aioprof_fw_encode_varint(at, 1, len);
    /* down, front first: the list lies above where it goes, its head's bytes below the list's
     * first (no memmove: device code uses no libc beyond memcpy and memset); the record stays
     * only if a value was not 0 */
    uint32_t late = 0;
    for (uint32_t i = 0; i < len; i++) {
        late |= list[i];
        at[head + i] = list[i];
    }
    w->late_len = 0;
    if (late != 0) {
        w->head = (uint16_t)(w->head + head + len);
    }
}
#endif

void aioprof_fw_close(aioprof_fw_t *w)
{
#if AIOPROF_LATE
    if (w->late_len != 0) {
        fw_late_record(w);
    }
#endif
    uint8_t *buf = w->buf;
    uint8_t *code_at = buf + w->frame_pos;
    uint8_t *q = code_at + 1;
    uint8_t *end = buf + w->head;
    /* The CRC keeps garbage above bit 15 (only bits 8..15 index the table): no masking per byte. */
    uint32_t crc = AIOPROF_CRC16_INIT;
#if !AIOPROF_SMALL
    /* Most words hold no zero: their CRC alone, two bytes per step, with no COBS test per byte. */
    for (; end - q >= (ptrdiff_t)sizeof(fw_word_t); q += sizeof(fw_word_t)) {
        fw_word_t v;
        memcpy(&v, q, sizeof v);
        if (!fw_has_zero(v)) {
            crc = AIOPROF_FW_CRC_STEP2(crc, q[0], q[1]);
            crc = AIOPROF_FW_CRC_STEP2(crc, q[2], q[3]);
            if (sizeof v == 8) {
                crc = AIOPROF_FW_CRC_STEP2(crc, q[4], q[5]);
                crc = AIOPROF_FW_CRC_STEP2(crc, q[6], q[7]);
            }
            continue;
        }
        for (unsigned i = 0; i < sizeof v; i++) {
            crc = fw_close_byte(crc, q + i, &code_at);
        }
    }
#endif
    /* the rest, a byte at a time */
    for (; q < end; q++) {
        crc = fw_close_byte(crc, q, &code_at);
    }
    /* the CRC may wrap around the ring's end */
    unsigned code = (unsigned)(end - code_at);
    /* its two bytes, low first, then the closing 00, which sets the last code byte as a zero in
     * the body does: a marker bit above the three ends the loop (not unrolled at -Os) */
    uint32_t head = w->head;
    for (uint32_t v = (crc & 0xFFFFu) | 0x1000000u; v != 1u; v >>= 8) {
        uint8_t b = (uint8_t)v;
        if (b == 0) {
            *code_at = (uint8_t)code;
            code_at = buf + head;
            code = 1;
        } else {
            code++;
        }
        buf[head] = b;
        head = head + 1u == w->size ? 0u : head + 1u;
    }
    w->head = w->commit = (uint16_t)head;
    w->open = 0;
    w->closed = 1;
    w->budget = 0;
}

void aioprof_fw_write(aioprof_fw_t *w, const uint8_t *bytes, uint32_t n)
{
    memcpy(aioprof_fw_at(w), bytes, n);
    aioprof_fw_advance(w, n);
}

void aioprof_fw_control_head(aioprof_fw_t *w, unsigned op, size_t len)
{
    uint8_t head[1 + AIOPROF_VARINT_MAX];
    head[0] = (uint8_t)(AIOPROF_TAG_CONTROL | (op & 0x0Fu));
    aioprof_fw_write(w, head, (uint32_t)(1 + aioprof_fw_varint(head + 1, (uint32_t)len)));
}

void aioprof_fw_control(aioprof_fw_t *w, unsigned op, const uint8_t *body, size_t len)
{
    uint8_t *o = aioprof_fw_at(w);
    o[0] = (uint8_t)(AIOPROF_TAG_CONTROL | (op & 0x0Fu));
    uint32_t n = aioprof_fw_encode_varint(o, 1, (uint32_t)len);
    memcpy(o + n, body, len);
    aioprof_fw_advance(w, n + (uint32_t)len);
}

