/* The raw bytes of the last seconds, for --capture-hogs (hog_ring.h). */
#include "hog_ring.h"

#include <stdlib.h>
#include <string.h>

#include "aioprof_cobs.h"
#include "aioprof_crc16.h"
#include "aioprof_varint.h"
#include "aioprof_wire.h"

enum { CHUNK_DATA, CHUNK_DOWN, CHUNK_UP };

typedef struct hog_chunk {
    uint64_t host_us;
    uint64_t dev_before, dev_after; /* the decoder's device time before and after its bytes */
    size_t off, len;                /* its bytes in buf */
    uint8_t type;
} hog_chunk_t;

struct hog_ring {
    uint8_t *buf;
    size_t cap, used;       /* buf[0 .. used) holds the kept chunks' bytes (and dropped ones' before head's) */
    hog_chunk_t *chunks;
    size_t head, n, chunks_cap; /* chunks[head .. n) are kept */
    size_t max_bytes;
    uint64_t keep_us;
    uint64_t last_dev;
};

hog_ring_t *hog_ring_new(size_t max_bytes, uint64_t keep_us)
{
    hog_ring_t *r = calloc(1, sizeof *r);
    if (r == NULL) {
        return NULL;
    }
    r->max_bytes = max_bytes;
    r->cap = max_bytes;
    r->keep_us = keep_us;
    r->buf = malloc(r->cap);
    if (r->buf == NULL) {
        free(r);
        return NULL;
    }
    return r;
}

void hog_ring_free(hog_ring_t *r)
{
    if (r != NULL) {
        free(r->buf);
        free(r->chunks);
        free(r);
    }
}

void hog_ring_clear(hog_ring_t *r)
{
    if (r != NULL) {
        r->head = r->n = r->used = 0;
        r->last_dev = 0;
    }
}

uint64_t hog_ring_oldest_us(const hog_ring_t *r)
{
    return r != NULL && r->head < r->n ? r->chunks[r->head].dev_before : UINT64_MAX;
}

/* The kept bytes and chunks moved to the front. */
static void compact(hog_ring_t *r)
{
    size_t from = r->head < r->n ? r->chunks[r->head].off : r->used;
    memmove(r->buf, r->buf + from, r->used - from);
    r->used -= from;
    memmove(r->chunks, r->chunks + r->head, (r->n - r->head) * sizeof *r->chunks);
    r->n -= r->head;
    r->head = 0;
    for (size_t i = 0; i < r->n; i++) {
        r->chunks[i].off -= from;
    }
}

/* The oldest chunks dropped until len more bytes fit and none is older than the keep time. */
static void make_room(hog_ring_t *r, size_t len, uint64_t dev_now)
{
    size_t kept = r->head < r->n ? r->used - r->chunks[r->head].off : 0;
    while (r->head < r->n &&
           (kept + len > r->max_bytes || dev_now - r->chunks[r->head].dev_after > r->keep_us)) {
        kept -= r->chunks[r->head].len;
        r->head++;
    }
    if (r->used + len > r->cap || r->head > r->n / 2 + 64) {
        compact(r);
    }
}

static hog_chunk_t *add_chunk(hog_ring_t *r)
{
    if (r->n == r->chunks_cap) {
        if (r->head > 0) {
            compact(r);
        }
        if (r->n == r->chunks_cap) {
            size_t cap = r->chunks_cap ? r->chunks_cap * 2 : 1024;
            hog_chunk_t *c = realloc(r->chunks, cap * sizeof *c);
            if (c == NULL) {
                return NULL;
            }
            r->chunks = c;
            r->chunks_cap = cap;
        }
    }
    return &r->chunks[r->n++];
}

void hog_ring_data(hog_ring_t *r, uint64_t host_us, uint64_t dev_us, const uint8_t *data, size_t len)
{
    if (r == NULL || len == 0) {
        return;
    }
    if (len > r->max_bytes) {
        /* a read longer than the ring: its end */
        data += len - r->max_bytes;
        len = r->max_bytes;
    }
    make_room(r, len, dev_us);
    hog_chunk_t *c = add_chunk(r);
    if (c == NULL) {
        return; /* out of memory: these bytes are not kept (a capture spanning them has a hole) */
    }
    memcpy(r->buf + r->used, data, len);
    *c = (hog_chunk_t){.host_us = host_us, .dev_before = r->last_dev, .dev_after = dev_us, .off = r->used,
        .len = len, .type = CHUNK_DATA};
    r->used += len;
    r->last_dev = dev_us;
}

void hog_ring_link(hog_ring_t *r, int up, uint64_t host_us, uint64_t dev_us)
{
    if (r == NULL) {
        return;
    }
    make_room(r, 0, dev_us);
    hog_chunk_t *c = add_chunk(r);
    if (c != NULL) {
        *c = (hog_chunk_t){.host_us = host_us, .dev_before = dev_us, .dev_after = dev_us, .off = r->used,
            .type = up ? CHUNK_UP : CHUNK_DOWN};
    }
    r->last_dev = dev_us;
}

/* A position in the stretch: a chunk and a byte in it. */
typedef struct pos {
    size_t chunk, at;
} pos_t;

/* Is the segment seg (n bytes, no 0x00) a frame? Fills *f. */
static int segment_frame(const uint8_t *seg, size_t n, hog_first_frame_t *f)
{
    uint8_t body[AIOPROF_SEGMENT_MAX];
    if (n < 2 || n > AIOPROF_SEGMENT_MAX) {
        return 0;
    }
    long len = aioprof_cobs_decode_segment(seg, n, body);
    if (len < (long)AIOPROF_BODY_MIN || len > (long)AIOPROF_BODY_MAX ||
        AIOPROF_FORMAT_VERSION(body[1]) != AIOPROF_PROTOCOL_VERSION) {
        return 0;
    }
    uint16_t crc = (uint16_t)(body[len - 2] | body[len - 1] << 8);
    if (aioprof_crc16(AIOPROF_CRC16_INIT, body, (size_t)len - 2) != crc) {
        return 0;
    }
    f->seq = body[0];
    f->format = body[1];
    f->base = (uint32_t)body[2] | (uint32_t)body[3] << 8 | (uint32_t)body[4] << 16 | (uint32_t)body[5] << 24;
    f->running = 0;
    size_t end = (size_t)len - 2, at = AIOPROF_HEADER_FIXED;
    size_t k = aioprof_varint_get(body + at, end - at, &f->running);
    if (k == 0) {
        return 0;
    }
    at += k;
    /* a boot HELLO first: tag, length, version, tick_hz, tick_bits, ring_bytes, flags */
    f->boot = 0;
    if (at < end && body[at] == (AIOPROF_TAG_CONTROL | AIOPROF_OP_HELLO)) {
        uint32_t v;
        size_t p = at + 1;
        for (int field = 0; field < 3 && p < end; field++) {
            size_t m = aioprof_varint_get(body + p, end - p, &v); /* length, version, tick_hz */
            p = m ? p + m : end;
        }
        p++; /* tick_bits */
        size_t m = p < end ? aioprof_varint_get(body + p, end - p, &v) : 0; /* ring_bytes */
        p += m;
        f->boot = m > 0 && p < end && (body[p] & AIOPROF_HELLO_FLAG_BOOT) != 0;
    }
    return 1;
}

int hog_ring_write(const hog_ring_t *r, recorder_t *rec, uint64_t from_us, uint64_t to_us, hog_context_fn context,
    void *user)
{
    if (r == NULL || rec == NULL) {
        recorder_close(rec, 0);
        return -1;
    }
    /* the chunks that hold device time in [from, to] */
    size_t first = r->head, end = r->head;
    while (first < r->n && r->chunks[first].dev_after < from_us) {
        first++;
    }
    end = first;
    while (end < r->n && r->chunks[end].dev_before <= to_us) {
        end++;
    }
    /* start after the first delimiter, stop after the last */
    pos_t start = {end, 0}, stop = {first, 0};
    for (size_t i = first; i < end && start.chunk == end; i++) {
        const hog_chunk_t *c = &r->chunks[i];
        const uint8_t *z = c->type == CHUNK_DATA ? memchr(r->buf + c->off, 0, c->len) : NULL;
        if (z != NULL) {
            start = (pos_t){i, (size_t)(z - (r->buf + c->off)) + 1};
        }
    }
    for (size_t i = end; i-- > first;) {
        const hog_chunk_t *c = &r->chunks[i];
        size_t k = c->type == CHUNK_DATA ? c->len : 0;
        while (k > 0 && r->buf[c->off + k - 1] != 0) {
            k--;
        }
        if (k > 0) {
            stop = (pos_t){i, k};
            break;
        }
    }
    if (start.chunk >= end || stop.chunk < start.chunk || (stop.chunk == start.chunk && stop.at <= start.at)) {
        recorder_close(rec, 0);
        return -1;
    }
    /* the first whole frame: segments read across chunks */
    hog_first_frame_t ff;
    int found = 0;
    uint8_t seg[AIOPROF_SEGMENT_MAX + 1];
    size_t seg_len = 0;
    for (size_t i = start.chunk; i <= stop.chunk && !found; i++) {
        const hog_chunk_t *c = &r->chunks[i];
        if (c->type != CHUNK_DATA) {
            seg_len = 0;
            continue;
        }
        size_t a = i == start.chunk ? start.at : 0, b = i == stop.chunk ? stop.at : c->len;
        for (size_t k = a; k < b && !found; k++) {
            uint8_t byte = r->buf[c->off + k];
            if (byte == 0) {
                found = segment_frame(seg, seg_len, &ff);
                seg_len = 0;
            } else if (seg_len < sizeof seg) {
                seg[seg_len++] = byte;
            }
        }
    }
    if (!found) {
        recorder_close(rec, 0);
        return -1;
    }
    size_t ctx_len = 0;
    uint8_t *ctx = context != NULL ? context(user, &ff, &ctx_len) : NULL;
    uint64_t t0 = r->chunks[start.chunk].host_us;
    if (ctx != NULL && ctx_len > 0) {
        recorder_data(rec, t0, ctx, ctx_len);
    }
    free(ctx);
    uint64_t last = t0;
    for (size_t i = start.chunk; i <= stop.chunk; i++) {
        const hog_chunk_t *c = &r->chunks[i];
        last = c->host_us > last ? c->host_us : last;
        if (c->type != CHUNK_DATA) {
            recorder_link(rec, c->type == CHUNK_UP, last);
            continue;
        }
        size_t a = i == start.chunk ? start.at : 0, b = i == stop.chunk ? stop.at : c->len;
        if (b > a) {
            recorder_data(rec, last, r->buf + c->off + a, b - a);
        }
    }
    return recorder_close(rec, last);
}
