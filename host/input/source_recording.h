/* Reading a recording (recording.h, docs/recording.md) from memory: the byte source's parser, with
 * no file and no clock, so that the file source (source_file.c) and the fuzzer share it.
 *
 *   file bytes -> recording_reader_step() -> the port's bytes, link down/up, the end
 *
 * A recording has no checksums, so a damaged byte (a flip, a deletion, an insertion) is found by
 * what it breaks: a chunk header that cannot be one, or one whose next chunks do not follow as
 * chunks do (types, lengths, times that never decrease). From there the reader looks for the next
 * place where RECORDING_CHAIN intact chunks follow each other, and hands the bytes in between to
 * the caller as port bytes marked damaged: the wire decoder finds whatever frames are intact in
 * them and counts the rest as damage. Nothing stops the replay but the end of the file.
 *
 * Also: a second recording concatenated after the first (cat a.aiop b.aiop) is read on, after a
 * gap; bytes after the end that are not a recording are counted and ignored. */
#ifndef AIOPROF_SOURCE_RECORDING_H
#define AIOPROF_SOURCE_RECORDING_H

#include <stddef.h>
#include <stdint.h>

/* Chunks that must follow each other intact before a place is taken as a chunk boundary. */
#define RECORDING_CHAIN 4

typedef enum recording_step_kind {
    RECORDING_STEP_NONE,   /* nothing for the caller: drop `used` bytes and call again */
    RECORDING_STEP_MORE,   /* decide later: give it more bytes (or say there are none) */
    RECORDING_STEP_BYTES,  /* port bytes: window[data_at .. data_at + data_len) */
    RECORDING_STEP_DOWN,   /* the port went away */
    RECORDING_STEP_UP,     /* it came back */
    RECORDING_STEP_HEADER, /* a recording's header: metadata at window[data_at .. data_at + data_len) */
    RECORDING_STEP_END,    /* nothing more to read (see the reader's counters for how it ended) */
    RECORDING_STEP_ERROR,  /* the first header cannot be read (the reader's error says why) */
} recording_step_kind_t;

typedef struct recording_step {
    recording_step_kind_t kind;
    size_t used;             /* window bytes this step takes, to drop once it is handled */
    size_t data_at, data_len;
    uint64_t time_us;        /* on the reader's time line: concatenated recordings follow on */
    int first;               /* BYTES: the first bytes of a chunk or of a damaged stretch (a
                              * damaged step may have none: an END chunk that was not the end) */
    int damaged;             /* BYTES: bytes from a stretch whose chunks could not be read */
    int concatenated;        /* HEADER: not the first one */
} recording_step_t;

typedef enum recording_error {
    RECORDING_OK,
    RECORDING_NOT_A_RECORDING, /* no magic */
    RECORDING_BAD_VERSION,     /* another version: reader->version says which */
    RECORDING_HEADER_CUT,      /* the file ends inside the header */
} recording_error_t;

typedef struct recording_reader {
    /* where it is */
    int state;
    uint64_t data_left;      /* bytes of the chunk or damaged stretch still to give */
    int data_damaged;
    uint64_t chunk_us;       /* the time of the chunk being given, on the reader's time line */
    uint64_t last_us;        /* the latest intact chunk's time, as the current recording says */
    uint64_t base_us;        /* added to the current recording's times */
    size_t search_at;        /* a damage search resumes here (window offset) */
    int continuing;          /* the damaged stretch goes on past the window */
    uint64_t offset;         /* file offset of window[0] */
    /* what it found */
    recording_error_t error;
    unsigned version;
    uint64_t recordings;     /* headers read */
    uint64_t damaged;        /* damaged stretches */
    uint64_t damaged_bytes;  /* bytes in them (given as port bytes, or skipped in a header) */
    uint64_t first_damage_at;
    uint64_t trailing;       /* bytes after the end that are not a recording, ignored */
    uint64_t trailing_at;
    int cut;                 /* the file ends inside a chunk */
    int clean_end;           /* the last recording ended with END */
} recording_reader_t;

void recording_reader_init(recording_reader_t *r);

/* The next step, from window[0..len): the file's bytes from where the last step's `used` ended.
 * eof: nothing follows them. full: no more can be given for now (the window is as large as the
 * caller's buffer), so decide with what is there. max: the most bytes one BYTES step gives (at
 * least 1). After handling a step, the caller drops its `used` bytes from the window; it may also
 * drop nothing and call again with more bytes after RECORDING_STEP_MORE. Never fails: damage is
 * counted, not returned. */
recording_step_t recording_reader_step(recording_reader_t *r, const uint8_t *window, size_t len, int eof, int full,
    size_t max);

#endif
