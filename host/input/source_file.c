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
 * A recording is parsed by source_recording.c and replayed by source_file_replay.c: damage is
 * skipped over and said once, a file cut off (kill -9, a full disk, a truncated copy) replays up to
 * where it ends, with a note: losing part of a session must not lose the session. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "source_file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aioprof_frame_reader.h"
#include "monotonic.h"

/* ---- raw captures ---- */

static long file_read_raw(file_source_t *f, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us)
{
    if (file_avail(f) == 0 && !file_more(f, timeout_ms)) {
        *host_us = monotonic_us() - f->origin_us;
        return f->read_errno ? file_read_error(f) : f->eof ? SOURCE_EOF : SOURCE_TIMEOUT;
    }
    *host_us = monotonic_us() - f->origin_us;
    size_t n = file_avail(f) < len ? file_avail(f) : len;
    if (n == 0) {
        return SOURCE_EOF;
    }
    memcpy(buf, f->buf + f->pos, n);
    file_drop(f, n);
    return (long)n;
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
    return file_replay_read(f, buf, len, timeout_ms, host_us);
}

/* The recording says when the port came back (source_file_replay.c); a raw capture never does. */
static int file_reconnect(source_t *s, int timeout_ms, uint64_t *host_us)
{
    file_source_t *f = (file_source_t *)s;
    return f->kind == FILE_RECORDING ? file_replay_reconnect(f, timeout_ms, host_us) : SOURCE_EOF;
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
        return file_replay_start(f, timeout_ms, err, errlen);
    }
    file_decided(f, FILE_RAW);
    return 1;
}

/* Does the regular file hold one valid frame anywhere? The window has its start; the rest is
 * looked through in pieces by a frame reader: memory stays bounded however long the text before
 * the first frame (a boot log). */
static int file_has_frame(file_source_t *f)
{
    enum { PIECE = 64 * 1024, STEP = 4 * 1024 };
    aioprof_reader_t *r = malloc(sizeof *r);
    uint8_t *piece = malloc(PIECE);
    aioprof_reader_sink_t sink = {0};
    int found = 0;
    if (r != NULL && piece != NULL) {
        aioprof_reader_init(r, &sink, NULL);
        /* the window in pieces, up to the first frame: not every frame of its megabyte decoded */
        for (size_t at = 0; at < f->fill && r->stats.frames == 0; at += STEP) {
            aioprof_reader_feed(r, f->buf + at, f->fill - at < STEP ? f->fill - at : STEP);
        }
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
    f->origin_us = monotonic_us();
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
        if (file_replay_start(f, 0, err, errlen) < 0) {
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

int source_file_closed_cleanly(const source_t *s)
{
    const file_source_t *f = (const file_source_t *)s;
    return s != NULL && s->is_file && f->kind == FILE_RECORDING && f->rec.clean_end && !f->rec.cut;
}

int source_file_undecided(const source_t *s)
{
    return s != NULL && s->is_file && ((const file_source_t *)s)->kind == FILE_UNDECIDED;
}

/* A recording's replay clock (source_file_replay.c); a raw capture's pace is main's (it follows the
 * frames' device time, which only the decoder knows). */
static file_source_t *file_recording(source_t *s)
{
    file_source_t *f = (file_source_t *)s;
    return s->is_file && f->kind == FILE_RECORDING ? f : NULL;
}

void source_file_set_speed(source_t *s, double speed)
{
    file_source_t *f = file_recording(s);
    if (f == NULL) {
        return;
    }
    /* the clock goes on from where it is: a new speed does not jump */
    uint64_t now = monotonic_us(), at = file_clock_us(f, now);
    f->speed = speed;
    if (f->paused) {
        return;
    }
    if (speed > 0 && f->have_first) {
        file_clock_start(f, at, now);
    } else {
        f->paced = 0;
    }
}

void source_file_pause(source_t *s, int paused)
{
    file_source_t *f = file_recording(s);
    if (f == NULL || !paused == !f->paused) {
        return;
    }
    uint64_t now = monotonic_us();
    if (paused) {
        f->paused_at_us = file_clock_us(f, now);
        f->paused = 1;
        return;
    }
    f->paused = 0;
    if (f->speed > 0 && f->have_first && !f->seeking) {
        file_clock_start(f, f->paused_at_us, now);
    }
}

uint64_t source_file_position_us(const source_t *s)
{
    const file_source_t *f = (const file_source_t *)s;
    if (!s->is_file || f->kind != FILE_RECORDING || !f->have_first) {
        return 0;
    }
    uint64_t at = file_clock_us(f, monotonic_us());
    return at > f->first_us ? at - f->first_us : 0;
}

void source_file_seek(source_t *s, uint64_t at_us)
{
    file_source_t *f = file_recording(s);
    if (f == NULL) {
        return;
    }
    f->seeking = 1;
    f->seek_to_us = at_us;
    f->seek_relative = !f->have_first; /* the first chunk makes it absolute */
    if (f->have_first) {
        f->seek_to_us += f->first_us;
    }
    f->paused_at_us = f->seek_to_us;
    f->at_end = 0;
}

int source_file_seeking(const source_t *s)
{
    const file_source_t *f = (const file_source_t *)s;
    return s->is_file && f->kind == FILE_RECORDING && f->seeking;
}

int source_file_rewind(source_t *s, char *err, size_t errlen)
{
    file_source_t *f = (file_source_t *)s;
    if (!s->is_file || f->stream) {
        snprintf(err, errlen, "%s is read as it comes: it cannot be read again from the start.", f->shown);
        return -1;
    }
    if (lseek(f->fd, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "cannot read %s again from the start: %s.", f->shown, strerror(errno));
        return -1;
    }
    /* the notes on how it ends and where it is damaged were said: not again */
    f->pos = f->fill = 0;
    f->eof = 0;
    f->total = 0;
    f->read_errno = 0;
    f->have_step = 0;
    f->hole_told = 0;
    f->have_first = 0;
    f->paced = 0;
    f->seeking = 0;
    f->paused_at_us = 0;
    f->at_end = 0;
    file_more(f, 0);
    if (f->read_errno) {
        snprintf(err, errlen, "reading %s failed: %s.", f->shown, strerror(f->read_errno));
        return -1;
    }
    if (f->kind == FILE_RECORDING) {
        int quiet = f->quiet, verbose = f->verbose;
        f->verbose = 0; /* its metadata was said at the start */
        int r = file_replay_start(f, 0, err, errlen);
        f->verbose = verbose;
        f->quiet = quiet;
        if (r <= 0) {
            if (r == 0) {
                snprintf(err, errlen, "%s changed since it was opened: its header is gone.", f->shown);
            }
            return -1;
        }
    }
    return 0;
}

void source_file_quiet(source_t *s)
{
    if (s->is_file) {
        ((file_source_t *)s)->quiet = 1;
    }
}
