/* The device back-end: a serial port by path, through libserialport, or through termios for the
 * ttys libserialport refuses (source_pty.c). It survives unplugging: the object keeps the path
 * and reopens it when it comes back, as tio does; it can also start before the board is there
 * and wait for it (a path, or the first MicroPython board: source_ports.c). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "source.h"
#include "monotonic.h"

#include <errno.h>
#include <libserialport.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct device_source {
    source_t base;
    char *path;             /* as given, or its stable name once found; NULL: the first board */
    int baud;
    int verbose;
    unsigned flags;         /* SOURCE_DEVICE_* */
    int connected_once;
    uint64_t origin_us;     /* the first connection: host times count from here */
    struct sp_port *port;   /* the libserialport path, or NULL */
    int fd;                 /* the termios path, or -1 */
    uint64_t idle_since_us; /* when the last byte or check was, to notice a vanished node */
    uint64_t byte_us;       /* when the last byte was read (0: none since the connect) */
    int owned;              /* the last connect found the path to be a session's terminal */
    char owner[128];        /* whose: "bash, session 1234" */
    int owned_said;         /* ... and said so, once while it stays that way */
    int owner_unknown_said;
    uint64_t failing_since_us; /* the path is there and fails to open since then (0: it does not) */
    int failing_said;
} device_source_t;

/* A terminal that is some session's controlling terminal is a user's shell or login, not a board:
 * reading it would take their keystrokes (a pty number freed by an unplugged device is soon
 * another terminal's). Returns 0 when it is nobody's, -1 with err set when it is. */
static int device_not_owned(device_source_t *d, dev_t rdev, char *err, size_t errlen)
{
    int r = source_tty_owner(rdev, d->owner, sizeof d->owner);
    if (r < 0 && d->verbose && !d->owner_unknown_said) {
        d->owner_unknown_said = 1;
        fprintf(stderr, "aioprof-top: no /proc here: only this program's own terminal can be told from a board's "
                "port\n");
    }
    d->owned = r > 0;
    if (r <= 0)
        return 0;
    snprintf(err, errlen, "%s is the controlling terminal of a session (%s): reading it would take that session's "
             "keystrokes; name the board's port (aioprof-top --list shows them).", d->path, d->owner);
    return -1;
}

/* The modem lines DTR and RTS. ESP8266 and ESP32 boards (and the ESP32-C3/S3's USB serial) tie
 * them to the chip's EN (reset) and its boot pin through two crossed transistors: RTS asserted
 * alone holds EN low (the chip resets), DTR asserted alone pulls the boot pin low (a reset then
 * enters the ROM bootloader), both asserted or both deasserted leave the chip alone. Linux asserts
 * both at once when a tty opens and drops both at once when it closes (HUPCL), and mpremote and
 * pyserial's miniterm leave them asserted on Linux; so does this by default. --dtr and --rts set
 * another state (as miniterm's and tio's options), in an order that never passes through "RTS
 * alone" unless that is what was asked for: first the changes toward safety (DTR on, RTS off),
 * then the rest. */
typedef struct device_lines {
    int dtr_on, rts_on;
} device_lines_t;

static device_lines_t device_lines_wanted(const device_source_t *d)
{
    device_lines_t l = {!(d->flags & SOURCE_DEVICE_DTR_OFF), !(d->flags & SOURCE_DEVICE_RTS_OFF)};
    return l;
}

static void device_lines_libserialport(const device_source_t *d, struct sp_port *port)
{
    device_lines_t l = device_lines_wanted(d);
    if (l.dtr_on)
        (void)sp_set_dtr(port, SP_DTR_ON);
    if (!l.rts_on)
        (void)sp_set_rts(port, SP_RTS_OFF);
    if (!l.dtr_on)
        (void)sp_set_dtr(port, SP_DTR_OFF);
    if (l.rts_on)
        (void)sp_set_rts(port, SP_RTS_ON);
}

/* The same through termios' ioctls; a pseudo-terminal has no modem lines (it refuses them: fine). */
static void device_lines_termios(const device_source_t *d, int fd)
{
    device_lines_t l = device_lines_wanted(d);
    int dtr = TIOCM_DTR, rts = TIOCM_RTS;
    if (l.dtr_on)
        (void)ioctl(fd, TIOCMBIS, &dtr);
    if (!l.rts_on)
        (void)ioctl(fd, TIOCMBIC, &rts);
    if (!l.dtr_on)
        (void)ioctl(fd, TIOCMBIC, &dtr);
    if (l.rts_on)
        (void)ioctl(fd, TIOCMBIS, &rts);
}

/* libserialport fails get_port_by_name for any tty without a sysfs device (SP_ERR_ARG); other
 * failures carry an errno. */
static int device_open_libserialport(device_source_t *d, const char *real, char *err, size_t errlen)
{
    struct sp_port *port = NULL;
    int fd = -1;

    if (sp_get_port_by_name(real, &port) != SP_OK)
        return 1; /* not a port libserialport knows: try termios */
    if (sp_open(port, (d->flags & SOURCE_DEVICE_WRITE) ? SP_MODE_READ_WRITE : SP_MODE_READ) != SP_OK) {
        int e = errno;
        source_describe_errno(err, errlen, d->path, e ? e : EIO);
        goto error_free;
    }
    if (sp_get_port_handle(port, &fd) != SP_OK || source_lock_exclusive(fd, d->path, err, errlen) < 0) {
        if (fd < 0)
            snprintf(err, errlen, "cannot use %s: libserialport gave no handle.", d->path);
        goto error_close;
    }
    /* 8N1, no flow control; DTR on by default, since some USB CDC stacks only send to an open
     * terminal (device_lines_libserialport) */
    if (sp_set_baudrate(port, d->baud) != SP_OK || sp_set_bits(port, 8) != SP_OK ||
        sp_set_parity(port, SP_PARITY_NONE) != SP_OK || sp_set_stopbits(port, 1) != SP_OK ||
        sp_set_flowcontrol(port, SP_FLOWCONTROL_NONE) != SP_OK) {
        char *msg = sp_last_error_message();
        snprintf(err, errlen, "cannot set %s to %d 8N1: %s.", d->path, d->baud, msg ? msg : "unknown error");
        sp_free_error_message(msg);
        goto error_close;
    }
    device_lines_libserialport(d, port);
    d->port = port;
    snprintf(d->base.how, sizeof d->base.how, "libserialport");
    return 0;

error_close:
    sp_close(port);
error_free:
    sp_free_port(port);
    return -1;
}

/* A device node given by its kernel name (/dev/ttyACM0) that has a stable name: the stable name
 * is followed from now on, so a replug that renumbers the node finds the same board. A path that
 * is a link already (by-id, by-path, a test's pty link) was chosen by the user and is kept. */
static void device_follow_stable_name(device_source_t *d)
{
    struct stat st;
    char stable[PATH_MAX];
    if (lstat(d->path, &st) < 0 || S_ISLNK(st.st_mode) || !source_stable_name(d->path, stable, sizeof stable))
        return;
    char *copy = strdup(stable);
    if (copy == NULL)
        return;
    if (d->verbose)
        fprintf(stderr, "aioprof-top: %s is %s: following that name\n", d->path, stable);
    free(d->path);
    d->path = copy;
    d->base.name = d->path;
}

/* Returns 0 when open, -1 with err set. */
static int device_connect(device_source_t *d, char *err, size_t errlen)
{
    char real[PATH_MAX];
    struct stat st;

    if (realpath(d->path, real) == NULL || stat(real, &st) < 0) {
        source_describe_errno(err, errlen, d->path, errno);
        return -1;
    }
    if (!S_ISCHR(st.st_mode)) {
        snprintf(err, errlen, "%s is not a serial port (to read a file, use --replay).", d->path);
        return -1;
    }
    /* before it is opened: opening sets it raw, which would break the session's terminal too */
    if (device_not_owned(d, st.st_rdev, err, errlen) < 0)
        return -1;
    int r = device_open_libserialport(d, real, err, errlen);
    if (r < 0)
        return -1;
    if (r > 0) {
        d->fd = source_pty_open(d->path, d->baud, (d->flags & SOURCE_DEVICE_WRITE) != 0, err, errlen);
        if (d->fd < 0)
            return -1;
        device_lines_termios(d, d->fd);
        snprintf(d->base.how, sizeof d->base.how, "termios (libserialport does not know this tty)");
    }
    device_follow_stable_name(d);
    if (d->verbose)
        fprintf(stderr, "aioprof-top: opened %s (%s) through %s, DTR %s, RTS %s\n", d->path, real, d->base.how,
                (d->flags & SOURCE_DEVICE_DTR_OFF) ? "off" : "on", (d->flags & SOURCE_DEVICE_RTS_OFF) ? "off" : "on");
    d->base.down = 0;
    d->idle_since_us = monotonic_us();
    d->byte_us = 0; /* the first read is looked at: a session may have taken it since the check above */
    if (!d->connected_once) {
        d->connected_once = 1;
        d->origin_us = d->idle_since_us;
    }
    return 0;
}

static void device_disconnect(device_source_t *d)
{
    d->base.down = 1;
    if (d->port != NULL) {
        sp_close(d->port);
        sp_free_port(d->port);
        d->port = NULL;
    }
    if (d->fd >= 0) {
        close(d->fd);
        d->fd = -1;
    }
}

/* polled: poll said the port is readable (or hung up: the read says which); not polled: what is
 * queued now, nothing waited for. */
static long device_read_libserialport(device_source_t *d, uint8_t *buf, size_t len, int polled)
{
    enum sp_return r = polled ? sp_blocking_read_next(d->port, buf, len, 1u) : sp_nonblocking_read(d->port, buf, len);
    if (r > 0)
        return (long)r;
    if (r == 0)
        return SOURCE_TIMEOUT;
    if (errno == EINTR)
        return SOURCE_TIMEOUT;
    if (errno == EIO || errno == ENXIO || errno == ENODEV || errno == EBADF)
        return SOURCE_GONE;
    return SOURCE_ERROR;
}

/* A terminal that became a session's since it was opened (a terminal emulator that took the pty
 * number between our check and our open, and made it its shell's afterwards): let go of it at
 * once, before its user types, or at the latest before what they typed is read. Returns
 * SOURCE_TIMEOUT, or SOURCE_GONE after saying why. */
static long device_still_free(device_source_t *d)
{
    struct stat st;
    char err[512];
    int fd = d->fd;
    if (d->port != NULL)
        sp_get_port_handle(d->port, &fd);
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || device_not_owned(d, st.st_rdev, err, sizeof err) == 0)
        return SOURCE_TIMEOUT;
    fprintf(stderr, "aioprof-top: %s became the controlling terminal of a session (%s): let go of it.\n", d->path,
            d->owner);
    d->owned_said = 1; /* the reconnect's refusal is the same news */
    return SOURCE_GONE;
}

/* The first read after the open and every read after 200 ms without bytes (where a keystroke
 * typed into a quiet terminal would be) is preceded by device_still_free; a board's stream is
 * not. No ioctl on our descriptor tells whether the terminal became a session's (TIOCGSID and
 * TIOCGPGRP answer ENOTTY to any process outside that session), so /proc is asked, about 10 us a
 * process: too dear for every read of a stream. */
#define DEVICE_PAUSE_US (SOURCE_RECONNECT_POLL_MS * 1000u)

/* Waits up to timeout_ms for bytes on fd. Returns 1 when there are some (or the port hung up:
 * the read then says so), SOURCE_TIMEOUT or SOURCE_ERROR. */
static long device_wait(int fd, int timeout_ms, int *hangup)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int r = poll(&pfd, 1, timeout_ms);
    if (r < 0)
        return errno == EINTR ? SOURCE_TIMEOUT : SOURCE_ERROR;
    *hangup = (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
    return r > 0 ? 1 : SOURCE_TIMEOUT;
}

/* When a look is due, *len becomes what was queued before the look began, so no byte that came
 * after it is read. Returns 1 to read, SOURCE_TIMEOUT when nothing is queued after all, or
 * SOURCE_GONE when the terminal became a session's (said; nothing read). */
static long device_before_read(device_source_t *d, int fd, int hangup, size_t *len)
{
    uint64_t now = monotonic_us();
    if (d->byte_us != 0 && now - d->byte_us < DEVICE_PAUSE_US)
        return 1;
    int queued = 0;
    int counted = ioctl(fd, FIONREAD, &queued) == 0 && queued >= 0;
    if (device_still_free(d) == SOURCE_GONE)
        return SOURCE_GONE;
    if (!counted || (queued == 0 && hangup))
        return 1; /* a hung-up port fails FIONREAD: its read says it is gone */
    if (queued == 0)
        return SOURCE_TIMEOUT;
    if ((size_t)queued < *len)
        *len = (size_t)queued;
    return 1;
}

/* What is queued now, nothing waited for (polled: poll said it is readable): n > 0,
 * SOURCE_TIMEOUT when nothing is, SOURCE_GONE or SOURCE_ERROR. */
static long device_read_now(device_source_t *d, uint8_t *buf, size_t len, int polled)
{
    if (d->port != NULL)
        return device_read_libserialport(d, buf, len, polled);
    return polled ? source_pty_read(d->fd, buf, len, 0) : source_pty_read_queued(d->fd, buf, len);
}

static long device_read(source_t *s, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us)
{
    device_source_t *d = (device_source_t *)s;
    int fd = d->fd, hangup = 0;
    long n = SOURCE_TIMEOUT;
    if (d->port != NULL)
        sp_get_port_handle(d->port, &fd);
    /* While bytes flow (the last came within DEVICE_PAUSE_US: no look is due), read first and wait
     * only when nothing is queued: a poll before each read cost as much as the read (on a tty, both
     * wait for the kernel's buffer worker), and at 1 MB/s nearly every poll found bytes. */
    int read_first = d->byte_us != 0 && monotonic_us() - d->byte_us < DEVICE_PAUSE_US;
    if (read_first)
        n = device_read_now(d, buf, len, 0);
    /* A wait of 0 after that read found nothing would only ask the same again (a poll, which on a
     * tty waits for the buffer worker as the read did): the live loop's drained read, once a
     * gather at 1 MB/s. A port that hung up meanwhile is found by the next read that waits. */
    if (n == SOURCE_TIMEOUT && !(read_first && timeout_ms <= 0)) {
        n = device_wait(fd, timeout_ms, &hangup);
        if (n > 0)
            n = device_before_read(d, fd, hangup, &len);
        if (n > 0)
            n = device_read_now(d, buf, len, 1);
    }
    uint64_t now = monotonic_us();
    *host_us = now - d->origin_us;
    if (n > 0) {
        d->idle_since_us = d->byte_us = now;
        return n;
    }
    /* An unplugged USB port does not always fail its reads; its node vanishing is the sure sign.
     * Checked once a quiet 200 ms, not on every read. */
    if (n == SOURCE_TIMEOUT && now - d->idle_since_us >= SOURCE_RECONNECT_POLL_MS * 1000u) {
        d->idle_since_us = now;
        if (access(d->path, F_OK) < 0)
            n = SOURCE_GONE;
        else
            n = device_still_free(d);
    }
    if (n == SOURCE_GONE)
        device_disconnect(d);
    if (n == SOURCE_ERROR)
        snprintf(s->error, sizeof s->error, "reading %s failed: %s.", d->path, strerror(errno));
    return n;
}

static void device_sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A path that is there but will not open (permission, busy) for this long is said once: until
 * then it may be udev still setting the node up. */
#define DEVICE_OPEN_PATIENCE_US 2000000u

/* A present path that keeps failing to open: said once, after DEVICE_OPEN_PATIENCE_US. */
static void device_failing(device_source_t *d, int failing, const char *err)
{
    uint64_t now = monotonic_us();
    if (!failing) {
        d->failing_since_us = 0;
        d->failing_said = 0;
        return;
    }
    if (d->failing_since_us == 0)
        d->failing_since_us = now;
    if (!d->failing_said && now - d->failing_since_us >= DEVICE_OPEN_PATIENCE_US) {
        d->failing_said = 1;
        fprintf(stderr, "aioprof-top: note: %s Still waiting (Ctrl-C to stop).\n", err);
    }
}

/* Without a port: looks for the board once. Returns 1 when one was found (d->path set), 0 when
 * there is none yet, -1 with err set (several, or listing failed). */
static int device_pick(device_source_t *d, char *err, size_t errlen)
{
    int none;
    char *picked = source_pick_port(d->verbose, &none, err, errlen);
    if (picked == NULL)
        return none ? 0 : -1;
    d->path = picked;
    d->base.name = d->path;
    fprintf(stderr, "aioprof-top: using %s\n", d->path);
    return 1;
}

/* Polls for the path every 200 ms; an open that fails right after the node appears (udev has not
 * set its permissions yet) is tried again on the next poll. */
static int device_reconnect(source_t *s, int timeout_ms, uint64_t *host_us)
{
    device_source_t *d = (device_source_t *)s;
    char err[512];
    int waited = 0;

    device_disconnect(d);
    for (;;) {
        int r = d->path == NULL ? device_pick(d, s->error, sizeof s->error) : 1;
        if (r < 0)
            return SOURCE_ERROR;
        int present = r > 0 && access(d->path, F_OK) == 0;
        if (present && device_connect(d, err, sizeof err) == 0) {
            d->owned_said = 0;
            d->failing_since_us = 0;
            *host_us = monotonic_us() - d->origin_us;
            return SOURCE_BACK;
        }
        if (present && d->owned && !d->owned_said) {
            d->owned_said = 1;
            fprintf(stderr, "aioprof-top: note: %s is %s, but as the controlling terminal of a session (%s), "
                    "not the board: not reading it; still waiting for the board.\n", d->path,
                    d->connected_once ? "back" : "there", d->owner);
        } else if (!present || !d->owned) {
            d->owned_said = 0; /* said again if it comes back owned again */
        }
        device_failing(d, present && !d->owned, err);
        if (waited >= timeout_ms)
            break;
        int step = timeout_ms - waited < SOURCE_RECONNECT_POLL_MS ? timeout_ms - waited : SOURCE_RECONNECT_POLL_MS;
        device_sleep_ms(step);
        waited += step;
    }
    *host_us = monotonic_us() - d->origin_us;
    return SOURCE_TIMEOUT;
}

static long device_write(source_t *s, const uint8_t *data, size_t len)
{
    device_source_t *d = (device_source_t *)s;
    if (!(d->flags & SOURCE_DEVICE_WRITE)) {
        snprintf(s->error, sizeof s->error, "%s was opened to be read only.", d->path);
        return SOURCE_ERROR;
    }
    if (d->base.down)
        return SOURCE_GONE;
    long n;
    if (d->port != NULL) {
        enum sp_return r = sp_nonblocking_write(d->port, data, len);
        n = r >= 0 ? (long)r : -1;
    } else {
        ssize_t w = write(d->fd, data, len);
        n = w >= 0 ? (long)w : (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    }
    if (n >= 0)
        return n;
    if (errno == EIO || errno == ENXIO || errno == ENODEV || errno == EBADF)
        return SOURCE_GONE;
    snprintf(s->error, sizeof s->error, "writing to %s failed: %s.", d->path, strerror(errno));
    return SOURCE_ERROR;
}

static void device_close(source_t *s)
{
    device_source_t *d = (device_source_t *)s;
    device_disconnect(d);
    free(d->path);
    free(d);
}

static const source_ops_t device_ops = {
    .read = device_read,
    .reconnect = device_reconnect,
    .close = device_close,
    .write = device_write,
};

source_t *source_device_open(const char *path, int baud, unsigned flags, int verbose, char *err, size_t errlen)
{
    device_source_t *d = calloc(1, sizeof *d);
    if (d == NULL || (path != NULL && (d->path = strdup(path)) == NULL)) {
        snprintf(err, errlen, "out of memory.");
        free(d);
        return NULL;
    }
    d->base.ops = &device_ops;
    d->base.name = d->path != NULL ? d->path : "a MicroPython board";
    d->base.down = 1;
    d->baud = baud;
    d->verbose = verbose;
    d->flags = flags;
    d->fd = -1;
    d->origin_us = monotonic_us();
    int picked = 0;
    if (d->path == NULL) {
        int r = device_pick(d, err, errlen);
        if (r < 0 || (r == 0 && !(flags & SOURCE_DEVICE_WAIT)))
            goto error;
        if (r == 0)
            return &d->base; /* no board yet: waited for */
        picked = 1;
    }
    if (device_connect(d, err, errlen) == 0)
        return &d->base;
    /* not plugged in yet: waited for, as tio does (a port just listed should be there: an error) */
    if ((flags & SOURCE_DEVICE_WAIT) && !picked && access(d->path, F_OK) < 0 && errno == ENOENT)
        return &d->base;

error:
    device_close(&d->base);
    return NULL;
}
