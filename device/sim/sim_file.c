/* The simulator's output files (sim_file.h). */
#define _POSIX_C_SOURCE 200809L

#include "sim_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_NOFOLLOW
#error "O_NOFOLLOW is needed to refuse writing through a symbolic link"
#endif

static const char *sim_file_kind(mode_t mode)
{
    if (S_ISLNK(mode))
        return "a symbolic link";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISBLK(mode))
        return "a block device";
    return "not a regular file";
}

/* What exists at path: a regular file is emptied once it is sure to be the one looked at, a
 * character device or a FIFO is written as it is. */
static int sim_file_existing(const char *path, const char *what)
{
    struct stat before, now;
    if (lstat(path, &before) < 0) {
        fprintf(stderr, "aioprof-sim: cannot write %s to %s: %s.\n", what, path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(before.st_mode) && !S_ISCHR(before.st_mode) && !S_ISFIFO(before.st_mode)) {
        fprintf(stderr, "aioprof-sim: %s is %s: name a file, a FIFO or a device for %s.\n", path,
                sim_file_kind(before.st_mode), what);
        return -1;
    }
    /* a FIFO with no reader yet is waited for, as a shell's redirection would */
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "aioprof-sim: cannot write %s to %s: %s.\n", what, path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &now) < 0 || now.st_dev != before.st_dev || now.st_ino != before.st_ino) {
        fprintf(stderr, "aioprof-sim: %s changed while it was being opened; not writing %s there.\n", path, what);
        goto error;
    }
    if (S_ISREG(now.st_mode) && ftruncate(fd, 0) < 0) {
        fprintf(stderr, "aioprof-sim: cannot empty %s for %s: %s.\n", path, what, strerror(errno));
        goto error;
    }
    return fd;

error:
    close(fd);
    return -1;
}

int sim_file_create(const char *path, const char *what)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd >= 0)
        return fd;
    if (errno != EEXIST) {
        fprintf(stderr, "aioprof-sim: cannot create %s for %s: %s.\n", path, what, strerror(errno));
        return -1;
    }
    return sim_file_existing(path, what);
}

int sim_file_replace(const char *path, const char *what, const char *text, size_t len)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
        fprintf(stderr, "aioprof-sim: %s is %s: name a file for %s.\n", path, sim_file_kind(st.st_mode), what);
        return -1;
    }
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (tmp == NULL) {
        fprintf(stderr, "aioprof-sim: out of memory while writing %s.\n", what);
        return -1;
    }
    /* a name nobody can have put there in advance (mkstemp opens it with O_EXCL) */
    snprintf(tmp, n, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "aioprof-sim: cannot write %s beside %s: %s.\n", what, path, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes it private (0600): the same mode as the simulator's other files */
    (void)fchmod(fd, 0644);
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            goto error;
        done += (size_t)w;
    }
    if (close(fd) != 0) {
        fd = -1;
        goto error;
    }
    fd = -1;
    if (rename(tmp, path) != 0)
        goto error;
    free(tmp);
    return 0;

error:
    fprintf(stderr, "aioprof-sim: cannot write %s to %s: %s.\n", what, path, strerror(errno ? errno : EIO));
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    free(tmp);
    return -1;
}
