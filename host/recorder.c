/* Writes recordings (recording.h). Chunks gather in a buffer that goes out with write(2), not
 * stdio, so that what was flushed is in the kernel and survives kill -9. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "recorder.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recording.h"
#include "source.h"

#ifndef AIOPROF_VERSION
#define AIOPROF_VERSION "0.0.0"
#endif

#define RECORDER_BUFFER (64u * 1024u)

struct recorder {
    int fd;
    int failed;
    char *path;
    size_t used;
    uint64_t written;    /* bytes in the file */
    uint64_t oldest_us;  /* monotonic time of the oldest byte not yet written */
    uint8_t buf[RECORDER_BUFFER];
};

static void recorder_fail(recorder_t *r, int errnum)
{
    if (r->failed)
        return;
    r->failed = 1;
    fprintf(stderr, "aioprof-top: recording to %s stopped: %s; the rest of the session is not recorded.\n",
            r->path, strerror(errnum));
    close(r->fd);
    r->fd = -1;
    r->used = 0;
}

static void recorder_write(recorder_t *r, const uint8_t *data, size_t len)
{
    while (len > 0 && !r->failed) {
        ssize_t n = write(r->fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            recorder_fail(r, n < 0 ? errno : ENOSPC);
            return;
        }
        data += n;
        len -= (size_t)n;
        r->written += (uint64_t)n;
    }
}

static void recorder_flush(recorder_t *r)
{
    if (r->used > 0)
        recorder_write(r, r->buf, r->used);
    r->used = 0;
}

static void recorder_append(recorder_t *r, const uint8_t *data, size_t len)
{
    if (r->used == 0)
        r->oldest_us = source_monotonic_us();
    if (r->used + len > RECORDER_BUFFER)
        recorder_flush(r);
    if (len > RECORDER_BUFFER) {
        recorder_write(r, data, len);
        return;
    }
    memcpy(r->buf + r->used, data, len);
    r->used += len;
}

static void recorder_chunk(recorder_t *r, recording_chunk_type_t type, uint64_t host_us,
                           const uint8_t *data, size_t len)
{
    uint8_t head[RECORDING_CHUNK_HEAD_MAX];
    if (r == NULL || r->failed)
        return;
    recorder_append(r, head, recording_chunk_head(head, type, host_us, len));
    if (len > 0)
        recorder_append(r, data, len);
}

/* The start as UTC ISO 8601, what a reader of the metadata expects. */
static void recorder_utc_now(char *out, size_t len)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static char *recorder_metadata(const char *source, int baud)
{
    char started[32], host[256] = "";
    cJSON *m = cJSON_CreateObject();
    char *text = NULL;
    if (m == NULL)
        return NULL;
    recorder_utc_now(started, sizeof started);
    if (gethostname(host, sizeof host - 1) < 0)
        host[0] = '\0';
    if (cJSON_AddStringToObject(m, "format", "aioprof recording") != NULL &&
        cJSON_AddStringToObject(m, "tool", "aioprof-top") != NULL &&
        cJSON_AddStringToObject(m, "tool_version", AIOPROF_VERSION) != NULL &&
        cJSON_AddStringToObject(m, "source", source) != NULL &&
        cJSON_AddNumberToObject(m, "baud", baud) != NULL &&
        cJSON_AddStringToObject(m, "started_utc", started) != NULL &&
        cJSON_AddStringToObject(m, "host", host) != NULL &&
        cJSON_AddStringToObject(m, "time_unit", "us") != NULL)
        text = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    return text;
}

recorder_t *recorder_open(const char *path, int force, const char *source, int baud, char *err, size_t errlen)
{
    uint8_t fixed[RECORDING_HEADER_FIXED];
    char *meta = NULL;
    recorder_t *r = calloc(1, sizeof *r);
    if (r == NULL || (r->path = strdup(path)) == NULL || (meta = recorder_metadata(source, baud)) == NULL) {
        snprintf(err, errlen, "out of memory.");
        goto error_free;
    }
    r->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL), 0644);
    if (r->fd < 0) {
        if (errno == EEXIST)
            snprintf(err, errlen, "%s exists; add --force to overwrite it.", path);
        else
            snprintf(err, errlen, "cannot create the recording %s: %s.", path, strerror(errno));
        goto error_free;
    }
    size_t meta_len = strlen(meta);
    memcpy(fixed, RECORDING_MAGIC, RECORDING_MAGIC_LEN);
    fixed[8] = (uint8_t)(RECORDING_VERSION & 0xFFu);
    fixed[9] = (uint8_t)(RECORDING_VERSION >> 8);
    for (unsigned i = 0; i < 4; i++)
        fixed[10 + i] = (uint8_t)(meta_len >> (8 * i));
    /* the header goes out at once and must: a recording that cannot start is an error, not a note */
    errno = 0;
    r->written = sizeof fixed + meta_len;
    if (write(r->fd, fixed, sizeof fixed) != (ssize_t)sizeof fixed ||
        write(r->fd, meta, meta_len) != (ssize_t)meta_len) {
        snprintf(err, errlen, "cannot write the recording %s: %s.", path, strerror(errno ? errno : ENOSPC));
        goto error_close;
    }
    free(meta);
    return r;

error_close:
    close(r->fd);
error_free:
    free(meta);
    if (r != NULL)
        free(r->path);
    free(r);
    return NULL;
}

void recorder_data(recorder_t *r, uint64_t host_us, const uint8_t *data, size_t len)
{
    recorder_chunk(r, RECORDING_CHUNK_DATA, host_us, data, len);
}

void recorder_link(recorder_t *r, int up, uint64_t host_us)
{
    recorder_chunk(r, up ? RECORDING_CHUNK_LINK_UP : RECORDING_CHUNK_LINK_DOWN, host_us, NULL, 0);
    /* a disconnect is worth having on disk at once */
    if (r != NULL && !r->failed)
        recorder_flush(r);
}

void recorder_tick(recorder_t *r)
{
    if (r == NULL || r->failed || r->used == 0)
        return;
    if (source_monotonic_us() - r->oldest_us >= RECORDER_FLUSH_MS * 1000u)
        recorder_flush(r);
}

int recorder_close(recorder_t *r, uint64_t host_us)
{
    int rc;
    if (r == NULL)
        return 0;
    recorder_chunk(r, RECORDING_CHUNK_END, host_us, NULL, 0);
    recorder_flush(r);
    if (!r->failed && (fsync(r->fd) < 0 && errno != EINVAL && errno != EROFS))
        recorder_fail(r, errno);
    if (!r->failed && close(r->fd) < 0)
        recorder_fail(r, errno);
    rc = r->failed ? -1 : 0;
    free(r->path);
    free(r);
    return rc;
}

uint64_t recorder_bytes(const recorder_t *r)
{
    return r ? r->written + r->used : 0;
}
