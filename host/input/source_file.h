/* The file back-end's own header (source_file.c opens the file and reads raw captures,
 * source_file_replay.c replays recordings, both read through source_file_bytes.c):
 * the state they share. Nothing else includes it. */
#ifndef AIOPROF_SOURCE_FILE_H
#define AIOPROF_SOURCE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "recording.h"
#include "source.h"
#include "source_recording.h"

/* The window: a whole chunk of the largest size, and room to look at the chunks after it. */
#define FILE_BUFFER (RECORDING_CHUNK_DATA_MAX + 64u * 1024u)

enum { FILE_UNDECIDED, FILE_RAW, FILE_RECORDING };

typedef struct file_source {
    source_t base;
    char *path;             /* as given; "-" is standard input */
    char shown[300];        /* for messages: the path, or "standard input" */
    int fd;
    int stream;             /* not a regular file: read with poll, as the bytes come */
    int kind;
    int verbose;
    double speed;
    int quiet;              /* no notes (a second reader of the same file: the replay's length) */
    uint64_t origin_us;     /* monotonic time at open: raw captures' times */
    /* The replay clock: recorded time pace_first_us is monotonic time pace_origin_us, and it runs
     * at speed from there; a new speed, a pause and a seek start it again from where it is. */
    int paced;              /* the clock runs (else the next chunk starts it) */
    uint64_t pace_first_us;
    uint64_t pace_origin_us;
    int paused;
    uint64_t paused_at_us;  /* the recorded time the clock stopped at */
    int seeking;            /* chunks before seek_to_us are given at once */
    int seek_relative;      /* seek_to_us is still since the first chunk, which is not known yet */
    uint64_t seek_to_us;
    int at_end;             /* the end was given: the clock stops at the last chunk */
    int have_first;
    uint64_t first_us;      /* the recorded time of the first chunk */
    uint64_t last_us;       /* the recorded time of the latest chunk */
    recording_reader_t rec;
    int have_step;          /* step is parsed, its bytes still in the window, not yet handled */
    recording_step_t step;
    int hole_told;          /* the pending step's damage was returned as SOURCE_HOLE */
    int damage_noted;
    int ended;              /* the end was reached and said */
    uint64_t total;         /* bytes read from the file */
    int read_errno;         /* a read failed: said as SOURCE_ERROR */
    size_t pos, fill;
    int eof;
    uint8_t *buf;
} file_source_t;

/* source_file_bytes.c: the window, read ahead; the kind of file decided */
int file_more(file_source_t *f, int timeout_ms);
long file_read_error(file_source_t *f);
void file_decided(file_source_t *f, int kind);

static inline size_t file_avail(const file_source_t *f)
{
    return f->fill - f->pos;
}

static inline void file_drop(file_source_t *f, size_t n)
{
    f->pos += n;
}

/* source_file_replay.c: a recording's steps, paced. The first header is read at once (its
 * problems are the open's errors): returns 1, 0 when a stream has not brought it yet, or -1 with
 * err set. */
int file_replay_start(file_source_t *f, int timeout_ms, char *err, size_t errlen);
/* The replay clock (recorded time, absolute) at monotonic now, and starting it at at_us. */
uint64_t file_clock_us(const file_source_t *f, uint64_t now);
void file_clock_start(file_source_t *f, uint64_t at_us, uint64_t now);
long file_replay_read(file_source_t *f, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us);
int file_replay_reconnect(file_source_t *f, int timeout_ms, uint64_t *host_us);

#endif
