/* What the device back-ends share: the sentences for open errors, the port lock, and
 * the check that a terminal is nobody's controlling terminal. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "source.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"

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

/* Reads /proc/PID/stat: the command name (escaped: it is any process's word), the session and the
 * controlling terminal (tty_nr, the kernel's encoding: minor in bits 0-7 and 20-31, major in bits
 * 8-19). Returns 0, or -1 when the process is gone or the line is not what it should be. */
static int source_proc_stat(const char *pid, char *comm, size_t commlen, long *session, unsigned long *tty)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    /* "pid (comm) state ppid pgrp session tty_nr ...": comm may hold anything, ")" included */
    char *open = strchr(line, '(');
    char *close = strrchr(line, ')');
    int ppid, pgrp;
    char state;
    if (open == NULL || close == NULL || close < open ||
        sscanf(close + 1, " %c %d %d %ld %lu", &state, &ppid, &pgrp, session, tty) != 5)
        return -1;
    if (comm != NULL)
        escape_bytes(comm, commlen, (const uint8_t *)open + 1, (size_t)(close - open - 1), 0);
    return 0;
}

int source_tty_owner(dev_t rdev, char *who, size_t wholen)
{
    DIR *proc = opendir("/proc");
    struct dirent *e;
    long session = -1;
    if (proc == NULL || access("/proc/self/stat", R_OK) != 0) {
        if (proc != NULL)
            closedir(proc);
        /* no /proc: only the terminals of this program's own session can be told */
        struct stat st;
        for (int fd = 0; fd <= 2; fd++) {
            if (isatty(fd) && fstat(fd, &st) == 0 && st.st_rdev == rdev) {
                snprintf(who, wholen, "this aioprof-top's own");
                return 1;
            }
        }
        return -1;
    }
    while ((e = readdir(proc)) != NULL) {
        long s;
        unsigned long tty;
        if (!isdigit((unsigned char)e->d_name[0]) || source_proc_stat(e->d_name, NULL, 0, &s, &tty) < 0)
            continue;
        unsigned maj = (unsigned)((tty >> 8) & 0xFFFu), min = (unsigned)((tty & 0xFFu) | ((tty >> 12) & 0xFFF00u));
        if (tty != 0 && maj == major(rdev) && min == minor(rdev)) {
            session = s;
            break;
        }
    }
    closedir(proc);
    if (session < 0)
        return 0;
    /* named by the session's leader: the shell or login that owns the terminal */
    char leader[32], comm[64] = "?";
    long s;
    unsigned long tty;
    snprintf(leader, sizeof leader, "%ld", session);
    if (source_proc_stat(leader, comm, sizeof comm, &s, &tty) < 0)
        snprintf(comm, sizeof comm, "?");
    snprintf(who, wholen, "%s, session %ld", comm, session);
    return 1;
}

long source_write(source_t *s, const uint8_t *data, size_t len)
{
    if (s->ops->write == NULL) {
        snprintf(s->error, sizeof s->error, "%s was not opened to be written to.", s->name);
        return SOURCE_ERROR;
    }
    return s->ops->write(s, data, len);
}

int source_pace_gather_ms(source_pace_t *p, uint64_t now_us, int most_ms)
{
    uint64_t elapsed = now_us > p->since_us ? now_us - p->since_us : 0, bytes = p->bytes;
    int fresh = p->fresh, ms;
    p->since_us = now_us;
    p->bytes = 0;
    p->fresh = 0;
    if (fresh)
        ms = SOURCE_GATHER_FIRST_MS;
    else if (bytes == 0)
        ms = p->last_ms < SOURCE_GATHER_FIRST_MS ? SOURCE_GATHER_FIRST_MS : 2 * p->last_ms;
    else {
        /* the room's time at this rate: ROOM / (bytes / elapsed) */
        uint64_t us = elapsed / bytes * SOURCE_GATHER_ROOM + elapsed % bytes * SOURCE_GATHER_ROOM / bytes;
        ms = us >= (uint64_t)(most_ms > 0 ? most_ms : 0) * 1000u ? most_ms : (int)(us / 1000u);
    }
    if (ms > most_ms)
        ms = most_ms;
    if (ms < 0)
        ms = 0;
    p->last_ms = ms;
    return ms;
}
