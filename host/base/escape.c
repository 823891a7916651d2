#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* wcwidth */
#endif
#include "escape.h"

#include <string.h>
#include <wchar.h>

/* The output and where a cut mark still fits, so that a cut never splits an escape or a character. */
typedef struct escape_out {
    char *buf;
    size_t size;
    size_t len;
    size_t mark_at; /* the last piece boundary with room for the cut mark after it */
    int full;
} escape_out_t;

static void out_piece(escape_out_t *o, const char *piece, size_t n)
{
    if (o->full) {
        return;
    }
    if (o->len + n + 1 > o->size) {
        o->len = o->mark_at;
        memcpy(o->buf + o->len, ESCAPE_CUT_MARK, 3);
        o->len += 3;
        o->full = 1;
        return;
    }
    memcpy(o->buf + o->len, piece, n);
    o->len += n;
    if (o->len + 3 + 1 <= o->size) {
        o->mark_at = o->len;
    }
}

static void out_hex(escape_out_t *o, uint8_t b)
{
    static const char digits[] = "0123456789ABCDEF";
    char piece[4] = {'\\', 'x', digits[b >> 4], digits[b & 0x0F]};
    out_piece(o, piece, 4);
}

/* Length of the valid UTF-8 sequence at in[0..len), or 0 when it is not one (bad lead byte,
 * missing or bad continuation, overlong form, surrogate, beyond U+10FFFF). */
static size_t utf8_valid(const uint8_t *in, size_t len, uint32_t *cp)
{
    uint8_t b = in[0];
    size_t n;
    uint32_t v;
    uint8_t lo = 0x80, hi = 0xBF; /* the range allowed for the second byte */
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
        v = b & 0x1Fu;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        v = b & 0x0Fu;
        if (b == 0xE0) {
            lo = 0xA0;
        } else if (b == 0xED) {
            hi = 0x9F;
        }
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        v = b & 0x07u;
        if (b == 0xF0) {
            lo = 0x90;
        } else if (b == 0xF4) {
            hi = 0x8F;
        }
    } else {
        return 0;
    }
    if (len < n || in[1] < lo || in[1] > hi) {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((in[i] & 0xC0u) != 0x80u) {
            return 0;
        }
        v = (v << 6) | (in[i] & 0x3Fu);
    }
    *cp = v;
    return n;
}

/* Valid code points a terminal still acts on: C1 controls (U+009B is a CSI), line and paragraph
 * separators, and the bidirectional overrides that make text read differently than it is. */
static int cp_dangerous(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
        (cp >= 0x2066 && cp <= 0x2069) || cp == 0x061C || cp == 0x200E || cp == 0x200F;
}

size_t escape_bytes(char *out, size_t out_size, const uint8_t *in, size_t len, unsigned flags)
{
    escape_out_t o = {out, out_size, 0, 0, 0};
    if (out_size < 4) {
        if (out_size > 0) {
            out[0] = '\0';
        }
        return 0;
    }
    size_t i = 0;
    while (i < len && !o.full) {
        uint8_t b = in[i];
        if (b >= 0x20 && b < 0x7F) {
            if (b == '(' && i == 0 && (flags & ESCAPE_NAME)) {
                out_hex(&o, b);
            } else if (b == '\\') {
                out_piece(&o, "\\\\", 2);
            } else {
                out_piece(&o, (const char *)&in[i], 1);
            }
            i++;
            continue;
        }
        if (b < 0x80) {
            switch (b) {
            case 0x1B: out_piece(&o, "\\e", 2); break;
            case '\n': out_piece(&o, "\\n", 2); break;
            case '\r': out_piece(&o, "\\r", 2); break;
            case '\t':
                if (flags & ESCAPE_KEEP_TAB) {
                    out_piece(&o, "\t", 1);
                } else {
                    out_piece(&o, "\\t", 2);
                }
                break;
            default: out_hex(&o, b); break;
            }
            i++;
            continue;
        }
        uint32_t cp = 0;
        size_t n = utf8_valid(in + i, len - i, &cp);
        if (n == 0) {
            out_hex(&o, b);
            i++;
        } else if (cp_dangerous(cp)) {
            for (size_t k = 0; k < n; k++) {
                out_hex(&o, in[i + k]);
            }
            i += n;
        } else {
            out_piece(&o, (const char *)&in[i], n);
            i += n;
        }
    }
    out[o.len] = '\0';
    return o.len;
}

/* The columns one character of an escaped string takes on a terminal: wcwidth's answer under the
 * locale (CJK 2, combining marks and zero-width characters 0). Escaped text holds no controls, so
 * a -1 only means the locale cannot tell (not UTF-8): one column, as most terminals draw it. The
 * string is valid UTF-8 (escape_bytes made it), decoded here whatever the locale. */
static size_t char_width(const char *s, size_t *len)
{
    uint8_t b = (uint8_t)s[0];
    size_t n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
    uint32_t cp = n == 1 ? b : b & (0x7Fu >> n);
    for (size_t i = 1; i < n; i++) {
        if (((uint8_t)s[i] & 0xC0u) != 0x80u) {
            n = i; /* not what escape_bytes makes; never read past the end */
            break;
        }
        cp = cp << 6 | ((uint8_t)s[i] & 0x3Fu);
    }
    *len = n;
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : (size_t)w;
}

size_t escape_width(const char *s)
{
    size_t w = 0, n;
    for (size_t i = 0; s[i]; i += n) {
        w += char_width(s + i, &n);
    }
    return w;
}

size_t escape_prefix(const char *s, size_t width, size_t *prefix_width)
{
    size_t i = 0, w = 0, n;
    while (s[i]) {
        size_t cw = char_width(s + i, &n);
        if (w + cw > width) {
            break; /* the zero-width marks of the last character kept still come along */
        }
        w += cw;
        i += n;
    }
    if (prefix_width != NULL) {
        *prefix_width = w;
    }
    return i;
}
