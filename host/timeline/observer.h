/* Watching the stream as it happens (the trace export, the live table's timeline): the
 * happenings behind the figures, told by the time line (events.h) in stream order, each at its
 * place on the gapless device time line (microseconds; docs/trace-export.md). The pipeline
 * (pipeline.h) takes an observer in its config. All strings are escaped (valid UTF-8, no control
 * characters) and valid during the call only. */
#ifndef AIOPROF_OBSERVER_H
#define AIOPROF_OBSERVER_H

#include <stdint.h>

typedef struct pipeline_task {
    uint32_t epoch;          /* device boot: ids restart at every reset */
    uint32_t id;
    const char *name;        /* NULL while its TASK_NEW/INFO has not arrived */
    const char *label;       /* "" for none */
    uint32_t parent;         /* the creating task's id, 0 for none or unknown */
    const char *parent_name; /* NULL when unknown */
    /* Changes (but for a 32-bit hash's collisions) whenever what the four above say may have
     * changed: an observer compares it instead of the strings. */
    uint32_t version;
} pipeline_task_t;

/* One counted slice: exactly the ones the statistics count, with the same exclusive time. */
typedef struct pipeline_slice {
    pipeline_task_t task;
    uint64_t start_us;       /* when it was entered */
    uint64_t end_us;         /* when it exited: end - start is its wall span, nested slices included */
    uint64_t self_us;        /* its exclusive time (what the statistics add up) */
    unsigned exit_kind;      /* enum aioprof_exit_kind: yield, return, raise, cancel */
} pipeline_slice_t;

/* A late resume (docs/usage.md, "Lateness"): its waiting window, from when the task was due (to
 * the device's unit) until it ran, and the name whose slices took the most of it. Told after the
 * frame of its ENTER, so after slices that came later. */
typedef struct pipeline_late {
    pipeline_task_t task;
    uint64_t start_us;       /* the window: when it was due */
    uint64_t end_us;         /* when it ran (its ENTER) */
    const char *blocked_by;  /* NULL: no task ran in the window */
    uint64_t blocked_us;
} pipeline_late_t;

/* A piece of a span (docs/usage.md, "Spans"): the part of it inside one counted slice of its
 * task, from when it opened (or the slice started) to when it closed (or the slice ended), so that
 * the pieces nest in their slice, and the spans of a slice in each other. The last piece of a span
 * is told when it closes (last 1); a span cut at a loss has no last piece. */
typedef struct pipeline_span {
    pipeline_task_t task;
    const char *name;        /* the span's name */
    uint64_t start_us, end_us;
    uint32_t depth;          /* 0: the task's outermost open span */
    int last;                /* it closed here (unwound: by its task's end) */
    int unwound;
    /* On the last piece, from a device that reports memory (docs/usage.md, "Memory per span"):
     * what the whole span allocated (its nested spans included), in bytes, and the collections
     * inside it; each only when the device measures it (else 0 and its flag 0). */
    int alloc_known, gc_known, gc_timed;
    uint64_t alloc_bytes, gc_count, gc_us;
} pipeline_span_t;

/* Places where the data has a hole or the device started again. */
typedef enum pipeline_mark {
    PIPELINE_MARK_RESET,     /* the device restarted (count 1): a new epoch begins */
    PIPELINE_MARK_DROPPED,   /* the device dropped count events (its ring was full) */
    PIPELINE_MARK_CRC,       /* count damaged segments (bad COBS or CRC) before this point */
    PIPELINE_MARK_MALFORMED, /* count frames whose records did not parse */
    PIPELINE_MARK_LOST,      /* count frames missing (sequence gap) */
    PIPELINE_MARK_LINK_DOWN, /* the link went away (count 1); the time line resumes when it is back */
    PIPELINE_MARK_NEW_DEVICE, /* after the link came back, another device (count 1): a new epoch */
    PIPELINE_MARK_INPUT_DAMAGED, /* part of a recording could not be read here (count 1) */
} pipeline_mark_t;

/* Any member may be NULL. */
typedef struct pipeline_observer {
    void (*slice)(void *user, const pipeline_slice_t *slice);
    void (*mark)(void *user, pipeline_mark_t mark, uint64_t at_us, uint64_t count);
    void (*text_line)(void *user, uint64_t at_us, const char *line);
    /* Every ENTER and EXIT record, counted or not (the events-per-second counter). */
    void (*event)(void *user, uint64_t at_us);
    void (*late)(void *user, const pipeline_late_t *late);
    void (*span)(void *user, const pipeline_span_t *span);
} pipeline_observer_t;

#endif
