/* host/input/source_recording.c: recordings built here byte by byte (docs/recording.md), read whole and
 * in pieces; what comes out is compared with what went in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "recording.h"
#include "source_recording.h"

typedef struct buf {
    uint8_t b[1 << 16];
    size_t n;
} buf_t;

static void put(buf_t *o, const void *p, size_t n)
{
    if (n > 0) {
        memcpy(o->b + o->n, p, n);
        o->n += n;
    }
}

static void header(buf_t *o, uint32_t meta_len_said)
{
    static const char meta[] = "{\"format\":\"aioprof recording\"}";
    uint8_t fixed[RECORDING_HEADER_FIXED];
    memcpy(fixed, RECORDING_MAGIC, RECORDING_MAGIC_LEN);
    fixed[8] = RECORDING_VERSION;
    fixed[9] = 0;
    for (unsigned i = 0; i < 4; i++) {
        fixed[10 + i] = (uint8_t)(meta_len_said >> (8 * i));
    }
    put(o, fixed, sizeof fixed);
    put(o, meta, sizeof meta - 1);
}

static void chunk(buf_t *o, recording_chunk_type_t type, uint64_t t, const void *data, size_t len)
{
    uint8_t head[RECORDING_CHUNK_HEAD_MAX];
    put(o, head, recording_chunk_head(head, type, t, len));
    put(o, data, len);
}

/* What a read gave: the port bytes, the link events and times, how it ended. */
typedef struct got {
    buf_t port;
    int downs, ups, headers, holes;
    uint64_t last_time;
    recording_step_kind_t end;
    recording_reader_t r;
} got_t;

/* Reads in through a window that grows by `piece` bytes at a time (0: all at once). */
static void read_all(got_t *g, const buf_t *in, size_t piece)
{
    size_t pos = 0, given = piece ? 0 : in->n;
    memset(g, 0, sizeof *g);
    recording_reader_init(&g->r);
    for (int steps = 0; steps < 100000; steps++) {
        int eof = given == in->n;
        recording_step_t st = recording_reader_step(&g->r, in->b + pos, given - pos, eof, 0, 4096);
        switch (st.kind) {
        case RECORDING_STEP_MORE:
            assert_false(eof);
            given = given + piece < in->n ? given + piece : in->n;
            continue;
        case RECORDING_STEP_BYTES:
            put(&g->port, in->b + pos + st.data_at, st.data_len);
            g->holes += st.damaged && st.first;
            break;
        case RECORDING_STEP_DOWN:
            g->downs++;
            break;
        case RECORDING_STEP_UP:
            g->ups++;
            break;
        case RECORDING_STEP_HEADER:
            g->headers++;
            break;
        default:
            break;
        }
        if (st.kind != RECORDING_STEP_NONE && st.kind != RECORDING_STEP_END) {
            assert_true(st.time_us >= g->last_time);
            g->last_time = st.time_us;
        }
        pos += st.used;
        if (st.kind == RECORDING_STEP_END || st.kind == RECORDING_STEP_ERROR) {
            g->end = st.kind;
            return;
        }
    }
    fail_msg("the reader did not come to an end");
}

static void make_port_bytes(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

/* A clean recording: every port byte out, in order, the link events, a clean end. */
static void test_clean(void **state)
{
    (void)state;
    static buf_t in;
    static uint8_t port[20000];
    static got_t g;
    make_port_bytes(port, sizeof port, 1);
    in.n = 0;
    header(&in, 30);
    size_t at = 0;
    for (uint64_t t = 100; at < sizeof port; t += 1000) {
        size_t n = 1 + (at * 7) % 3000;
        n = n < sizeof port - at ? n : sizeof port - at;
        chunk(&in, RECORDING_CHUNK_DATA, t, port + at, n);
        at += n;
        if (t == 5100) {
            chunk(&in, RECORDING_CHUNK_LINK_DOWN, t + 1, NULL, 0);
            chunk(&in, RECORDING_CHUNK_LINK_UP, t + 500, NULL, 0);
        }
    }
    chunk(&in, RECORDING_CHUNK_END, 999999, NULL, 0);
    for (size_t piece = 0; piece < 200; piece += 37) {
        read_all(&g, &in, piece);
        assert_int_equal(g.end, RECORDING_STEP_END);
        assert_int_equal(g.port.n, sizeof port);
        assert_memory_equal(g.port.b, port, sizeof port);
        assert_int_equal(g.downs, 1);
        assert_int_equal(g.ups, 1);
        assert_int_equal(g.r.damaged, 0);
        assert_true(g.r.clean_end);
        assert_int_equal(g.r.trailing, 0);
    }
}

/* A metadata length that cannot be right, read whole and from a pipe a few bytes at a time: the
 * chunks after it are found both ways (from a pipe, the search used to give up on the few bytes
 * it had and call the file cut inside its header). */
static void test_damaged_metadata_length(void **state)
{
    (void)state;
    static buf_t in;
    static got_t whole, piecemeal;
    uint8_t port[300];
    make_port_bytes(port, sizeof port, 2);
    in.n = 0;
    header(&in, 0x00FF0032u);
    for (int i = 0; i < 6; i++) {
        chunk(&in, RECORDING_CHUNK_DATA, 1000u * (unsigned)i, port + 50 * i, 50);
    }
    chunk(&in, RECORDING_CHUNK_END, 9000, NULL, 0);
    read_all(&whole, &in, 0);
    read_all(&piecemeal, &in, 5);
    assert_int_equal(whole.end, RECORDING_STEP_END);
    assert_int_equal(piecemeal.end, RECORDING_STEP_END);
    assert_int_equal(whole.port.n, sizeof port);
    assert_memory_equal(whole.port.b, port, sizeof port);
    assert_int_equal(piecemeal.port.n, sizeof port);
    assert_int_equal(whole.r.damaged, 1);
    assert_int_equal(piecemeal.r.damaged, 1);
}

/* Two recordings concatenated, the first ending at a time near 2^64: both read, a gap between
 * them, and the second's times follow on without wrapping back. */
static void test_concatenated_times_do_not_wrap(void **state)
{
    (void)state;
    static buf_t in;
    static got_t g;
    in.n = 0;
    header(&in, 30);
    chunk(&in, RECORDING_CHUNK_DATA, UINT64_MAX - 10, "ab", 2);
    chunk(&in, RECORDING_CHUNK_END, UINT64_MAX - 5, NULL, 0);
    header(&in, 30);
    chunk(&in, RECORDING_CHUNK_DATA, 100, "cd", 2);
    chunk(&in, RECORDING_CHUNK_DATA, 200, "ef", 2);
    chunk(&in, RECORDING_CHUNK_END, 300, NULL, 0);
    read_all(&g, &in, 0);
    assert_int_equal(g.headers, 2);
    assert_int_equal(g.port.n, 6);
    assert_memory_equal(g.port.b, "abcdef", 6);
    assert_int_equal(g.last_time, UINT64_MAX);
    assert_int_equal(g.r.trailing, 0);
}

/* How the last of two concatenated recordings ended is how the file ended: the first one's END does
 * not make a second one cut off (killed) look closed cleanly, which its replay would trust. */
static void test_concatenated_end_is_the_last_ones(void **state)
{
    (void)state;
    static buf_t in;
    static got_t g;
    for (int second_ends = 0; second_ends < 2; second_ends++) {
        in.n = 0;
        header(&in, 30);
        chunk(&in, RECORDING_CHUNK_DATA, 10, "ab", 2);
        chunk(&in, RECORDING_CHUNK_END, 20, NULL, 0);
        header(&in, 30);
        chunk(&in, RECORDING_CHUNK_DATA, 100, "cd", 2);
        if (second_ends) {
            chunk(&in, RECORDING_CHUNK_END, 300, NULL, 0);
        }
        read_all(&g, &in, 0);
        assert_int_equal(g.headers, 2);
        assert_int_equal(g.port.n, 4);
        assert_int_equal(g.r.clean_end, second_ends);
    }
}

/* One byte deleted inside a chunk's data: the stretch up to the next chunk is given, marked, and
 * everything after it is read; bytes after the end are counted. */
static void test_deleted_byte_and_trailing(void **state)
{
    (void)state;
    static buf_t in, cut;
    static got_t g;
    uint8_t port[4000];
    make_port_bytes(port, sizeof port, 3);
    in.n = 0;
    header(&in, 30);
    for (int i = 0; i < 40; i++) {
        chunk(&in, RECORDING_CHUNK_DATA, 10u * (unsigned)i, port + 100 * i, 100);
    }
    chunk(&in, RECORDING_CHUNK_END, 1000, NULL, 0);
    put(&in, "trailing", 8);
    size_t at = in.n / 2;
    memcpy(cut.b, in.b, at);
    memcpy(cut.b + at, in.b + at + 1, in.n - at - 1);
    cut.n = in.n - 1;
    read_all(&g, &cut, 0);
    assert_int_equal(g.end, RECORDING_STEP_END);
    assert_int_equal(g.r.damaged, 1);
    assert_int_equal(g.holes, 1);
    assert_int_equal(g.port.n, sizeof port - 1);
    assert_int_equal(g.r.trailing, 8);
    assert_true(g.r.clean_end);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_damaged_metadata_length),
        cmocka_unit_test(test_concatenated_times_do_not_wrap),
        cmocka_unit_test(test_concatenated_end_is_the_last_ones),
        cmocka_unit_test(test_deleted_byte_and_trailing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
