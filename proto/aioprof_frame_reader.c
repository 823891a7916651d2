#include "aioprof_frame_reader.h"

#include <string.h>

#include "aioprof_cobs.h"
#include "aioprof_crc16.h"
#include "aioprof_records.h"
#include "aioprof_varint.h"

void aioprof_reader_init(aioprof_reader_t *r, const aioprof_reader_sink_t *sink, void *user)
{
    memset(r, 0, sizeof *r);
    if (sink) {
        r->sink = *sink;
    }
    r->user = user;
    r->period_ticks = 1000000u; /* a second of microseconds, until a HELLO says otherwise */
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
    /* added after the platform: a device that predates it does not send it */
    h->period_ticks = c->p < c->end ? cur_varint(c) : 0u;
    h->event_cost = c->p < c->end ? cur_varint(c) : 0u;
    h->late_unit = c->p < c->end ? cur_varint(c) : 0u;
    h->mem = c->p < c->end ? cur_varint(c) : 0u;
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

int aioprof_reader_control(aioprof_reader_t *r, const uint8_t **p, const uint8_t *end, unsigned op,
    aioprof_record_t *rec)
{
    cursor_t body = {*p, end, 0};
    uint32_t len = cur_varint(&body);
    if (body.bad || len > (size_t)(body.end - body.p)) {
        return -1;
    }
    cursor_t c = {body.p, body.p + len, 0};
    *p = body.p + len;
    rec->name_len = rec->label_len = 0;
    switch (op) {
    case AIOPROF_OP_HELLO:
        rec->kind = AIOPROF_REC_HELLO;
        if (parse_hello(&c, &rec->hello) < 0) {
            return -1;
        }
        if (r) {
            r->period_ticks = rec->hello.period_ticks ? rec->hello.period_ticks : rec->hello.tick_hz;
        }
        return 0;
    case AIOPROF_OP_TASK_NEW:
    case AIOPROF_OP_TASK_INFO:
        rec->kind = op == AIOPROF_OP_TASK_NEW ? AIOPROF_REC_TASK_NEW : AIOPROF_REC_TASK_INFO;
        return parse_task(&c, rec);
    case AIOPROF_OP_DROPPED:
        rec->kind = AIOPROF_REC_DROPPED;
        rec->count = cur_varint(&c);
        return c.bad ? -1 : 0;
    case AIOPROF_OP_LATE:
        /* varints to its end: count them (a damaged one damages the record) */
        rec->kind = AIOPROF_REC_LATE;
        rec->late = c.p;
        rec->late_len = len;
        rec->count = 0;
        while (c.p < c.end) {
            (void)cur_varint(&c);
            if (c.bad) {
                return -1;
            }
            rec->count++;
        }
        return 0;
    case AIOPROF_OP_SPAN_ENTER:
        rec->kind = AIOPROF_REC_SPAN_ENTER;
        rec->span_dt = cur_varint(&c);
        rec->id = cur_varint(&c);
        return c.bad || rec->id == 0 ? -1 : 0;
    case AIOPROF_OP_SPAN_EXIT:
        rec->kind = AIOPROF_REC_SPAN_EXIT;
        rec->span_dt = cur_varint(&c);
        return c.bad ? -1 : 0;
    case AIOPROF_OP_SPAN_NAME:
        rec->kind = AIOPROF_REC_SPAN_NAME;
        rec->id = cur_varint(&c);
        if (c.bad || rec->id == 0) {
            return -1;
        }
        rec->name = c.p;
        rec->name_len = (size_t)(c.end - c.p);
        return 0;
    case AIOPROF_OP_ALLOC:
        rec->kind = AIOPROF_REC_ALLOC;
        rec->count = cur_varint(&c);
        return c.bad ? -1 : 0;
    case AIOPROF_OP_GC:
        rec->kind = AIOPROF_REC_GC;
        rec->span_dt = cur_varint(&c);
        rec->duration = cur_varint(&c);
        return c.bad ? -1 : 0;
    case AIOPROF_OP_SPANS:
        /* its events are read where they took place, before the records that follow them
         * (aioprof_frame_span_events): here it is only skipped */
        return 1;
    default:
        /* an operation of a later version: skipped, and counted so that the host can say so */
        if (r) {
            r->stats.unknown_ops++;
            r->stats.unknown_op_mask |= 1u << (op & 0x0Fu);
        }
        return 1;
    }
}

/* What the frame's first records say about the frame: a HELLO of a device that just started (its
 * sequence numbers restart and a jump is not a loss), a DROPPED (after the HELLO, if any: the
 * device sent no frame while its ring was full). */
static void frame_opening(const uint8_t *p, const uint8_t *end, aioprof_frame_info_t *info)
{
    aioprof_record_t rec;
    info->boot = info->drops_first = 0;
    if (p < end && *p == (AIOPROF_TAG_CONTROL | AIOPROF_OP_HELLO)) {
        p++;
        if (aioprof_reader_control(NULL, &p, end, AIOPROF_OP_HELLO, &rec) != 0) {
            return;
        }
        info->boot = (rec.hello.flags & AIOPROF_HELLO_FLAG_BOOT) != 0;
    }
    info->drops_first = p < end && *p == (AIOPROF_TAG_CONTROL | AIOPROF_OP_DROPPED);
}

static uint32_t tick_mask(unsigned bits)
{
    return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
}

/* A frame seen already (a duplicated stretch of the stream) or one that arrives after frames that
 * followed it: its sequence number is a little behind the last one's, and its base lies among the
 * bases of the frames that window spans (the same tick width). A base outside them makes the same
 * number a wrap of the counter: frames were lost. */
static int seen_already(const aioprof_reader_t *r, const aioprof_frame_info_t *f)
{
    uint8_t behind = (uint8_t)(r->next_seq - 1u - f->seq);
    if (behind >= AIOPROF_REPEAT_WINDOW || AIOPROF_FORMAT_TICK_BITS(r->last_format) != f->tick_bits) {
        return 0;
    }
    uint32_t mask = tick_mask(f->tick_bits);
    uint32_t last = r->recent_base[(r->taken - 1u) % AIOPROF_REPEAT_WINDOW];
    uint32_t oldest = r->recent_base[r->taken % AIOPROF_REPEAT_WINDOW];
    return ((last - f->base) & mask) <= ((last - oldest) & mask);
}

/* The frame is taken: its base joins the window (a first frame, or a device's first, fills it). */
static void frame_taken(aioprof_reader_t *r, const aioprof_frame_info_t *f, uint8_t format)
{
    if (!r->have_seq || f->boot) {
        for (unsigned i = 0; i < AIOPROF_REPEAT_WINDOW; i++) {
            r->recent_base[i] = f->base;
        }
    }
    r->recent_base[r->taken % AIOPROF_REPEAT_WINDOW] = f->base;
    r->taken++;
    r->have_seq = 1;
    r->next_seq = (uint8_t)(f->seq + 1u);
    r->last_format = format;
    r->stats.frames++;
}

/* ---- the span list (op SPANS) ---- */

/* A varint of the list at *q, before end: *bad set when it runs past end or is too long. */
static uint32_t list_varint(const uint8_t **q, const uint8_t *end, int *bad)
{
    uint64_t v = aioprof_rec_varint(*q, end);
    *bad |= v == 0;
    *q += v >> 32;
    return (uint32_t)v;
}

/* The list's entries [q, end), newest first, as events into ev newest first (a PAIR's exit before
 * its enter), each `at` holding its step for now. Returns their count, or -1. */
static long list_entries(const uint8_t *q, const uint8_t *end, aioprof_span_event_t *ev)
{
    long n = 0;
    int bad = 0;
    while (q < end && !bad) {
        unsigned first = *q++;
        unsigned kind = first & AIOPROF_SPAN_ENTRY_KIND;
        uint32_t step = (first >> AIOPROF_SPAN_STEP_SHIFT) & 7u;
        uint32_t id = first & 7u;
        if (step > AIOPROF_SPAN_STEP_INLINE_MAX) {
            step = list_varint(&q, end, &bad);
        }
        uint32_t dt = list_varint(&q, end, &bad);
        uint32_t dur = kind == AIOPROF_SPAN_ENTRY_PAIR ? list_varint(&q, end, &bad) : 0u;
        if (kind == AIOPROF_SPAN_ENTRY_EXIT) {
            bad |= id != 0;
        } else if (id == 0) {
            id = list_varint(&q, end, &bad);
            bad |= id == 0;
        }
        bad |= kind > AIOPROF_SPAN_ENTRY_PAIR || dt + dur < dt;
        if (kind == AIOPROF_SPAN_ENTRY_PAIR) {
            ev[n++] = (aioprof_span_event_t){.at = 0, .dt = dt + dur, .id = 0};
        }
        ev[n++] = (aioprof_span_event_t){.at = step, .dt = dt, .id = kind == AIOPROF_SPAN_ENTRY_EXIT ? 0u : id};
    }
    return bad ? -1 : n;
}

long aioprof_frame_span_events(const uint8_t *p, const uint8_t *end, aioprof_span_event_t *ev, long *list)
{
    /* every record's start, a bit per byte: the places the list may name */
    uint8_t starts[AIOPROF_BODY_MAX / 8u] = {0};
    const uint8_t *first = p, *body = NULL, *body_end = NULL;
    long at_list = -1;
    if (list) {
        *list = -1;
    }
    if (end - p > (long)AIOPROF_BODY_MAX) {
        return -1;
    }
    while (p < end) {
        size_t off = (size_t)(p - first);
        starts[off / 8u] |= (uint8_t)(1u << (off % 8u));
        unsigned tag = *p++;
        if (!AIOPROF_TAG_IS_ENTER(tag) && AIOPROF_TAG_IS_CONTROL(tag)) {
            uint64_t v = aioprof_rec_varint(p, end);
            uint32_t len = (uint32_t)v;
            p += v >> 32;
            if (v == 0 || len > (size_t)(end - p)) {
                return -1;
            }
            if ((tag & 0x0Fu) == AIOPROF_OP_SPANS && at_list < 0) {
                at_list = (long)off;
                body = p;
                body_end = p + len;
            }
            p += len;
        } else {
            uint32_t dt, id;
            p = aioprof_rec_event(p, end, tag, &dt, &id);
            if (p == NULL) {
                return -1;
            }
        }
    }
    if (list) {
        *list = at_list;
    }
    if (at_list < 0) {
        return 0;
    }
    long n = list_entries(body, body_end, ev);
    if (n < 0) {
        return -1;
    }
    /* oldest first; the places are the steps' sums from the first record on */
    for (long i = 0, j = n - 1; i < j; i++, j--) {
        aioprof_span_event_t t = ev[i];
        ev[i] = ev[j];
        ev[j] = t;
    }
    uint32_t at = 0;
    for (long i = 0; i < n; i++) {
        at += ev[i].at;
        if (at > (uint32_t)at_list || !((starts[at / 8u] >> (at % 8u)) & 1u)) {
            return -1;
        }
        ev[i].at = at;
    }
    return n;
}

/* The span events at offset `at` of the frame (those of ev[*next..n) placed there), as
 * SPAN_ENTER and SPAN_EXIT records after the event at `offset`. Returns how many were passed on. */
static long span_events_at(aioprof_reader_t *r, const aioprof_span_event_t *ev, long n, long *next, uint32_t at,
    uint64_t offset)
{
    long k = 0;
    for (; *next < n && ev[*next].at == at; (*next)++, k++) {
        aioprof_record_t rec;
        memset(&rec, 0, sizeof rec);
        rec.kind = ev[*next].id ? AIOPROF_REC_SPAN_ENTER : AIOPROF_REC_SPAN_EXIT;
        rec.id = ev[*next].id;
        rec.span_dt = ev[*next].dt;
        rec.offset = offset + rec.span_dt;
        if (r->sink.record) {
            r->sink.record(r->user, &rec);
        }
    }
    return k;
}

/* The frame's records, one struct and one call each: for a user that takes them so. A span list's
 * events come where they took place. */
static long records_each(aioprof_reader_t *r, const uint8_t *p, const uint8_t *end)
{
    aioprof_span_event_t spans[AIOPROF_SPAN_EVENTS_MAX];
    const uint8_t *first = p;
    long list;
    long n_spans = aioprof_frame_span_events(p, end, spans, &list);
    long next = 0;
    uint64_t offset = 0;
    long n = 0;
    while (p < end) {
        aioprof_record_t rec;
        if (n_spans > 0) {
            n += span_events_at(r, spans, n_spans, &next, (uint32_t)(p - first), offset);
        } else if (n_spans < 0 && p - first == list) {
            return -1 - n; /* a damaged list: the frame's records before it were passed on */
        }
        unsigned tag = *p++;
        int rc = 0;
        rec.name_len = rec.label_len = 0;
        if (AIOPROF_TAG_IS_CONTROL(tag)) {
            rc = aioprof_reader_control(r, &p, end, tag & 0x0Fu, &rec);
        } else {
            p = aioprof_rec_event(p, end, tag, &rec.dt, &rec.id);
            if (p == NULL) {
                rc = -1;
            } else if (AIOPROF_TAG_IS_ENTER(tag)) {
                rec.kind = AIOPROF_REC_ENTER;
            } else {
                rec.kind = AIOPROF_REC_EXIT;
                rec.exit_kind = AIOPROF_TAG_EXIT_KIND(tag);
            }
            offset += rc == 0 ? rec.dt : 0;
        }
        if (rc < 0) {
            return -1 - n;
        }
        if (rc > 0) {
            continue;
        }
        rec.offset = offset;
        if (rec.kind == AIOPROF_REC_SPAN_ENTER || rec.kind == AIOPROF_REC_SPAN_EXIT || rec.kind == AIOPROF_REC_GC) {
            rec.offset += rec.span_dt; /* spans and collections do not move the events' time line */
        }
        n++;
        if (r->sink.record) {
            r->sink.record(r->user, &rec);
        }
    }
    return n;
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
    frame_opening(c.p, c.end, &info);
    if (r->have_seq && info.seq != r->next_seq && !info.boot) {
        if (seen_already(r, &info)) {
            r->stats.duplicates++;
            return 0;
        }
        info.lost_before = (uint8_t)(info.seq - r->next_seq);
    }
    r->stats.lost_frames += info.lost_before;
    frame_taken(r, &info, body[1]);
    long n;
    if (r->sink.frame_records) {
        n = r->sink.frame_records(r->user, r, &info, c.p, c.end);
    } else {
        if (r->sink.frame) {
            r->sink.frame(r->user, &info);
        }
        n = records_each(r, c.p, c.end);
    }
    if (n < 0) {
        r->stats.records += (uint64_t)(-1 - n);
        r->stats.malformed++;
        return -1;
    }
    r->stats.records += (uint64_t)n;
    return 0;
}

/* ---- segments that are not frames: device text or damage (docs/protocol.md section 1) ---- */

/* The control bytes device text uses: EOT (MicroPython's raw REPL ends its output with two), BEL,
 * BS, TAB, LF, CR, ESC. Every other byte below 0x20, and DEL, is binary: rare in text, common in
 * frames (code bytes, short dt, lengths, ids). */
#define TEXT_CONTROLS ((1u << 0x04) | (1u << 0x07) | (1u << 0x08) | (1u << 0x09) | (1u << 0x0A) | \
    (1u << 0x0D) | (1u << 0x1B))
/* Damage: at least this many binary bytes and at least one in BINARY_SHARE, or nothing else. */
#define BINARY_MIN 3u
#define BINARY_SHARE 8u
/* A base within this many periods after the last frame's is the next frame's. */
#define BASE_WINDOW_PERIODS 4u

static size_t count_binary(const uint8_t *data, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        uint8_t b = data[i];
        n += (b < 0x20 && !((TEXT_CONTROLS >> b) & 1u)) || b == 0x7F;
    }
    return n;
}

static int binary_enough(size_t binary, size_t len)
{
    return binary == len || (binary >= BINARY_MIN && binary * BINARY_SHARE >= len);
}

/* Does the encoded segment carry the header the next frame would have? Its body starts at seg[1]:
 * seq, format, base (a zero byte of the body is a COBS code byte in the segment). A damaged byte,
 * lost or inserted before them, moves them by one: each is looked for one byte either side. */
static int header_expected(const aioprof_reader_t *r, const uint8_t *s, size_t n)
{
    if (!r->have_seq) {
        return 0;
    }
    uint8_t seq = r->next_seq, fmt = r->last_format;
    int seq_at = 0, fmt_at = 0;
    for (size_t i = 0; i < 3 && i + 1 < n; i++) {
        /* the sequence number and the format byte side by side */
        if (s[i] == seq && s[i + 1] == fmt) {
            return 1;
        }
        seq_at |= s[i] == seq;
        fmt_at |= s[i + 1] == fmt;
    }
    if (seq == 0 && n > 2 && s[0] == 1 && s[2] == fmt) {
        return 1; /* seq 0 is a zero byte: the first code byte is 1 */
    }
    if (!seq_at && !fmt_at) {
        return 0;
    }
    /* one of the two, and a base a little after the last frame's */
    unsigned bits = AIOPROF_FORMAT_TICK_BITS(fmt);
    uint32_t mask = tick_mask(bits);
    uint32_t last = r->recent_base[(r->taken - 1u) % AIOPROF_REPEAT_WINDOW];
    uint64_t window = (uint64_t)r->period_ticks * BASE_WINDOW_PERIODS;
    for (size_t i = 2; i <= 4 && i + 4 <= n; i++) {
        uint32_t base = (uint32_t)s[i] | (uint32_t)s[i + 1] << 8 | (uint32_t)s[i + 2] << 16 | (uint32_t)s[i + 3] << 24;
        if ((base & ~mask) == 0 && ((base - last) & mask) < window) {
            return 1;
        }
    }
    return 0;
}

int aioprof_reader_looks_like_frame(const aioprof_reader_t *r, const uint8_t *seg, size_t len)
{
    return binary_enough(count_binary(seg, len), len) || header_expected(r, seg, len);
}

/* A damaged frame; before the first delimiter, the tail of a frame the reader joined late. */
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

/* A whole segment (1 to AIOPROF_SEGMENT_MAX bytes, no 0x00 in it) ended at a delimiter: a frame,
 * damage or device text. */
static void segment_judge(aioprof_reader_t *r, const uint8_t *seg, size_t len)
{
    uint8_t body[AIOPROF_SEGMENT_MAX];
    long n = aioprof_cobs_decode_segment(seg, len, body);
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
    if (aioprof_reader_looks_like_frame(r, seg, len)) {
        count_damage(r, len);
    } else {
        pass_text(r, seg, len);
    }
}

/* The segment gathered in r->seg ended at a delimiter. */
static void segment_end(aioprof_reader_t *r)
{
    size_t len = r->seg_len;
    r->seg_len = 0;
    if (r->long_text || r->long_damage) {
        r->long_text = r->long_damage = 0;
        return;
    }
    if (len > 0) {
        segment_judge(r, r->seg, len);
    }
}

/* Bytes of the current segment, before its delimiter. */
static void segment_add(aioprof_reader_t *r, const uint8_t *data, size_t n)
{
    if (n == 0) {
        return;
    }
    if (r->long_damage) {
        if (!r->synced) {
            r->stats.skipped_bytes += n;
        }
        return;
    }
    if (r->long_text) {
        pass_text(r, data, n);
        return;
    }
    size_t room = AIOPROF_SEGMENT_MAX - r->seg_len;
    if (n <= room) {
        memcpy(r->seg + r->seg_len, data, n);
        r->seg_len += (uint32_t)n;
        return;
    }
    /* too long for a frame: judged on its first AIOPROF_SEGMENT_MAX bytes (however the bytes came
     * in pieces), device text to its end, or damage */
    memcpy(r->seg + r->seg_len, data, room);
    if (binary_enough(count_binary(r->seg, AIOPROF_SEGMENT_MAX), AIOPROF_SEGMENT_MAX)) {
        count_damage(r, AIOPROF_SEGMENT_MAX + (n - room));
        r->long_damage = 1;
    } else {
        pass_text(r, r->seg, AIOPROF_SEGMENT_MAX);
        pass_text(r, data + room, n - room);
        r->long_text = 1;
    }
    r->seg_len = 0;
}

void aioprof_reader_feed(aioprof_reader_t *r, const uint8_t *data, size_t len)
{
    r->stats.bytes += len;
    while (len > 0) {
        const uint8_t *zero = memchr(data, 0, len);
        size_t n = zero ? (size_t)(zero - data) : len;
        if (zero && r->seg_len == 0 && !r->long_text && !r->long_damage && n <= AIOPROF_SEGMENT_MAX) {
            /* a whole segment in what was fed (most of them): judged where it is, not copied */
            if (n > 0) {
                segment_judge(r, data, n);
            }
        } else {
            segment_add(r, data, n);
            if (!zero) {
                return;
            }
            segment_end(r);
        }
        r->synced = 1;
        data += n + 1;
        len -= n + 1;
    }
}

void aioprof_reader_finish(aioprof_reader_t *r)
{
    segment_end(r);
}
