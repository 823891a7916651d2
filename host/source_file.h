/* The file back-end's own header (source_file.c reads the file, source_file_replay.c replays
 * recordings from it): the state they share. Nothing else includes it. */
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
    uint64_t origin_us;     /* monotonic time at open: raw captures' times, pacing's start */
    int paced;              /* pacing has its first chunk */
    uint64_t pace_first_us; /* the recorded time of that chunk */
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

/* source_file.c: reading */
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
long file_replay_read(file_source_t *f, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us);
int file_replay_reconnect(file_source_t *f, int timeout_ms, uint64_t *host_us);

#endif
