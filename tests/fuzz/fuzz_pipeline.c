/* libFuzzer target for the host pipeline (host/pipeline.h): any bytes through the reader, the time
 * line and the statistics, fed in pieces with the link going down and up now and then, then
 * rendered by the reports. Built only when the host core library exists.
 *
 * The first three input bytes choose the piece sizes and when the link drops. Besides what the
 * sanitizers catch, it checks that untrusted device bytes never come out raw: device text lines,
 * task names, labels, the platform string and the text report must be valid UTF-8 without
 * control characters (but the tabs of device text and the newlines of the report) or bidi
 * overrides, as host/escape.h promises, and the JSON report must parse. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "stats.h"
#ifdef FUZZ_WITH_REPORT
#include "report.h"
#endif
#ifdef FUZZ_WITH_CJSON
#include <cjson/cJSON.h>
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fail(const char *what, const char *text)
{
    fprintf(stderr, "fuzz_pipeline: check failed: %s", what);
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

/* Safe to print (host/escape.h): valid UTF-8 with no C0 or C1 control, no DEL, no bidirectional
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

static void fuzz_text_line(void *user, const char *line)
{
    (void)user;
    fuzz_check_safe("a device text line is not safe to print", line, strlen(line), "\t");
}

static void fuzz_check_stats(const struct stats *s, uint64_t fed)
{
    if (s->stream.bytes != fed) {
        fuzz_fail("stream.bytes is not the number of bytes fed", NULL);
    }
    for (size_t i = 0; i < s->n_names; i++) {
        const char *n = s->names[i].name;
        size_t len = strnlen(n, sizeof s->names[i].name);
        if (len == sizeof s->names[i].name) {
            fuzz_fail("a task name is not terminated", NULL);
        }
        fuzz_check_safe("a task name is not safe to print", n, len, "");
    }
    for (size_t i = 0; i < s->inst_cap; i++) {
        if (!s->inst[i].in_use) {
            continue;
        }
        const char *l = s->inst[i].label;
        size_t len = strnlen(l, sizeof s->inst[i].label);
        if (len == sizeof s->inst[i].label) {
            fuzz_fail("a label is not terminated", NULL);
        }
        fuzz_check_safe("a label is not safe to print", l, len, "");
    }
    size_t plen = strnlen(s->device.platform, sizeof s->device.platform);
    if (plen == sizeof s->device.platform) {
        fuzz_fail("the platform string is not terminated", NULL);
    }
    fuzz_check_safe("the platform string is not safe to print", s->device.platform, plen, "");
}

#ifdef FUZZ_WITH_REPORT
static void fuzz_reports(const pipeline_t *p)
{
    char *buf = NULL;
    size_t len = 0;
    for (int json = 0; json <= 1; json++) {
        for (int by_instance = 0; by_instance <= 1; by_instance++) {
            report_options_t o = { STATS_SORT_TOTAL, 0, by_instance, "fuzz" };
            FILE *out = open_memstream(&buf, &len);
            if (!out) {
                return;
            }
            int rc = json ? report_json(out, p, &o) : report_text(out, p, &o);
            fclose(out);
            if (rc != 0) {
                fuzz_fail("a report failed to write to memory", NULL);
            }
            if (!json) {
                fuzz_check_safe("the text report is not safe to print", buf, len, "\n");
            }
#ifdef FUZZ_WITH_CJSON
            if (json) {
                cJSON *doc = cJSON_ParseWithLength(buf, len);
                if (!doc) {
                    fuzz_fail("the JSON report does not parse", buf);
                }
                cJSON_Delete(doc);
            }
#endif
            free(buf);
            buf = NULL;
        }
    }
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) {
        return 0;
    }
    size_t max = (size_t)1u << (data[0] % 12u);
    uint32_t seed = 0x9E3779B9u ^ (uint32_t)data[1] * 0x01000193u;
    unsigned link_every = data[2]; /* 0: the link never drops */
    data += 3;
    size -= 3;

    /* The smallest instance table: cheaper per input, and instances get folded far sooner. */
    pipeline_config_t config = { .slow_us = 20000u, .instance_cap = STATS_INSTANCE_CAP_MIN, .text_line = fuzz_text_line };
    pipeline_t *p = pipeline_new(&config);
    if (!p) {
        return 0;
    }
    size_t at = 0;
    unsigned piece_no = 0;
    while (at < size) {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        size_t piece = 1u + seed % max;
        piece = piece < size - at ? piece : size - at;
        pipeline_feed(p, data + at, piece);
        at += piece;
        if (link_every != 0 && ++piece_no % link_every == 0) {
            pipeline_link_down(p);
            pipeline_link_up(p);
        }
    }
    pipeline_finish(p);
    fuzz_check_stats(pipeline_stats(p), size);
#ifdef FUZZ_WITH_REPORT
    fuzz_reports(p);
#endif
    pipeline_reset_stats(p);
    fuzz_check_stats(pipeline_stats(p), size);
    pipeline_free(p);
    return 0;
}
