/* libFuzzer target for the trace export (host/views/export_trace.h): any bytes through a pipeline whose
 * observer is the export, fed in pieces with the link going down and up now and then, as
 * fuzz_pipeline does; the trace is written to a file in a scratch folder and read back.
 *
 * The first three input bytes choose the piece sizes and when the link drops. Checks, besides what
 * the sanitizers catch: the file is one JSON document whose every string is safe to print
 * (host/base/escape.h: device names and text come through escaped, then JSON-escaped); it holds one
 * "X" event for every slice and late resume (its "waiting" slice) the pipeline told the observer
 * of, and one instant for every mark and text line. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export_trace.h"
#include "pipeline.h"
#include "stats.h"

#define FUZZ_NAME "fuzz_trace"
#include "fuzz_safe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The export's observer, with what it was told counted on the way. */
typedef struct fuzz_watch {
    export_trace_t *x;
    const pipeline_observer_t *inner;
    uint64_t slices, instants;
} fuzz_watch_t;

static void watch_slice(void *user, const pipeline_slice_t *s)
{
    fuzz_watch_t *w = user;
    w->slices++;
    w->inner->slice(w->x, s);
}

static void watch_mark(void *user, pipeline_mark_t mark, uint64_t at_us, uint64_t count)
{
    fuzz_watch_t *w = user;
    w->instants++;
    w->inner->mark(w->x, mark, at_us, count);
}

static void watch_text(void *user, uint64_t at_us, const char *line)
{
    fuzz_watch_t *w = user;
    w->instants++;
    w->inner->text_line(w->x, at_us, line);
}

static void watch_event(void *user, uint64_t at_us)
{
    fuzz_watch_t *w = user;
    w->inner->event(w->x, at_us);
}

/* A late resume's window: it ends where it began or later, and its culprit took no more of it
 * than it lasted. */
static void watch_late(void *user, const pipeline_late_t *l)
{
    fuzz_watch_t *w = user;
    if (l->end_us < l->start_us || l->blocked_us > l->end_us - l->start_us) {
        char what[160];
        snprintf(what, sizeof what, "a late window from %llu to %llu us whose culprit took %llu us of it",
            (unsigned long long)l->start_us, (unsigned long long)l->end_us, (unsigned long long)l->blocked_us);
        fuzz_fail(what, l->blocked_by);
    }
    w->slices++; /* a "waiting" slice in the trace */
    w->inner->late(w->x, l);
}

/* A span's piece: it ends where it began or later, and has a name (the trace draws it). */
static void watch_span(void *user, const pipeline_span_t *sp)
{
    fuzz_watch_t *w = user;
    if (sp->end_us < sp->start_us || sp->name == NULL) {
        fuzz_fail(sp->name == NULL ? "a span's piece without a name" : "a span's piece that ends before it begins",
            sp->name);
    }
    w->slices++; /* a nested slice in the trace */
    w->inner->span(w->x, sp);
}

static const pipeline_observer_t watch = {watch_slice, watch_mark, watch_text, watch_event, watch_late, watch_span};
/* The same without the per-event call: the events stage then takes a resume and its yield as one
 * pair where it can (events.c, pairs_loop), a path of its own to check. */
static const pipeline_observer_t watch_pairs = {watch_slice, watch_mark, watch_text, NULL, watch_late, watch_span};

/* Every string under item is safe to print; `allow`: the C0 controls kept on purpose. */
static void fuzz_walk(const cJSON *item, const char *allow)
{
    for (; item != NULL; item = item->next) {
        if (cJSON_IsString(item)) {
            fuzz_check_safe("a string in the trace is not safe to print", item->valuestring,
                strlen(item->valuestring), allow);
        }
        if (item->string != NULL) {
            fuzz_check_safe("a key in the trace is not safe to print", item->string, strlen(item->string), "");
        }
        fuzz_walk(item->child, allow);
    }
}

/* Each event's strings are safe (a device text line, an instant on the text track, keeps its
 * tabs, as host/base/escape.h's ESCAPE_KEEP_TAB does); counts the slices and instants. */
static void fuzz_events(const cJSON *doc, uint64_t *x_events, uint64_t *instants)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents"))
    {
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "s");
        int text = cJSON_IsString(s) && strcmp(s->valuestring, "t") == 0 && cJSON_IsNumber(tid) && tid->valueint == 1;
        if (!cJSON_IsString(ph)) {
            fuzz_fail("an event without a phase", NULL);
        }
        *x_events += strcmp(ph->valuestring, "X") == 0;
        *instants += strcmp(ph->valuestring, "i") == 0;
        fuzz_walk(e->child, text ? "\t" : "");
    }
    fuzz_walk(cJSON_GetObjectItemCaseSensitive(doc, "otherData"), "");
}

static char *fuzz_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    if (f == NULL) {
        fuzz_fail("the trace file is gone", NULL);
    }
    for (;;) {
        if (cap - *len < 4096) {
            cap = cap * 2 + 65536;
            char *grown = realloc(buf, cap);
            if (grown == NULL) {
                fuzz_fail("out of memory reading the trace back", NULL);
            }
            buf = grown;
        }
        size_t n = fread(buf + *len, 1, cap - *len, f);
        if (n == 0) {
            break;
        }
        *len += n;
    }
    fclose(f);
    return buf;
}

static char scratch_dir[64], path[256];

/* The scratch folder goes when the fuzzer ends its run (after a crash it stays, with the trace). */
static void fuzz_scratch_remove(void)
{
    unlink(path);
    rmdir(scratch_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (path[0] == '\0') {
        snprintf(scratch_dir, sizeof scratch_dir, "/tmp/fuzz_trace.XXXXXX");
        if (mkdtemp(scratch_dir) == NULL) {
            fuzz_fail("no scratch folder", NULL);
        }
        snprintf(path, sizeof path, "%s/trace.json", scratch_dir);
        atexit(fuzz_scratch_remove);
    }
    if (size < 3) {
        return 0;
    }
    size_t max = (size_t)1u << (data[0] % 12u);
    uint32_t seed = 0x9E3779B9u ^ (uint32_t)data[1] * 0x01000193u;
    unsigned quiet = data[1] & 1u;
    unsigned link_every = data[2];
    data += 3;
    size -= 3;

    /* two pipelines for the run, one told of every event and one not (the second byte's low bit
     * chooses), each restarted for each input (as fuzz_pipeline does) */
    static fuzz_watch_t w;
    static pipeline_t *pipes[2];
    pipeline_t **pp = &pipes[quiet];
    if (*pp == NULL) {
        pipeline_config_t config = {.slow_us = 20000u, .instance_cap = STATS_INSTANCE_CAP_MIN,
            .observer = quiet ? &watch_pairs : &watch, .observer_user = &w};
        *pp = pipeline_new(&config);
        if (*pp == NULL) {
            return 0;
        }
    } else {
        pipeline_restart(*pp);
    }
    pipeline_t *p = *pp;
    char err[512];
    unlink(path);
    memset(&w, 0, sizeof w);
    w.inner = export_trace_observer();
    w.x = export_trace_open(path, 0, NULL, "fuzz", err, sizeof err);
    if (w.x == NULL) {
        fuzz_fail("the trace cannot be opened", err);
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
        export_trace_tick(w.x);
    }
    pipeline_finish(p);
    if (export_trace_close(w.x) != 0) {
        fuzz_fail("the trace export failed", NULL);
    }

    size_t len;
    char *text = fuzz_slurp(path, &len);
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (doc == NULL) {
        fuzz_fail("the trace is not JSON", text);
    }
    uint64_t x_events = 0, instants = 0;
    fuzz_events(doc, &x_events, &instants);
    if (x_events != w.slices) {
        fuzz_fail("the trace does not hold every slice", NULL);
    }
    if (instants != w.instants) {
        fuzz_fail("the trace does not hold every mark and text line", NULL);
    }
    cJSON_Delete(doc);
    free(text);
    return 0;
}
