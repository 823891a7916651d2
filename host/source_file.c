/* The file back-end: a recording (recording.h), replayed with its receive times and link events,
 * or a raw capture of a port's bytes (cat /dev/ttyACM0 > raw.bin, aioprof-sim -o).
 *
 * What it reads from:
 *   a regular file   read in large pieces; a raw capture must hold a valid frame somewhere (the
 *                    whole file is looked through, in bounded memory: a long boot log first is
 *                    fine), else it is refused;
 *   a FIFO, a pipe,  "-" for standard input: opened without waiting for a writer, read as bytes
 *   a socket         come (poll with the caller's timeout, so --duration and Ctrl-C apply while
 *                    nobody writes); what it is (recording or raw) is decided on its first bytes.
 *
 * A recording is parsed by source_recording.c: damage is skipped over and said once, a file cut
 * off (kill -9, a full disk, a truncated copy) replays up to where it ends, with a note: losing
 * part of a session must not lose the session. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "source.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aioprof_frame_reader.h"
#include "escape.h"
#include "recording.h"
#include "source_recording.h"

/* The window: a whole chunk of the largest size, and room to look at the chunks after it. */
#define FILE_BUFFER (RECORDING_CHUNK_DATA_MAX + 64u * 1024u)
#define FILE_PACE_MAX_US 1e15 /* 30 years: the furthest a paced chunk is ever due */

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

/* Reads more after keeping the unread part. A regular file fills the window (or reaches its end);
 * a stream waits up to timeout_ms for what comes. Returns 1 when bytes came or the end was found,
 * 0 when nothing did (timeout, a signal, a read error: see read_errno). */
static int file_more(file_source_t *f, int timeout_ms)
{
    if (f->eof || f->read_errno) {
        return 0;
    }
    if (f->pos > 0) {
        memmove(f->buf, f->buf + f->pos, f->fill - f->pos);
        f->fill -= f->pos;
        f->pos = 0;
    }
    int progress = 0;
    while (f->fill < FILE_BUFFER) {
        if (f->stream) {
            struct pollfd pfd = {.fd = f->fd, .events = POLLIN};
            if (poll(&pfd, 1, progress ? 0 : timeout_ms) <= 0) {
                break; /* nothing (more) for now, or a signal for the caller to see */
            }
        }
        ssize_t n = read(f->fd, f->buf + f->fill, FILE_BUFFER - f->fill);
        if (n < 0 && errno == EINTR && !f->stream) {
            continue;
        }
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            break;
        }
        if (n < 0) {
            f->read_errno = errno;
            break;
        }
        if (n == 0) {
            f->eof = 1;
            progress = 1;
            break;
        }
        f->fill += (size_t)n;
        f->total += (uint64_t)n;
        progress = 1;
        if (f->stream) {
            break; /* what came is enough to go on with */
        }
    }
    return progress;
}

static size_t file_avail(const file_source_t *f)
{
    return f->fill - f->pos;
}

static void file_drop(file_source_t *f, size_t n)
{
    f->pos += n;
}

static void file_sleep_us(uint64_t us)
{
    struct timespec ts = {.tv_sec = (time_t)(us / 1000000u), .tv_nsec = (long)(us % 1000000u) * 1000L};
    nanosleep(&ts, NULL);
}

/* --speed: a chunk is due at its recorded time, scaled, after the first one. Returns 1 when due;
 * otherwise it waits up to timeout_ms and returns whether it became due. */
static int file_pace(file_source_t *f, uint64_t time_us, int timeout_ms)
{
    if (!f->have_first) {
        f->have_first = 1;
        f->first_us = time_us;
    }
    if (f->speed <= 0) {
        f->last_us = time_us;
        return 1;
    }
    uint64_t now = source_monotonic_us();
    if (!f->paced) {
        f->paced = 1;
        f->pace_first_us = time_us;
        f->origin_us = now;
        f->last_us = time_us;
        return 1;
    }
    uint64_t rec = time_us > f->pace_first_us ? time_us - f->pace_first_us : 0;
    /* the times are the file's word: a pace that would land past any session is clamped before
     * the cast, which would overflow */
    double wait_us = (double)rec / f->speed;
    uint64_t due = f->origin_us + (wait_us < FILE_PACE_MAX_US ? (uint64_t)wait_us : (uint64_t)FILE_PACE_MAX_US);
    if (now >= due) {
        f->last_us = time_us;
        return 1;
    }
    uint64_t wait = due - now, limit = (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000u;
    file_sleep_us(wait < limit ? wait : limit);
    if (wait > limit) {
        return 0;
    }
    f->last_us = time_us;
    return 1;
}

static long file_read_error(file_source_t *f)
{
    snprintf(f->base.error, sizeof f->base.error, "reading %s failed: %s.", f->shown, strerror(f->read_errno));
    return SOURCE_ERROR;
}

/* ---- raw captures ---- */

static long file_read_raw(file_source_t *f, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us)
{
    if (file_avail(f) == 0 && !file_more(f, timeout_ms)) {
        *host_us = source_monotonic_us() - f->origin_us;
        return f->read_errno ? file_read_error(f) : f->eof ? SOURCE_EOF : SOURCE_TIMEOUT;
    }
    *host_us = source_monotonic_us() - f->origin_us;
    size_t n = file_avail(f) < len ? file_avail(f) : len;
    if (n == 0) {
        return SOURCE_EOF;
    }
    memcpy(buf, f->buf + f->pos, n);
    file_drop(f, n);
    return (long)n;
}

/* ---- recordings ---- */

/* A string of a recording's metadata for a message: escaped, or "?" when it is not a string. */
static void file_meta_text(char *out, size_t size, const cJSON *item)
{
    if (!cJSON_IsString(item)) {
        snprintf(out, size, "?");
        return;
    }
    escape_bytes(out, size, (const uint8_t *)item->valuestring, strlen(item->valuestring), 0);
}

static void file_say_metadata(file_source_t *f, const uint8_t *meta, size_t len)
{
    /* the file's words, not ours: shown escaped */
    cJSON *m = cJSON_ParseWithLength((const char *)meta, len);
    char src_text[128], started_text[64];
    file_meta_text(src_text, sizeof src_text, cJSON_GetObjectItemCaseSensitive(m, "source"));
    file_meta_text(started_text, sizeof started_text, cJSON_GetObjectItemCaseSensitive(m, "started_utc"));
    fprintf(stderr, "aioprof-top: %s: recording of %s started %s\n", f->shown, src_text, started_text);
    cJSON_Delete(m);
}

/* The end of a recording: how it ended, said once. */
static void file_say_end(file_source_t *f)
{
    const recording_reader_t *r = &f->rec;
    unsigned long long at = (unsigned long long)(r->offset - r->trailing);
    if (f->ended) {
        return;
    }
    f->ended = 1;
    if (r->cut) {
        fprintf(stderr, "aioprof-top: note: %s is cut off inside a chunk; replayed what it holds (up to byte %llu).\n",
                f->shown, at);
    } else if (!r->clean_end) {
        fprintf(stderr, "aioprof-top: note: %s has no end marker (the session did not close cleanly); replayed what "
                "it holds (up to byte %llu).\n", f->shown, at);
    }
    if (r->trailing > 0) {
        fprintf(stderr, "aioprof-top: note: %s: %llu bytes after the end of the recording (from byte %llu) ignored: "
                "they are not a recording.\n", f->shown, (unsigned long long)r->trailing,
                (unsigned long long)r->trailing_at);
    }
    if (r->damaged > 1) {
        fprintf(stderr, "aioprof-top: note: %s: %llu damaged stretches in all (%llu bytes), each read on from the "
                "next intact chunk.\n", f->shown, (unsigned long long)r->damaged,
                (unsigned long long)r->damaged_bytes);
    }
}

static void file_say_damage(file_source_t *f)
{
    if (f->damage_noted) {
        return;
    }
    f->damage_noted = 1;
    fprintf(stderr, "aioprof-top: note: %s is damaged at byte %llu: read on from the next intact chunk; the "
            "figures from there on are marked as possibly low.\n", f->shown,
            (unsigned long long)f->rec.first_damage_at);
}

/* The first header cannot be read: the sentence for it. */
static void file_header_error(file_source_t *f, char *err, size_t errlen)
{
    switch (f->rec.error) {
    case RECORDING_BAD_VERSION:
        snprintf(err, errlen, "%s is an aioprof recording of version %u; this aioprof-top reads version %u "
                 "(a newer aioprof-top may read it).", f->shown, f->rec.version, RECORDING_VERSION);
        break;
    case RECORDING_HEADER_CUT:
        snprintf(err, errlen, "%s is an aioprof recording cut off inside its header.", f->shown);
        break;
    default:
        snprintf(err, errlen, "%s is a damaged aioprof recording (its header is unreadable).", f->shown);
        break;
    }
}

/* The next step that is something to the caller (pending in f->step), or 0 when none is there yet
 * (the bytes have not come: SOURCE_TIMEOUT; a read error: read_errno). */
static int file_step(file_source_t *f, size_t max, int timeout_ms)
{
    while (!f->have_step) {
        int full = file_avail(f) == FILE_BUFFER;
        recording_step_t st = recording_reader_step(&f->rec, f->buf + f->pos, file_avail(f), f->eof, full, max);
        if (st.kind == RECORDING_STEP_NONE) {
            file_drop(f, st.used);
        } else if (st.kind == RECORDING_STEP_MORE) {
            if (!file_more(f, timeout_ms)) {
                return 0;
            }
        } else {
            f->step = st;
            f->have_step = 1;
            f->hole_told = 0;
        }
    }
    return 1;
}

static void file_step_done(file_source_t *f)
{
    file_drop(f, f->step.used);
    f->have_step = 0;
}

static long file_read_recording(file_source_t *f, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us)
{
    for (;;) {
        if (!file_step(f, len, timeout_ms)) {
            return f->read_errno ? file_read_error(f) : SOURCE_TIMEOUT;
        }
        recording_step_t *st = &f->step;
        *host_us = st->time_us;
        switch (st->kind) {
        case RECORDING_STEP_HEADER:
            if (st->concatenated) {
                fprintf(stderr, "aioprof-top: note: %s: another recording follows at byte %llu; read on as the same "
                        "session, after a gap.\n", f->shown, (unsigned long long)(f->rec.offset - st->used));
                file_step_done(f);
                return SOURCE_GONE;
            }
            if (f->verbose && st->data_len > 0) {
                file_say_metadata(f, f->buf + f->pos + st->data_at, st->data_len);
            }
            file_step_done(f);
            continue;
        case RECORDING_STEP_END:
            file_step_done(f);
            file_say_end(f);
            return SOURCE_EOF;
        case RECORDING_STEP_DOWN:
            if (!file_pace(f, st->time_us, timeout_ms)) {
                return SOURCE_TIMEOUT;
            }
            file_step_done(f);
            return SOURCE_GONE;
        case RECORDING_STEP_UP:
            file_step_done(f); /* up without a down before it: nothing to undo */
            continue;
        case RECORDING_STEP_BYTES:
            if (st->first && !file_pace(f, st->time_us, timeout_ms)) {
                return SOURCE_TIMEOUT;
            }
            if (st->damaged && st->first && !f->hole_told) {
                f->hole_told = 1;
                file_say_damage(f);
                return SOURCE_HOLE;
            }
            if (st->data_len > len) {
                /* parsed for a larger read (a reconnect's): given in parts */
                memcpy(buf, f->buf + f->pos + st->data_at, len);
                file_drop(f, st->data_at + len);
                st->used -= st->data_at + len;
                st->data_at = 0;
                st->data_len -= len;
                st->first = 0;
                return (long)len;
            }
            memcpy(buf, f->buf + f->pos + st->data_at, st->data_len);
            long n = (long)st->data_len;
            file_step_done(f);
            if (n > 0) {
                return n;
            }
            continue;
        default: /* ERROR is only for the first header, handled at open */
            file_step_done(f);
            return SOURCE_EOF;
        }
    }
}

/* A stream's first bytes say what it is. Returns 1 when decided, 0 when it has to wait, or -1
 * with the source's error set. */
static int file_decide(file_source_t *f, int timeout_ms, char *err, size_t errlen);

static long file_read(source_t *s, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us)
{
    file_source_t *f = (file_source_t *)s;
    if (f->kind == FILE_UNDECIDED) {
        int r = file_decide(f, timeout_ms, s->error, sizeof s->error);
        *host_us = 0;
        if (r <= 0) {
            return r < 0 ? SOURCE_ERROR : SOURCE_TIMEOUT;
        }
    }
    if (f->kind == FILE_RAW) {
        return file_read_raw(f, buf, len, timeout_ms, host_us);
    }
    return file_read_recording(f, buf, len, timeout_ms, host_us);
}

/* The recording says when the port came back; anything but an up also means it was back. */
static int file_reconnect(source_t *s, int timeout_ms, uint64_t *host_us)
{
    file_source_t *f = (file_source_t *)s;
    if (f->kind != FILE_RECORDING) {
        return SOURCE_EOF;
    }
    if (!file_step(f, 4096, timeout_ms)) {
        return f->read_errno ? (int)file_read_error(f) : SOURCE_TIMEOUT;
    }
    recording_step_t *st = &f->step;
    *host_us = st->time_us;
    if (st->kind == RECORDING_STEP_END) {
        file_step_done(f);
        file_say_end(f);
        return SOURCE_EOF;
    }
    if (!file_pace(f, st->time_us, timeout_ms)) {
        return SOURCE_TIMEOUT;
    }
    if (st->kind == RECORDING_STEP_UP) {
        file_step_done(f);
    }
    return SOURCE_BACK;
}

static void file_close(source_t *s)
{
    file_source_t *f = (file_source_t *)s;
    if (f->fd >= 0) {
        close(f->fd);
    }
    free(f->buf);
    free(f->path);
    free(f);
}

static const source_ops_t file_ops = {
    .read = file_read,
    .reconnect = file_reconnect,
    .close = file_close,
};

/* ---- what a file is ---- */

static void file_decided(file_source_t *f, int kind)
{
    f->kind = kind;
    snprintf(f->base.how, sizeof f->base.how, "%s%s", kind == FILE_RAW ? "raw capture" : "recording v1",
             f->stream ? " (read as it comes)" : "");
    if (f->verbose) {
        fprintf(stderr, "aioprof-top: reading %s as a %s\n", f->shown, f->base.how);
    }
    if (kind == FILE_RAW && f->speed > 0) {
        fprintf(stderr, "aioprof-top: note: %s is a raw capture without receive times; it is read as fast as "
                "possible.\n", f->shown);
    }
}

/* A recording's first header, at once: its problems are the open's errors. */
static int file_start_recording(file_source_t *f, int timeout_ms, char *err, size_t errlen)
{
    recording_reader_init(&f->rec);
    if (!file_step(f, 4096, timeout_ms)) {
        return 0; /* a stream still bringing its header */
    }
    if (f->step.kind == RECORDING_STEP_ERROR) {
        file_header_error(f, err, errlen);
        return -1;
    }
    file_decided(f, FILE_RECORDING);
    return 1;
}

static int file_decide(file_source_t *f, int timeout_ms, char *err, size_t errlen)
{
    while (file_avail(f) < RECORDING_MAGIC_LEN && !f->eof) {
        /* a raw capture needs no more than a byte that is not the magic's first to be told apart */
        if (file_avail(f) > 0 && memcmp(f->buf + f->pos, RECORDING_MAGIC, file_avail(f)) != 0) {
            break;
        }
        if (!file_more(f, timeout_ms)) {
            if (f->read_errno) {
                snprintf(err, errlen, "reading %s failed: %s.", f->shown, strerror(f->read_errno));
                return -1;
            }
            return 0;
        }
    }
    if (file_avail(f) == 0) {
        snprintf(err, errlen, "%s is empty: not an aioprof recording or capture.", f->shown);
        return -1;
    }
    size_t cmp = file_avail(f) < RECORDING_MAGIC_LEN ? file_avail(f) : RECORDING_MAGIC_LEN;
    if (memcmp(f->buf + f->pos, RECORDING_MAGIC, cmp) == 0) {
        return file_start_recording(f, timeout_ms, err, errlen);
    }
    file_decided(f, FILE_RAW);
    return 1;
}

/* Does the regular file hold one valid frame anywhere? The window has its start; the rest is
 * looked through in pieces by a frame reader: memory stays bounded however long the text before
 * the first frame (a boot log). */
static int file_has_frame(file_source_t *f)
{
    enum { PIECE = 64 * 1024 };
    aioprof_reader_t *r = malloc(sizeof *r);
    uint8_t *piece = malloc(PIECE);
    aioprof_reader_sink_t sink = {0};
    int found = 0;
    if (r != NULL && piece != NULL) {
        aioprof_reader_init(r, &sink, NULL);
        aioprof_reader_feed(r, f->buf, f->fill);
        for (off_t at = (off_t)f->fill; r->stats.frames == 0 && !f->eof;) {
            ssize_t n = pread(f->fd, piece, PIECE, at);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                break;
            }
            aioprof_reader_feed(r, piece, (size_t)n);
            at += n;
        }
        aioprof_reader_finish(r);
        found = r->stats.frames > 0;
    }
    free(piece);
    free(r);
    return found;
}

source_t *source_file_open(const char *path, double speed, int verbose, char *err, size_t errlen)
{
    struct stat st;
    file_source_t *f = calloc(1, sizeof *f);
    if (f == NULL || (f->path = strdup(path)) == NULL || (f->buf = malloc(FILE_BUFFER)) == NULL) {
        snprintf(err, errlen, "out of memory.");
        if (f != NULL) {
            free(f->path);
        }
        free(f);
        return NULL;
    }
    int from_stdin = strcmp(path, "-") == 0;
    snprintf(f->shown, sizeof f->shown, "%s", from_stdin ? "standard input" : path);
    f->base.ops = &file_ops;
    f->base.name = f->shown;
    f->base.is_file = 1;
    f->speed = speed;
    f->verbose = verbose;
    f->origin_us = source_monotonic_us();
    /* O_NONBLOCK: a FIFO nobody writes to yet must not hold the open (and Ctrl-C) hostage */
    f->fd = from_stdin ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
                       : open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f->fd < 0) {
        if (errno == ENOENT) {
            snprintf(err, errlen, "no such file: %s.", path);
        } else {
            snprintf(err, errlen, "cannot read %s: %s.", f->shown, strerror(errno));
        }
        goto error;
    }
    if (fstat(f->fd, &st) < 0) {
        snprintf(err, errlen, "cannot read %s: %s.", f->shown, strerror(errno));
        goto error;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is a directory, not an aioprof recording or capture.", f->shown);
        goto error;
    }
    if (isatty(f->fd)) {
        snprintf(err, errlen, "%s is a terminal; --replay reads files and pipes (a port is named without "
                 "--replay).", f->shown);
        goto error;
    }
    f->stream = !S_ISREG(st.st_mode);
    if (f->stream) {
        /* what it is shows on its first bytes, which need not have come yet */
        fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) | O_NONBLOCK);
        if (verbose) {
            fprintf(stderr, "aioprof-top: %s is not a regular file: reading it as its bytes come\n", f->shown);
        }
        return &f->base;
    }
    fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) & ~O_NONBLOCK);
    file_more(f, 0);
    if (f->read_errno) {
        snprintf(err, errlen, "reading %s failed: %s.", f->shown, strerror(f->read_errno));
        goto error;
    }
    if (file_avail(f) == 0) {
        snprintf(err, errlen, "%s is empty: not an aioprof recording or capture.", path);
        goto error;
    }
    size_t cmp = file_avail(f) < RECORDING_MAGIC_LEN ? file_avail(f) : RECORDING_MAGIC_LEN;
    if (memcmp(f->buf, RECORDING_MAGIC, cmp) == 0) {
        if (file_start_recording(f, 0, err, errlen) < 0) {
            goto error;
        }
    } else if (file_has_frame(f)) {
        file_decided(f, FILE_RAW);
    } else {
        snprintf(err, errlen, "%s is not an aioprof recording or capture (no recording header, and no valid frame "
                 "in it).", path);
        goto error;
    }
    return &f->base;

error:
    file_close(&f->base);
    return NULL;
}

int source_file_is_raw(const source_t *s)
{
    return s->is_file && ((const file_source_t *)s)->kind == FILE_RAW;
}

void source_file_set_speed(source_t *s, double speed)
{
    file_source_t *f = (file_source_t *)s;
    if (!s->is_file || f->kind != FILE_RECORDING) {
        return;
    }
    /* pacing starts again from the chunk at hand, so a pause or a new speed does not jump */
    f->speed = speed;
    f->paced = 0;
}

double source_file_position_s(const source_t *s)
{
    const file_source_t *f = (const file_source_t *)s;
    if (!s->is_file || f->kind != FILE_RECORDING) {
        return 0;
    }
    return f->have_first && f->last_us > f->first_us ? (double)(f->last_us - f->first_us) / 1e6 : 0;
}
