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

/* Is st one of t's files that the output what may not be? Returns it, or NULL. */
static const struct file_out_file *file_out_clash(const file_out_files_t *t, const struct stat *st, const char *what)
{
    for (unsigned i = 0; t != NULL && i < t->n; i++) {
        const struct file_out_file *f = &t->file[i];
        if (f->dev == st->st_dev && f->ino == st->st_ino && strcmp(f->what, what) != 0 &&
            (f->input || (f->regular && S_ISREG(st->st_mode)))) {
            return f;
        }
    }
    return NULL;
}

static int file_out_refuse(file_out_files_t *t, const struct file_out_file *f, const char *path, const char *what,
    char *err, size_t errlen)
{
    t->clash = 1;
    snprintf(err, errlen, "%s is %s%s: name another file for the %s.", path,
             f->input ? "" : f->output ? "also the " : "also ", f->what, what);
    return -1;
}

static void file_out_add(file_out_files_t *t, const struct stat *st, int input, int output, const char *what)
{
    if (t == NULL || t->n == FILE_OUT_FILES_MAX) {
        return;
    }
    t->file[t->n++] = (struct file_out_file){.dev = st->st_dev, .ino = st->st_ino, .input = input,
        .output = output, .regular = S_ISREG(st->st_mode), .what = what};
}

void file_out_note(file_out_files_t *t, int fd, const char *path, int input, const char *what)
{
    struct stat st;
    if (fd >= 0 ? fstat(fd, &st) == 0 : path != NULL && stat(path, &st) == 0) {
        file_out_add(t, &st, input, 0, what);
    }
}

int file_out_claim(file_out_files_t *t, const char *path, const char *what, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        return 0; /* nothing there yet: file_out_create checks what it makes */
    }
    const struct file_out_file *f = file_out_clash(t, &st, what);
    if (f != NULL) {
        return file_out_refuse(t, f, path, what, err, errlen);
    }
    file_out_add(t, &st, 0, 1, what);
    return 0;
}

/* What is at path already: written into when it is a device or a FIFO, emptied (with force) when it
 * is a regular file named as itself; checked to be still the file looked at once open. */
static int file_out_existing(const char *path, int force, const char *what, file_out_files_t *t, char *err,
    size_t errlen)
{
    struct stat link, before, now;
    if (lstat(path, &link) < 0) {
        snprintf(err, errlen, "cannot write the %s %s: %s.", what, path, strerror(errno));
        return -1;
    }
    if (stat(path, &before) < 0) {
        snprintf(err, errlen, "%s is a symbolic link to nothing: name a new file for the %s.", path, what);
        return -1;
    }
    const struct file_out_file *f = file_out_clash(t, &before, what);
    if (f != NULL) {
        return file_out_refuse(t, f, path, what, err, errlen);
    }
    int regular = S_ISREG(before.st_mode);
    if (!regular && !S_ISCHR(before.st_mode) && !S_ISFIFO(before.st_mode)) {
        snprintf(err, errlen, "%s is %s: name a file, a FIFO or a character device for the %s.", path,
                 file_out_kind(before.st_mode), what);
        return -1;
    }
    if (regular && !force) {
        snprintf(err, errlen, "%s exists; add --force to overwrite it.", path);
        return -1;
    }
    if (regular && S_ISLNK(link.st_mode)) {
        snprintf(err, errlen, "%s is a symbolic link: --force only overwrites regular files; name the file itself "
                 "for the %s.", path, what);
        return -1;
    }
    /* not blocking on a FIFO without a reader (the session would hang before it starts), nor
     * following a link to a regular file put there since */
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (regular ? O_NOFOLLOW : 0));
    if (fd < 0 && errno == ENXIO && S_ISFIFO(before.st_mode)) {
        snprintf(err, errlen, "the FIFO %s has no reader: start its reader first, then aioprof-top.", path);
        return -1;
    }
    if (fd < 0) {
        snprintf(err, errlen, "cannot write the %s %s: %s.", what, path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &now) < 0 || (now.st_mode & S_IFMT) != (before.st_mode & S_IFMT) || now.st_dev != before.st_dev ||
        now.st_ino != before.st_ino) {
        snprintf(err, errlen, "%s changed while it was being opened; not writing the %s there.", path, what);
        goto error;
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || (regular && ftruncate(fd, 0) < 0)) {
        snprintf(err, errlen, "cannot write the %s %s: %s.", what, path, strerror(errno));
        goto error;
    }
    file_out_add(t, &now, 0, 1, what);
    return fd;

error:
    close(fd);
    return -1;
}

int file_out_create(const char *path, int force, const char *what, file_out_files_t *t, int *created, char *err,
    size_t errlen)
{
    *created = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd >= 0) {
        struct stat st;
        *created = 1;
        if (fstat(fd, &st) == 0) {
            file_out_add(t, &st, 0, 1, what);
        }
        return fd;
    }
    if (errno != EEXIST) {
        snprintf(err, errlen, "cannot create the %s %s: %s.", what, path, strerror(errno));
        return -1;
    }
    return file_out_existing(path, force, what, t, err, errlen);
}

/* Removes the file only when this run created it and it is still the file open on fd, so a file
 * put there by someone else in the meantime is left alone. Closes nothing. */
static void file_out_remove_created(const file_out_t *f)
{
    struct stat ours, there;
    if (f->created && f->path != NULL && f->fd >= 0 && fstat(f->fd, &ours) == 0 && lstat(f->path, &there) == 0 &&
        ours.st_dev == there.st_dev && ours.st_ino == there.st_ino) {
        unlink(f->path);
    }
}

int file_out_close(file_out_t *f)
{
    file_out_flush(f);
    if (f->failed && f->written == 0) {
        file_out_remove_created(f);
    }
    if (f->fd >= 0 && close(f->fd) < 0) {
        file_out_fail(f, errno);
    }
    f->fd = -1;
    return f->failed ? -1 : 0;
}

void file_out_discard(file_out_t *f)
{
    file_out_remove_created(f);
    if (f->fd >= 0) {
        close(f->fd);
    }
    f->fd = -1;
}

void file_out_init(file_out_t *f, int fd, const char *path, int created, char *buf, size_t size,
    void (*on_fail)(void *, int), void *user)
{
    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->path = path;
    f->created = created;
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
