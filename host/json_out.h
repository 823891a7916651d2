/* JSON text written straight into a buffer, without building a tree: for the trace export's
 * slices, millions of them (export_trace.c). Strings are escaped exactly as cJSON escapes them, so
 * that a file reads the same whichever of the two wrote an event (tests/unit/test_export_trace.c
 * compares them byte for byte). */
#ifndef AIOPROF_JSON_OUT_H
#define AIOPROF_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>

/* Room json_string may need for a string of n bytes: quotes, and six bytes per escaped byte. */
#define JSON_STRING_MAX(n) (2u + 6u * (n))
/* Room json_u64 may need: twenty digits. */
#define JSON_U64_MAX 20u

/* s (NUL-terminated) as a JSON string, quotes included, at out. Returns the bytes written. */
size_t json_string(char *out, const char *s);

/* v in decimal at out. Returns the bytes written. */
static inline size_t json_u64(char *out, uint64_t v)
{
    char tmp[JSON_U64_MAX];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    for (size_t i = 0; i < n; i++) {
        out[i] = tmp[n - 1 - i];
    }
    return n;
}

/* A literal at out (its length known when it is a string literal). Returns the bytes written. */
#define JSON_LIT(out, lit) (memcpy((out), (lit), sizeof(lit) - 1), sizeof(lit) - 1)

#endif
