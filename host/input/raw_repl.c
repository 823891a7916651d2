/* --run: MicroPython's raw REPL, from the host's side (raw_repl.h). The protocol is MicroPython's
 * (shared/runtime/pyexec.c on the board, tools/pyboard.py and mpremote on the host); this is
 * written from its description, as a state machine fed by main's loop. */
#include "raw_repl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RAW_REPL_OUT_MAX 4096u
#define RAW_REPL_MATCH_MAX 48u

static const char banner[] = "raw REPL; CTRL-B to exit\r\n";

/* What a state waits for next. */
enum {
    WAIT_PROMPT,       /* ENTERING: the banner and ">" */
    WAIT_REBOOT,       /* RESETTING: "soft reboot\r\n" */
    WAIT_BANNER,       /* RESETTING: the banner again */
    WAIT_FIRST_PROMPT, /* RESETTING: ">" */
    WAIT_PASTE_ANSWER, /* SENDING: two bytes, "R\x01", "R\x00" or an old board's banner */
    WAIT_OLD_PROMPT,   /* SENDING: an old board took "\x05A\x01" as a line and Ctrl-A: its banner */
    WAIT_WINDOW,       /* SENDING: the window size, two bytes */
    PASTING,           /* SENDING: the program in windows */
    WAIT_PASTE_END,    /* SENDING: the "\x04" that acknowledges the end */
    PACED,             /* SENDING: without raw paste, 256 bytes every 10 ms */
    WAIT_OK,           /* SENDING: "OK" after the "\x04" */
};

struct raw_repl {
    char name[128];
    uint8_t *script;
    size_t len, sent;
    raw_repl_state_t state;
    int wait;                 /* WAIT_* above */
    int in_raw;               /* Ctrl-A went out and no Ctrl-B since: the board may be in the raw REPL */
    int pasted;
    int no_reset;             /* raw_repl_no_reset: no soft reset before the program */
    uint64_t began_us, retry_us, deadline_us, next_chunk_us;
    uint8_t answer[2];        /* the two-byte answers */
    size_t answer_len;
    uint32_t window, room;    /* raw paste: the window, and what may still be sent */
    char match[RAW_REPL_MATCH_MAX]; /* the last bytes received, for the banners */
    size_t match_len;
    /* RUNNING: the current segment (since the last 0x00) as far as the end markers go */
    uint64_t seg_len;
    uint64_t eots;            /* 0x04 in it */
    uint64_t since_eot;       /* bytes since its last 0x04 */
    uint64_t before_last_eot; /* bytes between its last two 0x04 */
    uint8_t last[2];
    int ended_error;
    uint8_t out[RAW_REPL_OUT_MAX];
    size_t out_len;
    char error[400];
};

raw_repl_t *raw_repl_new(const char *name, const uint8_t *script, size_t len, char *err, size_t errlen)
{
    if (len > RAW_REPL_SCRIPT_MAX) {
        snprintf(err, errlen, "%s is %zu bytes; --run sends at most %u.", name, len, RAW_REPL_SCRIPT_MAX);
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        if (script[i] >= 0x01 && script[i] <= 0x05) {
            snprintf(err, errlen, "%s holds the control byte 0x%02X (at byte %zu), which the raw REPL takes as a "
                     "command; remove it.", name, script[i], i);
            return NULL;
        }
    }
    raw_repl_t *r = calloc(1, sizeof *r);
    if (r == NULL || (r->script = malloc(len > 0 ? len : 1)) == NULL) {
        free(r);
        snprintf(err, errlen, "out of memory.");
        return NULL;
    }
    if (len > 0)
        memcpy(r->script, script, len); /* an empty program may come as NULL */
    r->len = len;
    snprintf(r->name, sizeof r->name, "%s", name);
    return r;
}

raw_repl_t *raw_repl_open(const char *path, const char *prologue, char *err, size_t errlen)
{
    size_t pro = prologue != NULL ? strlen(prologue) : 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, errlen, "cannot read the program %s: %s.", path, strerror(errno));
        return NULL;
    }
    /* one byte more than the most it takes, to tell a program that is too large */
    uint8_t *buf = malloc(pro + RAW_REPL_SCRIPT_MAX + 1);
    if (buf == NULL) {
        fclose(f);
        snprintf(err, errlen, "out of memory.");
        return NULL;
    }
    if (pro > 0)
        memcpy(buf, prologue, pro);
    size_t n = fread(buf + pro, 1, RAW_REPL_SCRIPT_MAX + 1, f);
    int failed = ferror(f);
    fclose(f);
    raw_repl_t *r = NULL;
    if (failed) {
        snprintf(err, errlen, "cannot read the program %s (is it a file?).", path);
    } else {
        const char *slash = strrchr(path, '/');
        /* the limit is the program's: the prologue comes on top */
        const char *name = slash != NULL && slash[1] != '\0' ? slash + 1 : path;
        /* the program's own faults first, at its own offsets; then the prologue's bytes count too */
        raw_repl_t *alone = raw_repl_new(name, buf + pro, n, err, errlen);
        if (alone != NULL && pro > 0) {
            raw_repl_free(alone);
            r = raw_repl_new(name, buf, pro + n, err, errlen);
            if (r == NULL && pro + n > RAW_REPL_SCRIPT_MAX)
                snprintf(err, errlen, "%s is %zu bytes; with the prologue that enables aioprof (%zu bytes) --run sends "
                         "at most %u (or --no-enable).", name, n, pro, RAW_REPL_SCRIPT_MAX);
        } else {
            r = alone;
        }
    }
    free(buf);
    return r;
}

void raw_repl_no_reset(raw_repl_t *r)
{
    r->no_reset = 1;
}

void raw_repl_free(raw_repl_t *r)
{
    if (r != NULL) {
        free(r->script);
        free(r);
    }
}

static void repl_queue(raw_repl_t *r, const void *data, size_t len)
{
    if (len > sizeof r->out - r->out_len) {
        len = sizeof r->out - r->out_len; /* never: the control sequences are short, the program is metered */
    }
    memcpy(r->out + r->out_len, data, len);
    r->out_len += len;
}

static void repl_fail(raw_repl_t *r, const char *why)
{
    snprintf(r->error, sizeof r->error, "%s", why);
    r->state = RAW_REPL_FAILED;
}

static void repl_wait(raw_repl_t *r, raw_repl_state_t state, int wait, uint64_t now_us, uint64_t timeout_us)
{
    r->state = state;
    r->wait = wait;
    r->deadline_us = now_us + timeout_us;
    r->answer_len = 0;
}

/* Ctrl-C twice stops a running program (a second one for a program that caught the first), Ctrl-A
 * enters the raw REPL; a CR first ends whatever was typed at a prompt. */
static void repl_knock(raw_repl_t *r, uint64_t now_us)
{
    static const char knock[] = "\r\x03\x03\r\x01";
    repl_queue(r, knock, sizeof knock - 1);
    r->in_raw = 1;
    r->retry_us = now_us + RAW_REPL_RETRY_US;
}

void raw_repl_begin(raw_repl_t *r, uint64_t now_us)
{
    r->out_len = 0;
    r->match_len = 0;
    r->sent = 0;
    r->began_us = now_us;
    repl_wait(r, RAW_REPL_ENTERING, WAIT_PROMPT, now_us, RAW_REPL_ENTER_TIMEOUT_US);
    repl_knock(r, now_us);
}

static int repl_matched(const raw_repl_t *r, const char *what)
{
    size_t n = strlen(what);
    return r->match_len >= n && memcmp(r->match + r->match_len - n, what, n) == 0;
}

static void repl_remember(raw_repl_t *r, uint8_t b)
{
    if (r->match_len == sizeof r->match) {
        memmove(r->match, r->match + 1, sizeof r->match - 1);
        r->match_len--;
    }
    r->match[r->match_len++] = (char)b;
}

/* Sends what the window allows, then the end. */
static void repl_paste_more(raw_repl_t *r, uint64_t now_us)
{
    while (r->sent < r->len && r->room > 0 && r->out_len < sizeof r->out) {
        size_t n = r->len - r->sent;
        if (n > r->room) {
            n = r->room;
        }
        if (n > sizeof r->out - r->out_len) {
            n = sizeof r->out - r->out_len;
        }
        repl_queue(r, r->script + r->sent, n);
        r->sent += n;
        r->room -= (uint32_t)n;
    }
    if (r->sent == r->len && r->wait == PASTING && r->out_len < sizeof r->out) {
        repl_queue(r, "\x04", 1);
        repl_wait(r, RAW_REPL_SENDING, WAIT_PASTE_END, now_us, RAW_REPL_REPLY_TIMEOUT_US);
    }
}

static void repl_start_running(raw_repl_t *r)
{
    r->state = RAW_REPL_RUNNING;
    r->seg_len = r->eots = r->since_eot = r->before_last_eot = 0;
    r->last[0] = r->last[1] = 0;
}

/* One byte of the handshake. */
static void repl_byte(raw_repl_t *r, uint8_t b, uint64_t now_us)
{
    char why[300];
    repl_remember(r, b);
    switch (r->wait) {
    case WAIT_PROMPT:
        if (repl_matched(r, "raw REPL; CTRL-B to exit\r\n>") && r->no_reset) {
            /* --no-reset: the program runs in the VM as it is (what it holds in RAM stays) */
            repl_queue(r, "\x05" "A" "\x01", 3);
            repl_wait(r, RAW_REPL_SENDING, WAIT_PASTE_ANSWER, now_us, RAW_REPL_REPLY_TIMEOUT_US);
        } else if (repl_matched(r, "raw REPL; CTRL-B to exit\r\n>")) {
            /* a fresh VM for the program, as mpremote run gives it */
            repl_queue(r, "\x04", 1);
            repl_wait(r, RAW_REPL_RESETTING, WAIT_REBOOT, now_us, RAW_REPL_ENTER_TIMEOUT_US);
        }
        break;
    case WAIT_REBOOT:
        if (repl_matched(r, "soft reboot\r\n")) {
            r->wait = WAIT_BANNER;
        }
        break;
    case WAIT_BANNER:
        if (repl_matched(r, banner)) {
            r->wait = WAIT_FIRST_PROMPT;
        }
        break;
    case WAIT_FIRST_PROMPT:
        if (b == '>') {
            repl_queue(r, "\x05" "A" "\x01", 3);
            repl_wait(r, RAW_REPL_SENDING, WAIT_PASTE_ANSWER, now_us, RAW_REPL_REPLY_TIMEOUT_US);
        }
        break;
    case WAIT_PASTE_ANSWER:
        r->answer[r->answer_len++] = b;
        if (r->answer_len < 2) {
            break;
        }
        if (r->answer[0] == 'R' && r->answer[1] == 1) {
            r->pasted = 1;
            repl_wait(r, RAW_REPL_SENDING, WAIT_WINDOW, now_us, RAW_REPL_REPLY_TIMEOUT_US);
        } else if (r->answer[0] == 'R' && r->answer[1] == 0) {
            repl_wait(r, RAW_REPL_SENDING, PACED, now_us, RAW_REPL_REPLY_TIMEOUT_US);
            r->next_chunk_us = now_us;
        } else {
            /* a board without raw paste: "\x05A" went into its line, Ctrl-A started it again (the two
             * bytes were the start of its banner, which is matched from them on) */
            repl_wait(r, RAW_REPL_SENDING, WAIT_OLD_PROMPT, now_us, RAW_REPL_REPLY_TIMEOUT_US);
        }
        break;
    case WAIT_OLD_PROMPT:
        if (repl_matched(r, "REPL; CTRL-B to exit\r\n>")) {
            repl_wait(r, RAW_REPL_SENDING, PACED, now_us, RAW_REPL_REPLY_TIMEOUT_US);
            r->next_chunk_us = now_us;
        }
        break;
    case WAIT_WINDOW:
        r->answer[r->answer_len++] = b;
        if (r->answer_len == 2) {
            r->window = (uint32_t)r->answer[0] | (uint32_t)r->answer[1] << 8;
            if (r->window == 0) {
                repl_fail(r, "the board gave a raw paste window of 0 bytes.");
                break;
            }
            r->room = r->window;
            repl_wait(r, RAW_REPL_SENDING, PASTING, now_us, RAW_REPL_REPLY_TIMEOUT_US);
            repl_paste_more(r, now_us);
        }
        break;
    case PASTING:
        r->deadline_us = now_us + RAW_REPL_REPLY_TIMEOUT_US;
        if (b == 0x01) {
            r->room += r->window;
            repl_paste_more(r, now_us);
        } else if (b == 0x04) {
            /* the board stopped reading (a syntax error): acknowledged; its error follows */
            repl_queue(r, "\x04", 1);
            repl_start_running(r);
        } else {
            snprintf(why, sizeof why, "the board sent the byte 0x%02X during the raw paste of %s, which the raw "
                     "REPL does not send there.", b, r->name);
            repl_fail(r, why);
        }
        break;
    case WAIT_PASTE_END:
        if (b == 0x04) {
            repl_start_running(r);
        }
        /* a late 0x01 (a window freed as the end went out) means nothing now */
        break;
    case PACED:
        break; /* nothing is said while the program goes out */
    case WAIT_OK:
        r->answer[r->answer_len++] = b;
        if (r->answer_len == 2) {
            if (r->answer[0] == 'O' && r->answer[1] == 'K') {
                repl_start_running(r);
            } else {
                snprintf(why, sizeof why, "the board did not take %s (it answered 0x%02X 0x%02X, not \"OK\").", r->name,
                         r->answer[0], r->answer[1]);
                repl_fail(r, why);
            }
        }
        break;
    default:
        break;
    }
}

/* The program's bytes: where the current segment stands with the end markers. */
static void repl_watch(raw_repl_t *r, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        uint8_t b = data[i];
        if (b == 0) {
            r->seg_len = r->eots = r->since_eot = r->before_last_eot = 0;
            r->last[0] = r->last[1] = 0;
            continue;
        }
        r->seg_len++;
        if (b == 0x04) {
            r->before_last_eot = r->eots > 0 ? r->since_eot : 0;
            r->eots++;
            r->since_eot = 0;
        } else {
            r->since_eot++;
        }
        r->last[0] = r->last[1];
        r->last[1] = b;
    }
}

size_t raw_repl_take(raw_repl_t *r, const uint8_t *data, size_t len, uint64_t now_us)
{
    size_t i = 0;
    while (i < len && (r->state == RAW_REPL_ENTERING || r->state == RAW_REPL_RESETTING ||
                       r->state == RAW_REPL_SENDING)) {
        repl_byte(r, data[i++], now_us);
    }
    if (r->state == RAW_REPL_RUNNING) {
        repl_watch(r, data + i, len - i);
    }
    return i;
}

size_t raw_repl_outgoing(const raw_repl_t *r, const uint8_t **data)
{
    *data = r->out;
    return r->out_len;
}

void raw_repl_wrote(raw_repl_t *r, size_t n)
{
    if (n > r->out_len) {
        n = r->out_len;
    }
    memmove(r->out, r->out + n, r->out_len - n);
    r->out_len -= n;
}

/* Without raw paste: the program in 256-byte pieces, 10 ms apart, then Ctrl-D. */
static void repl_paced(raw_repl_t *r, uint64_t now_us)
{
    if (now_us < r->next_chunk_us || r->out_len > 0) {
        return;
    }
    size_t n = r->len - r->sent < RAW_REPL_CHUNK ? r->len - r->sent : RAW_REPL_CHUNK;
    repl_queue(r, r->script + r->sent, n);
    r->sent += n;
    r->next_chunk_us = now_us + RAW_REPL_CHUNK_GAP_US;
    r->deadline_us = now_us + RAW_REPL_REPLY_TIMEOUT_US;
    if (r->sent == r->len) {
        repl_queue(r, "\x04", 1);
        repl_wait(r, RAW_REPL_SENDING, WAIT_OK, now_us, RAW_REPL_REPLY_TIMEOUT_US);
    }
}

raw_repl_state_t raw_repl_poll(raw_repl_t *r, uint64_t now_us, int pending_is_text)
{
    char why[400];
    switch (r->state) {
    case RAW_REPL_ENTERING:
        if (now_us >= r->deadline_us) {
            snprintf(why, sizeof why, "no answer from MicroPython's raw REPL (\"%.24s\") within %u s of Ctrl-C and "
                     "Ctrl-A: is it a MicroPython board, and does a program on it ignore Ctrl-C (it catches "
                     "KeyboardInterrupt, or the port cannot interrupt it, as the qemu port)?", banner,
                     RAW_REPL_ENTER_TIMEOUT_US / 1000000u);
            repl_fail(r, why);
        } else if (now_us >= r->retry_us && r->out_len == 0) {
            repl_knock(r, now_us); /* a board that was still starting */
        }
        break;
    case RAW_REPL_RESETTING:
        if (now_us >= r->deadline_us) {
            repl_fail(r, "the board entered the raw REPL but did not come back from a soft reset (Ctrl-D) within "
                      "10 s.");
        }
        break;
    case RAW_REPL_SENDING:
        if (r->wait == PACED) {
            repl_paced(r, now_us);
        } else if (r->wait == PASTING) {
            repl_paste_more(r, now_us);
        }
        if (r->state == RAW_REPL_SENDING && now_us >= r->deadline_us) {
            snprintf(why, sizeof why, "the board stopped answering while %s was sent (%zu of %zu bytes, %s).", r->name,
                     r->sent, r->len, r->pasted ? "raw paste" : "raw REPL");
            repl_fail(r, why);
        }
        break;
    case RAW_REPL_RUNNING:
        /* "\x04" <error> "\x04>": the program ended and the board waits at the raw REPL's prompt */
        if (r->last[0] == 0x04 && r->last[1] == '>' && pending_is_text) {
            r->ended_error = r->eots >= 2 && r->before_last_eot > 0;
            r->state = RAW_REPL_ENDED;
        }
        break;
    default:
        break;
    }
    return r->state;
}

raw_repl_state_t raw_repl_state(const raw_repl_t *r)
{
    return r->state;
}

const char *raw_repl_error(const raw_repl_t *r)
{
    return r->error;
}

const char *raw_repl_name(const raw_repl_t *r)
{
    return r->name;
}

int raw_repl_pasted(const raw_repl_t *r)
{
    return r->pasted;
}

int raw_repl_ended_with_error(const raw_repl_t *r)
{
    return r->ended_error;
}

static int repl_sent_already(const raw_repl_t *r)
{
    return r->state == RAW_REPL_RUNNING || r->state == RAW_REPL_ENDED || r->state == RAW_REPL_BOARD;
}

int raw_repl_interrupt(raw_repl_t *r)
{
    if (!repl_sent_already(r)) {
        return -1;
    }
    repl_queue(r, "\x03", 1);
    return 0;
}

int raw_repl_soft_reset(raw_repl_t *r)
{
    if (!repl_sent_already(r)) {
        return -1;
    }
    /* stop what runs (twice, as at the start), leave the raw REPL, and Ctrl-D at the friendly
     * prompt: the soft reset that runs boot.py and main.py */
    repl_queue(r, "\x03\x03\x02\x04", 4);
    r->in_raw = 0;
    r->state = RAW_REPL_BOARD;
    return 0;
}

void raw_repl_link_lost(raw_repl_t *r)
{
    r->out_len = 0;
    if (r->state == RAW_REPL_ENTERING || r->state == RAW_REPL_RESETTING || r->state == RAW_REPL_SENDING) {
        r->state = RAW_REPL_IDLE; /* the board restarted before it had the program: again when it is back */
    } else if (r->state == RAW_REPL_RUNNING || r->state == RAW_REPL_ENDED) {
        r->state = RAW_REPL_BOARD;
        r->in_raw = 0; /* a board that went away started again in its friendly REPL */
    }
}

void raw_repl_leave(raw_repl_t *r)
{
    if (r->in_raw) {
        r->out_len = 0;
        repl_queue(r, "\r\x02", 2);
        r->in_raw = 0;
    }
}

int raw_repl_clean_line(const raw_repl_t *r, char *line)
{
    /* the escaped form of the byte 0x04 is "\x04"; an escaped backslash "\\" is skipped whole, so a
     * device's literal "\x04" text (escaped "\\x04") stays */
    char *w = line;
    for (const char *p = line; *p != '\0';) {
        if (p[0] == '\\' && p[1] == '\\') {
            *w++ = *p++;
            *w++ = *p++;
        } else if (strncmp(p, "\\x04", 4) == 0) {
            p += 4;
        } else {
            *w++ = *p++;
        }
    }
    *w = '\0';
    return !(r->state == RAW_REPL_ENDED && strcmp(line, ">") == 0);
}
