/* Shared by the fuzz targets (header-only, each is one program): failing with the input saved,
 * and the check that text is safe to print, as host/base/escape.h promises. Define FUZZ_NAME first. */
#ifndef AIOPROF_FUZZ_SAFE_H
#define AIOPROF_FUZZ_SAFE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fuzz_fail(const char *what, const char *text)
{
    fprintf(stderr, "%s: check failed: %s", FUZZ_NAME, what);
    if (text) {
        /* Shown escaped: the point is that it was not safe. */
        fputs(": \"", stderr);
        for (const unsigned char *p = (const unsigned char *)text; *p && p - (const unsigned char *)text < 200; p++) {
            if (*p < 0x20 || *p >= 0x7F) {
                fprintf(stderr, "\\x%02X", *p);
            } else {
                fputc(*p, stderr);
            }
        }
        fputc('"', stderr);
    }
    fputc('\n', stderr);
    abort();
}

/* Decodes one UTF-8 character at s[0..len); returns its length, or 0 when it is not valid
 * (overlong, surrogate, past U+10FFFF, cut short). */
static size_t fuzz_utf8(const unsigned char *s, size_t len, uint32_t *cp)
{
    size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (n == 0 || n > len) {
        return 0;
    }
    uint32_t c = n == 1 ? s[0] : s[0] & (0x7Fu >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
        c = c << 6 | (s[i] & 0x3Fu);
    }
    if (c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        return 0;
    }
    *cp = c;
    return n;
}

/* Safe to print (host/base/escape.h): valid UTF-8 with no C0 or C1 control, no DEL, no bidirectional
 * override; `allow` lists the C0 controls a caller keeps on purpose (newlines of a report, the
 * tabs of device text). */
static void fuzz_check_safe(const char *what, const char *s, size_t len, const char *allow)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        uint32_t c;
        size_t n = fuzz_utf8(p + i, len - i, &c);
        if (n == 0) {
            fuzz_fail(what, s);
        }
        int control = (c < 0x20 && !(c != 0 && strchr(allow, (int)c))) || (c >= 0x7F && c <= 0x9F);
        int bidi = (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
        if (control || bidi) {
            fuzz_fail(what, s);
        }
        i += n;
    }
}

#endif
