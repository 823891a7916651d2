/* The recording file format (docs/recording.md is its byte-for-byte description), shared by the
 * recorder that writes it and the file source that reads it.
 *
 *   header:  magic (8 bytes) | version (u16 LE) | metadata length (u32 LE) | metadata (JSON, UTF-8)
 *   chunks:  type (u8) | time (varint, µs since the session started) | length (varint) | data
 *
 * Varints are unsigned LEB128 of up to 64 bits (10 bytes). */
#ifndef AIOPROF_RECORDING_H
#define AIOPROF_RECORDING_H

#include <stddef.h>
#include <stdint.h>

#define RECORDING_MAGIC "\x89" "AIOPREC"
#define RECORDING_MAGIC_LEN 8u
#define RECORDING_VERSION 1u
#define RECORDING_HEADER_FIXED 14u          /* magic, version, metadata length */
#define RECORDING_METADATA_MAX (64u * 1024u)
#define RECORDING_CHUNK_DATA_MAX (1024u * 1024u)
#define RECORDING_VARINT64_MAX 10u
#define RECORDING_CHUNK_HEAD_MAX (1u + 2u * RECORDING_VARINT64_MAX)

typedef enum recording_chunk_type {
    RECORDING_CHUNK_DATA = 1,       /* bytes as received from the port */
    RECORDING_CHUNK_LINK_DOWN = 2,  /* the port went away; no data */
    RECORDING_CHUNK_LINK_UP = 3,    /* it came back; no data */
    RECORDING_CHUNK_END = 4,        /* the session was closed cleanly; nothing follows */
} recording_chunk_type_t;

/* Writes v; returns the bytes written (1..10). */
static inline size_t recording_varint_put(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80u) {
        out[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* Reads a varint from in[0..len). Returns the bytes used, 0 when the input ends inside it, or -1
 * when it is longer than 10 bytes or does not fit 64 bits (damage). */
static inline int recording_varint_get(const uint8_t *in, size_t len, uint64_t *v)
{
    uint64_t value = 0;
    for (size_t i = 0; i < RECORDING_VARINT64_MAX; i++) {
        if (i == len)
            return 0;
        uint64_t part = in[i] & 0x7Fu;
        if (i == 9 && part > 1u)
            return -1;
        value |= part << (7u * i);
        if ((in[i] & 0x80u) == 0) {
            *v = value;
            return (int)(i + 1);
        }
    }
    return -1;
}

/* A chunk header: returns its length (at most RECORDING_CHUNK_HEAD_MAX). */
static inline size_t recording_chunk_head(uint8_t *out, recording_chunk_type_t type, uint64_t time_us, uint64_t len)
{
    size_t n = 0;
    out[n++] = (uint8_t)type;
    n += recording_varint_put(out + n, time_us);
    n += recording_varint_put(out + n, len);
    return n;
}

#endif
