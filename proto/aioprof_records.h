/* The records of a frame body (docs/protocol.md section 3), one at a time and inline: the one
 * decoder of event records, used by the reader's own record-by-record pass
 * (aioprof_reader_body) and by a user that reads a frame's records in its own loop, without a
 * record struct and a call per record (the host's replay: aioprof_reader_sink_t.frame_records).
 * Control records are read by aioprof_reader_control (aioprof_frame_reader.h). */
#ifndef AIOPROF_RECORDS_H
#define AIOPROF_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "aioprof_varint.h"
#include "aioprof_wire.h"

/* Inlined into the reader's loop whatever the compiler would choose: a call per record is what
 * this header exists to avoid. */
#if defined(__GNUC__)
#define AIOPROF_REC_INLINE static inline __attribute__((always_inline))
#else
#define AIOPROF_REC_INLINE static inline
#endif

/* What a record's tag says it is. */
#define AIOPROF_TAG_IS_ENTER(tag) (((tag) & AIOPROF_TAG_ENTER) != 0)
#define AIOPROF_TAG_IS_CONTROL(tag) (((tag) & 0xF0u) == AIOPROF_TAG_CONTROL)
/* An EXIT tag's enum aioprof_exit_kind. */
#define AIOPROF_TAG_EXIT_KIND(tag) \
    ((tag) < AIOPROF_TAG_EXIT_RETURN ? AIOPROF_EXIT_YIELD : AIOPROF_EXIT_RETURN + (((tag) - AIOPROF_TAG_EXIT_RETURN) >> 4))

/* A varint at p, before end, as (its length << 32 | its value), or 0 when it runs past end, past 5
 * bytes or past 32 bits. Returned in one word, not through a pointer, so that a caller's loop
 * keeps its variables in registers. One and two bytes (most varints of a stream) are read here,
 * longer ones by aioprof_varint_get. */
AIOPROF_REC_INLINE uint64_t aioprof_rec_varint(const uint8_t *p, const uint8_t *end)
{
    if (p < end && p[0] < 0x80u) {
        return 1ull << 32 | p[0];
    }
    if (end - p >= 2 && p[1] < 0x80u) {
        return 2ull << 32 | (p[0] & 0x7Fu) | (uint32_t)p[1] << 7;
    }
    uint32_t v = 0;
    size_t n = p < end ? aioprof_varint_get(p, (size_t)(end - p), &v) : 0;
    return (uint64_t)n << 32 | v;
}

/* A dt continuation at *p (after a tag that holds `bits` of dt): dt's upper bits added to *dt and
 * *p moved past it. Returns 0, or -1 when it is damaged (or dt would not fit 32 bits). */
AIOPROF_REC_INLINE int aioprof_rec_dt_rest(const uint8_t **p, const uint8_t *end, unsigned bits, uint32_t *dt)
{
    uint64_t v = aioprof_rec_varint(*p, end);
    uint32_t rest = (uint32_t)v;
    if (v == 0 || rest >> (32u - bits)) {
        return -1;
    }
    *p += v >> 32;
    *dt |= rest << bits;
    return 0;
}

/* An ENTER's task id in a varint at *p (its tag held 0): *p moved past it. Returns the id, or 0
 * when it is damaged (0 is no task's id). */
AIOPROF_REC_INLINE uint32_t aioprof_rec_id(const uint8_t **p, const uint8_t *end)
{
    uint64_t v = aioprof_rec_varint(*p, end);
    *p += v >> 32;
    return (uint32_t)v;
}

/* The rest of an event record (an ENTER, or an EXIT: any tag but a control one), whose tag was
 * read from just before p: its dt (the tag's low bits, and the continuation when the tag says
 * so) and, for an ENTER, the task's id (in the tag, or a varint after dt). Returns the byte after
 * the record, or NULL when it is damaged: it runs past end, a varint is too long, dt does not fit
 * 32 bits, or the id is 0. */
AIOPROF_REC_INLINE const uint8_t *aioprof_rec_event(const uint8_t *p, const uint8_t *end, unsigned tag, uint32_t *dt,
    uint32_t *id)
{
    if (AIOPROF_TAG_IS_ENTER(tag)) {
        *dt = tag & ((1u << AIOPROF_ENTER_DT_BITS) - 1u);
        if ((tag & (1u << AIOPROF_ENTER_DT_BITS)) && aioprof_rec_dt_rest(&p, end, AIOPROF_ENTER_DT_BITS, dt) < 0) {
            return NULL;
        }
        *id = (tag >> AIOPROF_ENTER_ID_SHIFT) & 0x0Fu;
        if (*id == 0 && (*id = aioprof_rec_id(&p, end)) == 0) {
            return NULL;
        }
    } else if (tag < AIOPROF_TAG_EXIT_RETURN) {
        *dt = tag & ((1u << AIOPROF_YIELD_DT_BITS) - 1u);
        if ((tag & (1u << AIOPROF_YIELD_DT_BITS)) && aioprof_rec_dt_rest(&p, end, AIOPROF_YIELD_DT_BITS, dt) < 0) {
            return NULL;
        }
    } else {
        *dt = tag & ((1u << AIOPROF_END_DT_BITS) - 1u);
        if ((tag & (1u << AIOPROF_END_DT_BITS)) && aioprof_rec_dt_rest(&p, end, AIOPROF_END_DT_BITS, dt) < 0) {
            return NULL;
        }
    }
    return p;
}

#endif
