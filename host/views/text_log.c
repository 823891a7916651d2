/* --log: device text lines with their host time (text_log.h). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* localtime_r, O_CLOEXEC */
#endif
#include "text_log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "file_out.h"
#include "monotonic.h"

#define TEXT_LOG_BUFFER 16384u
#define TEXT_LOG_STAMP_MAX 40u

struct text_log {
    file_out_t out;
    char *path;
    int relative;
    uint64_t lines;
    char buf[TEXT_LOG_BUFFER];
};

static void text_log_on_fail(void *user, int errnum)
{
    text_log_t *l = user;
    fprintf(stderr, "aioprof-top: writing the log %s failed: %s; the log stops here, the session goes on.\n",
            l->path, strerror(errnum));
}

text_log_t *text_log_open(const char *path, int force, int relative, struct file_out_files *files, char *err,
    size_t errlen)
{
    text_log_t *l = calloc(1, sizeof *l);
    int created;
    if (l == NULL || (l->path = strdup(path)) == NULL) {
        snprintf(err, errlen, "out of memory.");
        free(l);
        return NULL;
    }
    int fd = file_out_create(l->path, force, "log", files, &created, err, errlen);
    if (fd < 0) {
        free(l->path);
        free(l);
        return NULL;
    }
    file_out_init(&l->out, fd, l->path, created, l->buf, sizeof l->buf, text_log_on_fail, l);
    l->relative = relative;
    return l;
}

/* "[2026-01-31 14:03:07.123] " or "[+12.345] " */
static size_t text_log_stamp(const text_log_t *l, uint64_t host_us, char *out, size_t len)
{
    if (l->relative) {
        return (size_t)snprintf(out, len, "[+%" PRIu64 ".%03u] ", host_us / 1000000u,
                                (unsigned)(host_us % 1000000u / 1000u));
    }
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (localtime_r(&ts.tv_sec, &tm) == NULL) {
        return (size_t)snprintf(out, len, "[?] ");
    }
    size_t n = strftime(out, len, "[%Y-%m-%d %H:%M:%S", &tm);
    return n + (size_t)snprintf(out + n, len - n, ".%03ld] ", ts.tv_nsec / 1000000L);
}

void text_log_line(text_log_t *l, uint64_t host_us, const char *line)
{
    if (l == NULL || l->out.failed) {
        return;
    }
    char stamp[TEXT_LOG_STAMP_MAX];
    size_t n = text_log_stamp(l, host_us, stamp, sizeof stamp);
    file_out_append(&l->out, stamp, n < sizeof stamp ? n : sizeof stamp - 1);
    file_out_append(&l->out, line, strlen(line));
    file_out_append(&l->out, "\n", 1);
    l->lines++;
}

void text_log_tick(text_log_t *l)
{
    if (l != NULL && file_out_due(&l->out, monotonic_us(), TEXT_LOG_FLUSH_MS * 1000u)) {
        file_out_flush(&l->out);
    }
}

uint64_t text_log_lines(const text_log_t *l)
{
    return l != NULL ? l->lines : 0;
}

int text_log_close(text_log_t *l)
{
    if (l == NULL) {
        return 0;
    }
    int rc = file_out_close(&l->out);
    free(l->path);
    free(l);
    return rc;
}

void text_log_discard(text_log_t *l)
{
    if (l == NULL) {
        return;
    }
    file_out_discard(&l->out);
    free(l->path);
    free(l);
}
