#include "file_out.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "source.h"

void file_out_init(file_out_t *f, int fd, char *buf, size_t size, void (*on_fail)(void *, int), void *user)
{
    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->buf = buf;
    f->size = size;
    f->on_fail = on_fail;
    f->user = user;
}

void file_out_fail(file_out_t *f, int errnum)
{
    if (f->failed) {
        return;
    }
    f->failed = 1;
    f->used = 0;
    if (f->on_fail != NULL) {
        f->on_fail(f->user, errnum);
    }
}

static void file_out_write(file_out_t *f, const char *data, size_t len)
{
    while (len > 0 && !f->failed) {
        ssize_t n = write(f->fd, data, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            file_out_fail(f, n < 0 ? errno : ENOSPC);
            return;
        }
        data += n;
        len -= (size_t)n;
        f->written += (uint64_t)n;
    }
}

void file_out_flush(file_out_t *f)
{
    if (f->used > 0) {
        file_out_write(f, f->buf, f->used);
    }
    f->used = 0;
}

char *file_out_reserve(file_out_t *f, size_t n)
{
    if (f->size - f->used < n) {
        file_out_flush(f);
    }
    if (f->failed) {
        return NULL;
    }
    if (f->used == 0) {
        f->oldest_us = source_monotonic_us();
    }
    return f->buf + f->used;
}

void file_out_commit(file_out_t *f, size_t n)
{
    f->used += n;
}

void file_out_append(file_out_t *f, const void *data, size_t len)
{
    if (len > f->size) {
        file_out_flush(f);
        file_out_write(f, data, len);
        return;
    }
    char *at = file_out_reserve(f, len);
    if (at != NULL) {
        memcpy(at, data, len);
        file_out_commit(f, len);
    }
}
