/* How well the reader tells a damaged frame from device text (docs/protocol.md section 1), measured
 * with the reader itself on real streams:
 *
 *  - damage: every frame of every capture given (but the first: a reader that never saw a frame
 *    cannot miss one) is damaged at every STEP-th byte in four ways (a byte changed, deleted, a
 *    byte inserted, the frame cut there) and fed, with the frame after it, to a reader that read
 *    every frame before (a variant that still holds the whole frame, a 0x00 put next to it, is
 *    not damage). Counted as damage: the CRC errors went up. Passed as text: text came out.
 *    Caught by the sequence number: the next frame counted a lost frame. Silent: neither a CRC
 *    error nor a lost frame (the figures would not be marked).
 *  - text: device text (plain lines, the simulator's hostile ones, MicroPython's REPL and raw REPL
 *    output, and each of them with one control byte put at every place) between two frames of a
 *    capture, and before the first delimiter a reader sees. Kept: all of it came out as text.
 *
 * Besides the captures named, it makes one of its own with the device library: an idle device
 * (heartbeats, a short slice now and then), whose small frames are the hardest to tell from text.
 *
 * usage: bench_classify [--step N] [--check] CAPTURE...
 *   --check: exit 1 when a damaged frame went silent (the end-to-end test uses it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aioprof.h"
#include "aioprof_frame_reader.h"

typedef struct buf {
    uint8_t *p;
    size_t len, cap;
} buf_t;

static void buf_add(buf_t *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 4096;
        b->p = realloc(b->p, b->cap);
        if (!b->p) {
            fprintf(stderr, "bench_classify: out of memory\n");
            exit(1);
        }
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

static uint32_t rng = 12345u;

static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* ---- an idle device, made with the library ---- */

static uint64_t idle_clock;
static buf_t idle_out;

static uint32_t idle_ticks(void *user)
{
    (void)user;
    return (uint32_t)idle_clock;
}

static size_t idle_write(void *user, const uint8_t *data, size_t len)
{
    (void)user;
    buf_add(&idle_out, data, len);
    return len;
}

static void make_idle(buf_t *out)
{
    static uint8_t ring[2048];
    static aioprof_t prof;
    static aioprof_task_t tasks[3];
    static const char *names[] = {"blink", "Sensor._go", "net_poll"};
    aioprof_port_t port = {.ticks = idle_ticks, .write = idle_write, .tick_hz = 1000000u, .tick_bits = 30,
        .platform = "rp2 MicroPython 1.24"};
    static aioprof_port_t keep;
    keep = port;
    idle_clock = 123456789u;
    aioprof_init(&prof, &keep, ring, sizeof ring);
    for (unsigned i = 0; i < 3; i++) {
        aioprof_task_created(&prof, &tasks[i], names[i], strlen(names[i]));
    }
    for (unsigned step = 0; step < 3000; step++) {
        idle_clock += 100000;
        if (rnd() % 20 == 0) {
            aioprof_task_t *t = &tasks[rnd() % 3];
            aioprof_enter(&prof, t);
            idle_clock += 1 + rnd() % 5000;
            aioprof_exit(&prof, t, AIOPROF_EXIT_YIELD);
        }
        if (rnd() % 100 == 0) {
            static char label[16];
            snprintf(label, sizeof label, "unit %u", (unsigned)(rnd() % 100));
            aioprof_task_label(&prof, &tasks[rnd() % 3], label, strlen(label));
        }
        aioprof_drain(&prof);
    }
    aioprof_close(&prof);
    while (!aioprof_idle(&prof)) {
        aioprof_drain(&prof);
    }
    *out = idle_out;
}

/* ---- the streams' frames ---- */

typedef struct span {
    size_t at, len; /* a frame's bytes, without its delimiters */
} span_t;

/* The valid frames of a stream (a reader that judges each segment alone says which). */
static size_t frames_of(const buf_t *b, span_t **out)
{
    size_t n = 0, cap = 0;
    span_t *s = NULL;
    for (size_t i = 0; i < b->len;) {
        size_t j = i;
        while (j < b->len && b->p[j] != 0) {
            j++;
        }
        if (j > i) {
            aioprof_reader_t r;
            aioprof_reader_sink_t none = {0};
            aioprof_reader_init(&r, &none, NULL);
            uint8_t zero = 0;
            aioprof_reader_feed(&r, &zero, 1);
            aioprof_reader_feed(&r, b->p + i, j - i);
            aioprof_reader_feed(&r, &zero, 1);
            if (r.stats.frames == 1) {
                if (n == cap) {
                    cap = cap * 2 + 256;
                    s = realloc(s, cap * sizeof *s);
                }
                s[n++] = (span_t){i, j - i};
            }
        }
        i = j + 1;
    }
    *out = s;
    return n;
}

/* ---- damage ---- */

typedef struct tally {
    uint64_t damaged, as_damage, as_text, by_sequence, silent;
} tally_t;

/* Feeds "00 damaged 00 00 next 00" to a copy of before and sorts the outcome. */
static void judge(const aioprof_reader_t *before, const uint8_t *dmg, size_t dlen, const uint8_t *next, size_t nlen,
    tally_t *t)
{
    static aioprof_reader_t r;
    uint8_t zero = 0;
    r = *before;
    aioprof_reader_feed(&r, &zero, 1);
    aioprof_reader_feed(&r, dmg, dlen);
    aioprof_reader_feed(&r, &zero, 1);
    aioprof_reader_feed(&r, &zero, 1);
    aioprof_reader_feed(&r, next, nlen);
    aioprof_reader_feed(&r, &zero, 1);
    int crc = r.stats.crc_errors > before->stats.crc_errors;
    int lost = r.stats.lost_frames > before->stats.lost_frames;
    if (r.stats.frames - before->stats.frames == 2) {
        return; /* still whole: a 0x00 put before or after it only cuts an empty segment */
    }
    t->damaged++;
    t->as_damage += crc;
    t->as_text += r.stats.text_bytes > before->stats.text_bytes;
    t->by_sequence += !crc && lost;
    t->silent += !crc && !lost;
}

static void damage_stream(const buf_t *b, size_t step, tally_t *t, aioprof_reader_t *context)
{
    span_t *f;
    size_t n = frames_of(b, &f);
    static const aioprof_reader_sink_t none = {0};
    aioprof_reader_t before;
    aioprof_reader_init(&before, &none, NULL);
    uint8_t zero = 0;
    uint8_t dmg[AIOPROF_SEGMENT_MAX + 2];
    int have_context = 0;
    for (size_t k = 0; k + 1 < n; k++) {
        const uint8_t *seg = b->p + f[k].at;
        size_t len = f[k].len;
        if (k > 0) {
            for (size_t i = rnd() % step; i < len; i += step) {
                for (int how = 0; how < 4; how++) {
                    size_t d = 0;
                    memcpy(dmg, seg, i);
                    d = i;
                    if (how == 0) {
                        dmg[d++] = (uint8_t)(seg[i] ^ (1u + rnd() % 255u));
                        memcpy(dmg + d, seg + i + 1, len - i - 1);
                        d += len - i - 1;
                    } else if (how == 1) {
                        memcpy(dmg + d, seg + i + 1, len - i - 1);
                        d += len - i - 1;
                    } else if (how == 2) {
                        dmg[d++] = (uint8_t)rnd();
                        memcpy(dmg + d, seg + i, len - i);
                        d += len - i;
                    } else if (i == 0) {
                        continue;
                    }
                    judge(&before, dmg, d, b->p + f[k + 1].at, f[k + 1].len, t);
                }
            }
        }
        aioprof_reader_feed(&before, &zero, 1);
        aioprof_reader_feed(&before, seg, len);
        aioprof_reader_feed(&before, &zero, 1);
        if (context && !have_context && k >= n / 2) {
            *context = before; /* a reader in the middle of a stream, for the text samples */
            have_context = 1;
        }
    }
    free(f);
}

/* ---- text ---- */

static const char *const text_samples[] = {
    "sensor 3: temp=21.4 C\n", "free mem: 41234 bytes\n", "[net] rssi -71 dBm, line 12\n", "hello from the device\r\n",
    "Traceback (most recent call last):\r\n  File \"main.py\", line 12, in <module>\r\nValueError: bad value\r\n",
    "MicroPython v1.24.0 on 2024-10-25; Raspberry Pi Pico with RP2040\r\nType \"help()\" for more information.\r\n>>> ",
    "MPY: soft reboot\r\n", "raw REPL; CTRL-B to exit\r\n>", "OK", ">", "\r\n", "x", "12:34:56 tick 7\n",
    "a = 1, b = 2\n", "temp\xc3\xa9rature 21,5 \xc2\xb0" "C\n", "\xe6\xb8\xa9\xe5\xba\xa6 21\n", "========================\n",
    "I (1234) wifi: connected\n", "\x1b[0;32mI (345) boot: ESP-IDF v5.1\x1b[0m\r\n", "    0x40080000: 0x3ffb0000\r\n",
    /* the simulator's hostile lines */
    "\x1b[2J\x1b[Hthe screen is gone, line 1\n", "bell\x07\x07 and backspace\x08\x08\x08 line 3\n",
    "\x1b]0;window title from the device\x07 line 5\n", "bad utf-8 \xff\xfe\xc0\xaf\xed\xa0\x80 line 7\r\n",
    "carriage return\rover the top, line 9\n", "\x1b[31;1mred\x1b[0m and \x1b[8mhidden\x1b[0m line 11\n",
    "\xe2\x80\xae" "desrever thgir-ot-tfel line 13\n", "\x1b[?1049h\x1b[6n\x1bPq device control line 15\x1b\\\n",
    /* MicroPython's raw REPL (mpremote run, pyboard.py): OK, output, EOT, error text, EOT, prompt */
    "line 5\r\nline 6\r\nline 7\r\nline 8\r\n\x04\x04>", "\x04\x04>", "OK\x04\x04>", "done\r\n\x04\x04>",
    "\x04Traceback (most recent call last):\r\n  File \"<stdin>\", line 3, in <module>\r\nKeyboardInterrupt: \r\n\x04>",
    "\r\nKeyboardInterrupt\r\n>>> ", "paste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== ",
};

/* Is every byte of sample seen as text, between frames (context) and before any delimiter? */
static int text_kept(const aioprof_reader_t *context, const uint8_t *s, size_t n)
{
    static aioprof_reader_t r;
    static const aioprof_reader_sink_t none = {0};
    uint8_t zero = 0;
    int kept = 1;
    if (context) {
        r = *context;
        uint64_t t0 = r.stats.text_bytes, c0 = r.stats.crc_errors;
        aioprof_reader_feed(&r, &zero, 1);
        aioprof_reader_feed(&r, s, n);
        aioprof_reader_feed(&r, &zero, 1);
        kept = r.stats.text_bytes - t0 == n && r.stats.crc_errors == c0;
    }
    aioprof_reader_init(&r, &none, NULL);
    aioprof_reader_feed(&r, s, n);
    aioprof_reader_feed(&r, &zero, 1);
    return kept && r.stats.text_bytes == n && r.stats.skipped_bytes == 0;
}

static void text_samples_judge(aioprof_reader_t *const *contexts, size_t ncontexts, uint64_t *samples, uint64_t *kept)
{
    static const uint8_t controls[] = {0x01, 0x02, 0x03, 0x05, 0x06, 0x0B, 0x0C, 0x0E, 0x10, 0x15, 0x1A, 0x1F, 0x7F};
    uint8_t s[512];
    for (size_t i = 0; i < sizeof text_samples / sizeof text_samples[0]; i++) {
        size_t n = strlen(text_samples[i]);
        for (size_t at = 0; at <= n; at++) {
            for (size_t c = 0; c <= sizeof controls; c++) {
                /* c == sizeof controls: the sample as it is (once) */
                if (c == sizeof controls && at > 0) {
                    continue;
                }
                size_t len = 0;
                memcpy(s, text_samples[i], at);
                len = at;
                if (c < sizeof controls) {
                    s[len++] = controls[c];
                }
                memcpy(s + len, text_samples[i] + at, n - at);
                len += n - at;
                for (size_t k = 0; k < ncontexts; k++) {
                    (*samples)++;
                    if (text_kept(contexts[k], s, len)) {
                        (*kept)++;
                    } else if (c == sizeof controls) {
                        printf("classify: text lost: sample %zu as it is\n", i);
                    }
                }
            }
        }
    }
}

static int load(const char *path, buf_t *b)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        buf_add(b, chunk, n);
    }
    fclose(f);
    return 0;
}

static void print_tally(const char *what, const tally_t *t)
{
    if (t->damaged == 0) {
        return;
    }
    double n = (double)t->damaged;
    printf("classify: %s: %llu damaged frames: %.3f%% counted as damage, %.3f%% passed as text (%.3f%% caught by "
           "the sequence number), %llu silent\n",
        what, (unsigned long long)t->damaged, 100.0 * (double)t->as_damage / n, 100.0 * (double)t->as_text / n,
        100.0 * (double)t->by_sequence / n, (unsigned long long)t->silent);
}

int main(int argc, char **argv)
{
    size_t step = 1;
    int check = 0;
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "--check") == 0) {
            check = 1;
        } else if (strcmp(argv[first], "--step") == 0 && first + 1 < argc) {
            step = (size_t)strtoul(argv[++first], NULL, 10);
            step = step ? step : 1;
        } else {
            fprintf(stderr, "usage: bench_classify [--step N] [--check] CAPTURE...\n");
            return 2;
        }
    }
    tally_t all = {0};
    static aioprof_reader_t ctx[64];
    aioprof_reader_t *contexts[65] = {NULL}; /* NULL: the samples before any frame only */
    size_t ncontexts = 1;
    buf_t idle = {0};
    make_idle(&idle);
    for (int i = first - 1; i < argc; i++) {
        buf_t b = {0};
        const char *name = i < first ? "idle device (made here)" : argv[i];
        if (i < first) {
            b = idle;
        } else if (load(argv[i], &b) < 0) {
            fprintf(stderr, "bench_classify: cannot read %s\n", argv[i]);
            return 1;
        }
        tally_t t = {0};
        aioprof_reader_t *c = ncontexts <= 64 ? &ctx[ncontexts - 1] : NULL;
        damage_stream(&b, step, &t, c);
        if (c) {
            contexts[ncontexts++] = c;
        }
        print_tally(name, &t);
        all.damaged += t.damaged;
        all.as_damage += t.as_damage;
        all.as_text += t.as_text;
        all.by_sequence += t.by_sequence;
        all.silent += t.silent;
        free(b.p);
    }
    print_tally("all", &all);
    uint64_t samples = 0, kept = 0;
    text_samples_judge(contexts, ncontexts, &samples, &kept);
    printf("classify: device text: %llu samples (with and without a control byte, before any frame and between "
           "frames of each stream): %.3f%% kept as text\n",
        (unsigned long long)samples, samples ? 100.0 * (double)kept / (double)samples : 0.0);
    return check && all.silent ? 1 : 0;
}
