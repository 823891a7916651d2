/* Writes frames into a byte ring, already COBS-stuffed and delimited, one byte at a time, so that
 * the bytes between the ring's tail and its commit mark can be handed to a UART as they are.
 * Used by the device hook (device/aioprof.c) and by tests that need frames.
 *
 * Nothing here checks for room: the caller asks aioprof_fw_room() first. Every function is O(1)
 * per byte, never blocks, never allocates. */
#ifndef AIOPROF_FRAME_WRITER_H
#define AIOPROF_FRAME_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "aioprof_crc16.h"
#include "aioprof_wire.h"

typedef struct aioprof_fw {
    uint8_t *buf;
    uint32_t size;
    uint32_t head;     /* next byte written */
    uint32_t tail;     /* next byte sent */
    uint32_t commit;   /* end of the last closed frame: [tail, commit) may be sent */
    uint32_t code_pos; /* where the open COBS run's code byte goes */
    uint16_t crc;
    uint16_t body_len; /* body bytes of the open frame so far */
    uint8_t code;      /* length of the open run plus one */
    uint8_t open;      /* a frame is open */
} aioprof_fw_t;

/* Ring bytes a frame needs besides its records: 00, first code byte, seq, format, base, running
 * (varint), and for closing: crc (2), a code byte, 00. */
#define AIOPROF_FW_OPEN_COST (2u + AIOPROF_HEADER_FIXED + AIOPROF_VARINT_MAX)
#define AIOPROF_FW_CLOSE_COST 5u
/* Ring bytes a record of n body bytes can take: one more for a COBS code byte it may start. */
#define AIOPROF_FW_RECORD_COST(n) ((n) + 1u)

void aioprof_fw_init(aioprof_fw_t *w, uint8_t *buf, uint32_t size);

/* Free ring bytes. */
static inline uint32_t aioprof_fw_room(const aioprof_fw_t *w)
{
    uint32_t used = w->head >= w->tail ? w->head - w->tail : w->size - (w->tail - w->head);
    return w->size - 1u - used;
}

static inline void aioprof_fw_stuff(aioprof_fw_t *w, uint8_t b)
{
    uint32_t h = w->head;
    if (b != 0) {
        w->buf[h] = b;
        if (++w->code != 0xFFu) {
            w->head = (h + 1u == w->size) ? 0u : h + 1u;
            return;
        }
        h = (h + 1u == w->size) ? 0u : h + 1u;
    }
    /* a zero, or a full 254-byte run: the run's code byte is known now; reserve the next one */
    w->buf[w->code_pos] = w->code;
    w->code_pos = h;
    w->head = (h + 1u == w->size) ? 0u : h + 1u;
    w->code = 1;
}

/* One body byte: CRC, then stuffing. */
static inline void aioprof_fw_put(aioprof_fw_t *w, uint8_t b)
{
    w->crc = aioprof_crc16_byte(w->crc, b);
    w->body_len++;
    aioprof_fw_stuff(w, b);
}

static inline void aioprof_fw_varint(aioprof_fw_t *w, uint32_t v)
{
    while (v >= 0x80u) {
        aioprof_fw_put(w, (uint8_t)(v | 0x80u));
        v >>= 7;
    }
    aioprof_fw_put(w, (uint8_t)v);
}

/* An event tag with dt split: `bits` low bits of dt in the tag, the rest (if any) as a varint.
 * cbit is the tag's continuation bit, 1 << bits. */
static inline void aioprof_fw_event(aioprof_fw_t *w, uint8_t tag, unsigned bits, uint32_t dt)
{
    uint32_t rest = dt >> bits;
    uint8_t low = (uint8_t)(dt & ((1u << bits) - 1u));
    if (rest == 0) {
        aioprof_fw_put(w, (uint8_t)(tag | low));
        return;
    }
    aioprof_fw_put(w, (uint8_t)(tag | (1u << bits) | low));
    aioprof_fw_varint(w, rest);
}

/* Opens a frame: leading 00, header. Needs AIOPROF_FW_OPEN_COST bytes of room. */
void aioprof_fw_open(aioprof_fw_t *w, uint8_t seq, uint8_t format, uint32_t base, uint32_t running);

/* Closes the open frame: crc, last code byte, 00, and moves the commit mark. Needs
 * AIOPROF_FW_CLOSE_COST bytes of room, which a caller that checked for room keeps in reserve. */
void aioprof_fw_close(aioprof_fw_t *w);

/* Writers of whole records, for the records that are not on the per-event path. */
void aioprof_fw_exit(aioprof_fw_t *w, unsigned kind, uint32_t dt);
void aioprof_fw_enter(aioprof_fw_t *w, uint32_t id, uint32_t dt);
/* A control record: tag 0x70|op, length, body. */
void aioprof_fw_control(aioprof_fw_t *w, unsigned op, const uint8_t *body, size_t len);

/* The committed bytes waiting to be sent, as up to two spans (the ring may wrap). Returns the
 * number of spans (0, 1 or 2). */
unsigned aioprof_fw_pending(const aioprof_fw_t *w, const uint8_t *span[2], size_t span_len[2]);

/* Marks n committed bytes as sent. */
void aioprof_fw_consume(aioprof_fw_t *w, size_t n);

#endif
