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

/* A varint at *p that is there only when `present` (0 or 1): its value (0 when absent), *p moved
 * past it. Whether it is there, and a value of one byte, are taken without a branch: which records
 * carry one comes in no order a predictor learns (a mispredicted branch per ENTER on whether its
 * task's id was in the tag cost a replay a sixth of its time); a longer value, or the frame's end,
 * takes the branch to aioprof_rec_varint. Sets *bad when it is damaged. */
AIOPROF_REC_INLINE uint32_t aioprof_rec_optional(const uint8_t **p, const uint8_t *end, uint32_t present, int *bad)
{
    uint32_t next = *p < end ? **p : 0x80u;
    if (present & (next >> 7)) {
        uint64_t v = aioprof_rec_varint(*p, end);
        *bad |= v == 0;
        *p += v >> 32;
        return (uint32_t)v;
    }
    *p += present;
    return next & (0u - present);
}

/* The rest of an event record (an ENTER, or an EXIT: any tag but a control one), whose tag was
 * read from just before p: its dt (the tag's low bits, and the continuation when the tag says
 * so) and, for an ENTER, the task's id (in the tag, or a varint after dt). Returns the byte after
 * the record, or NULL when it is damaged: it runs past end, a varint is too long, dt does not fit
 * 32 bits, or the id is 0. */
AIOPROF_REC_INLINE const uint8_t *aioprof_rec_event(const uint8_t *p, const uint8_t *end, unsigned tag, uint32_t *dt,
    uint32_t *id)
{
    int bad = 0;
    if (AIOPROF_TAG_IS_ENTER(tag)) {
        /* an ENTER's dt (the idle time before it, or the scheduler's) nearly always has a
         * continuation: a branch the predictor gets right */
        uint32_t rest = 0;
        if (tag & (1u << AIOPROF_ENTER_DT_BITS)) {
            uint64_t v = aioprof_rec_varint(p, end);
            bad |= v == 0;
            p += v >> 32;
            rest = (uint32_t)v;
        }
        *dt = (tag & ((1u << AIOPROF_ENTER_DT_BITS) - 1u)) | rest << AIOPROF_ENTER_DT_BITS;
        bad |= (rest >> (32u - AIOPROF_ENTER_DT_BITS)) != 0;
        uint32_t in_tag = (tag >> AIOPROF_ENTER_ID_SHIFT) & 0x0Fu;
        *id = in_tag | aioprof_rec_optional(&p, end, in_tag == 0, &bad);
        bad |= *id == 0;
    } else if (tag < AIOPROF_TAG_EXIT_RETURN) {
        uint32_t rest = aioprof_rec_optional(&p, end, (tag >> AIOPROF_YIELD_DT_BITS) & 1u, &bad);
        *dt = (tag & ((1u << AIOPROF_YIELD_DT_BITS) - 1u)) | rest << AIOPROF_YIELD_DT_BITS;
        bad |= (rest >> (32u - AIOPROF_YIELD_DT_BITS)) != 0;
    } else {
        uint32_t rest = aioprof_rec_optional(&p, end, (tag >> AIOPROF_END_DT_BITS) & 1u, &bad);
        *dt = (tag & ((1u << AIOPROF_END_DT_BITS) - 1u)) | rest << AIOPROF_END_DT_BITS;
        bad |= (rest >> (32u - AIOPROF_END_DT_BITS)) != 0;
    }
    return bad ? NULL : p;
}

/* A resume and its yield, the commonest stretch of a stream (a task's slice that awaits again): an
 * ENTER whose dt has at most one continuation byte and whose id is in the tag or one byte, then an
 * EXIT_YIELD whose dt has at most one: 2 to 5 bytes, read without a branch on where the id is (its
 * place comes in no order a predictor learns). Needs AIOPROF_REC_PAIR_MAX bytes before end (it
 * reads no byte past the pair's longest form). Returns the byte after the pair, its dts and id
 * set, or NULL: something else, a longer varint, a damaged record, or fewer bytes left; the caller
 * then reads the records one by one (aioprof_rec_event). */
#define AIOPROF_REC_PAIR_MAX 5
AIOPROF_REC_INLINE const uint8_t *aioprof_rec_pair(const uint8_t *p, const uint8_t *end, uint32_t *enter_dt, uint32_t *id,
    uint32_t *yield_dt)
{
    if (end - p < AIOPROF_REC_PAIR_MAX || !AIOPROF_TAG_IS_ENTER(p[0])) {
        return NULL;
    }
    uint32_t tag = p[0];
    const uint8_t *q = p + 1;
    uint32_t dt = tag & ((1u << AIOPROF_ENTER_DT_BITS) - 1u);
    if (tag & (1u << AIOPROF_ENTER_DT_BITS)) {
        if (q[0] & 0x80u) {
            return NULL;
        }
        dt |= (uint32_t)q[0] << AIOPROF_ENTER_DT_BITS;
        q++;
    }
    /* the id: in the tag (1 to 15), or the byte after (in_tag 0: below is all ones), which must
     * be 1 to 127 */
    uint32_t in_tag = (tag >> AIOPROF_ENTER_ID_SHIFT) & 0x0Fu;
    uint32_t below = in_tag - 1u;
    uint32_t who = in_tag | (q[0] & (below >> 8));
    q += below >> 31;
    uint32_t yield = q[0];
    if (who - 1u >= 0x7Fu || yield >= AIOPROF_TAG_EXIT_RETURN) {
        return NULL;
    }
    uint32_t ydt = yield & ((1u << AIOPROF_YIELD_DT_BITS) - 1u);
    if (yield & (1u << AIOPROF_YIELD_DT_BITS)) {
        if (q[1] & 0x80u) {
            return NULL;
        }
        ydt |= (uint32_t)q[1] << AIOPROF_YIELD_DT_BITS;
        q++;
    }
    *enter_dt = dt;
    *id = who;
    *yield_dt = ydt;
    return q + 1;
}

#endif
