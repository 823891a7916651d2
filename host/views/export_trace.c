/* Writes the Chrome Trace Event JSON file (export_trace.h, docs/trace-export.md).
 *
 * Layout: pid 1 is the stream (the device text track, the events-per-second counter); pid 2 + N
 * is the device after its N-th reset, one thread (track) per task instance, tid = task id.
 * Gaps and losses are global instants, drawn across every track.
 *
 * Slices, late windows and span pieces are the hot path (tens of millions in a long recording):
 * each is written straight into the output buffer by json_out.h, its strings escaped exactly as
 * cJSON escapes them, with no tree and no allocation (cJSON and strlen were most of an export's
 * time). What a track's events repeat is kept with the track, escaped once (its name, pid, tid,
 * label), and so are the names the windows repeat (culprits, spans). Rare events (track names,
 * marks, text lines, counters, the metadata) are cJSON objects, built and deleted one at a time. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "export_trace.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aioprof_wire.h"
#include "file_out.h"
#include "json_out.h"
#include "stats.h"
#include "monotonic.h"

#define EXPORT_BUFFER (256u * 1024u)
/* One printed event at most: a device text line (2 KB escaped) JSON-escaped, doubling backslashes. */
#define EXPORT_EVENT_MAX (8u * 1024u)
/* Tracks whose name was written, direct-mapped: a forgotten one is named again (harmless). */
#define EXPORT_TRACKS 4096u
#define EXPORT_NAME_MAX (2u * STATS_TEXT_MAX + 32u)
/* a slice: its name and label escaped, five numbers, the keys, and what json_copy48 writes past it */
_Static_assert(JSON_STRING_MAX(EXPORT_NAME_MAX) + JSON_STRING_MAX(STATS_TEXT_MAX) + 5 * JSON_U64_MAX + 128 + 48 <=
                   EXPORT_EVENT_MAX,
    "a slice must fit EXPORT_EVENT_MAX");

enum { PID_STREAM = 1, PID_EPOCH0 = 2, TID_TEXT = 1, TID_MARKS = 2 };

/* What a slice says of its task (its name, process, thread and label), in three parts around the
 * figures: before ts, between dur and exit, after self_us. Most fit EXPORT_PARTS_MAX and are kept
 * with their track; longer ones are written out again for every slice. */
#define EXPORT_PARTS_MAX 160u
#define EXPORT_PARTS_ROOM (EXPORT_PARTS_MAX + 48u) /* json_copy48 reads up to 47 bytes past them */
#define EXPORT_PARTS_ANY (JSON_STRING_MAX(EXPORT_NAME_MAX) + JSON_STRING_MAX(STATS_TEXT_MAX) + 2u * JSON_U64_MAX + 96u)

typedef struct export_parts {
    uint16_t len[3];  /* 0, 0, 0: not kept */
    char text[EXPORT_PARTS_ROOM];
} export_parts_t;

/* On a line of its own, so that a slice reads the fewest lines of it (most read three). */
typedef struct export_track {
    _Alignas(64) uint64_t key; /* epoch << 32 | id */
    uint32_t version;          /* of what its name says (pipeline_task_t.version); 0: slot empty */
    export_parts_t parts;
} export_track_t;

/* A name the windows repeat (a culprit, a span's name), kept JSON-escaped by the address it came
 * at, with its text to check it by: the observer's strings are valid during the call only, so an
 * address may come back holding another name. Direct-mapped; longer ones are escaped each time. */
#define EXPORT_NAMES 256u
#define EXPORT_NAME_RAW 48u  /* the text kept, its NUL included */
#define EXPORT_NAME_JSON 64u /* the escaped form kept, quotes included (json_copy16 reads 16s) */

typedef struct export_name {
    const char *at; /* NULL: slot empty */
    uint32_t len;   /* of json */
    char raw[EXPORT_NAME_RAW];
    char json[EXPORT_NAME_JSON];
} export_name_t;

struct export_trace {
    file_out_t out;
    char *path;
    char *source;
    int opened;         /* the opening is written: failures from here on are reported as they come */
    int open_errno;
    uint64_t written;   /* events */
    uint64_t slices;
    uint64_t marks;
    uint64_t text_lines;
    uint64_t second, in_second; /* the events-per-second counter: this second, events in it */
    uint64_t second_us;         /* ... when this second started */
    json_near_t slice_ts, window_ts; /* the start times' high digits (windows start earlier) */
    uint32_t epochs_named;      /* process names are written for epochs below this */
    int cut_short;              /* export_trace_ended: the input was not read to its end */
    char ended_by[64];          /* ... what ended the session ("" when not said) */
    char name[EXPORT_NAME_MAX];
    uint16_t long_len[3];                   /* a slice's parts its track could not keep */
    char parts_long[EXPORT_PARTS_ANY + 48u]; /* ... (and json_copy48's room) */

    export_track_t tracks[EXPORT_TRACKS];
    export_name_t names[EXPORT_NAMES];
    char buf[EXPORT_BUFFER];
};

/* ---- the file ---- */

static void export_on_fail(void *user, int errnum)
{
    export_trace_t *x = user;
    if (!x->opened) {
        x->open_errno = errnum; /* export_trace_open says it, in its one sentence */
        return;
    }
    fprintf(stderr, "aioprof-top: the trace export to %s stopped: %s; the rest of the session is not in it.\n",
        x->path, strerror(errnum));
}

/* One event: printed straight into the buffer behind its separator. */
static void export_emit(export_trace_t *x, cJSON *event)
{
    /* the buffer holds whole events only: what reached the file ends after one */
    char *at = file_out_reserve(&x->out, EXPORT_EVENT_MAX);
    if (at == NULL) {
        return;
    }
    /* the opening ends with "[": the first event needs no comma */
    size_t sep = x->written > 0 ? 2 : 0;
    if (cJSON_PrintPreallocated(event, at + sep, (int)(x->out.size - x->out.used - sep), 0)) {
        memcpy(at, ",\n", sep);
        file_out_commit(&x->out, sep + strlen(at + sep));
    } else {
        /* longer than any event we make; printed the slow way all the same */
        char *text = cJSON_PrintUnformatted(event);
        if (text == NULL) {
            file_out_fail(&x->out, ENOMEM);
            return;
        }
        file_out_append(&x->out, ",\n", sep);
        file_out_append(&x->out, text, strlen(text));
        cJSON_free(text);
    }
    x->written++;
}

/* ---- rare events: built, written, deleted ---- */

static cJSON *event_new(const char *ph, const char *name, int pid, int tid)
{
    cJSON *e = cJSON_CreateObject();
    if (e == NULL || !cJSON_AddStringToObject(e, "name", name) || !cJSON_AddStringToObject(e, "ph", ph) ||
        !cJSON_AddNumberToObject(e, "pid", pid) || (tid >= 0 && !cJSON_AddNumberToObject(e, "tid", tid))) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

/* Writes and deletes e; a NULL e (out of memory on the way) stops the export. */
static void event_put(export_trace_t *x, cJSON *e, int ok)
{
    if (e == NULL || !ok) {
        file_out_fail(&x->out, ENOMEM);
    } else {
        export_emit(x, e);
    }
    cJSON_Delete(e);
}

/* A metadata event: process_name, thread_name, *_sort_index. */
static void meta_put(export_trace_t *x, const char *what, int pid, int tid, const char *key, const char *text,
    double number)
{
    cJSON *e = event_new("M", what, pid, tid);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    int ok = text ? cJSON_AddStringToObject(args, key, text) != NULL : cJSON_AddNumberToObject(args, key, number) != NULL;
    event_put(x, e, ok);
}

static void epoch_name(export_trace_t *x, uint32_t epoch)
{
    char text[48];
    while (x->epochs_named <= epoch) {
        uint32_t n = x->epochs_named++;
        int pid = PID_EPOCH0 + (int)n;
        snprintf(text, sizeof text, n == 0 ? "device" : "device after reset %lu", (unsigned long)n);
        meta_put(x, "process_name", pid, -1, "name", text, 0);
        meta_put(x, "process_sort_index", pid, -1, "sort_index", NULL, pid);
    }
}

/* The name t's track shows: its own, or "task #id" (in x->name). */
static const char *task_shown(export_trace_t *x, const pipeline_task_t *t)
{
    if (t->name != NULL) {
        return t->name;
    }
    snprintf(x->name, sizeof x->name, "task #%lu", (unsigned long)t->id);
    return x->name;
}

/* A slice's parts that say what its task is (export_parts_t), at out; their lengths in len. The
 * keys in the order the cJSON template of earlier versions printed them. The middle part, less
 * its last 7 bytes ("exit":), is what a window on the track says between its figures. */
static size_t slice_parts(char *out, const pipeline_task_t *t, const char *shown, uint16_t len[3])
{
    char *o = out;
    o += JSON_LIT(o, "{\"name\":");
    o += json_string(o, shown);
    o += JSON_LIT(o, ",\"ph\":\"X\",\"ts\":");
    len[0] = (uint16_t)(o - out);
    char *mid = o;
    o += JSON_LIT(o, ",\"pid\":");
    o += json_u64(o, PID_EPOCH0 + (uint64_t)t->epoch);
    o += JSON_LIT(o, ",\"tid\":");
    o += json_u64(o, t->id);
    o += JSON_LIT(o, ",\"args\":{\"exit\":");
    len[1] = (uint16_t)(o - mid);
    char *tail = o;
    if (t->label[0] != '\0') {
        o += JSON_LIT(o, ",\"label\":");
        o += json_string(o, t->label);
    }
    o += JSON_LIT(o, "}}");
    len[2] = (uint16_t)(o - tail);
    return (size_t)(o - out);
}
#define PARTS_EXIT_KEY 7u /* "exit": */

/* Names the track of t in slot (track_of), new or changed, and keeps the parts of its slices. */
static __attribute__((noinline)) export_track_t *track_name(export_trace_t *x, export_track_t *slot, uint64_t key,
    uint32_t version, const pipeline_task_t *t)
{
    int fresh = slot->key != key || slot->version == 0;
    slot->key = key;
    slot->version = version;
    uint16_t len[3];
    if (slice_parts(x->parts_long, t, task_shown(x, t), len) <= EXPORT_PARTS_MAX) {
        memcpy(slot->parts.text, x->parts_long, (size_t)len[0] + len[1] + len[2]);
        memcpy(slot->parts.len, len, sizeof len);
    } else {
        memset(slot->parts.len, 0, sizeof slot->parts.len);
    }

    epoch_name(x, t->epoch);
    int pid = PID_EPOCH0 + (int)t->epoch;
    char text[EXPORT_NAME_MAX];
    snprintf(text, sizeof text, "%s #%lu", t->name ? t->name : "task", (unsigned long)t->id);
    cJSON *e = event_new("M", "thread_name", pid, (int)t->id);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    int ok = cJSON_AddStringToObject(args, "name", text) != NULL;
    if (ok && t->parent != 0) {
        snprintf(text, sizeof text, "%s #%lu", t->parent_name ? t->parent_name : "task", (unsigned long)t->parent);
        ok = cJSON_AddStringToObject(args, "created_by", text) != NULL;
    }
    if (ok && t->label[0] != '\0') {
        ok = cJSON_AddStringToObject(args, "label", t->label) != NULL;
    }
    event_put(x, e, ok);
    if (fresh) {
        meta_put(x, "thread_sort_index", pid, (int)t->id, "sort_index", NULL, t->id);
    }
    return slot;
}

/* The slot of t's track, named first when it is new, or when what its name says changed (a name
 * that arrived late, a label, a creator). */
static inline export_track_t *track_of(export_trace_t *x, const pipeline_task_t *t)
{
    uint64_t key = (uint64_t)t->epoch << 32 | t->id;
    uint32_t version = t->version | 1u;
    export_track_t *slot = &x->tracks[(key * 0x9E3779B97F4A7C15ull) >> 52];
    if (slot->version == version && slot->key == key) {
        return slot;
    }
    return track_name(x, slot, key, version, t);
}

/* The parts of t's slices and their lengths: its slot's, or (too long for it) made again in
 * x->parts_long. */
typedef struct parts_view {
    const char *text;
    const uint16_t *len;
} parts_view_t;

static inline parts_view_t track_parts(export_trace_t *x, const export_track_t *slot, const pipeline_task_t *t)
{
    if (slot->parts.len[0] != 0) {
        return (parts_view_t){slot->parts.text, slot->parts.len};
    }
    slice_parts(x->parts_long, t, task_shown(x, t), x->long_len);
    return (parts_view_t){x->parts_long, x->long_len};
}

/* ---- the observer ---- */

/* The events of the second that ended, and a zero for the quiet stretch after it, if any. */
static void counter_put(export_trace_t *x, uint64_t second, uint64_t count)
{
    cJSON *e = event_new("C", "events per second", PID_STREAM, -1);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    int ok = cJSON_AddNumberToObject(e, "ts", (double)(second * 1000000u)) != NULL &&
             cJSON_AddNumberToObject(args, "events", (double)count) != NULL;
    event_put(x, e, ok);
}

static __attribute__((noinline)) void second_next(export_trace_t *x, uint64_t at_us)
{
    uint64_t second = at_us / 1000000u;
    counter_put(x, x->second, x->in_second);
    if (second > x->second + 1) {
        counter_put(x, x->second + 1, 0);
    }
    x->second = second;
    x->second_us = second * 1000000u;
    x->in_second = 0;
}

static void export_on_event(void *user, uint64_t at_us)
{
    export_trace_t *x = user;
    /* at_us / 10^6 != x->second, without the division */
    if (at_us - x->second_us >= 1000000u) {
        second_next(x, at_us);
    }
    x->in_second++;
}

/* The start of an event written straight into the buffer: room for a whole one (what reached the
 * file ends after an event) and its separator (the opening ends with "[": the first event needs no
 * comma). Returns where it starts (*o: where its text goes), or NULL when the export stopped. */
static inline char *direct_begin(export_trace_t *x, char **o)
{
    file_out_t *f = &x->out;
    char *at;
    /* file_out_reserve's answer when the buffer holds some (so it has not failed: a failed
     * file's buffer stays empty) and has room, without the call: 0 < used <= size - MAX */
    if (f->used - 1u < f->size - EXPORT_EVENT_MAX) {
        at = f->buf + f->used;
    } else if ((at = file_out_reserve(f, EXPORT_EVENT_MAX)) == NULL) {
        return NULL;
    }
    *o = at;
    if (x->written > 0) {
        *o += JSON_LIT(*o, ",\n");
    }
    return at;
}

static inline void direct_end(export_trace_t *x, const char *at, const char *o)
{
    file_out_commit(&x->out, (size_t)(o - at));
    x->written++;
}

/* s as a JSON string at out (json_string), from the names kept when it is one of them. */
static __attribute__((noinline)) size_t name_keep(export_name_t *n, char *out, const char *s)
{
    size_t len = json_string(out, s);
    n->at = NULL;
    if (len <= EXPORT_NAME_JSON && strlen(s) < EXPORT_NAME_RAW) {
        n->at = s;
        n->len = (uint32_t)len;
        memcpy(n->raw, s, strlen(s) + 1);
        memcpy(n->json, out, len);
    }
    return len;
}

static inline size_t name_json(export_trace_t *x, char *out, const char *s)
{
    export_name_t *n = &x->names[((uintptr_t)s * 0x9E3779B97F4A7C15ull) >> (64 - 8)];
    if (n->at == s && strcmp(n->raw, s) == 0) {
        json_copy16(out, n->json, n->len);
        return n->len;
    }
    return name_keep(n, out, s);
}
_Static_assert(EXPORT_NAMES == 1u << 8, "name_json's hash takes 8 bits");

#define EXPORT_HEAD_ROOM 48u /* what window_begin copies of a window's head */

/* A window on t's track, up to its args, which the caller writes and closes with "}}":
 * {"name":…,"cat":…,"ph":"X","ts":…,"dur":…,"pid":…,"tid":…,"args":{ (docs/trace-export.md);
 * head is what comes before the start: {"name":…,"cat":…,"ph":"X","ts": (head_len bytes of
 * EXPORT_HEAD_ROOM), or NULL for a span's, made here from its name. Returns where it starts (*o:
 * where the args go), or NULL when the export stopped. */
static inline __attribute__((always_inline)) char *window_begin(export_trace_t *x, const pipeline_task_t *t,
    const char *head, size_t head_len, const char *span_name, uint64_t start_us, uint64_t end_us, char **o)
{
    parts_view_t part = track_parts(x, track_of(x, t), t);
    char *at = direct_begin(x, o);
    if (at == NULL) {
        return NULL;
    }
    char *p = *o;
    if (head != NULL) {
        memcpy(p, head, EXPORT_HEAD_ROOM);
        p += head_len;
    } else {
        p += JSON_LIT(p, "{\"name\":");
        p += name_json(x, p, span_name);
        p += JSON_LIT(p, ",\"cat\":\"span\",\"ph\":\"X\",\"ts\":");
    }
    p += json_u64_near(&x->window_ts, p, start_us);
    p += JSON_LIT(p, ",\"dur\":");
    p += json_u64(p, end_us - start_us);
    /* ,"pid":…,"tid":…,"args":{ */
    size_t mid = part.len[1] - PARTS_EXIT_KEY;
    json_copy48(p, part.text + part.len[0], mid);
    p += mid;
    *o = p;
    return at;
}

/* How a slice ended, as a JSON string (padded to 16 bytes for json_copy16), by enum
 * aioprof_exit_kind; anything else is "unknown". */
static const struct {
    char text[16];
    size_t len;
} exit_json[5] = {
    {"\"yield\"", 7}, {"\"return\"", 8}, {"\"exception\"", 11}, {"\"cancelled\"", 11}, {"\"unknown\"", 9},
};

/* {"name":…,"ph":"X","ts":…,"dur":…,"pid":…,"tid":…,"args":{"exit":…,"self_us":…[,"label":…]}}:
 * its track's parts (slice_parts) around the figures. */
static void export_on_slice(void *user, const pipeline_slice_t *s)
{
    export_trace_t *x = user;
    const pipeline_task_t *t = &s->task;
    parts_view_t part = track_parts(x, track_of(x, t), t);
    size_t len0 = part.len[0], len1 = part.len[1], len2 = part.len[2];
    char *o;
    char *at = direct_begin(x, &o);
    if (at == NULL) {
        return;
    }
    /* the reservation leaves room for json_copy48 to write past each piece */
    json_copy48(o, part.text, len0);
    o += len0;
    o += json_u64_near(&x->slice_ts, o, s->start_us);
    o += JSON_LIT(o, ",\"dur\":");
    uint64_t dur = s->end_us - s->start_us;
#if JSON_WORDS
    /* its digits kept in a register for self_us: read back from the buffer, the wider load
     * after the narrower store stalls */
    json_word_t dur_digits = {0, 0};
    if (dur < 100000000u) {
        dur_digits = json_word((uint32_t)dur);
        memcpy(o, &dur_digits.w, 8);
        o += dur_digits.n;
    } else {
        o += json_u64(o, dur);
    }
#else
    o += json_u64(o, dur);
#endif
    json_copy48(o, part.text + len0, len1);
    o += len1;
    unsigned kind = s->exit_kind < 4u ? s->exit_kind : 4u;
    memcpy(o, exit_json[kind].text, sizeof exit_json[kind].text);
    o += exit_json[kind].len;
    o += JSON_LIT(o, ",\"self_us\":");
#if JSON_WORDS
    if (s->self_us == dur && dur_digits.n != 0) {
        memcpy(o, &dur_digits.w, 8); /* a slice with nothing nested in it: its dur again */
        o += dur_digits.n;
    } else {
        o += json_u64(o, s->self_us);
    }
#else
    o += json_u64(o, s->self_us);
#endif
    json_copy48(o, part.text + len0 + len1, len2);
    o += len2;
    direct_end(x, at, o);
    x->slices++;
}

static void export_on_mark(void *user, pipeline_mark_t mark, uint64_t at_us, uint64_t count)
{
    static const char *const names[] = {
        [PIPELINE_MARK_RESET] = "device reset",
        [PIPELINE_MARK_DROPPED] = "events dropped",
        [PIPELINE_MARK_CRC] = "CRC errors",
        [PIPELINE_MARK_MALFORMED] = "malformed frames",
        [PIPELINE_MARK_LOST] = "frames lost",
        [PIPELINE_MARK_LINK_DOWN] = "link down",
        [PIPELINE_MARK_NEW_DEVICE] = "another device",
        [PIPELINE_MARK_INPUT_DAMAGED] = "recording damaged",
    };
    export_trace_t *x = user;
    const char *name = (size_t)mark < sizeof names / sizeof names[0] ? names[mark] : "gap";
    cJSON *e = event_new("i", name, PID_STREAM, TID_MARKS);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    /* global: a hole in the data is a hole in every track */
    int ok = cJSON_AddStringToObject(e, "s", "g") != NULL && cJSON_AddNumberToObject(e, "ts", (double)at_us) != NULL &&
             cJSON_AddNumberToObject(args, "count", (double)count) != NULL;
    event_put(x, e, ok);
    x->marks++;
}

static void export_on_text(void *user, uint64_t at_us, const char *line)
{
    export_trace_t *x = user;
    cJSON *e = event_new("i", line, PID_STREAM, TID_TEXT);
    int ok = cJSON_AddStringToObject(e, "s", "t") != NULL && cJSON_AddNumberToObject(e, "ts", (double)at_us) != NULL;
    event_put(x, e, ok);
    x->text_lines++;
}

/* A late resume's waiting window, on its task's track just before the slice it delayed:
 * {"name":"waiting","cat":"late","ph":"X","ts":…,"dur":…,"pid":…,"tid":…,
 *  "args":{"blocked_by":…|null,"blocked_us":…}} (docs/trace-export.md). */
static void export_on_late(void *user, const pipeline_late_t *l)
{
#define LATE_HEAD "{\"name\":\"waiting\",\"cat\":\"late\",\"ph\":\"X\",\"ts\":"
    _Static_assert(sizeof LATE_HEAD <= EXPORT_HEAD_ROOM, "the head must fit EXPORT_HEAD_ROOM");
    static const char head[EXPORT_HEAD_ROOM] = LATE_HEAD;
    export_trace_t *x = user;
    char *o;
    char *at = window_begin(x, &l->task, head, sizeof LATE_HEAD - 1, NULL, l->start_us, l->end_us, &o);
    if (at == NULL) {
        return;
    }
    o += JSON_LIT(o, "\"blocked_by\":");
    if (l->blocked_by != NULL) {
        o += name_json(x, o, l->blocked_by);
    } else {
        o += JSON_LIT(o, "null");
    }
    o += JSON_LIT(o, ",\"blocked_us\":");
    o += json_u64(o, l->blocked_us);
    o += JSON_LIT(o, "}}");
    direct_end(x, at, o);
}

/* A piece of a span, nested in its slice on its task's track:
 * {"name":…,"cat":"span","ph":"X","ts":…,"dur":…,"pid":…,"tid":…,"args":{"depth":…,"last":…}}
 * (docs/trace-export.md); last is true on the piece where it closed. */
static void export_on_span(void *user, const pipeline_span_t *sp)
{
    export_trace_t *x = user;
    char *o;
    char *at = window_begin(x, &sp->task, NULL, 0, sp->name, sp->start_us, sp->end_us, &o);
    if (at == NULL) {
        return;
    }
    o += JSON_LIT(o, "\"depth\":");
    o += json_u64(o, sp->depth);
    if (sp->last) {
        o += sp->unwound ? JSON_LIT(o, ",\"last\":true,\"unwound\":true") : JSON_LIT(o, ",\"last\":true");
        /* the whole span's memory, where the device measures it (docs/trace-export.md) */
        if (sp->alloc_known) {
            o += JSON_LIT(o, ",\"alloc_bytes\":");
            o += json_u64(o, sp->alloc_bytes);
        }
        if (sp->gc_known) {
            o += JSON_LIT(o, ",\"gc\":");
            o += json_u64(o, sp->gc_count);
        }
        if (sp->gc_timed) {
            o += JSON_LIT(o, ",\"gc_us\":");
            o += json_u64(o, sp->gc_us);
        }
        o += JSON_LIT(o, "}}");
    } else {
        o += JSON_LIT(o, ",\"last\":false}}");
    }
    direct_end(x, at, o);
}

static const pipeline_observer_t export_observer = {
    .span = export_on_span,
    .late = export_on_late,
    .slice = export_on_slice,
    .mark = export_on_mark,
    .text_line = export_on_text,
    .event = export_on_event,
};

const pipeline_observer_t *export_trace_observer(void)
{
    return &export_observer;
}

/* ---- open and close ---- */

static void export_free(export_trace_t *x)
{
    free(x->path);
    free(x->source);
    free(x);
}

export_trace_t *export_trace_open(const char *path, int force, struct file_out_files *files, const char *source,
    char *err, size_t errlen)
{
    export_trace_t *x = calloc(1, sizeof *x);
    if (x == NULL || (x->path = strdup(path)) == NULL || (x->source = strdup(source ? source : "")) == NULL) {
        snprintf(err, errlen, "out of memory.");
        goto error_free;
    }
    int created;
    int fd = file_out_create(x->path, force, "trace", files, &created, err, errlen);
    file_out_init(&x->out, fd, x->path, created, x->buf, sizeof x->buf, export_on_fail, x);
    if (fd < 0) {
        goto error_free;
    }
    static const char opening[] = "{\"traceEvents\":[\n";
    file_out_append(&x->out, opening, sizeof opening - 1);
    meta_put(x, "process_name", PID_STREAM, -1, "name", "aioprof stream", 0);
    meta_put(x, "process_sort_index", PID_STREAM, -1, "sort_index", NULL, PID_STREAM);
    meta_put(x, "thread_name", PID_STREAM, TID_TEXT, "name", "device text", 0);
    meta_put(x, "thread_name", PID_STREAM, TID_MARKS, "name", "gaps and losses", 0);
    /* the opening goes out at once and must: an export that cannot start is an error, not a note */
    file_out_flush(&x->out);
    if (x->out.failed) {
        snprintf(err, errlen, "cannot write the trace %s: %s.", path, strerror(x->open_errno));
        goto error_close;
    }
    x->opened = 1;
    return x;

error_close:
    /* only a file this run made is removed: --force on someone's file leaves it there */
    file_out_discard(&x->out);
error_free:
    if (x != NULL) {
        export_free(x);
    }
    return NULL;
}

void export_trace_tick(export_trace_t *x)
{
    if (x != NULL && file_out_due(&x->out, monotonic_us(), EXPORT_TRACE_FLUSH_MS * 1000u)) {
        file_out_flush(&x->out);
    }
}

/* "],", what the trace is, and "}": a viewer shows otherData as the trace's metadata. */
static void export_closing(export_trace_t *x)
{
    cJSON *o = cJSON_CreateObject();
    char *text = NULL;
    if (cJSON_AddStringToObject(o, "tool", "aioprof-top") && cJSON_AddStringToObject(o, "version", AIOPROF_VERSION) &&
        cJSON_AddStringToObject(o, "source", x->source) &&
        cJSON_AddStringToObject(o, "time", "device microseconds, gaps cut out (docs/trace-export.md)") &&
        cJSON_AddNumberToObject(o, "slices", (double)x->slices) &&
        cJSON_AddNumberToObject(o, "gaps_and_losses", (double)x->marks) &&
        cJSON_AddNumberToObject(o, "text_lines", (double)x->text_lines) &&
        cJSON_AddBoolToObject(o, "complete", !x->cut_short) &&
        (x->ended_by[0] == '\0' || cJSON_AddStringToObject(o, "ended_by", x->ended_by))) {
        text = cJSON_PrintUnformatted(o);
    }
    cJSON_Delete(o);
    static const char end[] = "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":";
    file_out_append(&x->out, end, sizeof end - 1);
    file_out_append(&x->out, text ? text : "{}", text ? strlen(text) : 2);
    file_out_append(&x->out, "}\n", 2);
    cJSON_free(text);
}

void export_trace_ended(export_trace_t *x, int complete, const char *how)
{
    if (x == NULL) {
        return;
    }
    x->cut_short = !complete;
    snprintf(x->ended_by, sizeof x->ended_by, "%s", how != NULL ? how : "");
}

int export_trace_close(export_trace_t *x)
{
    if (x == NULL) {
        return 0;
    }
    if (x->in_second > 0) {
        counter_put(x, x->second, x->in_second);
    }
    if (!x->out.failed) {
        export_closing(x);
    }
    int rc = file_out_close(&x->out);
    export_free(x);
    return rc;
}

void export_trace_discard(export_trace_t *x)
{
    if (x == NULL) {
        return;
    }
    file_out_discard(&x->out);
    export_free(x);
}

uint64_t export_trace_events(const export_trace_t *x)
{
    return x ? x->written : 0;
}
