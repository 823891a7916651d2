/* Unsigned LEB128 varints below 2^32: at most AIOPROF_VARINT_MAX bytes. */
#ifndef AIOPROF_VARINT_H
#define AIOPROF_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Writes value to out (room for AIOPROF_VARINT_MAX bytes); returns the bytes written (1..5). */
size_t aioprof_varint_put(uint8_t *out, uint32_t value);

/* Reads a varint from in[0..len). Returns the bytes consumed, or 0 when the input ends inside the
 * varint, runs past 5 bytes, or does not fit 32 bits: the caller treats 0 as a damaged record. */
size_t aioprof_varint_get(const uint8_t *in, size_t len, uint32_t *value);

/* Bytes that aioprof_varint_put would write. */
static inline size_t aioprof_varint_len(uint32_t value)
{
    size_t n = 1;
    while (value >= 0x80u) {
        value >>= 7;
        n++;
    }
    return n;
}

#endif
