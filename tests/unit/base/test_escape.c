/* host/base/escape.c: nothing a device sends reaches the terminal as a control. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "escape.h"

static const char *esc(const char *in, size_t len, unsigned flags)
{
    static char out[1024];
    escape_bytes(out, sizeof out, (const uint8_t *)in, len, flags);
    return out;
}
#define ESC(lit) esc(lit, sizeof(lit) - 1, 0)

static void test_plain_and_utf8_kept(void **state)
{
    (void)state;
    assert_string_equal(ESC("Sensor._go"), "Sensor._go");
    assert_string_equal(ESC("h\xC3\xA9llo \xE2\x9C\x93 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80"),
        "h\xC3\xA9llo \xE2\x9C\x93 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80");
    assert_string_equal(ESC("a\\b"), "a\\\\b");
}

/* A task's name never looks like one of the host's rows, which are in parentheses ("(gc)",
 * "(outside tasks)"): its leading "(" is escaped; other text, and a "(" further in, are kept. */
static void test_name_never_a_host_row(void **state)
{
    (void)state;
    assert_string_equal(esc("(gc)", 4, ESCAPE_NAME), "\\x28gc)");
    assert_string_equal(esc("(outside tasks)", 15, ESCAPE_NAME), "\\x28outside tasks)");
    assert_string_equal(esc("Sensor._go(1)", 13, ESCAPE_NAME), "Sensor._go(1)");
    assert_string_equal(esc(" (gc)", 5, ESCAPE_NAME), " (gc)");
    /* the escaped form cannot be forged: a device's backslash is doubled */
    assert_string_equal(esc("\\x28gc)", 7, ESCAPE_NAME), "\\\\x28gc)");
    /* device text and labels keep it */
    assert_string_equal(ESC("(gc)"), "(gc)");
}

static void test_controls_visible(void **state)
{
    (void)state;
    assert_string_equal(ESC("\x1B[2J\x1B[H"), "\\e[2J\\e[H");
    assert_string_equal(ESC("bell\x07!"), "bell\\x07!");
    assert_string_equal(ESC("a\tb\r\n"), "a\\tb\\r\\n");
    assert_string_equal(esc("a\tb", 3, ESCAPE_KEEP_TAB), "a\tb");
    assert_string_equal(ESC("del\x7F"), "del\\x7F");
    assert_string_equal(esc("nul\0x", 5, 0), "nul\\x00x");
    /* C1 CSI as a raw byte, and as a valid UTF-8 encoding of U+009B */
    assert_string_equal(ESC("\x9B" "31m"), "\\x9B31m");
    assert_string_equal(ESC("\xC2\x9B" "31m"), "\\xC2\\x9B31m");
    /* a bidi override (U+202E) */
    assert_string_equal(ESC("ab\xE2\x80\xAE" "cd"), "ab\\xE2\\x80\\xAEcd");
}

static void test_invalid_utf8(void **state)
{
    (void)state;
    assert_string_equal(ESC("\xC3\x28"), "\\xC3(");          /* bad continuation */
    assert_string_equal(ESC("\xC0\xAF"), "\\xC0\\xAF");      /* overlong '/' */
    assert_string_equal(ESC("\xE0\x80\x80"), "\\xE0\\x80\\x80");
    assert_string_equal(ESC("\xED\xA0\x80"), "\\xED\\xA0\\x80"); /* surrogate */
    assert_string_equal(ESC("\xF5\x80\x80\x80"), "\\xF5\\x80\\x80\\x80");
    assert_string_equal(ESC("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80"); /* beyond U+10FFFF */
    assert_string_equal(ESC("end\xE2\x9C"), "end\\xE2\\x9C"); /* cut sequence at the end */
}

static void test_cut_bounded(void **state)
{
    (void)state;
    char big[5000];
    for (size_t i = 0; i < sizeof big; i++) {
        big[i] = (char)(i % 3 == 0 ? 0x1B : 'x');
    }
    char out[64];
    size_t n = escape_bytes(out, sizeof out, (const uint8_t *)big, sizeof big, 0);
    assert_true(n < sizeof out);
    assert_int_equal(strlen(out), n);
    /* ends with the cut mark, and the cut did not split "\e" */
    assert_memory_equal(out + n - 3, ESCAPE_CUT_MARK, 3);
    assert_true(out[n - 4] == 'e' || out[n - 4] == 'x');
    /* a multi-byte character is never split either */
    char euro[300];
    for (size_t i = 0; i < 100; i++) {
        memcpy(euro + 3 * i, "\xE2\x82\xAC", 3);
    }
    n = escape_bytes(out, 20, (const uint8_t *)euro, sizeof euro, 0);
    assert_int_equal(n, 15 + 3); /* five whole euro signs, then the mark */
    assert_int_equal(escape_width(out), 6);
    /* tiny buffers */
    assert_int_equal(escape_bytes(out, 3, (const uint8_t *)"abc", 3, 0), 0);
    assert_string_equal(out, "");
}

/* Any bytes at all: the output is valid UTF-8 with no control character, C1 or bidi override. */
static void test_random_bytes_safe(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    for (int round = 0; round < 20000; round++) {
        uint8_t in[64];
        size_t len = (size_t)(round % 64);
        for (size_t i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            in[i] = (uint8_t)(seed >> 16);
            if (round % 4 == 0 && (seed & 0x100)) {
                in[i] = (uint8_t)(0x80 | (in[i] & 0x3F)); /* many continuation bytes */
            }
        }
        char out[300];
        size_t n = escape_bytes(out, sizeof out, in, len, 0);
        assert_true(n < sizeof out);
        for (size_t i = 0; i < n;) {
            uint8_t b = (uint8_t)out[i];
            assert_true(b >= 0x20 && b != 0x7F);
            if (b < 0x80) {
                i++;
                continue;
            }
            size_t k = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
            assert_true(b >= 0xC2 && b <= 0xF4);
            assert_true(i + k <= n);
            uint32_t cp = b & (k == 2 ? 0x1F : k == 3 ? 0x0F : 0x07);
            for (size_t j = 1; j < k; j++) {
                assert_int_equal((uint8_t)out[i + j] & 0xC0, 0x80);
                cp = cp << 6 | ((uint8_t)out[i + j] & 0x3F);
            }
            assert_false(cp >= 0x80 && cp <= 0x9F);
            assert_false(cp >= 0x202A && cp <= 0x202E);
            assert_false(cp >= 0xD800 && cp <= 0xDFFF);
            assert_true(cp <= 0x10FFFF);
            i += k;
        }
    }
}

static void test_width_prefix(void **state)
{
    (void)state;
    size_t w;
    const char *s = "a\xC3\xA9\xE2\x9C\x93z";
    assert_int_equal(escape_width(s), 4);
    assert_int_equal(escape_prefix(s, 2, &w), 3);
    assert_int_equal(w, 2);
    assert_int_equal(escape_prefix(s, 3, NULL), 6);
    assert_int_equal(escape_prefix(s, 10, &w), strlen(s));
    assert_int_equal(w, 4);
}

/* Display width, not code points: a CJK glyph takes two columns, a combining mark and a zero-width
 * space none; a cut never splits a glyph from its marks nor leaves half a wide glyph. */
static void test_width_is_columns(void **state)
{
    (void)state;
    size_t w;
    const char *cjk = "\xE4\xBB\xBB\xE5\x8A\xA1"; /* two CJK ideographs */
    assert_int_equal(escape_width(cjk), 4);
    assert_int_equal(escape_prefix(cjk, 3, &w), 3); /* the second would need columns 3 and 4 */
    assert_int_equal(w, 2);
    const char *combining = "e\xCC\x81te\xCC\x81"; /* e + U+0301, t, e + U+0301 */
    assert_int_equal(escape_width(combining), 3);
    assert_int_equal(escape_prefix(combining, 1, &w), 3); /* the accent stays with its e */
    assert_int_equal(w, 1);
    const char *zero = "ab\xE2\x80\x8B" "cd"; /* U+200B ZERO WIDTH SPACE */
    assert_int_equal(escape_width(zero), 4);
}

int main(void)
{
    /* widths are the terminal's, under the locale; the tests use UTF-8 */
    if (setlocale(LC_ALL, "C.UTF-8") == NULL && setlocale(LC_ALL, "en_US.UTF-8") == NULL) {
        fputs("test_escape: no UTF-8 locale here\n", stderr);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_and_utf8_kept),
        cmocka_unit_test(test_controls_visible),
        cmocka_unit_test(test_invalid_utf8),
        cmocka_unit_test(test_name_never_a_host_row),
        cmocka_unit_test(test_cut_bounded),
        cmocka_unit_test(test_random_bytes_safe),
        cmocka_unit_test(test_width_prefix),
        cmocka_unit_test(test_width_is_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
