/* SHA-256 (FIPS 180-4), for --install: the files the host sends to a board are compared with
 * what the board holds by this hash (hashlib.sha256 on the board), and with the manifest's. Also
 * Adler-32 (RFC 1950), the checksum a board without hashlib computes in Python instead. */
#ifndef AIOPROF_SHA256_H
#define AIOPROF_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256 {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t block[64];
    size_t used;
} sha256_t;

void sha256_init(sha256_t *s);
void sha256_update(sha256_t *s, const void *data, size_t len);
void sha256_final(sha256_t *s, uint8_t digest[32]);

/* The digest of data[0..len) as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t len, char hex[65]);

/* Adler-32 of data[0..len): as zlib's adler32(1, data, len). */
uint32_t adler32(const void *data, size_t len);

#endif
