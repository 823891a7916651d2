/* host/input/source.c, source_pace_gather_ms: how long the live loop lets a port's bytes gather.
 * Against a model of a USB CDC port: the kernel keeps the reader SOURCE_TTY_HOLDS bytes and then
 * throttles the port (the board stops sending and, its ring full, drops events). Whatever the
 * rate, once the loop has seen it the bytes that come during a gather must fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "source.h"

#define MS 1000u

/* One burst read whole after a gather, at bytes_per_s; returns the next gather. */
static int cycle(source_pace_t *p, uint64_t *now, int gather_ms, uint64_t bytes_per_s, uint64_t *came)
{
    *now += (uint64_t)gather_ms * MS + 50u; /* the wait, and the reads after it */
    *came = bytes_per_s * ((uint64_t)gather_ms * MS + 50u) / 1000000u;
    source_pace_took(p, (size_t)*came);
    return source_pace_gather_ms(p, *now, 30);
}

/* From a quiet port to each rate: the first gather is short, and from the second on what comes
 * in a gather fits the tty's buffer with room to spare (and the gather is no shorter than it must
 * be: a trickle gathers the whole 30 ms). */
static void test_gather_fits_the_tty_at_every_rate(void **state)
{
    (void)state;
    static const uint64_t rates[] = {300, 11520, 100000, 250000, 1000000, 1200000, 4000000, 12000000};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        source_pace_t p;
        uint64_t now = 5000000, came = 0;
        source_pace_quiet(&p, now);
        now += 100;
        source_pace_took(&p, 1000); /* the first read after the quiet: its rate is not known */
        int g = source_pace_gather_ms(&p, now, 30);
        assert_int_equal(g, SOURCE_GATHER_FIRST_MS);
        for (int k = 0; k < 20; k++) {
            g = cycle(&p, &now, g, rates[i], &came);
            assert_in_range(g, 0, 30);
            if (k > 0)
                assert_true(came <= SOURCE_TTY_HOLDS);
        }
        /* what the next gather gathers, at the rate: at most half the buffer */
        assert_true(rates[i] * (uint64_t)g / 1000u <= SOURCE_GATHER_ROOM);
        if (rates[i] * 30u / 1000u <= SOURCE_GATHER_ROOM)
            assert_int_equal(g, 30);
    }
}

/* The figures the comments give: 1 MB/s gathers 2 ms, a UART at 115200 baud the whole 30 ms. */
static void test_gather_figures(void **state)
{
    (void)state;
    source_pace_t p;
    source_pace_quiet(&p, 0);
    assert_int_equal(source_pace_gather_ms(&p, 10, 30), SOURCE_GATHER_FIRST_MS);
    source_pace_took(&p, 30000); /* 30 ms at 1 MB/s */
    assert_int_equal(source_pace_gather_ms(&p, 10 + 30 * MS, 30), 2);
    source_pace_took(&p, 345); /* 30 ms at 11.5 kB/s */
    assert_int_equal(source_pace_gather_ms(&p, 10 + 60 * MS, 30), 30);
    /* the clock did not move: as fast as it gets */
    source_pace_took(&p, 4000);
    assert_int_equal(source_pace_gather_ms(&p, 10 + 60 * MS, 30), 0);
    /* nothing read since the last gather: the sender paused, or stopped; the gather doubles from
     * the least to the most, and the rate, once bytes come, sets it again */
    static const int backoff[] = {1, 2, 4, 8, 16, 30, 30};
    for (size_t i = 0; i < sizeof backoff / sizeof backoff[0]; i++)
        assert_int_equal(source_pace_gather_ms(&p, 10 + (61 + i) * MS, 30), backoff[i]);
    source_pace_took(&p, 2000); /* 2 MB/s, a millisecond after the last: 1 ms */
    assert_int_equal(source_pace_gather_ms(&p, 10 + 68 * MS, 30), 1);
    /* a cap of 0 is no gather at all */
    assert_int_equal(source_pace_gather_ms(&p, 10 + 120 * MS, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather_fits_the_tty_at_every_rate),
        cmocka_unit_test(test_gather_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
