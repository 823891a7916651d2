/* The live table's pure rendering rules (host/views/top/top_format.c): column choice for every width,
 * numbers that shrink into a cell without lying, colour classes, and cutting untrusted strings
 * to a width without letting a control character through. */
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "top_format.h"

/* ---- columns ---- */

static int cols_width(const top_col_t *cols, size_t n, int name_w)
{
    int w = name_w;
    for (size_t i = 0; i < n; i++) {
        if (cols[i] != TOP_COL_NAME) {
            w += top_format_col(cols[i])->width + 1;
        }
    }
    return w;
}

static int has_col(const top_col_t *cols, size_t n, top_col_t c)
{
    for (size_t i = 0; i < n; i++) {
        if (cols[i] == c) {
            return 1;
        }
    }
    return 0;
}

/* The set kept at one width is kept at every wider width; everything fits; the name is first
 * and never narrower than its minimum; the widest terminal shows every column of the grouping. */
static void columns_fit_every_width(void **state)
{
    (void)state;
    for (int by_inst = 0; by_inst <= 1; by_inst++) {
        top_col_t prev[TOP_COL_COUNT_ALL];
        size_t nprev = 0;
        for (int width = 40; width <= 200; width++) {
            top_col_t cols[TOP_COL_COUNT_ALL];
            int name_w = 0;
            size_t n = top_format_columns(by_inst, width, cols, &name_w);
            assert_true(n >= 3); /* 40 columns still show name, share and total */
            assert_int_equal(cols[0], TOP_COL_NAME);
            assert_true(has_col(cols, n, TOP_COL_SHARE));
            assert_true(has_col(cols, n, TOP_COL_TOTAL));
            assert_true(name_w >= top_format_name_min(by_inst) && name_w <= TOP_NAME_MAX);
            assert_true(cols_width(cols, n, name_w) <= width);
            for (size_t i = 0; i < nprev; i++) {
                assert_true(has_col(cols, n, prev[i]));
            }
            /* grouping-specific columns never leak into the other grouping */
            if (!by_inst) {
                assert_false(has_col(cols, n, TOP_COL_END));
                assert_false(has_col(cols, n, TOP_COL_CREATOR));
            } else {
                assert_false(has_col(cols, n, TOP_COL_INSTANCES));
            }
            memcpy(prev, cols, n * sizeof cols[0]);
            nprev = n;
        }
        assert_int_equal(nprev, by_inst ? 10u : 9u);
    }
}

/* Dropping follows the priority list: at the width where one column goes, it is the least
 * important one still shown (instances before errors before mean...). */
static void columns_drop_least_important_first(void **state)
{
    (void)state;
    /* the documented orders (docs/live-table.md), least important last */
    static const top_col_t prio[2][10] = {
        {TOP_COL_NAME, TOP_COL_SHARE, TOP_COL_TOTAL, TOP_COL_MAX, TOP_COL_SLOW, TOP_COL_COUNT, TOP_COL_MEAN,
            TOP_COL_ERRORS, TOP_COL_INSTANCES},
        {TOP_COL_NAME, TOP_COL_SHARE, TOP_COL_TOTAL, TOP_COL_MAX, TOP_COL_CREATOR, TOP_COL_SLOW, TOP_COL_COUNT,
            TOP_COL_MEAN, TOP_COL_ERRORS, TOP_COL_END},
    };
    static const size_t nprio[2] = {9, 10};
    for (int g = 0; g <= 1; g++) {
        for (int width = 40; width <= 200; width++) {
            top_col_t cols[TOP_COL_COUNT_ALL];
            int name_w;
            size_t n = top_format_columns(g, width, cols, &name_w);
            /* what is shown is exactly the first n of the priority list */
            for (size_t i = 0; i < nprio[g]; i++) {
                assert_int_equal(has_col(cols, n, prio[g][i]), i < n);
            }
            /* and it is the longest prefix that fits beside the narrowest name */
            int sum = top_format_name_min(g);
            size_t fit = 1;
            while (fit < nprio[g] && sum + top_format_col(prio[g][fit])->width + 1 <= width) {
                sum += top_format_col(prio[g][fit])->width + 1;
                fit++;
            }
            assert_int_equal(n, fit);
            /* the name takes the rest, up to its maximum */
            int rest = width - (sum - top_format_name_min(g));
            assert_int_equal(name_w, rest < TOP_NAME_MAX ? rest : TOP_NAME_MAX);
        }
    }
}

/* Every column set (f): the same rules (name first, fits, kept when wider), each set its own
 * columns only, the widest terminal showing all of them. */
static void column_sets_fit_every_width(void **state)
{
    (void)state;
    static const top_col_t late[] = {TOP_COL_LATE_MAX, TOP_COL_LATE_MEAN, TOP_COL_BLOCKED, TOP_COL_LATE_P50,
        TOP_COL_LATE_P95, TOP_COL_LATE_P99};
    static const top_col_t pct[] = {TOP_COL_P50, TOP_COL_P95, TOP_COL_P99};
    /* what each set shows at its widest, per grouping */
    static const top_col_t delta[] = {TOP_COL_D_RATE, TOP_COL_D_SHARE, TOP_COL_D_MAX, TOP_COL_D_P99,
        TOP_COL_D_LATE_MAX};
    static const size_t widest[TOP_SET_COUNT][2] = {{9, 10}, {11, 12}, {10, 10}, {8, 8}, {8, 8}, {10, 10}};
    for (int set = 0; set < TOP_SET_COUNT; set++) {
        assert_true(set < TOP_SET_SLICES ? *top_format_colset_name((top_colset_t)set) == '\0'
                                         : *top_format_colset_name((top_colset_t)set) != '\0');
        for (int by_inst = 0; by_inst <= 1; by_inst++) {
            top_col_t prev[TOP_COL_COUNT_ALL];
            size_t nprev = 0;
            for (int width = 40; width <= 250; width++) {
                top_col_t cols[TOP_COL_COUNT_ALL], main_cols[TOP_COL_COUNT_ALL];
                int name_w = 0, main_w = 0;
                size_t n = top_format_columns_set((top_colset_t)set, by_inst, width, cols, &name_w);
                assert_true(n >= 2);
                assert_int_equal(cols[0], TOP_COL_NAME);
                assert_true(name_w >= top_format_name_min(by_inst) && name_w <= TOP_NAME_MAX);
                assert_true(cols_width(cols, n, name_w) <= width);
                for (size_t i = 0; i < nprev; i++) {
                    assert_true(has_col(cols, n, prev[i]));
                }
                for (size_t i = 0; i < sizeof late / sizeof late[0]; i++) {
                    if (set == TOP_SET_MAIN || set == TOP_SET_SLICES ||
                        (set == TOP_SET_MAIN_LATE && late[i] != TOP_COL_LATE_MAX && late[i] != TOP_COL_BLOCKED)) {
                        assert_false(has_col(cols, n, late[i]));
                    }
                }
                for (size_t i = 0; i < sizeof delta / sizeof delta[0]; i++) {
                    /* --compare's changes are in their own set only, and there from 80 columns */
                    if (set != TOP_SET_DELTA) {
                        assert_false(has_col(cols, n, delta[i]));
                    } else if (width >= 80 && i < 3) {
                        assert_true(has_col(cols, n, delta[i]));
                    }
                }
                for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++) {
                    if (set != TOP_SET_SLICES) {
                        assert_false(has_col(cols, n, pct[i]));
                    }
                }
                /* memory's columns are in their own set only (a device that reports it) */
                static const top_col_t mem[] = {TOP_COL_ALLOC_RATE, TOP_COL_ALLOC, TOP_COL_GC, TOP_COL_GC_MS};
                for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++) {
                    if (set != TOP_SET_MEMORY) {
                        assert_false(has_col(cols, n, mem[i]));
                    } else if (width >= 80 && i == 0) {
                        assert_true(has_col(cols, n, mem[i]));
                    }
                }
                if (set == TOP_SET_MAIN) {
                    /* the main set is the table as it always was */
                    size_t m = top_format_columns(by_inst, width, main_cols, &main_w);
                    assert_int_equal(m, n);
                    assert_memory_equal(main_cols, cols, n * sizeof cols[0]);
                    assert_int_equal(main_w, name_w);
                }
                memcpy(prev, cols, n * sizeof cols[0]);
                nprev = n;
            }
            assert_int_equal(nprev, widest[set][by_inst]);
        }
    }
}

static void columns_display_order(void **state)
{
    (void)state;
    top_col_t cols[TOP_COL_COUNT_ALL];
    int name_w;
    size_t n = top_format_columns(0, 200, cols, &name_w);
    /* as in the report: name, instances, count, total, %, max, mean, slow, errors */
    for (size_t i = 1; i < n; i++) {
        assert_true(cols[i - 1] < cols[i]);
    }
    assert_int_equal(name_w, TOP_NAME_MAX);
}

/* ---- numbers ---- */

/* Parses what top_format_ms wrote back into microseconds, with the precision it kept. */
static double parse_ms(const char *s, double *unit_us)
{
    char *end;
    double v = strtod(s, &end);
    const char *dot = strchr(s, '.');
    int decimals = dot ? (int)(end - dot - 1) : 0;
    double scale = 1000.0;
    if (*end == 's') {
        scale = 1e6;
    } else if (*end == 'm') {
        scale = 6e7;
    } else if (*end == 'h') {
        scale = 3.6e9;
    }
    *unit_us = scale / pow(10, decimals);
    return v * scale;
}

static void ms_exact_when_it_fits(void **state)
{
    (void)state;
    char out[32];
    assert_int_equal(top_format_ms(out, sizeof out, 60, 9), 5);
    assert_string_equal(out, "0.060");
    top_format_ms(out, sizeof out, 80000, 9);
    assert_string_equal(out, "80.000");
    top_format_ms(out, sizeof out, 16000000, 9);
    assert_string_equal(out, "16000.000");
    top_format_ms(out, sizeof out, 0, 8);
    assert_string_equal(out, "0.000");
    /* rounding half up carries into the whole part */
    top_format_ms(out, sizeof out, 999999, 5);
    assert_string_equal(out, "1000");
}

/* us / unit to `decimals` decimals, rounded half up, as printf writes it: the model of what the
 * figures' cells show. */
static int model_fixed(char *buf, size_t size, uint64_t v, uint64_t unit, int decimals, const char *suffix)
{
    uint64_t scale = 1;
    for (int i = 0; i < decimals; i++) {
        scale *= 10;
    }
    uint64_t whole = v / unit, frac = (v % unit * scale + unit / 2) / unit;
    if (frac >= scale) {
        whole++;
        frac -= scale;
    }
    return decimals == 0 ? snprintf(buf, size, "%" PRIu64 "%s", whole, suffix)
                         : snprintf(buf, size, "%" PRIu64 ".%0*" PRIu64 "%s", whole, decimals, frac, suffix);
}

/* The first of the steps' texts (each unit, the most decimals first) that fits width, else "#". */
static void model_steps(char *out, size_t size, uint64_t v, int width, const uint64_t *units,
    const char *const *suffixes, const int *decimals, size_t n)
{
    char buf[64];
    for (size_t i = 0; i < n; i++) {
        for (int d = decimals[i]; d >= 0; d--) {
            if (model_fixed(buf, sizeof buf, v, units[i], d, suffixes[i]) <= width) {
                snprintf(out, size, "%s", buf);
                return;
            }
        }
    }
    snprintf(out, size, "%s", width >= 1 ? "#" : "");
}

/* The figures' digits (written by hand, not by printf) against printf's, for values of every size
 * around the places where the rounding carries and random ones, at every width. */
static void figures_are_printf_s_digits(void **state)
{
    (void)state;
    static const uint64_t ms_units[] = {1000, 1000000, 60000000, 3600000000ull};
    static const char *const ms_suffixes[] = {"", "s", "m", "h"};
    static const int ms_decimals[] = {3, 1, 1, 1};
    static const uint64_t count_units[] = {1, 1000, 1000000, 1000000000, 1000000000000ull};
    static const char *const count_suffixes[] = {"", "k", "M", "G", "T"};
    static const int count_decimals[] = {0, 1, 1, 1, 1};
    uint64_t seed = 99, p10 = 1;
    for (int i = 0; i < 200000; i++) {
        uint64_t v;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        if (i < 20 * 7) {
            v = p10 + (uint64_t)(i % 7) - 3; /* around each power of ten */
            if (i % 7 == 6) {
                p10 = p10 > UINT64_MAX / 10 ? 1 : p10 * 10;
            }
        } else {
            v = (seed >> (seed % 60)) ^ (seed & 0xFF); /* any size */
        }
        for (int width = 1; width <= 22; width += (i < 1000 ? 1 : 7)) {
            char got[64], want[64];
            top_format_ms(got, sizeof got, v, width);
            model_steps(want, sizeof want, v, width, ms_units, ms_suffixes, ms_decimals, 4);
            if (strcmp(got, want) != 0) {
                fail_msg("ms of %" PRIu64 " us in %d: \"%s\", printf says \"%s\"", v, width, got, want);
            }
            top_format_count(got, sizeof got, v, width);
            model_steps(want, sizeof want, v, width, count_units, count_suffixes, count_decimals, 5);
            if (strcmp(got, want) != 0) {
                fail_msg("count %" PRIu64 " in %d: \"%s\", printf says \"%s\"", v, width, got, want);
            }
        }
    }
}

/* The table's joins and ids are what snprintf writes: every size from 0 up (cut bytewise as it
 * cuts, terminated, the whole length returned), parts empty or long, ids at their edges. */
static void join_and_u32_are_snprintf_s(void **state)
{
    (void)state;
    static const char *const words[] = {"", "-", "mqtt.ping", " [", "]", "\xE2\x89\xA5", " 100 %",
                                        "a name far longer than any cell the table will give it"};
    static const uint32_t ids[] = {0, 1, 9, 10, 99, 100, 4294967295u, 4294967294u, 1000000000u, 123456789u};
    uint64_t seed = 7;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const char *a = words[(seed >> 10) % 8], *b = words[(seed >> 20) % 8], *c = words[(seed >> 30) % 8];
        uint32_t id = i < 10 ? ids[i] : (uint32_t)(seed >> 33) >> (seed % 31);
        char num[11], got[80], want[80];
        const char *digits = top_format_u32(num, id);
        snprintf(want, sizeof want, "%" PRIu32, id);
        if (strcmp(digits, want) != 0) {
            fail_msg("id %" PRIu32 ": \"%s\", printf says \"%s\"", id, digits, want);
        }
        for (size_t size = 0; size < sizeof got; size += (i < 100 ? 1 : 13)) {
            memset(got, 'X', sizeof got);
            memset(want, 'X', sizeof want);
            size_t n = TOP_FORMAT_JOIN(got, size, a, " #", digits, b, c);
            int m = snprintf(want, size, "%s #%" PRIu32 "%s%s", a, id, b, c);
            if ((int)n != m || memcmp(got, want, sizeof got) != 0) {
                fail_msg("join of \"%s\" #%" PRIu32 " \"%s\" \"%s\" in %zu bytes: %zu \"%.*s\", printf says %d \"%.*s\"", a,
                    id, b, c, size, n, (int)(size ? size - 1 : 0), got, m, (int)(size ? size - 1 : 0), want);
            }
        }
    }
}

/* For every width and a spread of values: the text fits, and reads back to the value within half
 * of the last digit it kept. */
static void ms_fits_and_reads_back(void **state)
{
    (void)state;
    uint64_t values[] = {0, 1, 7, 999, 1000, 1499, 1500, 20000, 80123, 999999, 1000000, 16000000, 123456789,
        3600000000ull, 86400000000ull, 987654321012ull, UINT64_MAX / 3};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        for (int width = 4; width <= 12; width++) {
            char out[32];
            size_t len = top_format_ms(out, sizeof out, values[i], width);
            assert_int_equal(len, strlen(out));
            assert_true((int)len <= width);
            if (strcmp(out, "#") == 0) {
                continue; /* too big for the cell: shown as such, never as a wrong number */
            }
            double unit;
            double back = parse_ms(out, &unit);
            double err = fabs(back - (double)values[i]);
            assert_true(err <= unit / 2 + 1e-6 * (double)values[i]);
        }
    }
}

static void count_and_share(void **state)
{
    (void)state;
    char out[32];
    top_format_count(out, sizeof out, 15119, 7);
    assert_string_equal(out, "15119");
    top_format_count(out, sizeof out, 12345678, 7);
    assert_string_equal(out, "12346k");
    top_format_count(out, sizeof out, 12345678, 5);
    assert_string_equal(out, "12.3M");
    top_format_count(out, sizeof out, UINT64_MAX, 7);
    assert_true(strlen(out) <= 7);
    top_format_share(out, sizeof out, 0.801, 5);
    assert_string_equal(out, "80.1");
    top_format_share(out, sizeof out, 1.0, 5);
    assert_string_equal(out, "100.0");
    top_format_share(out, sizeof out, 1.0, 4);
    assert_string_equal(out, "100");
    top_format_share(out, sizeof out, NAN, 5);
    assert_string_equal(out, "0.0");
    top_format_bytes(out, sizeof out, 812);
    assert_string_equal(out, "812 B");
    top_format_bytes(out, sizeof out, 2703);
    assert_string_equal(out, "2.6 KB");
    top_format_bytes(out, sizeof out, 14680064);
    assert_string_equal(out, "14.0 MB");
}

/* ---- colour classes ---- */

static void classes_by_magnitude(void **state)
{
    (void)state;
    const uint64_t slow = 20000;
    assert_int_equal(top_format_class_slice(0, slow), TOP_CLASS_ZERO);
    assert_int_equal(top_format_class_slice(500, slow), TOP_CLASS_SMALL);
    assert_int_equal(top_format_class_slice(5000, slow), TOP_CLASS_MEDIUM);
    assert_int_equal(top_format_class_slice(15000, slow), TOP_CLASS_LARGE);
    assert_int_equal(top_format_class_slice(slow, slow), TOP_CLASS_LARGE); /* "longer than" is slow */
    assert_int_equal(top_format_class_slice(slow + 1, slow), TOP_CLASS_ALERT);
    /* loudness never goes down as a slice gets longer */
    top_class_t prev = TOP_CLASS_ZERO;
    for (uint64_t us = 0; us < 100000; us += 97) {
        top_class_t c = top_format_class_slice(us, slow);
        assert_true(c >= prev);
        prev = c;
    }
    assert_int_equal(top_format_class_share(0), TOP_CLASS_ZERO);
    assert_int_equal(top_format_class_share(0.005), TOP_CLASS_SMALL);
    assert_int_equal(top_format_class_share(0.05), TOP_CLASS_MEDIUM);
    assert_int_equal(top_format_class_share(0.2), TOP_CLASS_LARGE);
    assert_int_equal(top_format_class_share(TOP_HOG_SHARE), TOP_CLASS_ALERT);
    assert_int_equal(top_format_class_share(NAN), TOP_CLASS_ZERO);
    assert_int_equal(top_format_class_bad(0), TOP_CLASS_ZERO);
    assert_int_equal(top_format_class_bad(1), TOP_CLASS_ALERT);
    assert_int_equal(top_format_class_count(0), TOP_CLASS_ZERO);
    assert_int_equal(top_format_class_count(3), TOP_CLASS_SMALL);
}

/* ---- cutting untrusted strings ---- */

static int has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7F) {
            return 1;
        }
        /* C1 controls in UTF-8: C2 80..C2 9F */
        if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
            return 1;
        }
    }
    return 0;
}

static void fit_cuts_with_mark(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(top_format_fit(out, sizeof out, "Sensor._go", 20, "~"), 10);
    assert_string_equal(out, "Sensor._go");
    assert_int_equal(top_format_fit(out, sizeof out, "Sensor._go", 10, "~"), 10);
    assert_string_equal(out, "Sensor._go");
    assert_int_equal(top_format_fit(out, sizeof out, "Sensor._go", 6, "~"), 6);
    assert_string_equal(out, "Senso~");
    assert_int_equal(top_format_fit(out, sizeof out, "Sensor._go", 1, "~"), 1);
    assert_string_equal(out, "~");
    assert_int_equal(top_format_fit(out, sizeof out, "abc", 0, "~"), 0);
    assert_string_equal(out, "");
}

static void fit_never_passes_controls(void **state)
{
    (void)state;
    char out[256];
    /* raw controls, as if a name had bypassed the data side's escaping */
    const char *hostile[] = {"evil\x1b[2Jname", "bell\a\a", "cr\roverwrite", "tab\tand\nnewline", "del\x7f",
        "c1 \xC2\x9B" "31m csi", "bidi \xE2\x80\xAE" "gnp.exe", "bad utf8 \xFF\xFE\xC3", "\x1b]0;title\a"};
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        for (int width = 1; width <= 40; width++) {
            int w = top_format_fit(out, sizeof out, hostile[i], width, "~");
            assert_true(w <= width);
            assert_false(has_control(out));
            assert_null(strstr(out, "\xE2\x80\xAE"));
        }
    }
    top_format_fit(out, sizeof out, "evil\x1b[2Jname", 40, "~");
    assert_string_equal(out, "evil?[2Jname");
}

static void fit_counts_columns_not_bytes(void **state)
{
    (void)state;
    char out[64];
    /* two-column CJK glyphs and one-column accented letters, cut at a whole character */
    assert_int_equal(top_format_fit(out, sizeof out, "caf\xC3\xA9", 10, "~"), 4);
    assert_string_equal(out, "caf\xC3\xA9");
    assert_int_equal(top_format_fit(out, sizeof out, "\xE4\xBB\xBB\xE5\x8A\xA1\xE5\x90\x8D", 6, "~"), 6);
    int w = top_format_fit(out, sizeof out, "\xE4\xBB\xBB\xE5\x8A\xA1\xE5\x90\x8D", 4, "~");
    assert_true(w <= 4);
    assert_string_equal(out, "\xE4\xBB\xBB~"); /* 2 + the mark: the next glyph would need 2 more */
}

/* Wrapping a message: every line fits its width, words are kept whole when they fit, nothing is
 * lost, and a word longer than the line is cut rather than looped on. */
static void wrap_keeps_words_and_everything(void **state)
{
    (void)state;
    const char *msgs[] = {"aioprof-top: /tmp/x/fifo is read as it comes: it cannot be read again from the start.",
        "short", "averyveryverylongwordthatdoesnotfitanywhere and then some words",
        "caf\xC3\xA9 \xE4\xBB\xBB\xE5\x8A\xA1 \xE5\x90\x8D bad \xFF utf8", ""};
    for (size_t m = 0; m < sizeof msgs / sizeof msgs[0]; m++) {
        for (int width = 1; width <= 60; width++) {
            const char *p = msgs[m];
            char whole[512] = "";
            int lines = 0;
            while (*p) {
                size_t n = top_format_wrap(p, width);
                char line[256], out[512];
                assert_true(n > 0 && n <= strlen(p) && n < sizeof line);
                memcpy(line, p, n);
                line[n] = '\0';
                /* the line fits: drawn without the cut mark (a trailing space may hang over) */
                size_t shown = n;
                while (shown > 0 && line[shown - 1] == ' ') {
                    line[--shown] = '\0';
                }
                assert_true(top_format_fit(out, sizeof out, line, width, "~") <= width);
                if (width >= 2) { /* a wide glyph alone is wider than one column */
                    assert_null(strchr(out, '~'));
                }
                /* a break falls after a space, unless the word alone is wider than the line */
                if (p[n] != '\0' && p[n - 1] != ' ') {
                    assert_null(memchr(p, ' ', n));
                }
                strncat(whole, p, n);
                p += n;
                assert_true(++lines < 600);
            }
            assert_string_equal(whole, msgs[m]);
        }
    }
    assert_int_equal(top_format_wrap("one two three", 6), 4); /* "one " */
    assert_int_equal(top_format_wrap("one two three", 7), 8); /* "one two ": the space hangs over */
    assert_int_equal(top_format_wrap("one two three", 13), 13);
}

/* Blocked by takes the room its cell needs from what the names leave of the name column (a
 * 130-column terminal: name column 32 wide, names 12, "(outside tasks) 80 %" 20 in 18). */
static void test_widen_blocked(void **state)
{
    (void)state;
    top_col_t cols[TOP_COL_COUNT_ALL];
    int name_w = 0;
    size_t n = top_format_columns_set(TOP_SET_MAIN_LATE, 0, 130, cols, &name_w);
    int before = name_w;
    assert_int_equal(before, 32);
    (void)n;
    int need = (int)strlen("(outside tasks) 80 %");
    int w = top_format_widen(&name_w, 15, TOP_NAME_MIN, top_format_col(TOP_COL_BLOCKED)->width, need);
    assert_int_equal(w, need);
    assert_int_equal(name_w, before - (need - top_format_col(TOP_COL_BLOCKED)->width)); /* the line's width holds */
    /* the names need the room: blocked by keeps its width and is cut */
    int full = 30;
    assert_int_equal(top_format_widen(&full, 30, TOP_NAME_MIN, 18, 20), 18);
    assert_int_equal(full, 30);
    /* part of it: what the names leave, never below the minimum */
    full = 30;
    assert_int_equal(top_format_widen(&full, 29, TOP_NAME_MIN, 18, 25), 19);
    assert_int_equal(full, 29);
    full = 14;
    assert_int_equal(top_format_widen(&full, 3, TOP_NAME_MIN, 18, 40), 20);
    assert_int_equal(full, TOP_NAME_MIN);
}

int main(void)
{
    /* the terminal's view of widths is the locale's; the tests use UTF-8 */
    if (setlocale(LC_ALL, "C.UTF-8") == NULL && setlocale(LC_ALL, "en_US.UTF-8") == NULL) {
        fputs("test_top_format: no UTF-8 locale here\n", stderr);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widen_blocked),
        cmocka_unit_test(columns_fit_every_width),
        cmocka_unit_test(columns_drop_least_important_first),
        cmocka_unit_test(columns_display_order),
        cmocka_unit_test(column_sets_fit_every_width),
        cmocka_unit_test(ms_exact_when_it_fits),
        cmocka_unit_test(ms_fits_and_reads_back),
        cmocka_unit_test(figures_are_printf_s_digits),
        cmocka_unit_test(join_and_u32_are_snprintf_s),
        cmocka_unit_test(count_and_share),
        cmocka_unit_test(classes_by_magnitude),
        cmocka_unit_test(fit_cuts_with_mark),
        cmocka_unit_test(fit_never_passes_controls),
        cmocka_unit_test(fit_counts_columns_not_bytes),
        cmocka_unit_test(wrap_keeps_words_and_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
