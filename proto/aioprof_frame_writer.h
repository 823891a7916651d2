/* Writes frames into a byte ring so that the bytes between the ring's tail and its commit mark can
 * be handed to a UART as they are. Used by the device hook (device/aioprof.c) and by tests.
 *
 * Records go into the ring raw: a record costs its encoding and a few stores. Closing a frame
 * computes its CRC and stuffs it (COBS) in place. In-place stuffing never needs an extra byte as
 * long as no run of non-zero bytes is longer than 254, which holds because a body is at most 254
 * bytes (AIOPROF_FW_BODY_MAX). A frame's records never wrap around the ring's end: a frame that
 * would not fit before the end starts at the ring's start, and the bytes skipped are sent as 0x00
 * (empty segments, which readers ignore).
 *
 * Room: while a frame is open, `budget` says how many more body bytes it may take contiguously,
 * keeping the CRC and the closing delimiter in reserve. A caller checks aioprof_fw_fits before
 * writing a record and closes the frame when it would not fit. Nothing blocks or allocates. */
#ifndef AIOPROF_FRAME_WRITER_H
#define AIOPROF_FRAME_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "aioprof_varint.h"
#include "aioprof_wire.h"

/* The per-event helpers below are inlined wherever they are used (even at -Os, where a call would
 * cost more than they do), unless the build is AIOPROF_SMALL=1: then the compiler decides, and one
 * copy may serve enter and exit. */
#ifndef AIOPROF_SMALL
#define AIOPROF_SMALL 0
#endif
#if defined(__GNUC__) && !AIOPROF_SMALL
#define AIOPROF_INLINE static inline __attribute__((always_inline))
#else
#define AIOPROF_INLINE static inline
#endif

/* AIOPROF_LATE=0 builds the hook without lateness (docs/porting.md, "Building for size"): a port
 * that never reports it pays no code for it. Its bytes on the wire are those of a port whose
 * late_unit is 0, whatever the port says. */
#ifndef AIOPROF_LATE
#define AIOPROF_LATE 1
#endif

/* The largest body this writer makes, CRC included: in-place COBS needs it at most 254. */
#define AIOPROF_FW_BODY_MAX 254u

typedef struct aioprof_fw {
    uint8_t *buf;
    uint16_t size;
    uint16_t head;      /* next byte written */
    uint16_t tail;      /* next byte sent */
    uint16_t commit;    /* end of the last closed frame: [tail, commit) may be sent */
    uint16_t frame_pos; /* the open frame's first code byte */
    uint16_t budget;    /* body bytes the open frame may still take; 0 while none is open */
    uint8_t open;
    uint8_t closed;     /* set when a frame is closed; its user clears it */
    /* Lateness (AIOPROF_OP_LATE): late_room is AIOPROF_VARINT_MAX when every ENTER carries its
     * lateness (the user sets it when it sets the writer up), else 0. The open frame's list is built
     * from the top of its space down: its late_len bytes start AIOPROF_LATE_HEAD_MAX bytes above
     * head + budget (room for the record's tag and length, which close writes at head before it
     * moves the list down to them). */
    uint8_t late_room;
    uint8_t late_len;
} aioprof_fw_t;

/* Ring sizes the 16-bit positions allow. */
#define AIOPROF_FW_RING_MAX 65535u

/* Ring bytes a frame needs besides its records: 00, code byte, seq, format, base, running; and
 * for closing: CRC (2) and 00. */
#define AIOPROF_FW_OPEN_COST (2u + AIOPROF_HEADER_FIXED + AIOPROF_VARINT_MAX)
#define AIOPROF_FW_CLOSE_COST 3u

/* A writer is set up by zeroing it and setting buf and size (at most AIOPROF_FW_RING_MAX bytes). */

/* An empty ring (no open frame, nothing committed that is not sent) starts again at its
 * beginning: what aioprof_fw_open then needs is never more than it had at the start. */
static inline void aioprof_fw_rewind(aioprof_fw_t *w)
{
    w->head = w->tail = w->commit = 0;
    w->closed = 0;
}

/* Free ring bytes. (Out of line in the small build, as aioprof_fw_advance.) */
#if AIOPROF_SMALL
uint32_t aioprof_fw_room(const aioprof_fw_t *w);
#else
AIOPROF_INLINE uint32_t aioprof_fw_room(const aioprof_fw_t *w)
{
    uint32_t used = w->head >= w->tail ? w->head - w->tail : w->size - (w->tail - w->head);
    return w->size - 1u - used;
}
#endif

/* Can the open frame take a record of n bytes? */
AIOPROF_INLINE int aioprof_fw_fits(const aioprof_fw_t *w, uint32_t n)
{
    return w->open && w->budget >= n;
}

/* Ring bytes an ENTER's lateness may take: AIOPROF_VARINT_MAX when ENTERs carry it, else 0. */
AIOPROF_INLINE uint32_t aioprof_fw_late_room(const aioprof_fw_t *w)
{
#if AIOPROF_LATE
    return w->late_room;
#else
    (void)w;
    return 0u;
#endif
}

/* What a frame keeps back for its LATE record's head when ENTERs carry lateness. */
AIOPROF_INLINE uint32_t aioprof_fw_late_reserve(const aioprof_fw_t *w)
{
    return aioprof_fw_late_room(w) ? AIOPROF_LATE_HEAD_MAX : 0u;
}

/* Has the open frame's lateness list begun? */
AIOPROF_INLINE int aioprof_fw_late_started(const aioprof_fw_t *w)
{
#if AIOPROF_LATE
    return w->late_len != 0;
#else
    (void)w;
    return 0;
#endif
}

/* Where the next n body bytes go: contiguous, as the budget guarantees. */
AIOPROF_INLINE uint8_t *aioprof_fw_at(aioprof_fw_t *w)
{
    return w->buf + w->head;
}

/* The n bytes written at aioprof_fw_at are part of the frame now. (Out of line in the small
 * build: its many callers share one copy.) */
#if AIOPROF_SMALL
void aioprof_fw_advance(aioprof_fw_t *w, uint32_t n);
#else
AIOPROF_INLINE void aioprof_fw_advance(aioprof_fw_t *w, uint32_t n)
{
    w->head = (uint16_t)(w->head + n);
    w->budget = (uint16_t)(w->budget - n);
}
#endif

/* n body bytes into the open frame. */
void aioprof_fw_write(aioprof_fw_t *w, const uint8_t *bytes, uint32_t n);

#if AIOPROF_SMALL
/* The small build's one encoder, for every varint and every event tag: v's low `bits` bits in a
 * first byte that holds `first` above them (and the continuation bit just above them when more
 * follows), the rest as a varint. first 0 and bits 7: v as a varint. Returns the byte after it. */
uint8_t *aioprof_fw_put(uint8_t *out, uint32_t v, unsigned first, unsigned bits);
#endif

/* v as a varint at out; returns the bytes written. */
AIOPROF_INLINE size_t aioprof_fw_varint(uint8_t *out, uint32_t v)
{
#if AIOPROF_SMALL
    return (size_t)(aioprof_fw_put(out, v, 0u, 7u) - out);
#else
    return aioprof_varint_put(out, v);
#endif
}

/* A varint of v at rec[n]. Returns n past it. (aioprof_varint_put, inlined on the event path.) */
AIOPROF_INLINE uint32_t aioprof_fw_encode_varint(uint8_t *rec, uint32_t n, uint32_t v)
{
#if AIOPROF_SMALL
    /* one copy of the loop for the whole hook */
    return (uint32_t)(aioprof_fw_put(rec + n, v, 0u, 7u) - rec);
#else
    while (v >= 0x80u) {
        rec[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    rec[n++] = (uint8_t)v;
    return n;
#endif
}

/* Encodes an event tag with dt split into rec: `bits` low bits of dt in the tag, the rest (if
 * any) as a varint; the continuation bit sits just above them. Returns the bytes used. */
AIOPROF_INLINE uint32_t aioprof_fw_encode_event(uint8_t *rec, uint8_t tag, unsigned bits, uint32_t dt)
{
#if AIOPROF_SMALL
    return (uint32_t)(aioprof_fw_put(rec, dt, tag, bits) - rec);
#else
    uint32_t rest = dt >> bits;
    rec[0] = (uint8_t)(tag | (dt & ((1u << bits) - 1u)));
    if (rest == 0) {
        return 1;
    }
    rec[0] |= (uint8_t)(1u << bits);
    return aioprof_fw_encode_varint(rec, 1, rest);
#endif
}

/* Encodes an ENTER record into rec (room for 11 bytes). */
AIOPROF_INLINE uint32_t aioprof_fw_encode_enter(uint8_t *rec, uint32_t id, uint32_t dt)
{
    uint32_t inline_id = id <= AIOPROF_ENTER_ID_INLINE_MAX ? id : 0u;
    uint32_t n = aioprof_fw_encode_event(rec, (uint8_t)(AIOPROF_TAG_ENTER | (inline_id << AIOPROF_ENTER_ID_SHIFT)),
        AIOPROF_ENTER_DT_BITS, dt);
    return inline_id != 0 ? n : aioprof_fw_encode_varint(rec, n, id);
}

/* Encodes an EXIT record of kind (enum aioprof_exit_kind) into rec (room for 6 bytes). */
AIOPROF_INLINE uint32_t aioprof_fw_encode_exit(uint8_t *rec, unsigned kind, uint32_t dt)
{
    if (kind == AIOPROF_EXIT_YIELD) {
        return aioprof_fw_encode_event(rec, AIOPROF_TAG_EXIT_YIELD, AIOPROF_YIELD_DT_BITS, dt);
    }
    return aioprof_fw_encode_event(rec, (uint8_t)(AIOPROF_TAG_EXIT_RETURN + ((kind - 1u) << 4)), AIOPROF_END_DT_BITS,
        dt);
}

/* A lateness of two bytes or more (aioprof_fw_late's rare case). */
void aioprof_fw_late_long(aioprof_fw_t *w, uint32_t late);

/* The lateness of an ENTER (w->late_room set), into the open frame's list: a varint below the list
 * so far (the budget has room for it: an ENTER's check counts late_room). Before or after the
 * ENTER's record, in the order of the ENTERs. */
AIOPROF_INLINE void aioprof_fw_late(aioprof_fw_t *w, uint32_t late)
{
#if AIOPROF_SMALL
    /* for size, every value the one way, at its one caller: encoded, then copied below the list */
    uint8_t v[AIOPROF_VARINT_MAX];
    uint32_t n = (uint32_t)(aioprof_fw_put(v, late, 0u, 7u) - v);
    w->budget = (uint16_t)(w->budget - n);
    w->late_len = (uint8_t)(w->late_len + n);
    memcpy(w->buf + w->head + w->budget + AIOPROF_LATE_HEAD_MAX, v, n);
#else
    if (late >= 0x80u) {
        aioprof_fw_late_long(w, late);
        return;
    }
    w->buf[w->head + w->budget + AIOPROF_LATE_HEAD_MAX - 1u] = (uint8_t)late;
    w->budget = (uint16_t)(w->budget - 1u);
    w->late_len = (uint8_t)(w->late_len + 1u);
#endif
}

/* Opens a frame for a first record of up to n bytes, if the ring has room for it, the frame's
 * closing bytes and its LATE record's head kept: the bytes skipped to keep it contiguous, the
 * leading 00 and the code byte. Returns where its header goes (seq, format, base and the running
 * task's varint: the caller writes them and advances over them), or NULL when there is no room. */
uint8_t *aioprof_fw_open(aioprof_fw_t *w, uint32_t n);

/* Closes the open frame: its LATE record when one of its ENTERs was late, CRC, in-place COBS, 00,
 * and moves the commit mark. Always has room: the budget kept it in reserve. */
void aioprof_fw_close(aioprof_fw_t *w);

/* A control record (tag 0x70|op, length, body), for paths that are not per event. The caller
 * checked for room. aioprof_fw_control_head writes the tag and length only, for a body the caller
 * then writes in pieces. */
void aioprof_fw_control(aioprof_fw_t *w, unsigned op, const uint8_t *body, size_t len);
void aioprof_fw_control_head(aioprof_fw_t *w, unsigned op, size_t len);

/* The committed bytes waiting to be sent that lie in one piece from the tail (the rest, if the
 * ring wraps, comes once these are consumed): *span and the count, 0 when nothing waits. */
static inline size_t aioprof_fw_pending(const aioprof_fw_t *w, const uint8_t **span)
{
    *span = w->buf + w->tail;
    return w->commit >= w->tail ? (size_t)(w->commit - w->tail) : (size_t)(w->size - w->tail);
}

/* The open frame's budget from the room the ring has now: what it may take after the closing
 * reserve, up to its length and without passing the ring's end (and the head of its LATE record
 * kept back). Not once its lateness list has begun: the list stays where it is. */
void aioprof_fw_rebudget(aioprof_fw_t *w);

/* Marks n committed bytes as sent; the open frame's budget grows with the room, until its
 * lateness list has begun. */
static inline void aioprof_fw_consume(aioprof_fw_t *w, size_t n)
{
    uint32_t t = w->tail + (uint32_t)n;
    w->tail = (uint16_t)(t >= w->size ? t - w->size : t);
    if (w->open && !aioprof_fw_late_started(w)) {
        aioprof_fw_rebudget(w);
    }
}

#endif
