#include "aioprof_frame_reader.h"

#include <string.h>

#include "aioprof_cobs.h"
#include "aioprof_crc16.h"
#include "aioprof_varint.h"

void aioprof_reader_init(aioprof_reader_t *r, const aioprof_reader_sink_t *sink, void *user)
{
    memset(r, 0, sizeof *r);
    if (sink) {
        r->sink = *sink;
    }
    r->user = user;
}

int aioprof_is_text(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        uint8_t b = data[i];
        if (b < 0x20 && b != 0x07 && b != 0x08 && b != 0x09 && b != 0x0A && b != 0x0D && b != 0x1B) {
            return 0;
        }
    }
    return 1;
}

/* A cursor over one record body; any read past its end sets bad. */
typedef struct cursor {
    const uint8_t *p;
    const uint8_t *end;
    int bad;
} cursor_t;

static inline uint32_t cur_varint(cursor_t *c)
{
    /* most varints here are one byte */
    if (c->p < c->end && *c->p < 0x80u) {
        return *c->p++;
    }
    uint32_t v = 0;
    size_t n = aioprof_varint_get(c->p, (size_t)(c->end - c->p), &v);
    if (n == 0) {
        c->bad = 1;
        return 0;
    }
    c->p += n;
    return v;
}

static uint8_t cur_byte(cursor_t *c)
{
    if (c->p >= c->end) {
        c->bad = 1;
        return 0;
    }
    return *c->p++;
}

static const uint8_t *cur_bytes(cursor_t *c, size_t n)
{
    const uint8_t *at = c->p;
    if ((size_t)(c->end - c->p) < n) {
        c->bad = 1;
        return NULL;
    }
    c->p += n;
    return at;
}

static int parse_hello(cursor_t *c, aioprof_hello_t *h)
{
    h->version = cur_varint(c);
    h->tick_hz = cur_varint(c);
    h->tick_bits = cur_byte(c);
    h->ring_bytes = cur_varint(c);
    h->flags = cur_byte(c);
    h->boot_ticks = cur_varint(c);
    h->drain_ticks = cur_varint(c);
    h->dropped_total = cur_varint(c);
    h->platform_len = cur_varint(c);
    h->platform = cur_bytes(c, h->platform_len);
    if (c->bad || h->tick_bits < 8 || h->tick_bits > 32 || h->tick_hz == 0) {
        return -1;
    }
    return 0;
}

static int parse_task(cursor_t *c, aioprof_record_t *rec)
{
    rec->id = cur_varint(c);
    rec->parent = cur_varint(c);
    rec->name_len = cur_varint(c);
    rec->name = cur_bytes(c, rec->name_len);
    if (c->bad || rec->id == 0) {
        return -1;
    }
    rec->label = c->p;
    rec->label_len = (size_t)(c->end - c->p);
    return 0;
}

static int parse_control(aioprof_reader_t *r, cursor_t *body, unsigned op, aioprof_record_t *rec)
{
    uint32_t len = cur_varint(body);
    if (body->bad || len > (size_t)(body->end - body->p)) {
        return -1;
    }
    cursor_t c = {body->p, body->p + len, 0};
    body->p += len;
    switch (op) {
    case AIOPROF_OP_HELLO:
        rec->kind = AIOPROF_REC_HELLO;
        return parse_hello(&c, &rec->hello);
    case AIOPROF_OP_TASK_NEW:
    case AIOPROF_OP_TASK_INFO:
        rec->kind = op == AIOPROF_OP_TASK_NEW ? AIOPROF_REC_TASK_NEW : AIOPROF_REC_TASK_INFO;
        return parse_task(&c, rec);
    case AIOPROF_OP_DROPPED:
        rec->kind = AIOPROF_REC_DROPPED;
        rec->count = cur_varint(&c);
        return c.bad ? -1 : 0;
    default:
        (void)r;
        return 1; /* an operation of a later version: skipped */
    }
}

/* dt's low bits are in the tag; the continuation varint carries the rest. */
static inline int parse_dt(cursor_t *c, uint8_t tag, unsigned bits, uint64_t *offset)
{
    uint32_t dt = tag & ((1u << bits) - 1u);
    if (tag & (1u << bits)) {
        uint32_t rest = cur_varint(c);
        if (c->bad || rest >> (32u - bits)) {
            return -1;
        }
        dt |= rest << bits;
    }
    *offset += dt;
    return 0;
}

/* Is the frame's first record a HELLO from a device that just started? Then its sequence numbers
 * restart and a jump is not a loss. */
static int starts_with_boot_hello(const uint8_t *p, const uint8_t *end)
{
    if (p >= end || *p != (AIOPROF_TAG_CONTROL | AIOPROF_OP_HELLO)) {
        return 0;
    }
    cursor_t c = {p + 1, end, 0};
    aioprof_record_t rec;
    memset(&rec, 0, sizeof rec);
    return parse_control(NULL, &c, AIOPROF_OP_HELLO, &rec) == 0 && (rec.hello.flags & AIOPROF_HELLO_FLAG_BOOT);
}

int aioprof_reader_body(aioprof_reader_t *r, const uint8_t *body, size_t len)
{
    if (len < AIOPROF_BODY_MIN) {
        return -1;
    }
    aioprof_frame_info_t info;
    info.seq = body[0];
    info.tick_bits = (uint8_t)AIOPROF_FORMAT_TICK_BITS(body[1]);
    info.base = (uint32_t)body[2] | (uint32_t)body[3] << 8 | (uint32_t)body[4] << 16 | (uint32_t)body[5] << 24;
    cursor_t c = {body + AIOPROF_HEADER_FIXED, body + len - 2, 0};
    info.running = cur_varint(&c);
    if (c.bad || (info.tick_bits < 32 && (info.base >> info.tick_bits) != 0)) {
        return -1;
    }
    info.lost_before = 0;
    if (r->have_seq && info.seq != r->next_seq && !starts_with_boot_hello(c.p, c.end)) {
        info.lost_before = (uint8_t)(info.seq - r->next_seq);
    }
    r->stats.lost_frames += info.lost_before;
    r->have_seq = 1;
    r->next_seq = (uint8_t)(info.seq + 1u);
    r->stats.frames++;
    if (r->sink.frame) {
        r->sink.frame(r->user, &info);
    }

    uint64_t offset = 0;
    while (c.p < c.end) {
        aioprof_record_t rec;
        uint8_t tag = *c.p++;
        int rc = 0;
        rec.name_len = rec.label_len = 0;
        if (tag & AIOPROF_TAG_ENTER) {
            rec.kind = AIOPROF_REC_ENTER;
            rc = parse_dt(&c, tag, AIOPROF_ENTER_DT_BITS, &offset);
            rec.id = (tag >> AIOPROF_ENTER_ID_SHIFT) & 0x0Fu;
            if (rc == 0 && rec.id == 0) {
                rec.id = cur_varint(&c);
                rc = (c.bad || rec.id == 0) ? -1 : 0;
            }
        } else if (tag < AIOPROF_TAG_EXIT_RETURN) {
            rec.kind = AIOPROF_REC_EXIT;
            rec.exit_kind = AIOPROF_EXIT_YIELD;
            rc = parse_dt(&c, tag, AIOPROF_YIELD_DT_BITS, &offset);
        } else if (tag < AIOPROF_TAG_CONTROL) {
            rec.kind = AIOPROF_REC_EXIT;
            rec.exit_kind = AIOPROF_EXIT_RETURN + ((tag - AIOPROF_TAG_EXIT_RETURN) >> 4);
            rc = parse_dt(&c, tag, AIOPROF_END_DT_BITS, &offset);
        } else {
            rc = parse_control(r, &c, tag & 0x0Fu, &rec);
        }
        if (rc < 0) {
            r->stats.malformed++;
            return -1;
        }
        if (rc > 0) {
            continue;
        }
        rec.offset = offset;
        r->stats.records++;
        if (r->sink.record) {
            r->sink.record(r->user, &rec);
        }
    }
    return 0;
}

static void count_damage(aioprof_reader_t *r, size_t len)
{
    if (r->synced) {
        r->stats.crc_errors++;
    } else {
        r->stats.skipped_bytes += len;
    }
}

static void pass_text(aioprof_reader_t *r, const uint8_t *text, size_t len)
{
    if (len == 0) {
        return;
    }
    r->stats.text_bytes += len;
    if (r->sink.text) {
        r->sink.text(r->user, text, len);
    }
}

/* A whole segment (up to AIOPROF_SEGMENT_MAX bytes) ended at a delimiter. */
static void segment_end(aioprof_reader_t *r)
{
    size_t len = r->seg_len;
    r->seg_len = 0;
    if (r->long_text || r->long_damage) {
        r->long_text = r->long_damage = 0;
        return;
    }
    if (len == 0) {
        return;
    }
    uint8_t body[AIOPROF_SEGMENT_MAX];
    long n = aioprof_cobs_decode(r->seg, len, body);
    if (n >= (long)AIOPROF_BODY_MIN && n <= (long)AIOPROF_BODY_MAX) {
        uint16_t want = (uint16_t)(body[n - 2] | body[n - 1] << 8);
        if (aioprof_crc16_fast(AIOPROF_CRC16_INIT, body, (size_t)n - 2) == want) {
            if (AIOPROF_FORMAT_VERSION(body[1]) != AIOPROF_PROTOCOL_VERSION) {
                r->stats.unsupported++;
                return;
            }
            aioprof_reader_body(r, body, (size_t)n);
            return;
        }
    }
    if (aioprof_is_text(r->seg, len)) {
        pass_text(r, r->seg, len);
    } else {
        count_damage(r, len);
    }
}

/* Bytes of the current segment, before its delimiter. */
static void segment_add(aioprof_reader_t *r, const uint8_t *data, size_t n)
{
    if (n == 0 || r->long_damage) {
        return;
    }
    if (r->long_text) {
        if (aioprof_is_text(data, n)) {
            pass_text(r, data, n);
        } else {
            r->long_text = 0;
            r->long_damage = 1;
            count_damage(r, n);
        }
        return;
    }
    if (r->seg_len + n <= AIOPROF_SEGMENT_MAX) {
        memcpy(r->seg + r->seg_len, data, n);
        r->seg_len += (uint32_t)n;
        return;
    }
    /* too long for a frame: device text, or damage */
    if (aioprof_is_text(r->seg, r->seg_len) && aioprof_is_text(data, n)) {
        pass_text(r, r->seg, r->seg_len);
        pass_text(r, data, n);
        r->long_text = 1;
    } else {
        count_damage(r, r->seg_len + n);
        r->long_damage = 1;
    }
    r->seg_len = 0;
}

void aioprof_reader_feed(aioprof_reader_t *r, const uint8_t *data, size_t len)
{
    r->stats.bytes += len;
    while (len > 0) {
        const uint8_t *zero = memchr(data, 0, len);
        size_t n = zero ? (size_t)(zero - data) : len;
        segment_add(r, data, n);
        if (!zero) {
            return;
        }
        segment_end(r);
        r->synced = 1;
        data += n + 1;
        len -= n + 1;
    }
}

void aioprof_reader_finish(aioprof_reader_t *r)
{
    segment_end(r);
}
