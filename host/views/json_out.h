/* JSON text written straight into a buffer, without building a tree: for the trace export's
 * slices, millions of them (export_trace.c). Strings are escaped exactly as cJSON escapes them, so
 * that a file reads the same whichever of the two wrote an event (tests/unit/test_export_trace.c
 * compares them byte for byte). */
#ifndef AIOPROF_JSON_OUT_H
#define AIOPROF_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Room json_string may need for a string of n bytes: quotes, and six bytes per escaped byte. */
#define JSON_STRING_MAX(n) (2u + 6u * (n))
/* Room json_u64 may need: twenty digits. */
#define JSON_U64_MAX 20u

/* s (NUL-terminated) as a JSON string, quotes included, at out. Returns the bytes written. */
size_t json_string(char *out, const char *s);

/* The number of decimal digits of v: from its bit length, checked against one power of ten. */
static inline unsigned json_digits(uint64_t v)
{
    static const uint64_t tens[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
        100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
        100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
        1000000000000000000ull, 10000000000000000000ull};
    unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1u);
    unsigned t = (bits * 1233u) >> 12; /* 1233 / 4096 is just above log10(2) */
    return t + 1u - ((v | 1u) < tens[t]);
}

/* 00 to 99, two digits each */
static const char json_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JSON_WORDS 1 /* digits put together in a word, as memory holds its bytes */
/* v below 10^4 as four digits (leading zeros kept) in a word, the first digit in its lowest byte. */
static inline uint32_t json_four(uint32_t v)
{
    uint32_t hi = (v * 5243u) >> 19; /* v / 100, exact below 43,699 */
    uint16_t a, b;
    memcpy(&a, json_pairs + 2 * hi, 2);
    memcpy(&b, json_pairs + 2 * (v - hi * 100u), 2);
    return (uint32_t)a | (uint32_t)b << 16;
}
#else
#define JSON_WORDS 0
#endif

/* v (any) in decimal at out, two digits at a time from its end. Returns the bytes written. */
size_t json_u64_wide(char *out, uint64_t v);

#if JSON_WORDS
/* v below 10^8 in decimal: its digits in a word (the first in the lowest byte, zeros after the
 * last) and their count, what json_u64 stores; for a caller that writes the number twice. */
typedef struct json_word {
    uint64_t w;
    unsigned n;
} json_word_t;

static inline __attribute__((always_inline)) json_word_t json_word(uint32_t v)
{
    if (v < 10000u) {
        unsigned n = 1u + (v >= 10u) + (v >= 100u) + (v >= 1000u);
        return (json_word_t){json_four(v) >> (8u * (4u - n)), n};
    }
    uint32_t hi = v / 10000u, lo = v - hi * 10000u;
    unsigned n = 5u + (hi >= 10u) + (hi >= 100u) + (hi >= 1000u);
    return (json_word_t){((uint64_t)json_four(lo) << 32 | json_four(hi)) >> (8u * (8u - n)), n};
}
#endif

/* v in decimal at out. Returns the bytes written; up to JSON_U64_MAX bytes past out may be
 * written (what lies past the digits is for the caller to write over). Below 10^8 (most of the
 * export's numbers have two to four digits), the digits are made in a word, its leading zeros
 * shifted out, and stored at once: no loop, no branch on the length, no call. */
static inline __attribute__((always_inline)) size_t json_u64(char *out, uint64_t v)
{
#if JSON_WORDS
    if (v < 10000u) {
        unsigned n = 1u + (v >= 10u) + (v >= 100u) + (v >= 1000u);
        uint32_t w = json_four((uint32_t)v) >> (8u * (4u - n));
        memcpy(out, &w, 4);
        return n;
    }
    if (v < 100000000u) {
        json_word_t d = json_word((uint32_t)v);
        memcpy(out, &d.w, 8);
        return d.n;
    }
#endif
    return json_u64_wide(out, v);
}

/* A number usually near the one before it (a start time): its digits above the last four, kept
 * as they were written the last time. */
typedef struct json_near {
    uint64_t high; /* the number / 10^4 that text says; 0: nothing kept */
    size_t len;
    char text[JSON_U64_MAX];
} json_near_t;

/* v in decimal at out, as json_u64, from c's digits when v / 10^4 is the same as the last time.
 * Up to 16 bytes are written, within JSON_U64_MAX. */
static inline __attribute__((always_inline)) size_t json_u64_near(json_near_t *c, char *out, uint64_t v)
{
    uint64_t high = v / 10000u;
    if (high == 0) {
        return json_u64(out, v);
    }
    if (high != c->high) {
        c->high = high;
        c->len = json_u64(c->text, high); /* at most 16 digits */
    }
    memcpy(out, c->text, 16);
    unsigned low = (unsigned)(v - high * 10000u);
#if JSON_WORDS
    uint32_t w = json_four(low);
    memcpy(out + c->len, &w, 4);
#else
    memcpy(out + c->len, json_pairs + 2 * (low / 100u), 2);
    memcpy(out + c->len + 2, json_pairs + 2 * (low % 100u), 2);
#endif
    return c->len + 4u;
}

/* n bytes from src to dst in 16-byte steps: up to 15 more are read and written, so both must have
 * that room past n. (A call of memcpy per short piece was an eighth of an export's time.) */
static inline void json_copy16(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i += 16u) {
        memcpy(dst + i, src + i, 16u);
    }
}

/* n bytes from src to dst, the first 48 at once: up to 47 more are read and written (both must
 * have that room past n). For the parts of a slice or window, most of which are 17 to 48 bytes:
 * a loop whose count changes from one track to the next is mispredicted. */
static inline void json_copy48(char *dst, const char *src, size_t n)
{
    memcpy(dst, src, 48u);
    for (size_t i = 48u; i < n; i += 16u) {
        memcpy(dst + i, src + i, 16u);
    }
}

/* A literal at out (its length known when it is a string literal). Returns the bytes written. */
#define JSON_LIT(out, lit) (memcpy((out), (lit), sizeof(lit) - 1), sizeof(lit) - 1)

#endif
