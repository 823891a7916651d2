#define _XOPEN_SOURCE 700

#include "sim_output.h"

#include "sim_file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* How much a UART's transmit FIFO and driver buffer absorb at once, in bytes: the burst a slow
 * port takes before its baud rate limits it. */
#define BAUD_BURST_BYTES 256u
#define BIT_US_PER_BYTE (10u * 1000000u)
/* The end of a pty run waits for the reader to take what is queued, and gives up once the queue
 * has not moved for LINGER_US (nobody reads any more), or for LINGER_FIRST_US while it has not
 * moved at all (a reader that is still starting: a loaded machine, a person typing its command). */
#define LINGER_US 2000000u
#define LINGER_FIRST_US 10000000u
#define LINGER_EMPTY_CHECKS 5

/* Raw mode by hand (cfmakeraw is not POSIX): no echo, no line editing, no CR/LF mapping, 8 bits.
 * On Linux the master's termios calls reach the slave side, which is the one that matters. */
static int pty_make_raw(int fd)
{
    struct termios t;
    if (tcgetattr(fd, &t) != 0)
        return -1;
    t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON | IXOFF);
    t.c_oflag &= ~(tcflag_t)OPOST;
    t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
    t.c_cflag |= CS8;
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    return tcsetattr(fd, TCSANOW, &t);
}

/* Writes the path where scripts wait for it, in one step, so a reader never sees half a path. */
static int write_link(const char *link, const char *path)
{
    char line[sizeof ((sim_output_t *)0)->pty_path + 1];
    int n = snprintf(line, sizeof line, "%s\n", path);
    return sim_file_replace(link, "the pty's path", line, (size_t)n);
}

static int open_pty(sim_output_t *o, const sim_options_t *opt)
{
    const char *name;
    int fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (fd < 0) {
        fprintf(stderr, "aioprof-sim: cannot create a pty: %s.\n", strerror(errno));
        return -1;
    }
    if (grantpt(fd) != 0 || unlockpt(fd) != 0 || (name = ptsname(fd)) == NULL) {
        fprintf(stderr, "aioprof-sim: cannot unlock the new pty: %s.\n", strerror(errno));
        goto error_close;
    }
    if (strlen(name) >= sizeof o->pty_path) {
        fprintf(stderr, "aioprof-sim: the pty's path is too long.\n");
        goto error_close;
    }
    strcpy(o->pty_path, name);
    /* opened now, before a reader can lock the slave against later opens (TIOCEXCL) */
    o->pty_slave = open(name, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (o->pty_slave < 0) {
        fprintf(stderr, "aioprof-sim: cannot open %s: %s.\n", o->pty_path, strerror(errno));
        goto error_close;
    }
    if (pty_make_raw(fd) != 0) {
        fprintf(stderr, "aioprof-sim: cannot put %s in raw mode: %s.\n", o->pty_path, strerror(errno));
        goto error_close;
    }
    /* a port never blocks the device: a full pty means "busy", like a UART nobody drains */
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
        fprintf(stderr, "aioprof-sim: cannot make the pty non-blocking: %s.\n", strerror(errno));
        goto error_close;
    }
    if (opt->pty_link != NULL && write_link(opt->pty_link, o->pty_path) != 0)
        goto error_close;
    fprintf(stderr, "aioprof-sim: pty %s\n", o->pty_path);
    o->fd = fd;
    return 0;

error_close:
    if (o->pty_slave >= 0)
        close(o->pty_slave);
    o->pty_slave = -1;
    close(fd);
    return -1;
}

int sim_output_open(sim_output_t *o, const sim_options_t *opt, const sim_clock_t *clock)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->pty_slave = -1;
    o->chunk = opt->write_chunk;
    o->baud = opt->baud;
    o->credit = (uint64_t)BAUD_BURST_BYTES * BIT_US_PER_BYTE;
    o->clock = clock;
    o->last_progress_wall = sim_wall_us();

    if (opt->pty) {
        o->kind = SIM_OUT_PTY;
        return open_pty(o, opt);
    }
    if (opt->out_path != NULL) {
        o->kind = SIM_OUT_FILE;
        o->fd = sim_file_create(opt->out_path, "the stream");
        return o->fd < 0 ? -1 : 0;
    }
    o->kind = SIM_OUT_STDOUT;
    if (isatty(STDOUT_FILENO)) {
        fprintf(stderr, "aioprof-sim: stdout is a terminal and the stream is binary; redirect it, "
                        "or use -o FILE or --pty (see aioprof-sim --help).\n");
        return -1;
    }
    o->fd = STDOUT_FILENO;
    return 0;
}

/* Closing the master hangs the slave up, and the hangup throws away what its reader has not read
 * yet: the last frames. So wait until the slave's input queue is empty, for as long as the reader
 * keeps taking from it (a loaded machine may give it the processor late). poll() goes first: when
 * the line discipline's buffer looks empty it pushes the kernel's flip buffer into it, so bytes
 * still on their way count too; the queue must then stay empty for a few checks. */
static void pty_linger(const sim_output_t *o)
{
    uint64_t moved = sim_wall_us();
    int empty_checks = 0;
    int last = -1, changes = 0;
    while (empty_checks < LINGER_EMPTY_CHECKS && sim_wall_us() - moved < (changes > 1 ? LINGER_US : LINGER_FIRST_US)) {
        struct timespec step = {0, 20000000};
        struct pollfd pfd = {.fd = o->pty_slave, .events = POLLIN};
        int queued = 0;
        if (poll(&pfd, 1, 0) < 0 || ioctl(o->pty_slave, FIONREAD, &queued) != 0)
            break;
        if (queued != last) {
            last = queued;
            moved = sim_wall_us();
            changes++; /* the first is the queue as the run left it */
        }
        empty_checks = queued == 0 && !(pfd.revents & POLLIN) ? empty_checks + 1 : 0;
        nanosleep(&step, NULL);
    }
}

void sim_output_close(sim_output_t *o)
{
    if (o->kind == SIM_OUT_PTY && o->fd >= 0 && o->pty_slave >= 0 && !o->gave_up)
        pty_linger(o);
    if (o->pty_slave >= 0)
        close(o->pty_slave);
    o->pty_slave = -1;
    if (o->fd >= 0 && o->kind != SIM_OUT_STDOUT)
        close(o->fd);
    o->fd = -1;
}

/* Bytes the port takes now: the per-call chunk and, in baud mode, what the line had time for. */
static size_t port_allowance(sim_output_t *o, size_t len)
{
    if (o->chunk != 0 && len > o->chunk)
        len = o->chunk;
    if (o->baud != 0) {
        uint64_t now = o->clock->now;
        uint64_t cap = (uint64_t)BAUD_BURST_BYTES * BIT_US_PER_BYTE;
        uint64_t elapsed = now - o->credit_at;
        if (elapsed > 1000000000u)
            elapsed = 1000000000u;
        o->credit += elapsed * o->baud;
        if (o->credit > cap)
            o->credit = cap;
        o->credit_at = now;
        if (len > o->credit / BIT_US_PER_BYTE)
            len = (size_t)(o->credit / BIT_US_PER_BYTE);
    }
    return len;
}

/* A character device: a terminal whose other side hung up answers EIO (and no longer says it is a
 * terminal to isatty), which is its reader leaving, not a failure of the output. */
static int port_is_terminal(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode);
}

/* One write to the consumer. stdout and files block until all is written (the stream must not
 * depend on how fast the consumer reads); a pty takes what fits. Returns the bytes taken. */
static size_t port_write(sim_output_t *o, const uint8_t *data, size_t len)
{
    size_t done = 0;
    if (o->closed || o->failed)
        return 0;
    len = port_allowance(o, len);
    o->write_calls++;
    while (done < len) {
        ssize_t n = write(o->fd, data + done, len - done);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (o->kind == SIM_OUT_PTY) {
            /* EAGAIN: the pty buffer is full; EIO: no reader. Either way the port is busy. */
            break;
        }
        /* the consumer left: a pipe's reader (EPIPE), or the other side of a terminal (EIO) */
        if (n < 0 && (errno == EPIPE || (errno == EIO && port_is_terminal(o->fd))))
            o->closed = 1;
        else
            o->failed = errno != 0 ? errno : EIO;
        break;
    }
    if (o->baud != 0)
        o->credit -= (uint64_t)done * BIT_US_PER_BYTE;
    if (done > 0)
        o->last_progress_wall = sim_wall_us();
    return done;
}

/* Sends queued text; returns 1 when the queue is empty afterwards. */
static int flush_text(sim_output_t *o)
{
    while (o->text_len > 0) {
        size_t n = port_write(o, o->text, o->text_len);
        if (n == 0)
            return 0;
        o->text_bytes += n;
        for (size_t i = 0; i < n; i++)
            o->text_lines += o->text[i] == '\n';
        memmove(o->text, o->text + n, o->text_len - n);
        o->text_len -= n;
    }
    return 1;
}

size_t sim_output_frames(sim_output_t *o, const uint8_t *data, size_t len)
{
    size_t n;
    if (!flush_text(o))
        return 0;
    n = port_write(o, data, len);
    o->frame_bytes += n;
    /* a frame is a non-empty run of bytes ended by 0x00; runs of 0x00 (skipped ring bytes) are not */
    for (size_t i = 0; i < n; i++) {
        if (data[i] == 0) {
            o->frames += o->in_frame;
            o->in_frame = 0;
        } else {
            o->in_frame = 1;
        }
    }
    return n;
}

size_t sim_output_text_room(const sim_output_t *o)
{
    return sizeof o->text - o->text_len;
}

void sim_output_text(sim_output_t *o, const char *text, size_t len)
{
    if (len > sim_output_text_room(o))
        len = sim_output_text_room(o);
    memcpy(o->text + o->text_len, text, len);
    o->text_len += len;
}

int sim_output_poll(sim_output_t *o)
{
    uint64_t before = o->text_bytes;
    if (o->kind == SIM_OUT_PTY) {
        /* a reader may send us bytes (a REPL interrupt, a probe): read them so its writes never
         * block; they go to the emulated REPL when there is one */
        uint8_t in[4096];
        ssize_t n;
        while ((n = read(o->fd, in, sizeof in)) > 0) {
            if (o->on_input != NULL)
                o->on_input(o->input_user, in, (size_t)n);
        }
    }
    flush_text(o);
    return o->text_bytes != before;
}
