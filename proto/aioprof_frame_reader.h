/* The incremental reader: feed it whatever bytes arrived, in pieces of any size; it cuts them into
 * segments, decodes frames and their records, passes device text on, and counts what it could not
 * read. A pump in the style of orbuculum: damage is counted and skipped, never fatal.
 *
 * Besides the frames' own checks it judges the stream (docs/protocol.md sections 1 and 2): a
 * segment that is not a valid frame is device text unless it looks like a frame (then it is a
 * damaged one), and a frame whose sequence number and base say it was seen already (a duplicated
 * or reordered stretch) is skipped and counted.
 *
 * Memory: the reader struct holds one segment buffer (AIOPROF_SEGMENT_MAX) and the bases of the
 * last AIOPROF_REPEAT_WINDOW frames; it never allocates. */
#ifndef AIOPROF_FRAME_READER_H
#define AIOPROF_FRAME_READER_H

#include <stddef.h>
#include <stdint.h>

#include "aioprof_wire.h"

typedef enum aioprof_rec_kind {
    AIOPROF_REC_ENTER,
    AIOPROF_REC_EXIT,
    AIOPROF_REC_HELLO,
    AIOPROF_REC_TASK_NEW,
    AIOPROF_REC_TASK_INFO,
    AIOPROF_REC_DROPPED,
    AIOPROF_REC_LATE,
    AIOPROF_REC_SPAN_ENTER,
    AIOPROF_REC_SPAN_EXIT,
    AIOPROF_REC_SPAN_NAME,
    AIOPROF_REC_ALLOC,
    AIOPROF_REC_GC,
} aioprof_rec_kind_t;
/* (A SPANS record, op 9, is passed on as the SPAN_ENTER and SPAN_EXIT records of its events, each
 * where it took place among the frame's records: aioprof_frame_span_events.) */

typedef struct aioprof_hello {
    uint32_t version;
    uint32_t tick_hz;
    uint32_t tick_bits;
    uint32_t ring_bytes;
    uint32_t flags;
    uint32_t boot_ticks;
    uint32_t drain_ticks;
    uint32_t dropped_total;
    const uint8_t *platform; /* untrusted bytes, not terminated */
    size_t platform_len;
    uint32_t period_ticks;   /* 0: not sent (a device older than the field): one second */
    uint32_t event_cost;     /* what an event costs the device, in 1/1024 tick; 0: not known or not sent */
    uint32_t late_unit;      /* the unit of LATE's values, in ticks; 0: the device does not report lateness
                                (or predates the field) */
    uint32_t mem;            /* what the device measures of its allocator: AIOPROF_MEM_* and the
                                unit (aioprof_wire.h); 0: nothing (or it predates the field) */
} aioprof_hello_t;

typedef struct aioprof_record {
    aioprof_rec_kind_t kind;
    /* ENTER and EXIT: ticks since the frame's base (the sum of dt so far; can pass 2^tick_bits) */
    uint64_t offset;
    uint32_t dt;        /* ENTER and EXIT: this record's own dt (offset is the sum) */
    uint32_t id;        /* ENTER, TASK_NEW, TASK_INFO; SPAN_ENTER, SPAN_NAME: the span's name id */
    uint32_t span_dt;   /* SPAN_ENTER, SPAN_EXIT, GC: ticks after the frame's last event before it (or
                           its base); offset is that event's offset plus span_dt */
    uint32_t duration;  /* GC: the collection's ticks, ending at offset; 0: not known */
    uint32_t exit_kind; /* EXIT: enum aioprof_exit_kind */
    uint32_t parent;    /* TASK_NEW, TASK_INFO */
    uint32_t count;     /* DROPPED; LATE: its values; ALLOC: the amount, in the HELLO's mem unit */
    const uint8_t *late; /* LATE: late_len bytes, `count` varints: the frame's ENTERs' lateness, last
                            first */
    size_t late_len;
    const uint8_t *name; /* TASK_*, SPAN_NAME: untrusted bytes, not terminated */
    size_t name_len;
    const uint8_t *label; /* TASK_*: empty when the task has no label */
    size_t label_len;
    aioprof_hello_t hello; /* HELLO */
} aioprof_record_t;

typedef struct aioprof_frame_info {
    uint8_t seq;
    uint8_t tick_bits;
    uint32_t base;
    uint32_t running;
    uint32_t lost_before; /* frames missing between the previous frame and this one */
    uint8_t boot;         /* its first record is a HELLO of a device that just started */
    uint8_t drops_first;  /* its first records (after a HELLO) say events were dropped before it */
} aioprof_frame_info_t;

struct aioprof_reader;

/* What a reader tells its user. Any member may be NULL. Pointers are valid during the call only. */
typedef struct aioprof_reader_sink {
    void (*frame)(void *user, const aioprof_frame_info_t *frame);
    void (*record)(void *user, const aioprof_record_t *record);
    /* A piece of device text (a text segment, or part of a long one). Raw bytes: never print them
     * to a terminal as they are. */
    void (*text)(void *user, const uint8_t *text, size_t len);
    /* Instead of frame and record (which are then not called): a frame taken, and its records as
     * bytes, [p, end), for a user that reads them in its own loop (aioprof_records.h for events,
     * aioprof_reader_control for control records). Returns how many records it took, or, when one
     * was damaged, -1 minus the number taken before it (the frame then counts as malformed). */
    long (*frame_records)(void *user, struct aioprof_reader *r, const aioprof_frame_info_t *frame, const uint8_t *p,
        const uint8_t *end);
} aioprof_reader_sink_t;

typedef struct aioprof_reader_stats {
    uint64_t bytes;          /* every byte fed */
    uint64_t frames;         /* valid frames */
    uint64_t records;        /* records passed on */
    uint64_t crc_errors;     /* damaged segments: not a valid frame, and they look like one */
    uint64_t lost_frames;    /* sequence gaps */
    uint64_t duplicates;     /* valid frames skipped: a repeat or a late arrival of frames seen */
    uint64_t malformed;      /* frames with a good CRC whose records did not parse (the valid
                                records before the fault were passed on) */
    uint64_t unsupported;    /* frames of another protocol version */
    uint64_t text_bytes;
    uint64_t skipped_bytes;  /* bytes before the first delimiter that were not text */
    uint64_t unknown_ops;    /* control records of operations this reader does not know: skipped */
    uint32_t unknown_op_mask; /* which operations those were (bit op) */
} aioprof_reader_stats_t;

/* A frame whose sequence number is this many or fewer behind the last one's (0: the same), and
 * whose base lies among the bases of the frames this window spans, is a repeat (docs/protocol.md
 * section 2). */
#define AIOPROF_REPEAT_WINDOW 128u

typedef struct aioprof_reader {
    aioprof_reader_sink_t sink;
    void *user;
    aioprof_reader_stats_t stats;
    uint32_t seg_len;
    uint8_t synced;      /* a delimiter has been seen */
    uint8_t long_text;   /* inside a segment too long for a frame that is being passed as text */
    uint8_t long_damage; /* inside a segment too long for a frame that is not text */
    uint8_t have_seq;    /* a frame was taken: what follows is the next frame's */
    uint8_t next_seq;
    uint8_t last_format; /* the format byte of the last frame taken */
    uint32_t period_ticks; /* the device's period from its HELLO (one second until one came) */
    uint32_t taken;      /* frames taken, modulo 2^32: recent_base[taken % window] is the oldest */
    uint32_t recent_base[AIOPROF_REPEAT_WINDOW]; /* the bases of the last frames taken */
    uint8_t seg[AIOPROF_SEGMENT_MAX];
} aioprof_reader_t;

void aioprof_reader_init(aioprof_reader_t *r, const aioprof_reader_sink_t *sink, void *user);

/* Feeds len bytes. Never fails: what cannot be read is counted in r->stats. */
void aioprof_reader_feed(aioprof_reader_t *r, const uint8_t *data, size_t len);

/* The stream ended: a segment still buffered is judged as if a delimiter followed (a frame cut
 * off by the end of a file counts as damage; text is passed on). */
void aioprof_reader_finish(aioprof_reader_t *r);

/* Decodes one frame body (COBS already undone, CRC included) and passes its records on. Returns 0
 * when the whole body parsed, -1 otherwise. Exposed for the golden-vector tests. */
int aioprof_reader_body(aioprof_reader_t *r, const uint8_t *body, size_t len);

/* A control record whose tag (0x70 | op) was read from just before *p: its length and body are
 * read into rec (a HELLO also tells r, which may be NULL, the device's period). Returns 0 and
 * moves *p past the record; 1 for an operation of a later version (skipped: *p moved past it);
 * -1 when it is damaged. */
int aioprof_reader_control(aioprof_reader_t *r, const uint8_t **p, const uint8_t *end, unsigned op,
    aioprof_record_t *rec);

/* A span event of a frame's span list (op SPANS, docs/protocol.md "The span list"), in time
 * order: a SPAN_ENTER (id, the span's name id) or a SPAN_EXIT (id 0) that took place after every
 * record of the frame before `at` and before the record at `at` (or the list itself), `dt` ticks
 * after the frame's last ENTER or EXIT before it (or its base), as ops 5 and 6 say. */
typedef struct aioprof_span_event {
    uint32_t at; /* a byte offset from the frame's first record: always a record's start, or the list's */
    uint32_t dt;
    uint32_t id;
} aioprof_span_event_t;

/* Room for the span events of any frame: a list is less than a body long, an entry at least a
 * byte, a PAIR entry two events. */
#define AIOPROF_SPAN_EVENTS_MAX (2u * AIOPROF_BODY_MAX)

/* The span events of a frame whose records are [p, end), into ev (AIOPROF_SPAN_EVENTS_MAX of
 * them), in time order: their count, 0 when it has no list; -1 when its records do not parse, or
 * its list is damaged (an entry that runs past the list, an unknown kind, a place that is not a
 * record's start or lies after the list, an id 0, a time past 32 bits). A walk over the frame's
 * records (no allocation, bounded by the frame). *list, when not NULL, gets the offset of the
 * list's record (the first, if a hostile frame has several), or -1. */
long aioprof_frame_span_events(const uint8_t *p, const uint8_t *end, aioprof_span_event_t *ev, long *list);

/* 1 when a segment that is not a valid frame looks like one, by what r has read so far (the header
 * of the frame it expects next, or the segment's binary bytes): then it is a damaged frame; else
 * it is device text (docs/protocol.md section 1). */
int aioprof_reader_looks_like_frame(const aioprof_reader_t *r, const uint8_t *seg, size_t len);

#endif
