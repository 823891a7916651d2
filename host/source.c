/* What the device back-ends share: the clock, the sentences for open errors, the port lock. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "source.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>

uint64_t source_monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void source_close(source_t *s)
{
    if (s != NULL)
        s->ops->close(s);
}

/* Permission problems are the common first-day failure: name the group that owns the node, since
 * that is the one to join (dialout on Debian and Ubuntu, uucp on Arch). */
static void source_describe_access(char *err, size_t errlen, const char *path)
{
    struct stat st;
    const char *group = NULL;
    if (stat(path, &st) == 0) {
        struct group *g = getgrgid(st.st_gid);
        if (g != NULL)
            group = g->gr_name;
    }
    if (group != NULL && strcmp(group, "root") != 0)
        snprintf(err, errlen,
                 "permission denied opening %s: join the group '%s' that owns it "
                 "(sudo usermod -aG %s $USER, then log in again).", path, group, group);
    else
        snprintf(err, errlen, "permission denied opening %s: it is not readable by your user.", path);
}

void source_describe_errno(char *err, size_t errlen, const char *path, int errnum)
{
    switch (errnum) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
        snprintf(err, errlen, "no such port: %s (aioprof-top --list shows the ports).", path);
        break;
    case EACCES:
    case EPERM:
        source_describe_access(err, errlen, path);
        break;
    case EBUSY:
    case EWOULDBLOCK:
        snprintf(err, errlen, "%s is busy: another program has it open (close that program first).", path);
        break;
    default:
        snprintf(err, errlen, "cannot open %s: %s.", path, strerror(errnum));
        break;
    }
}

/* Two programs reading one port each get half the bytes and both see garbage, so refuse to share.
 * flock() catches the programs that lock (tio, pyserial's exclusive mode, another aioprof-top);
 * TIOCEXCL then makes later opens by others fail with EBUSY. */
int source_lock_exclusive(int fd, const char *path, char *err, size_t errlen)
{
    if (flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK) {
        source_describe_errno(err, errlen, path, EBUSY);
        return -1;
    }
    (void)ioctl(fd, TIOCEXCL);
    return 0;
}
