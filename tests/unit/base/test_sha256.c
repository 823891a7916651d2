/* host/base/sha256.c: the FIPS 180-4 examples, one-shot and in pieces of every size; Adler-32's
 * examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sha256.h"

static const char *hex_of(const char *s)
{
    static char hex[65];
    sha256_hex(s, strlen(s), hex);
    return hex;
}

static void test_vectors(void **state)
{
    (void)state;
    assert_string_equal(hex_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_string_equal(hex_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* 56 bytes: the length no longer fits the first block's padding */
    assert_string_equal(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_million_a_in_pieces(void **state)
{
    (void)state;
    static char a[1000];
    memset(a, 'a', sizeof a);
    for (size_t piece = 1; piece <= 129; piece += 64) {
        sha256_t s;
        uint8_t d[32];
        char hex[65];
        sha256_init(&s);
        size_t left = 1000000;
        while (left > 0) {
            size_t n = left < piece ? left : piece;
            sha256_update(&s, a, n);
            left -= n;
        }
        sha256_final(&s, d);
        for (int i = 0; i < 32; i++)
            snprintf(hex + 2 * i, 3, "%02x", d[i]);
        assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
}

static void test_pieces_equal_whole(void **state)
{
    (void)state;
    uint8_t data[300];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 37 + 11);
    for (size_t len = 0; len <= sizeof data; len += 7) {
        char whole[65], parts[65];
        uint8_t d[32];
        sha256_hex(data, len, whole);
        for (size_t cut = 0; cut <= len; cut += 13) {
            sha256_t s;
            sha256_init(&s);
            sha256_update(&s, data, cut);
            sha256_update(&s, data + cut, len - cut);
            sha256_final(&s, d);
            for (int i = 0; i < 32; i++)
                snprintf(parts + 2 * i, 3, "%02x", d[i]);
            assert_string_equal(whole, parts);
        }
    }
}

static void test_adler32(void **state)
{
    (void)state;
    assert_int_equal(adler32("", 0), 1);
    assert_int_equal(adler32("Wikipedia", 9), 0x11E60398);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_million_a_in_pieces),
        cmocka_unit_test(test_pieces_equal_whole),
        cmocka_unit_test(test_adler32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
