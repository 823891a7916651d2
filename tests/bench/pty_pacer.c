/* Plays a capture into a new pty at a fixed byte rate, in writes of a fixed size, the way a
 * device's link delivers it: a 115200-baud UART hands the reader about 11.5 kB/s in a few bytes
 * at a time (a 16550's receive FIFO interrupts every 8 bytes), a USB full-speed CDC device at
 * 1 MB/s about 1000 bytes per 1 ms frame. tests/bench/run.sh measures aioprof-top's CPU while it
 * reads the pty, and that of `cat` on the same pace as the baseline.
 *
 * The bytes are real frames (a simulator capture); only the pace is the pacer's. The pace starts
 * when a reader opens the pty, so that nothing piles up before it; chunk k is due k * CHUNK /
 * RATE seconds after that (absolute deadlines: sleeping late does not lower the rate). A reader
 * that falls behind fills the pty's buffer: the pacer then waits (the bytes stay in order) and
 * counts the writes that found the buffer full.
 *
 * Usage: pty_pacer CAPTURE BYTES_PER_SECOND CHUNK SECONDS LINK_FILE
 * The pty's path goes to LINK_FILE (written whole, by rename) once the pty is ready. Ends after
 * SECONDS of pacing, at the end of the capture, or on SIGTERM/SIGINT, and prints on stderr one
 * line: "pty_pacer: BYTES bytes in SECONDS s: RATE B/s, WRITES writes, FULL full, END". On SIGUSR1
 * it prints "pty_pacer: FULL full so far" at its next chunk, so that a measurement can count the
 * writes that found the pty full within its window: a reader that lets the bytes pile up until the
 * pty is full would have made a board's ring overflow. Exit 0, 1 on a failure (one sentence on
 * stderr), 2 on bad arguments. */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE /* cfmakeraw */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define CHUNK_MAX 65536u
/* How long to wait for a reader before giving up. */
#define READER_PATIENCE_NS (60ll * 1000000000ll)

static volatile sig_atomic_t stop, asked;

static void on_stop(int sig)
{
    (void)sig;
    stop = 1;
}

static void on_ask(int sig)
{
    (void)sig;
    asked = 1;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000ll), (long)(t % 1000000000ll)};
    while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

static double positive(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return (*s != '\0' && *end == '\0' && v > 0) ? v : -1.0;
}

/* A new pty, raw, its path in link; the slave is closed again so that poll on the master says
 * when a reader opens it (POLLHUP until then). Returns the master, or -1 after a sentence. */
static int pty_open(const char *link)
{
    char tmp[4096];
    struct termios tio;
    const char *name;
    FILE *f;
    int slave;
    int master = posix_openpt(O_RDWR | O_NOCTTY);

    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 || (name = ptsname(master)) == NULL) {
        fprintf(stderr, "pty_pacer: cannot make a pty: %s.\n", strerror(errno));
        return -1;
    }
    /* raw, so the line discipline neither echoes nor rewrites bytes whatever the reader does */
    slave = open(name, O_RDWR | O_NOCTTY);
    if (slave < 0 || tcgetattr(slave, &tio) != 0) {
        fprintf(stderr, "pty_pacer: cannot open %s: %s.\n", name, strerror(errno));
        return -1;
    }
    cfmakeraw(&tio);
    tcsetattr(slave, TCSANOW, &tio);
    close(slave);
    snprintf(tmp, sizeof tmp, "%s.tmp", link);
    f = fopen(tmp, "w");
    if (f == NULL || fprintf(f, "%s\n", name) < 0 || fclose(f) != 0 || rename(tmp, link) != 0) {
        fprintf(stderr, "pty_pacer: cannot write the pty's name to %s: %s.\n", link, strerror(errno));
        return -1;
    }
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    return master;
}

/* Until a reader has the slave open; 0, or -1 when none came or a signal stopped the wait. */
static int wait_reader(int master)
{
    int64_t give_up = now_ns() + READER_PATIENCE_NS;
    while (!stop && now_ns() < give_up) {
        struct pollfd p = {master, POLLOUT, 0};
        if (poll(&p, 1, 5) > 0 && !(p.revents & POLLHUP))
            return 0;
        if (p.revents & POLLHUP) {
            /* poll returns at once while nobody has the slave open */
            struct timespec ms = {0, 2000000};
            nanosleep(&ms, NULL);
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    static uint8_t chunk_buf[CHUNK_MAX];
    struct sigaction sa;
    FILE *src;
    double rate, chunk_d, seconds;
    size_t chunk, have = 0, off = 0;
    uint64_t sent = 0, writes = 0, full = 0, k = 0;
    int64_t start, end, period_ns;
    const char *why = "time";
    int master;

    if (argc != 6 || (rate = positive(argv[2])) < 0 || (chunk_d = positive(argv[3])) < 0 ||
        chunk_d > CHUNK_MAX || (seconds = positive(argv[4])) < 0) {
        fprintf(stderr, "usage: pty_pacer CAPTURE BYTES_PER_SECOND CHUNK(1-%u) SECONDS LINK_FILE\n", CHUNK_MAX);
        return 2;
    }
    chunk = (size_t)chunk_d;
    src = fopen(argv[1], "rb");
    if (src == NULL) {
        fprintf(stderr, "pty_pacer: cannot read %s: %s.\n", argv[1], strerror(errno));
        return 1;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_ask;
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    master = pty_open(argv[5]);
    if (master < 0)
        return 1;
    if (wait_reader(master) != 0) {
        fprintf(stderr, "pty_pacer: nobody opened the pty.\n");
        return 1;
    }

    period_ns = (int64_t)((double)chunk / rate * 1e9);
    start = now_ns();
    end = start + (int64_t)(seconds * 1e9);
    while (!stop) {
        int64_t due = start + (int64_t)k * period_ns;
        if (due >= end)
            break;
        sleep_until(due);
        if (asked) {
            asked = 0;
            fprintf(stderr, "pty_pacer: %llu full so far\n", (unsigned long long)full);
        }
        if (have == off) {
            have = fread(chunk_buf, 1, chunk, src);
            off = 0;
            if (have == 0) {
                why = "end of the capture";
                break;
            }
        }
        /* this chunk's bytes, all of them before the next is due; a full buffer waits */
        while (off < have && !stop) {
            ssize_t n = write(master, chunk_buf + off, have - off);
            if (n > 0) {
                off += (size_t)n;
                sent += (uint64_t)n;
                writes++;
            } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
                struct pollfd p = {master, POLLOUT, 0};
                full += errno == EAGAIN;
                poll(&p, 1, 10);
                if (now_ns() >= end)
                    break;
            } else {
                why = "the reader closed the pty";
                stop = 1;
            }
        }
        k++;
    }
    if (stop && strcmp(why, "time") == 0)
        why = "stopped";
    {
        double took = (double)(now_ns() - start) / 1e9;
        fprintf(stderr, "pty_pacer: %llu bytes in %.3f s: %.0f B/s, %llu writes, %llu full, %s\n",
                (unsigned long long)sent, took, took > 0 ? (double)sent / took : 0.0,
                (unsigned long long)writes, (unsigned long long)full, why);
    }
    fclose(src);
    close(master);
    return 0;
}
