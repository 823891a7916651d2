/* The blocking raw REPL client (board_repl.h). The protocol is MicroPython's (shared/runtime/
 * pyexec.c on the board); this is written from its description, as raw_repl.c is. */
#include "board_repl.h"
#include "monotonic.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define BOARD_REPL_CHUNK 256u
#define BOARD_REPL_CHUNK_GAP_MS 10

static const char board_banner[] = "raw REPL; CTRL-B to exit\r\n>";

void board_repl_init(board_repl_t *b, source_t *src)
{
    memset(b, 0, sizeof *b);
    b->src = src;
}

static void board_sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int board_link_failed(board_repl_t *b, long status)
{
    if (status == SOURCE_ERROR)
        snprintf(b->error, sizeof b->error, "%s", source_error(b->src));
    else
        snprintf(b->error, sizeof b->error, "%s went away.", b->src->name);
    return -1;
}

/* Writes all of data (the port's buffer may take it in pieces). */
static int board_write(board_repl_t *b, const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t deadline = monotonic_us() + 10000000u;
    while (len > 0) {
        long n = source_write(b->src, p, len);
        if (n < 0)
            return board_link_failed(b, n);
        if (n == 0) {
            if (monotonic_us() > deadline) {
                snprintf(b->error, sizeof b->error, "%s takes no more bytes (10 s): is the board stuck?", b->src->name);
                return -1;
            }
            board_sleep_ms(1);
            continue;
        }
        p += n;
        len -= (size_t)n;
        b->bytes_out += (uint64_t)n;
    }
    return 0;
}

/* One byte, waiting up to timeout_ms. Returns the byte, -2 on a timeout, -1 with b->error set. */
static int board_read_byte(board_repl_t *b, int timeout_ms)
{
    uint8_t c;
    uint64_t host_us, deadline = monotonic_us() + (uint64_t)timeout_ms * 1000u;
    for (;;) {
        uint64_t now = monotonic_us();
        if (now >= deadline)
            return -2;
        long n = source_read(b->src, &c, 1, (int)((deadline - now) / 1000u) + 1, &host_us);
        if (n == 1) {
            b->bytes_in++;
            return c;
        }
        if (n < 0)
            return board_link_failed(b, n);
    }
}

/* Reads until the bytes end with what; -2 on a timeout (after timeout_ms of silence), -1 failed. */
static int board_read_until(board_repl_t *b, const char *what, int timeout_ms)
{
    size_t n = strlen(what), matched = 0;
    char tail[64] = {0};
    size_t tail_len = 0;
    for (;;) {
        int c = board_read_byte(b, timeout_ms);
        if (c < 0)
            return c;
        if (tail_len == n) {
            memmove(tail, tail + 1, n - 1);
            tail_len--;
        }
        tail[tail_len++] = (char)c;
        matched = tail_len == n && memcmp(tail, what, n) == 0;
        if (matched)
            return 0;
    }
}

int board_repl_enter(board_repl_t *b, int timeout_ms)
{
    static const char knock[] = "\r\x03\x03\r\x01";
    uint64_t deadline = monotonic_us() + (uint64_t)timeout_ms * 1000u;
    /* a board still starting misses the first knock: again every second */
    while (monotonic_us() < deadline) {
        if (board_write(b, knock, sizeof knock - 1) < 0)
            return -1;
        b->in_raw = 1;
        int r = board_read_until(b, board_banner, 1000);
        if (r == 0) {
            /* a board that was slow to answer hears a second knock and says its banner again: what
             * follows the first banner is read away until the line is quiet for 200 ms */
            int c, n = 0;
            while (n++ < 4096 && (c = board_read_byte(b, 200)) >= 0)
                ;
            return c == -1 ? -1 : 0;
        }
        if (r == -1)
            return -1;
    }
    snprintf(b->error, sizeof b->error, "not a MicroPython REPL: no answer to Ctrl-C and Ctrl-A (\"raw REPL; CTRL-B "
             "to exit\") within %d s; is it the board's port, and does a program on it ignore Ctrl-C?",
             timeout_ms / 1000);
    return -1;
}

/* Raw paste: the code in windows the board frees with 0x01; 0x04 from it means it stopped
 * reading (a syntax error: its message follows as the output). Returns 0, -1 failed. */
static int board_paste(board_repl_t *b, const char *code, size_t len, int timeout_ms)
{
    int lo = board_read_byte(b, timeout_ms), hi = lo < 0 ? lo : board_read_byte(b, timeout_ms);
    if (lo < 0 || hi < 0)
        goto silent;
    size_t window = (size_t)lo | (size_t)hi << 8, room = window, sent = 0;
    if (window == 0) {
        snprintf(b->error, sizeof b->error, "the board gave a raw paste window of 0 bytes.");
        return -1;
    }
    while (sent < len) {
        while (room == 0) {
            int c = board_read_byte(b, timeout_ms);
            if (c < 0)
                goto silent;
            if (c == 0x01)
                room += window;
            else if (c == 0x04)
                return board_write(b, "\x04", 1);
        }
        size_t n = len - sent < room ? len - sent : room;
        if (board_write(b, code + sent, n) < 0)
            return -1;
        sent += n;
        room -= n;
    }
    if (board_write(b, "\x04", 1) < 0)
        return -1;
    for (;;) {
        int c = board_read_byte(b, timeout_ms);
        if (c < 0)
            goto silent;
        if (c == 0x04)
            return 0; /* a late 0x01 (a window freed as the end went out) means nothing */
    }
silent:
    if (b->error[0] == '\0')
        snprintf(b->error, sizeof b->error, "the board stopped answering during a raw paste.");
    return -1;
}

/* Without raw paste: paced pieces, "\x04", "OK". */
static int board_paced(board_repl_t *b, const char *code, size_t len, int timeout_ms)
{
    for (size_t sent = 0; sent < len; sent += BOARD_REPL_CHUNK) {
        size_t n = len - sent < BOARD_REPL_CHUNK ? len - sent : BOARD_REPL_CHUNK;
        if (board_write(b, code + sent, n) < 0)
            return -1;
        board_sleep_ms(BOARD_REPL_CHUNK_GAP_MS);
    }
    if (board_write(b, "\x04", 1) < 0)
        return -1;
    int o = board_read_byte(b, timeout_ms), k = o < 0 ? o : board_read_byte(b, timeout_ms);
    if (o == 'O' && k == 'K')
        return 0;
    if (o != -1)
        snprintf(b->error, sizeof b->error, "the board did not take the command (no \"OK\" from its raw REPL).");
    return -1;
}

/* Output up to 0x04 into buf (bounded: the rest is dropped). Returns 0, -1 failed. */
static int board_collect(board_repl_t *b, char *buf, size_t max, size_t *len, int timeout_ms)
{
    *len = 0;
    for (;;) {
        int c = board_read_byte(b, timeout_ms);
        if (c < 0) {
            if (c == -2)
                snprintf(b->error, sizeof b->error, "the board stopped answering while a command ran (%d s).",
                         timeout_ms / 1000);
            return -1;
        }
        if (c == 0x04)
            break;
        if (*len < max)
            buf[(*len)++] = (char)c;
    }
    buf[*len] = '\0';
    return 0;
}

int board_repl_exec(board_repl_t *b, const char *code, size_t len, int timeout_ms)
{
    b->error[0] = '\0';
    b->exc[0] = '\0';
    b->out_len = 0;
    b->out[0] = '\0';
    if (board_write(b, "\x05" "A" "\x01", 3) < 0)
        return -1;
    int r = board_read_byte(b, timeout_ms), a = r < 0 ? r : board_read_byte(b, timeout_ms);
    int rc;
    if (r == 'R' && a == 1) {
        rc = board_paste(b, code, len, timeout_ms);
    } else if (r == 'R' && a == 0) {
        rc = board_paced(b, code, len, timeout_ms);
    } else {
        if (r != -1)
            snprintf(b->error, sizeof b->error, "the board does not know raw paste (a MicroPython older than 1.14): "
                     "--install needs 1.21 or later.");
        return -1;
    }
    if (rc < 0)
        return -1;
    size_t exc_len;
    if (board_collect(b, b->out, BOARD_REPL_OUT_MAX, &b->out_len, timeout_ms) < 0 ||
        board_collect(b, b->exc, sizeof b->exc - 1, &exc_len, timeout_ms) < 0)
        return -1;
    if (board_read_byte(b, timeout_ms) != '>') {
        if (b->error[0] == '\0')
            snprintf(b->error, sizeof b->error, "the board's raw REPL did not come back to its prompt.");
        return -1;
    }
    return exc_len > 0 ? 1 : 0;
}

int board_repl_soft_reset(board_repl_t *b, int timeout_ms)
{
    if (board_write(b, "\x04", 1) < 0)
        return -1;
    int r = board_read_until(b, "soft reboot\r\n", timeout_ms);
    if (r == 0)
        r = board_read_until(b, board_banner, timeout_ms);
    if (r == -2)
        snprintf(b->error, sizeof b->error, "the board did not come back from a soft reset (Ctrl-D) within %d s.",
                 timeout_ms / 1000);
    return r == 0 ? 0 : -1;
}

void board_repl_leave(board_repl_t *b)
{
    if (b->in_raw && !b->src->down) {
        (void)board_write(b, "\r\x02", 2);
        b->in_raw = 0;
    }
}
