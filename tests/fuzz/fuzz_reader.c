/* libFuzzer target for the frame reader (proto/aioprof_frame_reader.h): any bytes, fed in pieces.
 *
 * The first two input bytes choose how the rest is cut (the largest piece and a seed for the
 * sizes), so the fuzzer explores segment and COBS boundaries falling anywhere. Besides what the
 * sanitizers catch (every pointer the reader hands out is read to its end), it checks:
 *  - the same bytes fed in one piece give the same frames, records and error counts: what the
 *    reader decodes must not depend on how the bytes arrived;
 *  - the counters agree with the callbacks, and every byte fed is counted;
 *  - record offsets never go back within a frame, EXIT kinds are known, ENTER ids are not 0;
 *  - the same bytes taken as one frame's records (past the CRC, which random bytes rarely pass)
 *    are read within bounds, and the span list's events (aioprof_frame_span_events) come in
 *    time order at places that never pass the list's.
 * A failed check aborts, which libFuzzer reports as a crash with the input saved. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aioprof_frame_reader.h"
#include "aioprof_varint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_digest {
    uint64_t hash;       /* frames and records, in order */
    uint64_t text_hash;  /* device text bytes, in order */
    uint64_t frames;
    uint64_t records;
    uint64_t text_bytes;
    uint64_t last_offset;
} fuzz_digest_t;

static void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz_reader: check failed: %s\n", what);
    abort();
}

/* FNV-1a, one value at a time. */
static void fuzz_mix(uint64_t *h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        *h ^= (uint8_t)(v >> (8 * i));
        *h *= 0x100000001B3ull;
    }
}

static void fuzz_mix_bytes(uint64_t *h, const uint8_t *p, size_t len)
{
    fuzz_mix(h, len);
    for (size_t i = 0; i < len; i++) {
        *h ^= p[i];
        *h *= 0x100000001B3ull;
    }
}

static void fuzz_frame(void *user, const aioprof_frame_info_t *f)
{
    fuzz_digest_t *d = user;
    d->frames++;
    d->last_offset = 0;
    fuzz_mix(&d->hash, 0xF0);
    fuzz_mix(&d->hash, f->seq);
    fuzz_mix(&d->hash, f->tick_bits);
    fuzz_mix(&d->hash, f->base);
    fuzz_mix(&d->hash, f->running);
    fuzz_mix(&d->hash, f->lost_before);
    if (f->tick_bits < 1 || f->tick_bits > 32) {
        fuzz_fail("frame tick_bits outside 1..32");
    }
}

static void fuzz_record(void *user, const aioprof_record_t *r)
{
    fuzz_digest_t *d = user;
    d->records++;
    /* events go forward within their frame; a span's or a collection's place is after the last
     * event before it (a later event may come before it: a hostile stream's) */
    if (r->kind == AIOPROF_REC_ENTER || r->kind == AIOPROF_REC_EXIT) {
        if (r->offset < d->last_offset) {
            fuzz_fail("a record's offset went back within its frame");
        }
        d->last_offset = r->offset;
    }
    fuzz_mix(&d->hash, r->kind);
    switch (r->kind) {
    case AIOPROF_REC_ENTER:
        if (r->id == 0) {
            fuzz_fail("ENTER of task 0");
        }
        fuzz_mix(&d->hash, r->offset);
        fuzz_mix(&d->hash, r->id);
        break;
    case AIOPROF_REC_EXIT:
        if (r->exit_kind > AIOPROF_EXIT_CANCEL) {
            fuzz_fail("EXIT of an unknown kind");
        }
        fuzz_mix(&d->hash, r->offset);
        fuzz_mix(&d->hash, r->exit_kind);
        break;
    case AIOPROF_REC_TASK_NEW:
    case AIOPROF_REC_TASK_INFO:
        fuzz_mix(&d->hash, r->id);
        fuzz_mix(&d->hash, r->parent);
        fuzz_mix_bytes(&d->hash, r->name, r->name_len);
        fuzz_mix_bytes(&d->hash, r->label, r->label_len);
        break;
    case AIOPROF_REC_HELLO:
        fuzz_mix(&d->hash, r->hello.version);
        fuzz_mix(&d->hash, r->hello.tick_hz);
        fuzz_mix(&d->hash, r->hello.tick_bits);
        fuzz_mix(&d->hash, r->hello.flags);
        fuzz_mix(&d->hash, r->hello.dropped_total);
        fuzz_mix(&d->hash, r->hello.late_unit);
        fuzz_mix_bytes(&d->hash, r->hello.platform, r->hello.platform_len);
        break;
    case AIOPROF_REC_DROPPED:
        fuzz_mix(&d->hash, r->count);
        break;
    case AIOPROF_REC_LATE: {
        /* its values are whole varints that fill its body, as many as it counts */
        size_t at = 0;
        uint32_t values = 0;
        while (at < r->late_len) {
            uint32_t v = 0;
            size_t n = aioprof_varint_get(r->late + at, r->late_len - at, &v);
            if (n == 0) {
                fuzz_fail("a LATE record with a damaged value passed on");
            }
            at += n;
            values++;
            fuzz_mix(&d->hash, v);
        }
        if (values != r->count) {
            fuzz_fail("a LATE record's count is not its values");
        }
        break;
    }
    case AIOPROF_REC_SPAN_ENTER:
    case AIOPROF_REC_SPAN_EXIT:
    case AIOPROF_REC_GC:
        if (r->offset < d->last_offset) {
            fuzz_fail("a span or collection placed before the frame's last event");
        }
        /* only the fields the kind defines (aioprof_frame_reader.h) */
        fuzz_mix(&d->hash, r->offset);
        fuzz_mix(&d->hash, r->span_dt);
        if (r->kind == AIOPROF_REC_SPAN_ENTER) {
            fuzz_mix(&d->hash, r->id);
        }
        if (r->kind == AIOPROF_REC_GC) {
            fuzz_mix(&d->hash, r->duration);
        }
        break;
    case AIOPROF_REC_SPAN_NAME:
        fuzz_mix(&d->hash, r->id);
        fuzz_mix_bytes(&d->hash, r->name, r->name_len);
        break;
    case AIOPROF_REC_ALLOC:
        fuzz_mix(&d->hash, r->count);
        break;
    default:
        fuzz_fail("a record of an unknown kind");
    }
}

static void fuzz_text(void *user, const uint8_t *text, size_t len)
{
    fuzz_digest_t *d = user;
    d->text_bytes += len;
    for (size_t i = 0; i < len; i++) {
        d->text_hash ^= text[i];
        d->text_hash *= 0x100000001B3ull;
    }
}

static const aioprof_reader_sink_t fuzz_sink = {.frame = fuzz_frame, .record = fuzz_record, .text = fuzz_text};

/* Feeds data in pieces of 1..max bytes (max 0: all at once); returns what the sink saw. */
static void fuzz_run(aioprof_reader_t *r, fuzz_digest_t *d, const uint8_t *data, size_t size,
    size_t max, uint32_t seed)
{
    memset(d, 0, sizeof *d);
    d->hash = d->text_hash = 0xCBF29CE484222325ull;
    aioprof_reader_init(r, &fuzz_sink, d);
    size_t at = 0;
    while (at < size) {
        size_t piece = size - at;
        if (max > 0) {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            size_t n = 1u + seed % max;
            piece = n < piece ? n : piece;
        }
        aioprof_reader_feed(r, data + at, piece);
        at += piece;
    }
    aioprof_reader_finish(r);

    if (r->stats.bytes != size) {
        fuzz_fail("stats.bytes is not the number of bytes fed");
    }
    if (r->stats.frames != d->frames || r->stats.records != d->records) {
        fuzz_fail("frame or record counters disagree with the callbacks");
    }
    if (r->stats.text_bytes != d->text_bytes) {
        fuzz_fail("text_bytes disagrees with the text passed on");
    }
}

/* The bytes as the records of one frame (a header before them, the CRC's two bytes after: the
 * reader's body parser does not check it), through the record sink's checks; then its span list. */
static void fuzz_records(const uint8_t *data, size_t size)
{
    static aioprof_reader_t r;
    static uint8_t body[AIOPROF_BODY_MAX];
    static aioprof_span_event_t ev[AIOPROF_SPAN_EVENTS_MAX];
    const size_t head = AIOPROF_HEADER_FIXED + 1u;
    size_t n = size < AIOPROF_BODY_MAX - head - 2u ? size : AIOPROF_BODY_MAX - head - 2u;
    fuzz_digest_t d;
    memset(&d, 0, sizeof d);
    memset(body, 0, head);
    body[1] = AIOPROF_FORMAT(32);
    memcpy(body + head, data, n);
    body[head + n] = body[head + n + 1] = 0;
    aioprof_reader_init(&r, &fuzz_sink, &d);
    (void)aioprof_reader_body(&r, body, head + n + 2u);
    long list;
    long k = aioprof_frame_span_events(body + head, body + head + n, ev, &list);
    if (k > (long)AIOPROF_SPAN_EVENTS_MAX || (k > 0 && list < 0)) {
        fuzz_fail("a span list's events past their bound, or without a list");
    }
    for (long i = 0; i < k; i++) {
        if ((long)ev[i].at > list || (i > 0 && ev[i].at < ev[i - 1].at)) {
            fuzz_fail("a span list's event out of order or after the list");
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static aioprof_reader_t pieces, whole;
    fuzz_digest_t a, b;
    if (size < 2) {
        return 0;
    }
    /* Largest piece 1, 2, 4 ... 2048 bytes. */
    size_t max = (size_t)1u << (data[0] % 12u);
    uint32_t seed = 0x9E3779B9u ^ (uint32_t)data[1] * 0x01000193u;
    data += 2;
    size -= 2;

    fuzz_run(&pieces, &a, data, size, max, seed);
    fuzz_run(&whole, &b, data, size, 0, 0);

    if (a.hash != b.hash || a.frames != b.frames || a.records != b.records) {
        fuzz_fail("pieces and whole decoded different frames or records");
    }
    if (pieces.stats.crc_errors != whole.stats.crc_errors ||
        pieces.stats.lost_frames != whole.stats.lost_frames ||
        pieces.stats.malformed != whole.stats.malformed ||
        pieces.stats.unsupported != whole.stats.unsupported) {
        fuzz_fail("pieces and whole counted different errors");
    }
    fuzz_records(data, size);
    return 0;
}
