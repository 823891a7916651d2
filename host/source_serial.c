/* The device back-end: a serial port by path, through libserialport, or through termios for the
 * ttys libserialport refuses (source_pty.c). It survives unplugging: the object keeps the path
 * and reopens it when it comes back, as tio does. Also --list and picking a board. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "source.h"

#include <errno.h>
#include <libserialport.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct device_source {
    source_t base;
    char *path;             /* as given: a by-id link stays valid across replugs */
    int baud;
    int verbose;
    uint64_t origin_us;     /* session start: host times count from here */
    struct sp_port *port;   /* the libserialport path, or NULL */
    int fd;                 /* the termios path, or -1 */
    uint64_t idle_since_us; /* when the last byte or check was, to notice a vanished node */
    int owned;              /* the last connect found the path to be a session's terminal */
    char owner[128];        /* whose: "bash, session 1234" */
    int owned_said;         /* ... and said so, once while it stays that way */
    int owner_unknown_said;
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

/* libserialport fails get_port_by_name for any tty without a sysfs device (SP_ERR_ARG); other
 * failures carry an errno. */
static int device_open_libserialport(device_source_t *d, const char *real, char *err, size_t errlen)
{
    struct sp_port *port = NULL;
    int fd = -1;

    if (sp_get_port_by_name(real, &port) != SP_OK)
        return 1; /* not a port libserialport knows: try termios */
    if (sp_open(port, SP_MODE_READ) != SP_OK) {
        int e = errno;
        source_describe_errno(err, errlen, d->path, e ? e : EIO);
        goto error_free;
    }
    if (sp_get_port_handle(port, &fd) != SP_OK || source_lock_exclusive(fd, d->path, err, errlen) < 0) {
        if (fd < 0)
            snprintf(err, errlen, "cannot use %s: libserialport gave no handle.", d->path);
        goto error_close;
    }
    /* 8N1, no flow control; DTR on, since some USB CDC stacks only send to an open terminal */
    if (sp_set_baudrate(port, d->baud) != SP_OK || sp_set_bits(port, 8) != SP_OK ||
        sp_set_parity(port, SP_PARITY_NONE) != SP_OK || sp_set_stopbits(port, 1) != SP_OK ||
        sp_set_flowcontrol(port, SP_FLOWCONTROL_NONE) != SP_OK) {
        char *msg = sp_last_error_message();
        snprintf(err, errlen, "cannot set %s to %d 8N1: %s.", d->path, d->baud, msg ? msg : "unknown error");
        sp_free_error_message(msg);
        goto error_close;
    }
    (void)sp_set_dtr(port, SP_DTR_ON);
    d->port = port;
    snprintf(d->base.how, sizeof d->base.how, "libserialport");
    return 0;

error_close:
    sp_close(port);
error_free:
    sp_free_port(port);
    return -1;
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
        d->fd = source_pty_open(d->path, d->baud, err, errlen);
        if (d->fd < 0)
            return -1;
        snprintf(d->base.how, sizeof d->base.how, "termios (libserialport does not know this tty)");
    }
    if (d->verbose)
        fprintf(stderr, "aioprof-top: opened %s (%s) through %s\n", d->path, real, d->base.how);
    d->idle_since_us = source_monotonic_us();
    return 0;
}

static void device_disconnect(device_source_t *d)
{
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

static long device_read_libserialport(device_source_t *d, uint8_t *buf, size_t len, int timeout_ms)
{
    enum sp_return r = sp_blocking_read_next(d->port, buf, len, timeout_ms > 0 ? (unsigned)timeout_ms : 1u);
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

/* A quiet terminal that became a session's since it was opened (a terminal emulator that took the
 * pty number between our check and our open, and made it its shell's afterwards): let go of it at
 * once, before its user types. Returns SOURCE_TIMEOUT, or SOURCE_GONE after saying why. */
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

static long device_read(source_t *s, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us)
{
    device_source_t *d = (device_source_t *)s;
    long n;
    if (d->port != NULL)
        n = device_read_libserialport(d, buf, len, timeout_ms);
    else
        n = source_pty_read(d->fd, buf, len, timeout_ms);
    uint64_t now = source_monotonic_us();
    *host_us = now - d->origin_us;
    if (n > 0) {
        d->idle_since_us = now;
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

/* Polls for the path every 200 ms; an open that fails right after the node appears (udev has not
 * set its permissions yet) is tried again on the next poll. */
static int device_reconnect(source_t *s, int timeout_ms, uint64_t *host_us)
{
    device_source_t *d = (device_source_t *)s;
    char err[512];
    int waited = 0;

    device_disconnect(d);
    for (;;) {
        int present = access(d->path, F_OK) == 0;
        if (present && device_connect(d, err, sizeof err) == 0) {
            d->owned_said = 0;
            *host_us = source_monotonic_us() - d->origin_us;
            return SOURCE_BACK;
        }
        if (present && d->owned && !d->owned_said) {
            d->owned_said = 1;
            fprintf(stderr, "aioprof-top: note: %s is back, but as the controlling terminal of a session (%s), "
                    "not the board: not reading it; still waiting for the board.\n", d->path, d->owner);
        } else if (!present || !d->owned) {
            d->owned_said = 0; /* said again if it comes back owned again */
        }
        if (waited >= timeout_ms)
            break;
        int step = timeout_ms - waited < SOURCE_RECONNECT_POLL_MS ? timeout_ms - waited : SOURCE_RECONNECT_POLL_MS;
        device_sleep_ms(step);
        waited += step;
    }
    *host_us = source_monotonic_us() - d->origin_us;
    return SOURCE_TIMEOUT;
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
};

source_t *source_device_open(const char *path, int baud, int verbose, char *err, size_t errlen)
{
    device_source_t *d = calloc(1, sizeof *d);
    if (d == NULL || (d->path = strdup(path)) == NULL) {
        snprintf(err, errlen, "out of memory.");
        free(d);
        return NULL;
    }
    d->base.ops = &device_ops;
    d->base.name = d->path;
    d->baud = baud;
    d->verbose = verbose;
    d->fd = -1;
    d->origin_us = source_monotonic_us();
    if (device_connect(d, err, errlen) < 0) {
        device_close(&d->base);
        return NULL;
    }
    return &d->base;
}

/* USB vendors whose serial ports are MicroPython boards (likely) or may be (possible). */
typedef enum board_guess { BOARD_NO, BOARD_POSSIBLE, BOARD_LIKELY } board_guess_t;

static board_guess_t source_board_guess(int vid, const char **what)
{
    static const struct { int vid; board_guess_t guess; const char *what; } vendors[] = {
        {0x2E8A, BOARD_LIKELY, "Raspberry Pi (RP2040/RP2350)"},
        {0xF055, BOARD_LIKELY, "MicroPython"},
        {0x303A, BOARD_LIKELY, "Espressif"},
        {0x0483, BOARD_POSSIBLE, "STMicroelectronics virtual COM port"},
        {0x10C4, BOARD_POSSIBLE, "Silicon Labs USB-UART bridge"},
        {0x1A86, BOARD_POSSIBLE, "WCH USB-UART bridge"},
    };
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++) {
        if (vendors[i].vid == vid) {
            *what = vendors[i].what;
            return vendors[i].guess;
        }
    }
    *what = NULL;
    return BOARD_NO;
}

static const char *source_or_dash(const char *s)
{
    return s != NULL && s[0] != '\0' ? s : "-";
}

int source_list_ports(FILE *out, char *err, size_t errlen)
{
    struct sp_port **ports = NULL;
    if (sp_list_ports(&ports) != SP_OK) {
        snprintf(err, errlen, "cannot list the serial ports: %s.", strerror(errno));
        return -1;
    }
    if (ports[0] == NULL)
        fputs("no serial ports found\n", out);
    for (size_t i = 0; ports[i] != NULL; i++) {
        struct sp_port *p = ports[i];
        int vid = 0, pid = 0;
        const char *what = NULL;
        fprintf(out, "%s", sp_get_port_name(p));
        if (sp_get_port_transport(p) == SP_TRANSPORT_USB &&
            sp_get_port_usb_vid_pid(p, &vid, &pid) == SP_OK) {
            board_guess_t g = source_board_guess(vid, &what);
            fprintf(out, "  usb %04x:%04x  manufacturer: %s  product: %s  serial: %s%s%s",
                    (unsigned)vid, (unsigned)pid, source_or_dash(sp_get_port_usb_manufacturer(p)),
                    source_or_dash(sp_get_port_usb_product(p)), source_or_dash(sp_get_port_usb_serial(p)),
                    g == BOARD_LIKELY ? "  [MicroPython board]" : g == BOARD_POSSIBLE ? "  [possibly a board]" : "",
                    "");
        } else {
            fprintf(out, "  %s", source_or_dash(sp_get_port_description(p)));
        }
        fputc('\n', out);
    }
    sp_free_port_list(ports);
    return 0;
}

char *source_pick_port(int verbose, char *err, size_t errlen)
{
    struct sp_port **ports = NULL;
    char *picked = NULL;
    size_t likely = 0, possible = 0;
    const char *likely_name = NULL, *possible_name = NULL;
    char names[320] = "";

    if (sp_list_ports(&ports) != SP_OK) {
        snprintf(err, errlen, "cannot list the serial ports: %s.", strerror(errno));
        return NULL;
    }
    for (size_t i = 0; ports[i] != NULL; i++) {
        int vid = 0, pid = 0;
        const char *what;
        if (sp_get_port_transport(ports[i]) != SP_TRANSPORT_USB ||
            sp_get_port_usb_vid_pid(ports[i], &vid, &pid) != SP_OK)
            continue;
        board_guess_t g = source_board_guess(vid, &what);
        if (g == BOARD_NO)
            continue;
        const char *name = sp_get_port_name(ports[i]);
        if (g == BOARD_LIKELY) {
            likely++;
            likely_name = name;
        } else {
            possible++;
            possible_name = name;
        }
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s (%s)", used ? ", " : "", name, what);
    }
    /* A board beats a bridge; two of a kind are the user's choice to make. */
    if (likely == 1)
        picked = strdup(likely_name);
    else if (likely == 0 && possible == 1)
        picked = strdup(possible_name);
    if (picked != NULL && verbose)
        fprintf(stderr, "aioprof-top: picked %s among: %s\n", picked, names);
    if (picked == NULL && likely + possible == 0)
        snprintf(err, errlen, "no MicroPython board found; name the port (aioprof-top --list shows them) or try --demo.");
    else if (picked == NULL)
        snprintf(err, errlen, "several boards could be the one: %s; name the port to use.", names);
    sp_free_port_list(ports);
    return picked;
}
