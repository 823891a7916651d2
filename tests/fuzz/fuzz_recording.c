/* libFuzzer target for the recording reader (host/input/source_recording.h): any bytes as a recording
 * file, read the way the file source reads them.
 *
 * The first two input bytes choose a window size and a seed for how the bytes arrive. Each input
 * is read three times:
 *  A. all at once (the end of the file known);
 *  B. arriving in pieces of random size into a window that holds it all (a pipe): the reader must
 *     decide exactly as in A, since it only decides when it has seen enough or the end;
 *  C. through a small window (a file larger than the buffer): "full" forces decisions early, so
 *     only the safety checks apply.
 * Checks, besides what the sanitizers catch: every step stays inside the window and takes what it
 * says; the reader never asks for more bytes when it was told there are none or no room; it ends
 * (END or the first header's ERROR) within a bound of steps, having read every byte; the times it
 * hands out never go back; A and B give the same port bytes, link events, times and counts. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source_recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz_recording: check failed: %s\n", what);
    abort();
}

typedef struct fuzz_run {
    uint64_t hash;      /* kinds, times, port bytes, in order */
    uint64_t port_bytes;
    recording_reader_t r;
    recording_step_kind_t last;
} fuzz_run_t;

static void fuzz_mix(uint64_t *h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        *h ^= (uint8_t)(v >> (8 * i));
        *h *= 0x100000001B3ull;
    }
}

static uint32_t fuzz_next(uint32_t *seed)
{
    *seed ^= *seed << 13;
    *seed ^= *seed >> 17;
    *seed ^= *seed << 5;
    return *seed;
}

/* Reads data[0..size) through a window of cap bytes; pieces: the most bytes that arrive at once
 * (0: as many as fit, as from a regular file). */
static void fuzz_read(fuzz_run_t *run, const uint8_t *data, size_t size, size_t cap, size_t pieces, uint32_t seed)
{
    uint8_t *win = malloc(cap ? cap : 1);
    size_t pos = 0, fill = 0, given = 0;
    uint64_t steps = 0, limit = 8u * (uint64_t)size + 64u, last_time = 0;
    if (win == NULL) {
        return;
    }
    memset(run, 0, sizeof *run);
    run->hash = 0xCBF29CE484222325ull;
    recording_reader_init(&run->r);
    for (;;) {
        if (++steps > limit) {
            fuzz_fail("the reader does not come to an end");
        }
        int eof = given == size;
        size_t avail = fill - pos;
        int full = avail == cap;
        size_t max = 1 + fuzz_next(&seed) % 4096u;
        recording_step_t st = recording_reader_step(&run->r, win + pos, avail, eof, full, max);
        if (st.used > avail) {
            fuzz_fail("a step takes more than the window holds");
        }
        if (st.kind == RECORDING_STEP_MORE) {
            if (eof || full) {
                fuzz_fail("more bytes asked for when there are none, or no room");
            }
            if (st.used != 0) {
                fuzz_fail("a MORE step takes bytes");
            }
            /* the window keeps its unread part at its start, as the file source does */
            memmove(win, win + pos, avail);
            fill = avail;
            pos = 0;
            size_t n = size - given < cap - fill ? size - given : cap - fill;
            if (pieces != 0 && n > 1) {
                n = 1 + fuzz_next(&seed) % (n < pieces ? n : pieces);
            }
            memcpy(win + fill, data + given, n);
            fill += n;
            given += n;
            continue;
        }
        if (st.kind == RECORDING_STEP_BYTES || st.kind == RECORDING_STEP_HEADER) {
            if (st.data_at > st.used || st.data_len > st.used - st.data_at) {
                fuzz_fail("a step's data is outside what it takes");
            }
        }
        /* the steps, but not how the port bytes were cut into them, which depends on the window */
        if (st.kind != RECORDING_STEP_NONE && (st.kind != RECORDING_STEP_BYTES || st.first)) {
            if (st.time_us < last_time && st.kind != RECORDING_STEP_END && st.kind != RECORDING_STEP_ERROR) {
                fuzz_fail("a time goes back");
            }
            if (st.kind != RECORDING_STEP_END && st.kind != RECORDING_STEP_ERROR) {
                last_time = st.time_us;
            }
            fuzz_mix(&run->hash, (uint64_t)st.kind << 56 ^ st.time_us ^ (uint64_t)st.damaged << 55);
        }
        if (st.kind == RECORDING_STEP_BYTES) {
            if (st.data_len > max || st.data_at + st.data_len != st.used) {
                fuzz_fail("port bytes past the step's end or more than asked for");
            }
            for (size_t i = 0; i < st.data_len; i++) {
                fuzz_mix(&run->hash, win[pos + st.data_at + i]);
            }
            run->port_bytes += st.data_len;
        }
        pos += st.used;
        if (st.kind == RECORDING_STEP_END || st.kind == RECORDING_STEP_ERROR) {
            run->last = st.kind;
            break;
        }
    }
    if (run->last == RECORDING_STEP_END && (given != size || pos != fill || run->r.offset != size)) {
        fuzz_fail("the end came before every byte was read");
    }
    if (run->port_bytes + run->r.trailing > size) {
        fuzz_fail("more bytes out than in");
    }
    free(win);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    size_t small = 32u + ((size_t)data[0] << 4); /* 32 to 4112 bytes */
    uint32_t seed = 0x9E3779B9u ^ (uint32_t)data[1] * 0x01000193u;
    data += 2;
    size -= 2;

    static fuzz_run_t a, b, c;
    fuzz_read(&a, data, size, size + 1, 0, seed);
    fuzz_read(&b, data, size, size + 1, 1 + (seed & 511u), seed);
    if (a.hash != b.hash || a.port_bytes != b.port_bytes || a.last != b.last || a.r.damaged != b.r.damaged ||
        a.r.damaged_bytes != b.r.damaged_bytes || a.r.trailing != b.r.trailing || a.r.cut != b.r.cut ||
        a.r.clean_end != b.r.clean_end || a.r.recordings != b.r.recordings) {
        fuzz_fail("what was read depends on how the bytes arrived");
    }
    fuzz_read(&c, data, size, small, 0, seed);
    return 0;
}
