/* The file back-end's bytes (source_file.h): the read-ahead window and what reading it can say
 * (more bytes, the end, an error), and the kind the file was found to be. Both source_file.c
 * (raw captures, what a file is) and source_file_replay.c (recordings) read through it. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "source_file.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads more after keeping the unread part. A regular file fills the window (or reaches its end);
 * a stream waits up to timeout_ms for what comes. Returns 1 when bytes came or the end was found,
 * 0 when nothing did (timeout, a signal, a read error: see read_errno). */
int file_more(file_source_t *f, int timeout_ms)
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

long file_read_error(file_source_t *f)
{
    snprintf(f->base.error, sizeof f->base.error, "reading %s failed: %s.", f->shown, strerror(f->read_errno));
    return SOURCE_ERROR;
}

void file_decided(file_source_t *f, int kind)
{
    f->kind = kind;
    snprintf(f->base.how, sizeof f->base.how, "%s%s", kind == FILE_RAW ? "raw capture" : "recording v1",
             f->stream ? " (read as it comes)" : "");
    if (f->verbose && !f->quiet) {
        fprintf(stderr, "aioprof-top: reading %s as a %s\n", f->shown, f->base.how);
    }
}
