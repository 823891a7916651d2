/* Buffered output files (file_out.h), and how they are created and removed safely. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* O_NOFOLLOW, O_CLOEXEC */
#endif
#include "file_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monotonic.h"

static const char *file_out_kind(mode_t mode)
{
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    if (S_ISBLK(mode)) {
        return "a block device";
    }
    if (S_ISFIFO(mode)) {
        return "a FIFO";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    if (S_ISDIR(mode)) {
        return "a directory";
    }
    if (S_ISLNK(mode)) {
        return "a symbolic link";
    }
    return "not a regular file";
}

/* --force on what exists: a regular file, and still the same one once open, else refused. */
static int file_out_overwrite(const char *path, const char *what, char *err, size_t errlen)
{
    struct stat before, now;
    if (lstat(path, &before) < 0) {
        snprintf(err, errlen, "cannot overwrite the %s %s: %s.", what, path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(before.st_mode)) {
        snprintf(err, errlen, "%s is %s: --force only overwrites regular files; name a new file for the %s.",
                 path, file_out_kind(before.st_mode), what);
        return -1;
    }
    /* not following a link, and not waiting on a FIFO, should one have taken its place since */
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot overwrite the %s %s: %s.", what, path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &now) < 0 || !S_ISREG(now.st_mode) || now.st_dev != before.st_dev || now.st_ino != before.st_ino) {
        snprintf(err, errlen, "%s changed while it was being opened; not overwriting it.", path);
        goto error;
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || ftruncate(fd, 0) < 0) {
        snprintf(err, errlen, "cannot overwrite the %s %s: %s.", what, path, strerror(errno));
        goto error;
    }
    return fd;

error:
    close(fd);
    return -1;
}

int file_out_create(const char *path, int force, const char *what, int *created, char *err, size_t errlen)
{
    *created = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd >= 0) {
        *created = 1;
        return fd;
    }
    if (errno != EEXIST) {
        snprintf(err, errlen, "cannot create the %s %s: %s.", what, path, strerror(errno));
        return -1;
    }
    if (!force) {
        snprintf(err, errlen, "%s exists; add --force to overwrite it.", path);
        return -1;
    }
    return file_out_overwrite(path, what, err, errlen);
}

void file_out_remove_created(const char *path, int fd, int created)
{
    struct stat ours, there;
    if (created && fd >= 0 && fstat(fd, &ours) == 0 && lstat(path, &there) == 0 && ours.st_dev == there.st_dev &&
        ours.st_ino == there.st_ino) {
        unlink(path);
    }
}

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
        f->oldest_us = monotonic_us();
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
