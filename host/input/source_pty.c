/* The termios back-end: ttys that libserialport refuses. On Linux that is every pseudo-terminal
 * (the simulator's, socat's): libserialport wants a sysfs entry under /sys/class/tty and modem
 * lines, and a pty has neither. The bytes are the same, so they are read the plain POSIX way. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <termios.h>
#include <unistd.h>

static speed_t source_pty_speed(int baud)
{
    static const struct { int baud; speed_t speed; } speeds[] = {
        {9600, B9600}, {19200, B19200}, {38400, B38400}, {57600, B57600}, {115200, B115200},
        {230400, B230400}, {460800, B460800}, {921600, B921600}, {1000000, B1000000},
    };
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (speeds[i].baud == baud)
            return speeds[i].speed;
    return B115200; /* a pty has no line speed; a UART reached this way keeps a common one */
}

int source_pty_open(const char *path, int baud, int write, char *err, size_t errlen)
{
    struct termios tio;
    int fd = open(path, (write ? O_RDWR : O_RDONLY) | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        source_describe_errno(err, errlen, path, errno);
        return -1;
    }
    if (!isatty(fd)) {
        snprintf(err, errlen, "%s is not a serial port or terminal (to read a file, use --replay).", path);
        goto error_close;
    }
    if (source_lock_exclusive(fd, path, err, errlen) < 0)
        goto error_close;
    if (tcgetattr(fd, &tio) < 0) {
        source_describe_errno(err, errlen, path, errno);
        goto error_close;
    }
    /* 8N1, raw, no flow control: the frames are binary and any byte may appear */
    cfmakeraw(&tio);
    tio.c_cflag &= ~(tcflag_t)(CSTOPB | CRTSCTS | PARENB);
    tio.c_cflag |= CLOCAL | CREAD | CS8;
    tio.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
    tio.c_cc[VMIN] = 0;
    tio.c_cc[VTIME] = 0;
    cfsetispeed(&tio, source_pty_speed(baud));
    cfsetospeed(&tio, source_pty_speed(baud));
    if (tcsetattr(fd, TCSANOW, &tio) < 0) {
        source_describe_errno(err, errlen, path, errno);
        goto error_close;
    }
    return fd;

error_close:
    close(fd);
    return -1;
}

long source_pty_read(int fd, uint8_t *buf, size_t len, int timeout_ms)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    /* timeout 0: the caller has polled already (the fd is non-blocking: nothing there is EAGAIN) */
    int r = timeout_ms > 0 ? poll(&pfd, 1, timeout_ms) : 1;
    if (r < 0)
        return errno == EINTR ? SOURCE_TIMEOUT : SOURCE_ERROR;
    if (r == 0)
        return SOURCE_TIMEOUT;
    ssize_t n = read(fd, buf, len);
    if (n > 0)
        return (long)n;
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return SOURCE_TIMEOUT;
    /* the other end closed (EIO on a pty slave, 0 after a hang-up): the port is gone */
    if (n == 0 || errno == EIO || errno == ENXIO || errno == ENODEV || (pfd.revents & POLLHUP))
        return SOURCE_GONE;
    return SOURCE_ERROR;
}

long source_pty_read_queued(int fd, uint8_t *buf, size_t len)
{
    ssize_t n = read(fd, buf, len);
    if (n > 0)
        return (long)n;
    /* VMIN 0 and VTIME 0: a read of an empty buffer returns 0 at once, before O_NONBLOCK's EAGAIN */
    if (n == 0 || errno == EAGAIN || errno == EINTR)
        return SOURCE_TIMEOUT;
    if (errno == EIO || errno == ENXIO || errno == ENODEV)
        return SOURCE_GONE;
    return SOURCE_ERROR;
}
