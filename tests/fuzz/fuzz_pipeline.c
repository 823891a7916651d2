/* libFuzzer target for the host pipeline (host/timeline/pipeline.h): any bytes through the reader, the time
 * line and the statistics, fed in pieces with the link going down and up now and then, then
 * rendered by the reports. Built only when the host core library exists.
 *
 * The first three input bytes choose the piece sizes, when the link drops and which report, if
 * any, is rendered. Besides what the
 * sanitizers catch, it checks that untrusted device bytes never come out raw: device text lines,
 * task names, labels, the platform string and the text report must be valid UTF-8 without
 * control characters (but the tabs of device text and the newlines of the report) or bidi
 * overrides, as host/base/escape.h promises, and the JSON report must parse. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aioprof_cobs.h"
#include "aioprof_crc16.h"
#include "aioprof_wire.h"
#include "pipeline.h"
#include "stats.h"
#ifdef FUZZ_WITH_REPORT
#include "report.h"
#endif
#ifdef FUZZ_WITH_CJSON
#include <cjson/cJSON.h>
#endif

#define FUZZ_NAME "fuzz_pipeline"
#include "fuzz_safe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    for (size_t i = 0; i < s->inst_used; i++) {
        if (!s->inst[i].in_use) {
            continue;
        }
        /* a label is a string of its own (stats.h), at most STATS_TEXT_MAX with its NUL */
        const char *l = s->inst[i].label;
        size_t len = strnlen(l, STATS_TEXT_MAX);
        if (len == STATS_TEXT_MAX) {
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
/* One of the four reports (text or JSON, by name or by instance), in one of --sort's orders, as the
 * input chose: rendering all of them for every input took most of the time of a run. */
static void fuzz_reports(const pipeline_t *p, unsigned which)
{
    char *buf = NULL;
    size_t len = 0;
    int json = which & 1u, by_instance = (which >> 1) & 1u;
    report_options_t o = { (sort_key_t)((which >> 2) % SORT_KEY_COUNT), 0, by_instance, "fuzz" };
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
}
#endif

/* The input as the records of frames made valid (a header, the CRC, COBS): what random bytes
 * rarely reach past the CRC, the span list above all. A first frame names a span and holds a list,
 * so that every frame's list is looked for (events.c). Returns the bytes fed. */
static size_t fuzz_framed(pipeline_t *p, const uint8_t *data, size_t size)
{
    static const uint8_t first[] = {
        0x71, 0x07, 0x01, 0x00, 0x04, 'm', 'a', 'i', 'n',           /* TASK_NEW 1 "main" */
        0x88,                                                      /* ENTER task 1 */
        0x78, 0x02, 0x01, 's',                                     /* SPAN_NAME 1 "s" */
        0x0a,                                                      /* EXIT yield, dt 10 */
        0x79, 0x04, 0xB9, 0x0E, 0x01, 0x02,                        /* SPANS: a PAIR of span 1 at 14 */
    };
    uint8_t body[AIOPROF_BODY_MAX], enc[AIOPROF_COBS_MAX(AIOPROF_BODY_MAX) + 2u];
    size_t fed = 0, at = 0;
    for (uint32_t seq = 0; seq == 0 || at < size; seq++) {
        const size_t head = AIOPROF_HEADER_FIXED + 1u, room = AIOPROF_BODY_MAX - head - 2u;
        const uint8_t *rec = seq == 0 ? first : data + at;
        size_t n = seq == 0 ? sizeof first : (size - at < room ? size - at : room);
        uint32_t base = 1000u + seq * 5000u;
        body[0] = (uint8_t)seq;
        body[1] = AIOPROF_FORMAT(32);
        for (unsigned i = 0; i < 4; i++) {
            body[2 + i] = (uint8_t)(base >> (8 * i));
        }
        body[6] = 0;
        memcpy(body + head, rec, n);
        uint16_t crc = aioprof_crc16(AIOPROF_CRC16_INIT, body, head + n);
        body[head + n] = (uint8_t)crc;
        body[head + n + 1] = (uint8_t)(crc >> 8);
        enc[0] = 0;
        size_t len = 1 + aioprof_cobs_encode(body, head + n + 2, enc + 1);
        enc[len++] = 0;
        pipeline_feed(p, enc, len);
        fed += len;
        at += seq == 0 ? 0 : n;
    }
    return fed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) {
        return 0;
    }
    size_t max = (size_t)1u << (data[0] % 12u);
    uint32_t seed = 0x9E3779B9u ^ (uint32_t)data[1] * 0x01000193u;
    unsigned link_every = data[2] & 0x3Fu; /* 0: the link never drops */
    /* which report renders the figures, for one input in four: the figures, names and labels are
     * checked for every input, and rendering took most of the time */
    int report = (data[1] & 3u) == 0 ? (int)(data[2] >> 6 | (unsigned)(data[1] >> 2) << 2) : -1;
    data += 3;
    size -= 3;

    /* The smallest instance table: cheaper per input, and instances get folded far sooner. One
     * pipeline for the whole run, restarted for each input: making one per input took most of
     * the time (pipeline_restart is checked to give a fresh pipeline's figures in test_report). */
    static pipeline_t *p;
    if (p == NULL) {
        pipeline_config_t config = { .slow_us = 20000u, .instance_cap = STATS_INSTANCE_CAP_MIN, .text_line = fuzz_text_line };
        p = pipeline_new(&config);
        if (!p) {
            return 0;
        }
    } else {
        pipeline_restart(p);
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
    if (report >= 0) {
        fuzz_reports(p, (unsigned)report);
    }
#else
    (void)report;
#endif
    pipeline_reset_stats(p);
    fuzz_check_stats(pipeline_stats(p), size);

    pipeline_restart(p);
    size_t fed = fuzz_framed(p, data, size);
    pipeline_finish(p);
    fuzz_check_stats(pipeline_stats(p), fed);
    return 0;
}
