/* See json_out.h. The escapes are cJSON's (print_string_ptr): " and \ get a backslash; backspace,
 * form feed, newline, carriage return and tab their two-letter forms; other bytes below 0x20
 * \u00xx in lower case; every other byte, DEL and UTF-8 included, is written as it is. */
#include "json_out.h"

#include <string.h>

/* Does the word hold a byte below 0x20, a " or a \\? Exact: a borrow can only make a byte above
 * one that matched look like a match. */
static inline int word_special(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
    uint64_t low = (w - ones * 0x20) & ~w;
    uint64_t zq = (quote - ones) & ~quote, zs = (slash - ones) & ~slash;
    return ((low | zq | zs) & high) != 0;
}

size_t json_u64_wide(char *out, uint64_t v)
{
    unsigned n = json_digits(v);
    char *at = out + n;
    while (v > UINT32_MAX) {
        unsigned two = (unsigned)(v % 100u);
        v /= 100u;
        at -= 2;
        memcpy(at, json_pairs + 2 * two, 2);
    }
    /* below 2^32 (71 minutes of microseconds) in 32 bits: half the instructions a step */
    uint32_t w = (uint32_t)v;
    while (w >= 100u) {
        unsigned two = w % 100u;
        w /= 100u;
        at -= 2;
        memcpy(at, json_pairs + 2 * two, 2);
    }
    if (w >= 10u) {
        memcpy(at - 2, json_pairs + 2 * w, 2);
    } else {
        at[-1] = (char)('0' + w);
    }
    return n;
}

size_t json_string(char *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, len = strlen(s);
    out[o++] = '"';
    /* names are short and plain: eight bytes a step while none needs a look */
    while (len >= sizeof(uint64_t)) {
        uint64_t w;
        memcpy(&w, s, sizeof w);
        if (word_special(w)) {
            break;
        }
        memcpy(out + o, &w, sizeof w);
        o += sizeof w;
        s += sizeof w;
        len -= sizeof w;
    }
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        unsigned char c = *p;
        if (c > 31 && c != '"' && c != '\\') {
            out[o++] = (char)c;
            continue;
        }
        out[o++] = '\\';
        switch (c) {
        case '"': out[o++] = '"'; break;
        case '\\': out[o++] = '\\'; break;
        case '\b': out[o++] = 'b'; break;
        case '\f': out[o++] = 'f'; break;
        case '\n': out[o++] = 'n'; break;
        case '\r': out[o++] = 'r'; break;
        case '\t': out[o++] = 't'; break;
        default:
            memcpy(out + o, "u00", 3);
            out[o + 3] = hex[c >> 4];
            out[o + 4] = hex[c & 15];
            o += 5;
            break;
        }
    }
    out[o++] = '"';
    return o;
}
