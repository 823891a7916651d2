/* Test helper: builds frames by hand from proto/aioprof_wire.h's constants as docs/protocol.md
 * describes them, so the tests that use it depend on the format, not on the device's ring
 * writer. Header-only so each test program stays one file. */
#ifndef AIOPROF_TEST_FRAME_BUILDER_H
#define AIOPROF_TEST_FRAME_BUILDER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "aioprof_cobs.h"
#include "aioprof_crc16.h"
#include "aioprof_wire.h"

static inline size_t put_varint(uint8_t *out, uint32_t v)
{
    size_t n = 0;
    while (v >= 0x80u) {
        out[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* An event tag: `bits` low bits of dt, the continuation bit just above them, the rest as a varint. */
static inline size_t put_event(uint8_t *out, uint8_t tag, unsigned bits, uint32_t dt)
{
    out[0] = (uint8_t)(tag | (dt & ((1u << bits) - 1u)));
    if ((dt >> bits) == 0) {
        return 1;
    }
    out[0] |= (uint8_t)(1u << bits);
    return 1 + put_varint(out + 1, dt >> bits);
}

static inline size_t put_enter(uint8_t *out, uint32_t id, uint32_t dt)
{
    uint32_t inline_id = id <= AIOPROF_ENTER_ID_INLINE_MAX ? id : 0u;
    size_t n = put_event(out, (uint8_t)(AIOPROF_TAG_ENTER | (inline_id << AIOPROF_ENTER_ID_SHIFT)),
        AIOPROF_ENTER_DT_BITS, dt);
    if (inline_id == 0) {
        n += put_varint(out + n, id);
    }
    return n;
}

static inline size_t put_exit(uint8_t *out, unsigned kind, uint32_t dt)
{
    if (kind == AIOPROF_EXIT_YIELD) {
        return put_event(out, AIOPROF_TAG_EXIT_YIELD, AIOPROF_YIELD_DT_BITS, dt);
    }
    return put_event(out, (uint8_t)(AIOPROF_TAG_EXIT_RETURN + ((kind - 1u) << 4)), AIOPROF_END_DT_BITS, dt);
}

static inline size_t put_control(uint8_t *out, unsigned op, const uint8_t *body, size_t len)
{
    size_t n = 0;
    out[n++] = (uint8_t)(AIOPROF_TAG_CONTROL | op);
    n += put_varint(out + n, (uint32_t)len);
    memcpy(out + n, body, len);
    return n + len;
}

/* A frame: header, records, CRC, COBS, between two delimiters. */
static inline size_t put_frame(uint8_t *out, const uint8_t *body, size_t len)
{
    uint8_t full[AIOPROF_BODY_MAX + 2];
    memcpy(full, body, len);
    uint16_t crc = aioprof_crc16(AIOPROF_CRC16_INIT, full, len);
    full[len] = (uint8_t)crc;
    full[len + 1] = (uint8_t)(crc >> 8);
    out[0] = 0;
    size_t n = 1 + aioprof_cobs_encode(full, len + 2, out + 1);
    out[n++] = 0;
    return n;
}

static inline size_t put_header(uint8_t *body, uint8_t seq, unsigned bits, uint32_t base, uint32_t running)
{
    body[0] = seq;
    body[1] = AIOPROF_FORMAT(bits);
    body[2] = (uint8_t)base;
    body[3] = (uint8_t)(base >> 8);
    body[4] = (uint8_t)(base >> 16);
    body[5] = (uint8_t)(base >> 24);
    return AIOPROF_HEADER_FIXED + put_varint(body + AIOPROF_HEADER_FIXED, running);
}

#endif
