/* The file back-end: a recording (recording.h), replayed with its receive times and link events,
 * or a raw capture of a port's bytes (cat /dev/ttyACM0 > raw.bin, aioprof-sim -o). A file with
 * neither a recording header nor one valid frame near its start is refused.
 *
 * A recording cut off (kill -9, a full disk, a truncated copy) replays up to its last complete
 * chunk, with a note on stderr: losing the tail of a session must not lose the session. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "source.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aioprof_frame_reader.h"
#include "escape.h"
#include "recording.h"

#define FILE_BUFFER (256u * 1024u)
#define FILE_SNIFF (64u * 1024u)   /* a raw capture must show a valid frame this early */
#define FILE_PACE_MAX_US 1e15      /* 30 years: the furthest a paced chunk is ever due */

typedef struct file_source {
    source_t base;
    char *path;
    int fd;
    int raw;
    int verbose;
    double speed;
    uint64_t origin_us;     /* monotonic time at open: raw captures' times, pacing's start */
    int paced;              /* pacing has its first chunk */
    uint64_t pace_first_us; /* the recorded time of that chunk */
    int have_first;
    uint64_t first_us;      /* the recorded time of the first chunk */
    uint64_t last_us;       /* the recorded time of the latest chunk */
    uint64_t offset;        /* file offset of buf[pos] */
    /* a chunk whose header is read and that is not delivered yet */
    int have_head;
    recording_chunk_type_t type;
    uint64_t time_us;
    uint64_t len;
    uint64_t data_left;     /* bytes of the DATA chunk being delivered */
    int finished;
    size_t pos, fill;
    int eof;
    uint8_t buf[FILE_BUFFER];
} file_source_t;

/* Reads more into buf after keeping the unread part. Returns the bytes added (0 at the end). */
static size_t file_fill(file_source_t *f)
{
    if (f->eof)
        return 0;
    if (f->pos > 0) {
        memmove(f->buf, f->buf + f->pos, f->fill - f->pos);
        f->fill -= f->pos;
        f->pos = 0;
    }
    size_t added = 0;
    while (f->fill < FILE_BUFFER) {
        ssize_t n = read(f->fd, f->buf + f->fill, FILE_BUFFER - f->fill);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            f->eof = 1;
            break;
        }
        f->fill += (size_t)n;
        added += (size_t)n;
    }
    return added;
}

static void file_note(file_source_t *f, const char *what)
{
    if (f->finished)
        return;
    f->finished = 1;
    fprintf(stderr, "aioprof-top: note: %s %s; replayed what it holds (up to byte %llu).\n",
            f->path, what, (unsigned long long)f->offset);
}

/* Reads the next chunk header. Returns 1 when one is there, 0 at the end (noted if the end was
 * not clean). */
static int file_next_head(file_source_t *f)
{
    uint64_t type, t, len;
    if (f->have_head)
        return 1;
    if (f->finished)
        return 0;
    if (f->fill - f->pos < RECORDING_CHUNK_HEAD_MAX)
        file_fill(f);
    size_t avail = f->fill - f->pos;
    if (avail == 0) {
        file_note(f, "has no end marker (the session did not close cleanly)");
        return 0;
    }
    const uint8_t *p = f->buf + f->pos;
    type = p[0];
    int a = recording_varint_get(p + 1, avail - 1, &t);
    int b = a > 0 ? recording_varint_get(p + 1 + a, avail - 1 - (size_t)a, &len) : a;
    if (a == 0 || b == 0) {
        file_note(f, "is cut off inside a chunk");
        return 0;
    }
    if (a < 0 || b < 0 || type < RECORDING_CHUNK_DATA || type > RECORDING_CHUNK_END ||
        len > RECORDING_CHUNK_DATA_MAX || (type != RECORDING_CHUNK_DATA && len != 0)) {
        file_note(f, "is damaged (a chunk that cannot be read)");
        return 0;
    }
    size_t head = 1 + (size_t)a + (size_t)b;
    f->pos += head;
    f->offset += head;
    f->have_head = 1;
    f->type = (recording_chunk_type_t)type;
    f->time_us = t;
    f->len = len;
    return 1;
}

static void file_sleep_us(uint64_t us)
{
    struct timespec ts = {.tv_sec = (time_t)(us / 1000000u), .tv_nsec = (long)(us % 1000000u) * 1000L};
    nanosleep(&ts, NULL);
}

/* --speed: a chunk is due at its recorded time, scaled, after the first one. Returns 1 when due;
 * otherwise it waits up to timeout_ms and returns whether it became due. */
static int file_pace(file_source_t *f, int timeout_ms)
{
    if (!f->have_first) {
        f->have_first = 1;
        f->first_us = f->time_us;
    }
    if (f->speed <= 0) {
        f->last_us = f->time_us;
        return 1;
    }
    uint64_t now = source_monotonic_us();
    if (!f->paced) {
        f->paced = 1;
        f->pace_first_us = f->time_us;
        f->origin_us = now;
        f->last_us = f->time_us;
        return 1;
    }
    uint64_t rec = f->time_us > f->pace_first_us ? f->time_us - f->pace_first_us : 0;
    /* the times are the file's word: a pace that would land past any session is clamped before
     * the cast, which would overflow */
    double wait_us = (double)rec / f->speed;
    uint64_t due = f->origin_us + (wait_us < FILE_PACE_MAX_US ? (uint64_t)wait_us : (uint64_t)FILE_PACE_MAX_US);
    if (now >= due) {
        f->last_us = f->time_us;
        return 1;
    }
    uint64_t wait = due - now, limit = (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000u;
    file_sleep_us(wait < limit ? wait : limit);
    return wait <= limit;
}

static long file_read_raw(file_source_t *f, uint8_t *buf, size_t len, uint64_t *host_us)
{
    *host_us = source_monotonic_us() - f->origin_us;
    if (f->pos == f->fill && file_fill(f) == 0)
        return SOURCE_EOF;
    size_t n = f->fill - f->pos < len ? f->fill - f->pos : len;
    memcpy(buf, f->buf + f->pos, n);
    f->pos += n;
    f->offset += n;
    return (long)n;
}

static long file_read(source_t *s, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us)
{
    file_source_t *f = (file_source_t *)s;
    if (f->raw)
        return file_read_raw(f, buf, len, host_us);
    while (f->data_left == 0) {
        if (!file_next_head(f))
            return SOURCE_EOF;
        if (!file_pace(f, timeout_ms))
            return SOURCE_TIMEOUT;
        f->have_head = 0;
        *host_us = f->time_us;
        switch (f->type) {
        case RECORDING_CHUNK_DATA:
            f->data_left = f->len;
            break;
        case RECORDING_CHUNK_LINK_DOWN:
            return SOURCE_GONE;
        case RECORDING_CHUNK_LINK_UP:
            break; /* up without a down before it: nothing to undo */
        case RECORDING_CHUNK_END:
            f->finished = 1;
            return SOURCE_EOF;
        }
    }
    if (f->pos == f->fill && file_fill(f) == 0) {
        f->data_left = 0;
        file_note(f, "is cut off inside a chunk");
        return SOURCE_EOF;
    }
    size_t n = f->fill - f->pos;
    if (n > len)
        n = len;
    if (n > f->data_left)
        n = (size_t)f->data_left;
    memcpy(buf, f->buf + f->pos, n);
    f->pos += n;
    f->offset += n;
    f->data_left -= n;
    *host_us = f->time_us;
    return (long)n;
}

/* The recording says when the port came back; anything but an up also means it was back. */
static int file_reconnect(source_t *s, int timeout_ms, uint64_t *host_us)
{
    file_source_t *f = (file_source_t *)s;
    if (f->raw || !file_next_head(f))
        return SOURCE_EOF;
    if (!file_pace(f, timeout_ms))
        return SOURCE_TIMEOUT;
    *host_us = f->time_us;
    if (f->type == RECORDING_CHUNK_LINK_UP)
        f->have_head = 0;
    return SOURCE_BACK;
}

/* A string of a recording's metadata for a message: escaped, or "?" when it is not a string. */
static void file_meta_text(char *out, size_t size, const cJSON *item)
{
    if (!cJSON_IsString(item)) {
        snprintf(out, size, "?");
        return;
    }
    escape_bytes(out, size, (const uint8_t *)item->valuestring, strlen(item->valuestring), 0);
}

static void file_close(source_t *s)
{
    file_source_t *f = (file_source_t *)s;
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    free(f);
}

static const source_ops_t file_ops = {
    .read = file_read,
    .reconnect = file_reconnect,
    .close = file_close,
};

static int file_has_frame(const uint8_t *data, size_t len)
{
    aioprof_reader_t *r = malloc(sizeof *r);
    aioprof_reader_sink_t sink = {0};
    int found;
    if (r == NULL)
        return 0;
    aioprof_reader_init(r, &sink, NULL);
    aioprof_reader_feed(r, data, len);
    aioprof_reader_finish(r);
    found = r->stats.frames > 0;
    free(r);
    return found;
}

static int file_open_recording(file_source_t *f, char *err, size_t errlen)
{
    size_t avail = f->fill;
    if (avail < RECORDING_HEADER_FIXED) {
        snprintf(err, errlen, "%s is an aioprof recording cut off inside its header.", f->path);
        return -1;
    }
    unsigned version = (unsigned)f->buf[8] | (unsigned)f->buf[9] << 8;
    uint32_t meta_len = 0;
    for (unsigned i = 0; i < 4; i++)
        meta_len |= (uint32_t)f->buf[10 + i] << (8 * i);
    if (version != RECORDING_VERSION) {
        snprintf(err, errlen, "%s is an aioprof recording of version %u; this aioprof-top reads version %u "
                 "(a newer aioprof-top may read it).", f->path, version, RECORDING_VERSION);
        return -1;
    }
    if (meta_len > RECORDING_METADATA_MAX) {
        snprintf(err, errlen, "%s is a damaged aioprof recording (its header is unreadable).", f->path);
        return -1;
    }
    if (avail < RECORDING_HEADER_FIXED + meta_len) {
        snprintf(err, errlen, "%s is an aioprof recording cut off inside its header.", f->path);
        return -1;
    }
    f->pos = RECORDING_HEADER_FIXED + meta_len;
    f->offset = f->pos;
    snprintf(f->base.how, sizeof f->base.how, "recording v%u", version);
    if (f->verbose) {
        /* the file's words, not ours: shown escaped */
        cJSON *m = cJSON_ParseWithLength((const char *)f->buf + RECORDING_HEADER_FIXED, meta_len);
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "source");
        const cJSON *started = cJSON_GetObjectItemCaseSensitive(m, "started_utc");
        char src_text[128], started_text[64];
        file_meta_text(src_text, sizeof src_text, src);
        file_meta_text(started_text, sizeof started_text, started);
        fprintf(stderr, "aioprof-top: %s: recording of %s started %s\n", f->path, src_text, started_text);
        cJSON_Delete(m);
    }
    return 0;
}

source_t *source_file_open(const char *path, double speed, int verbose, char *err, size_t errlen)
{
    struct stat st;
    file_source_t *f = calloc(1, sizeof *f);
    if (f == NULL || (f->path = strdup(path)) == NULL) {
        snprintf(err, errlen, "out of memory.");
        free(f);
        return NULL;
    }
    f->base.ops = &file_ops;
    f->base.name = f->path;
    f->base.is_file = 1;
    f->speed = speed;
    f->verbose = verbose;
    f->origin_us = source_monotonic_us();
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) {
        if (errno == ENOENT)
            snprintf(err, errlen, "no such file: %s.", path);
        else
            snprintf(err, errlen, "cannot read %s: %s.", path, strerror(errno));
        goto error;
    }
    if (fstat(f->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is a directory, not an aioprof recording or capture.", path);
        goto error;
    }
    file_fill(f);
    if (f->fill == 0) {
        snprintf(err, errlen, "%s is empty: not an aioprof recording or capture.", path);
        goto error;
    }
    size_t cmp = f->fill < RECORDING_MAGIC_LEN ? f->fill : RECORDING_MAGIC_LEN;
    if (memcmp(f->buf, RECORDING_MAGIC, cmp) == 0) {
        if (file_open_recording(f, err, errlen) < 0)
            goto error;
    } else if (file_has_frame(f->buf, f->fill < FILE_SNIFF ? f->fill : FILE_SNIFF)) {
        f->raw = 1;
        snprintf(f->base.how, sizeof f->base.how, "raw capture");
    } else {
        snprintf(err, errlen, "%s is not an aioprof recording or capture (no recording header, and no valid "
                 "frame in its first %u KiB).", path, FILE_SNIFF / 1024u);
        goto error;
    }
    if (verbose)
        fprintf(stderr, "aioprof-top: reading %s as a %s\n", path, f->base.how);
    return &f->base;

error:
    file_close(&f->base);
    return NULL;
}

int source_file_is_raw(const source_t *s)
{
    return s->is_file && ((const file_source_t *)s)->raw;
}

void source_file_set_speed(source_t *s, double speed)
{
    file_source_t *f = (file_source_t *)s;
    if (!s->is_file || f->raw)
        return;
    /* pacing starts again from the chunk at hand, so a pause or a new speed does not jump */
    f->speed = speed;
    f->paced = 0;
}

double source_file_position_s(const source_t *s)
{
    const file_source_t *f = (const file_source_t *)s;
    if (!s->is_file || f->raw)
        return 0;
    return f->have_first && f->last_us > f->first_us ? (double)(f->last_us - f->first_us) / 1e6 : 0;
}
