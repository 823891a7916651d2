/* Writes recordings (recording.h). Chunks gather in a buffer that goes out with write(2), not
 * stdio, so that what was flushed is in the kernel and survives kill -9. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "recorder.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "file_out.h"
#include "recording.h"
#include "monotonic.h"

#define RECORDER_BUFFER (64u * 1024u)

struct recorder {
    char *path;
    file_out_t out;
    char buf[RECORDER_BUFFER];
};

static void recorder_on_fail(void *user, int errnum)
{
    recorder_t *r = user;
    fprintf(stderr, "aioprof-top: recording to %s stopped: %s; the rest of the session is not recorded.\n",
            r->path, strerror(errnum));
    if (r->out.fd >= 0)
        close(r->out.fd);
    r->out.fd = -1;
}

static void recorder_chunk(recorder_t *r, recording_chunk_type_t type, uint64_t host_us,
                           const uint8_t *data, size_t len)
{
    uint8_t head[RECORDING_CHUNK_HEAD_MAX];
    if (r == NULL || r->out.failed)
        return;
    file_out_append(&r->out, head, recording_chunk_head(head, type, host_us, len));
    if (len > 0)
        file_out_append(&r->out, data, len);
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

recorder_t *recorder_open(const char *path, int force, const char *source, int baud, struct file_out_files *files,
    char *err, size_t errlen)
{
    uint8_t fixed[RECORDING_HEADER_FIXED];
    char *meta = NULL;
    recorder_t *r = calloc(1, sizeof *r);
    if (r == NULL || (r->path = strdup(path)) == NULL || (meta = recorder_metadata(source, baud)) == NULL) {
        snprintf(err, errlen, "out of memory.");
        goto error_free;
    }
    int created;
    int fd = file_out_create(r->path, force, "recording", files, &created, err, errlen);
    file_out_init(&r->out, fd, r->path, created, r->buf, sizeof r->buf, recorder_on_fail, r);
    if (fd < 0)
        goto error_free;
    size_t meta_len = strlen(meta);
    memcpy(fixed, RECORDING_MAGIC, RECORDING_MAGIC_LEN);
    fixed[8] = (uint8_t)(RECORDING_VERSION & 0xFFu);
    fixed[9] = (uint8_t)(RECORDING_VERSION >> 8);
    for (unsigned i = 0; i < 4; i++)
        fixed[10 + i] = (uint8_t)(meta_len >> (8 * i));
    /* the header goes out at once and must: a recording that cannot start is an error, not a note */
    errno = 0;
    r->out.written = sizeof fixed + meta_len;
    if (write(fd, fixed, sizeof fixed) != (ssize_t)sizeof fixed || write(fd, meta, meta_len) != (ssize_t)meta_len) {
        snprintf(err, errlen, "cannot write the recording %s: %s.", path, strerror(errno ? errno : ENOSPC));
        goto error_close;
    }
    free(meta);
    return r;

error_close:
    /* a file this run made holds nothing worth keeping; one that was there stays */
    file_out_discard(&r->out);
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
    if (r != NULL)
        file_out_flush(&r->out);
}

void recorder_tick(recorder_t *r)
{
    if (r != NULL && file_out_due(&r->out, monotonic_us(), RECORDER_FLUSH_MS * 1000u))
        file_out_flush(&r->out);
}

int recorder_close(recorder_t *r, uint64_t host_us)
{
    int rc;
    if (r == NULL)
        return 0;
    recorder_chunk(r, RECORDING_CHUNK_END, host_us, NULL, 0);
    file_out_flush(&r->out);
    if (!r->out.failed && (fsync(r->out.fd) < 0 && errno != EINVAL && errno != EROFS))
        file_out_fail(&r->out, errno);
    rc = file_out_close(&r->out);
    free(r->path);
    free(r);
    return rc;
}

void recorder_discard(recorder_t *r)
{
    if (r == NULL)
        return;
    file_out_discard(&r->out);
    free(r->path);
    free(r);
}

uint64_t recorder_bytes(const recorder_t *r)
{
    return r ? r->out.written + r->out.used : 0;
}
