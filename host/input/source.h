/* One stream interface for every place bytes come from, so that live and replay share every line
 * after the read (orbuculum's idea):
 *
 *   device: a serial port through libserialport, or a pseudo-terminal through termios
 *   file:   a recording (docs/recording.md) or a raw capture of a port's bytes
 *
 * A source gives bytes with the host time they were received (microseconds on its own time line:
 * since the session started for a device, as recorded for a recording), and says when the link
 * went away and came back. */
#ifndef AIOPROF_SOURCE_H
#define AIOPROF_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef enum source_status {
    SOURCE_BACK = 1,     /* source_reconnect(): the link is back */
    SOURCE_TIMEOUT = 0,  /* nothing within the timeout: call again */
    SOURCE_EOF = -1,     /* the end of a file, or of the stream */
    SOURCE_GONE = -2,    /* the port vanished (unplugged) or the recording says it did */
    SOURCE_ERROR = -3,   /* anything else; source_error() says what */
    SOURCE_HOLE = -4,    /* part of the input could not be read here (a damaged recording): the
                          * bytes that follow do not continue those before; the source said so */
} source_status_t;

typedef struct source source_t;

typedef struct source_ops {
    long (*read)(source_t *s, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us);
    int (*reconnect)(source_t *s, int timeout_ms, uint64_t *host_us);
    void (*close)(source_t *s);
    /* NULL for a source that cannot be written to (a file, a port opened to read only) */
    long (*write)(source_t *s, const uint8_t *data, size_t len);
} source_ops_t;

struct source {
    const source_ops_t *ops;
    const char *name;     /* what is read: a path (a port's stable name once it is known) */
    char how[96];         /* how it was opened: "libserialport", "termios", "recording v1"... */
    char error[512];      /* the sentence for the last SOURCE_ERROR */
    int is_file;
    int down;             /* a device not there yet, or gone: source_reconnect() waits for it */
};

/* Up to len bytes (len > 0). Returns n > 0 with *host_us the receive time, or a source_status.
 * SOURCE_GONE also sets *host_us (when the link went away). */
static inline long source_read(source_t *s, uint8_t *buf, size_t len, int timeout_ms, uint64_t *host_us)
{
    return s->ops->read(s, buf, len, timeout_ms, host_us);
}

/* How often a port that went away is looked for again (and an idle one checked for presence). */
#define SOURCE_RECONNECT_POLL_MS 200

/* After SOURCE_GONE: waits up to timeout_ms for the link to come back. Returns SOURCE_BACK when
 * it is back (*host_us: when), SOURCE_TIMEOUT while it is not, SOURCE_EOF or SOURCE_ERROR. */
static inline int source_reconnect(source_t *s, int timeout_ms, uint64_t *host_us)
{
    return s->ops->reconnect(s, timeout_ms, host_us);
}

static inline const char *source_error(const source_t *s)
{
    return s->error;
}

void source_close(source_t *s);

/* Bytes to the device, without blocking: returns how many it took (0: its buffer is full, try
 * again later), or SOURCE_GONE, SOURCE_ERROR (source_error() says what). A source opened without
 * SOURCE_DEVICE_WRITE takes nothing: SOURCE_ERROR. */
long source_write(source_t *s, const uint8_t *data, size_t len);

enum {
    SOURCE_DEVICE_WAIT = 1,  /* a port not there yet is waited for (the source starts down) */
    SOURCE_DEVICE_WRITE = 2, /* opened to write too (--run sends a program) */
    SOURCE_DEVICE_DTR_OFF = 4, /* --dtr off: DTR deasserted after the open (default: asserted) */
    SOURCE_DEVICE_RTS_OFF = 8, /* --rts off: RTS deasserted after the open (default: asserted) */
};

/* Opens a device path: libserialport first, termios for ttys it refuses (pseudo-terminals). A
 * path that is a device node with a stable name (source_stable_name) is followed by that name
 * from then on, so that a replug that renumbers the node is the same board. NULL path: the one
 * connected board that looks like a MicroPython board (source_pick_port). With SOURCE_DEVICE_WAIT,
 * a path that does not exist yet (or no board at all) is not an error: the source starts down and
 * source_reconnect() opens it when it appears; host times count from that first connection.
 * verbose: say how it was opened. Returns NULL with one sentence in err. */
source_t *source_device_open(const char *path, int baud, unsigned flags, int verbose, char *err, size_t errlen);

/* Opens a recording or a raw capture: a file, a FIFO or a pipe, "-" for standard input (a FIFO
 * with no writer yet is not waited for: reads time out until bytes come). speed: 1 as recorded, 0
 * as fast as possible (recordings; a raw capture has no receive times: it is read as fast as
 * possible, and main paces it by its frames' device time). Returns NULL with one sentence in err. */
source_t *source_file_open(const char *path, double speed, int verbose, char *err, size_t errlen);

int source_file_is_raw(const source_t *s);
/* A recording read to its END chunk (its session was closed cleanly, by its user or the tool, not
 * cut off): 1; a raw capture, a recording without END, a device: 0. */
int source_file_closed_cleanly(const source_t *s);
/* A stream whose first bytes have not yet said what it is (a recording or a raw capture): 1; an
 * error then is what opening a file that is neither gives. A device, or a file that is known: 0. */
int source_file_undecided(const source_t *s);

/* Replay control (host/replay.c), for recordings: they do nothing to a raw capture. The replay
 * clock runs at the speed from where it is: a new speed (0 as fast as possible) or a pause does
 * not make it jump. Position: recorded microseconds since the first chunk, smooth as the clock
 * runs, never past the chunk not yet given. A seek gives every chunk before at_us at once, then
 * paces from there. */
void source_file_set_speed(source_t *s, double speed);
void source_file_pause(source_t *s, int paused);
uint64_t source_file_position_us(const source_t *s);
void source_file_seek(source_t *s, uint64_t at_us);
int source_file_seeking(const source_t *s);
/* Reads a recording or a raw capture again from its start (the notes about it are not said
 * again). Returns 0, or -1 with one sentence in err: standard input, a FIFO or a pipe cannot. */
int source_file_rewind(source_t *s, char *err, size_t errlen);
/* No notes on stderr from here on (a second reader of the same file). */
void source_file_quiet(source_t *s);

/* How long a live loop may let a port's bytes gather before it reads again. The kernel keeps a
 * reader at least a tty line discipline's 4 KB of a port's bytes; with that full it throttles the
 * port, and a USB CDC board then stops sending: its ring fills and it drops events. (A pty holds
 * 64 KB more, so the simulator would never show it.) So a gather lasts no longer than the bytes,
 * at the rate they came since the last one, take to fill half of those 4 KB, and at most most_ms:
 * at 1 MB/s 2 ms, at a UART's 11.5 kB/s the whole most_ms. */
#define SOURCE_TTY_HOLDS 4096u
#define SOURCE_GATHER_ROOM (SOURCE_TTY_HOLDS / 2u)

typedef struct source_pace {
    uint64_t since_us; /* when the last gather began (or the port went quiet) */
    uint64_t bytes;    /* read since then */
    int fresh;         /* no gather since the port was quiet: its rate is not known yet */
    int last_ms;       /* the last gather */
} source_pace_t;

/* The port was quiet (a read found nothing while no bytes flowed), or the loop starts: the next
 * bytes may come at any rate, so the first gather after them is only SOURCE_GATHER_FIRST_MS long,
 * and measures it. */
#define SOURCE_GATHER_FIRST_MS 1
static inline void source_pace_quiet(source_pace_t *p, uint64_t now_us)
{
    p->since_us = now_us;
    p->bytes = 0;
    p->fresh = 1;
    p->last_ms = 0;
}

static inline void source_pace_took(source_pace_t *p, size_t n)
{
    p->bytes += n;
}

/* The gather in milliseconds, 0 to most_ms (0: read again at once); the next one is measured from
 * now_us. No bytes since the last gather says nothing of the rate (the sender may only have
 * paused): the gather then doubles, from SOURCE_GATHER_FIRST_MS, up to most_ms. */
int source_pace_gather_ms(source_pace_t *p, uint64_t now_us, int most_ms);

/* --list: prints every port libserialport knows, one a line. Returns 0, or -1 with err set. */
int source_list_ports(FILE *out, char *err, size_t errlen);

/* Without a port: the one connected board that looks like a MicroPython board, by its stable
 * name where it has one. Returns a path to free(), or NULL with err set: *none is 1 when there is
 * no board at all, 0 when there are several (the candidates are named) or listing failed. */
char *source_pick_port(int verbose, int *none, char *err, size_t errlen);

/* The stable name of a serial device: the link in /dev/serial/by-id/ (AIOPROF_SERIAL_BY_ID names
 * another folder, for the tests) that points to the node path is or leads to. Returns 1 with it in
 * out, 0 when there is none. */
int source_stable_name(const char *path, char *out, size_t outlen);

/* Shared by the device back-ends (source.c). */
void source_describe_errno(char *err, size_t errlen, const char *path, int errnum);
int source_lock_exclusive(int fd, const char *path, char *err, size_t errlen);

/* Is the terminal with device number rdev some session's controlling terminal (a shell's, a
 * login's)? Reading it would take that session's keystrokes. Linux answers only for the caller's
 * own terminal (TIOCGSID), so /proc/<pid>/stat's tty_nr of every process is looked at. Returns 1
 * with who filled in ("bash, session 1234", escaped), 0 when no process has it, or -1 when it
 * cannot be told (no /proc: only this program's own terminal is recognised then). */
int source_tty_owner(dev_t rdev, char *who, size_t wholen);

/* The termios back-end (source_pty.c): returns an fd set to raw 8N1 (non-blocking; opened to
 * write too when write), or -1 with err set. */
int source_pty_open(const char *path, int baud, int write, char *err, size_t errlen);
/* Waits up to timeout_ms (0: not at all) and reads: n > 0, SOURCE_TIMEOUT, SOURCE_GONE or
 * SOURCE_ERROR. */
long source_pty_read(int fd, uint8_t *buf, size_t len, int timeout_ms);
/* Reads what is queued, without a poll before: n > 0, SOURCE_TIMEOUT when nothing is (a raw tty's
 * read answers 0 then, as after a hang-up: the poll that follows a timeout tells them apart),
 * SOURCE_GONE or SOURCE_ERROR. */
long source_pty_read_queued(int fd, uint8_t *buf, size_t len);

#endif
