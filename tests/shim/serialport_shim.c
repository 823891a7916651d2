/* An LD_PRELOAD shim that lets libserialport (0.1.x, Linux) open a pseudo-terminal, so that the
 * e2e tests exercise aioprof-top's libserialport read path without a board.
 *
 * libserialport accepts a port only when /sys/class/tty/<name> exists (it lstat()s and readlink()s
 * it to learn the transport), and configures modem lines with TIOCMGET/TIOCMSET/TIOCMBIS/TIOCMBIC,
 * which a pty refuses. For /dev/pts/N the shim answers those two sysfs calls with a made-up
 * platform device, and answers the modem-line ioctls that fail from a remembered line state.
 * Nothing else is touched. Linux and glibc only; a test tool, never linked into aioprof-top. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHIM_SYSFS_PTS "/sys/class/tty/pts/"
#define SHIM_SYSFS_TARGET "../../devices/platform/aioprof-shim/tty/pts"

static int shim_lines = TIOCM_DTR | TIOCM_RTS | TIOCM_CTS | TIOCM_DSR | TIOCM_CD;

static int shim_is_pts(const char *path)
{
    return path != NULL && strncmp(path, SHIM_SYSFS_PTS, sizeof SHIM_SYSFS_PTS - 1) == 0;
}

static void shim_fake_link(struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_mode = S_IFLNK | 0777;
    st->st_size = (off_t)strlen(SHIM_SYSFS_TARGET);
}

ssize_t readlink(const char *path, char *buf, size_t size)
{
    static ssize_t (*real_readlink)(const char *, char *, size_t);
    if (shim_is_pts(path)) {
        size_t n = strlen(SHIM_SYSFS_TARGET);
        if (n > size)
            n = size;
        memcpy(buf, SHIM_SYSFS_TARGET, n);
        return (ssize_t)n;
    }
    if (real_readlink == NULL)
        *(void **)&real_readlink = dlsym(RTLD_NEXT, "readlink");
    return real_readlink(path, buf, size);
}

/* libserialport 0.1.1 as Debian builds it calls the old versioned stat entry point. */
int __lxstat(int ver, const char *path, struct stat *st)
{
    static int (*real_lxstat)(int, const char *, struct stat *);
    if (shim_is_pts(path)) {
        shim_fake_link(st);
        return 0;
    }
    if (real_lxstat == NULL)
        *(void **)&real_lxstat = dlsym(RTLD_NEXT, "__lxstat");
    return real_lxstat(ver, path, st);
}

int lstat(const char *path, struct stat *st)
{
    static int (*real_lstat)(const char *, struct stat *);
    if (shim_is_pts(path)) {
        shim_fake_link(st);
        return 0;
    }
    if (real_lstat == NULL)
        *(void **)&real_lstat = dlsym(RTLD_NEXT, "lstat");
    return real_lstat(path, st);
}

int ioctl(int fd, unsigned long request, ...)
{
    static int (*real_ioctl)(int, unsigned long, ...);
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (real_ioctl == NULL)
        *(void **)&real_ioctl = dlsym(RTLD_NEXT, "ioctl");
    int r = real_ioctl(fd, request, arg);
    if (r == 0 || arg == NULL)
        return r;
    int *bits = arg;
    switch (request) {
    case TIOCMGET: *bits = shim_lines; break;
    case TIOCMSET: shim_lines = *bits; break;
    case TIOCMBIS: shim_lines |= *bits; break;
    case TIOCMBIC: shim_lines &= ~*bits; break;
    default: return r;
    }
    errno = 0;
    return 0;
}
