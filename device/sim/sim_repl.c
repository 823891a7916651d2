/* aioprof-sim --repl: a MicroPython board's REPL on the pty (sim_repl.h). */
#define _POSIX_C_SOURCE 200809L

#include "sim_repl.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_sched.h"
#include "sim_truth.h"
#include "sim_workloads.h"

#define REPL_INPUT_MAX 65536u /* bytes waiting for the REPL: the raw paste overflow is counted, not made */
#define REPL_SAY_PATIENCE_US 2000000u
#define REPL_IDLE_MS 20

static const char raw_banner[] = "raw REPL; CTRL-B to exit\r\n";

typedef enum repl_mode { MODE_FRIENDLY, MODE_RAW, MODE_PASTE } repl_mode_t;

typedef struct repl {
    const sim_options_t *base;
    sim_output_t *out;
    volatile sig_atomic_t *signal;
    volatile sig_atomic_t stop_program; /* Ctrl-C (or a signal) while a program runs */
    int running;
    repl_mode_t mode;
    uint8_t *line;          /* the raw REPL's line: the program being received */
    size_t line_len, line_cap;
    int line_full;          /* more than SIM_REPL_LINE_MAX came: a MemoryError on a board */
    size_t friendly_len;    /* characters typed at ">>> " */
    /* raw paste */
    uint64_t granted;       /* bytes the host may have sent: two windows, and one per 0x01 sent */
    uint64_t received;      /* bytes that came since it started */
    uint32_t window_left;   /* bytes until the next 0x01 */
    uint64_t overflow;      /* bytes beyond what was granted */
    /* what came and waits for the REPL (a ring) */
    uint8_t in[REPL_INPUT_MAX];
    size_t in_head, in_len;
    uint64_t wall_on;       /* when the board was powered on */
    uint32_t ticks_on;
    int rc;
} repl_t;

/* Text the board prints, queued between frames (no frame is half sent outside a program); a
 * port nobody reads takes what fits in REPL_SAY_PATIENCE_US. */
static void repl_say(repl_t *r, const void *text, size_t len)
{
    const char *p = text;
    uint64_t start = sim_wall_us();
    while (len > 0) {
        size_t room = sim_output_text_room(r->out);
        if (room == 0) {
            if (sim_wall_us() - start > REPL_SAY_PATIENCE_US)
                return;
            struct timespec ms = {0, 1000000};
            sim_output_poll(r->out);
            nanosleep(&ms, NULL);
            continue;
        }
        size_t n = len < room ? len : room;
        sim_output_text(r->out, p, n);
        p += n;
        len -= n;
    }
    sim_output_poll(r->out);
}

static void repl_says(repl_t *r, const char *text)
{
    repl_say(r, text, strlen(text));
}

static void repl_friendly_banner(repl_t *r)
{
    char banner[256];
    snprintf(banner, sizeof banner, "MicroPython v1.24.0 on 2026-12-01; aioprof-sim with the %s workload\r\n"
             "Type \"help()\" for more information.\r\n>>> ", r->base->workload);
    repl_says(r, banner);
    r->friendly_len = 0;
}

/* The port's bytes, as they come (from the output's poll, also while a program runs). */
static void repl_input(void *user, const uint8_t *data, size_t len)
{
    repl_t *r = user;
    if (*r->signal)
        r->stop_program = 1;
    if (r->mode == MODE_PASTE && !r->running) {
        /* all of these were sent before the host could see a 0x01 not sent yet: at most what was
         * granted (and the 0x04 that ends the paste) */
        r->received += len;
        if (r->received > r->granted + 1 && r->received - r->granted - 1 > r->overflow)
            r->overflow = r->received - r->granted - 1;
    }
    for (size_t i = 0; i < len; i++) {
        if (r->running && data[i] == 0x03) {
            r->stop_program = 1; /* the interrupt character: a KeyboardInterrupt, not input */
            continue;
        }
        if (r->in_len == sizeof r->in)
            continue; /* a full stdin buffer loses bytes, as a board's does */
        r->in[(r->in_head + r->in_len) % sizeof r->in] = data[i];
        r->in_len++;
    }
}

/* The device's tick counter now: it runs on from power-on across programs. */
static uint32_t repl_ticks(const repl_t *r)
{
    uint32_t t = r->ticks_on + (uint32_t)(sim_wall_us() - r->wall_on);
    return r->base->tick_bits == 30 ? t & ((1u << 30) - 1u) : t;
}

/* Runs the workload opt names: the hook starts afresh (a new boot), the clock goes on. Returns 1
 * when Ctrl-C stopped it, 0 when it ran to its end, -1 when it could not start. */
static int repl_workload(repl_t *r, sim_options_t *opt)
{
    sim_t sim;
    sim_truth_run_t run;
    opt->clock = SIM_CLOCK_REAL;
    opt->start_tick = repl_ticks(r);
    /* the counters are the program's, for its truth */
    r->out->frame_bytes = r->out->frames = r->out->text_bytes = r->out->text_lines = 0;
    r->out->in_frame = 0;
    r->stop_program = 0;
    if (sim_init(&sim, opt, r->out) != 0)
        return -1;
    r->out->clock = &sim.clock; /* --baud meters by this program's clock */
    r->running = 1;
    sim_run(&sim, &r->stop_program);
    int interrupted = r->stop_program != 0;
    if (!r->out->failed && !sim.oom)
        sim_finish(&sim);
    r->running = 0;
    if (r->base->truth_path != NULL) {
        sim_run_summary(&sim, &run);
        if (sim_truth_write(&sim.truth, &run, r->base->truth_path) != 0)
            r->rc = 1;
    }
    sim_free(&sim);
    return interrupted;
}

/* The options a program's first lines give: "# aioprof-sim: -w NAME --duration SEC ...". Returns 0,
 * or -1 with the error a board would print. */
static int repl_program_options(const uint8_t *src, size_t len, sim_options_t *opt, char *why, size_t whylen)
{
    static const char mark[] = "# aioprof-sim:";
    char head[512];
    size_t n = len < sizeof head - 1 ? len : sizeof head - 1;
    memcpy(head, src, n);
    head[n] = '\0';
    char *at = strstr(head, mark);
    if (at == NULL)
        return 0;
    at += sizeof mark - 1;
    at[strcspn(at, "\r\n")] = '\0';
    char *save = NULL;
    for (char *key = strtok_r(at, " \t", &save); key != NULL; key = strtok_r(NULL, " \t", &save)) {
        char *value = strtok_r(NULL, " \t", &save);
        uint64_t v;
        if (value == NULL) {
            snprintf(why, whylen, "ValueError: %s needs a value", key);
            return -1;
        }
        if (strcmp(key, "-w") == 0 || strcmp(key, "--workload") == 0) {
            const sim_workload_t *w = sim_workload_find(value);
            if (w == NULL) {
                snprintf(why, whylen, "ValueError: aioprof-sim has no workload '%.40s'", value);
                return -1;
            }
            opt->workload = w->name;
        } else if (strcmp(key, "--duration") == 0 && sim_options_seconds(value, &v) == 0) {
            opt->duration_us = v;
        } else if (strcmp(key, "--events") == 0 && sim_options_u64(value, 1, UINT64_MAX / 2, &v) == 0) {
            opt->max_events = v;
        } else if (strcmp(key, "--text") == 0 && sim_options_u64(value, 1, 1000000000u, &v) == 0) {
            opt->text_every = (unsigned)v;
        } else {
            snprintf(why, whylen, "ValueError: '%.20s %.20s' is not an aioprof-sim program option", key, value);
            return -1;
        }
    }
    return 0;
}

static void repl_traceback(repl_t *r, const char *file, const char *error)
{
    char text[400];
    snprintf(text, sizeof text, "Traceback (most recent call last):\r\n  File \"%s\", line 1, in <module>\r\n%s\r\n",
             file, error);
    repl_says(r, text);
}

/* A program from the raw REPL (its "OK" or raw paste's 0x04 already said): it runs, then the end
 * markers, "\x04" <error> "\x04", and the prompt. */
static void repl_run_program(repl_t *r)
{
    sim_options_t opt = *r->base;
    char why[200];
    opt.duration_us = 0;
    opt.max_events = 0;
    int rc;
    if (r->overflow > 0) {
        snprintf(why, sizeof why, "SyntaxError: invalid syntax (the stdin buffer overflowed: %llu bytes came past "
                 "the raw paste window)", (unsigned long long)r->overflow);
        rc = -2;
    } else if (r->line_full) {
        snprintf(why, sizeof why, "MemoryError: the program is over %u bytes", SIM_REPL_LINE_MAX);
        rc = -2;
    } else if (repl_program_options(r->line, r->line_len, &opt, why, sizeof why) < 0) {
        rc = -2;
    } else {
        rc = repl_workload(r, &opt);
        if (rc < 0)
            snprintf(why, sizeof why, "RuntimeError: the workload could not start");
    }
    repl_says(r, "\x04");
    if (rc == 1)
        repl_traceback(r, "<stdin>", "KeyboardInterrupt: ");
    else if (rc < 0)
        repl_traceback(r, "<stdin>", why);
    repl_says(r, "\x04>");
    r->line_len = 0;
    r->line_full = 0;
    r->overflow = 0;
}

/* main.py: the -w workload, as the command line says, in the friendly REPL. */
static void repl_run_main(repl_t *r)
{
    sim_options_t opt = *r->base;
    int rc = repl_workload(r, &opt);
    if (rc == 1)
        repl_traceback(r, "main.py", "KeyboardInterrupt: ");
    repl_friendly_banner(r);
}

/* Ctrl-D at an empty prompt: a new VM. From the friendly REPL, main.py runs; the raw REPL stays. */
static void repl_soft_reset(repl_t *r)
{
    repl_says(r, "MPY: soft reboot\r\n");
    r->line_len = 0;
    if (r->mode == MODE_FRIENDLY) {
        repl_run_main(r);
    } else {
        repl_says(r, raw_banner);
        repl_says(r, ">");
    }
}

static void repl_line_add(repl_t *r, uint8_t b)
{
    if (r->line_len == r->line_cap) {
        if (r->line_cap >= SIM_REPL_LINE_MAX) {
            r->line_full = 1;
            return;
        }
        size_t cap = r->line_cap ? r->line_cap * 2 : 4096;
        uint8_t *grown = realloc(r->line, cap);
        if (grown == NULL) {
            r->line_full = 1;
            return;
        }
        r->line = grown;
        r->line_cap = cap;
    }
    r->line[r->line_len++] = b;
}

static void repl_start_paste(repl_t *r)
{
    uint8_t reply[5] = {'R', 0x01, SIM_REPL_WINDOW & 0xFF, SIM_REPL_WINDOW >> 8, 0x01};
    r->mode = MODE_PASTE;
    r->line_len = 0;
    r->window_left = SIM_REPL_WINDOW;
    r->granted = 2u * SIM_REPL_WINDOW;
    r->received = 0;
    r->overflow = 0;
    repl_say(r, reply, sizeof reply);
}

static void repl_friendly_byte(repl_t *r, uint8_t b)
{
    switch (b) {
    case 0x01:
        repl_says(r, "\r\n");
        repl_says(r, raw_banner);
        repl_says(r, ">");
        r->mode = MODE_RAW;
        r->line_len = 0;
        break;
    case 0x02:
        repl_says(r, "\r\n");
        repl_friendly_banner(r);
        break;
    case 0x03:
        repl_says(r, "\r\n>>> ");
        r->friendly_len = 0;
        break;
    case 0x04:
        if (r->friendly_len == 0) {
            repl_says(r, "\r\n");
            repl_soft_reset(r);
        }
        break;
    case '\r':
        /* no Python here: a line typed at the prompt does nothing */
        repl_says(r, "\r\n>>> ");
        r->friendly_len = 0;
        break;
    default:
        if (b >= 0x20 && b < 0x7F) {
            repl_say(r, &b, 1);
            r->friendly_len++;
        }
        break;
    }
}

static void repl_raw_byte(repl_t *r, uint8_t b)
{
    switch (b) {
    case 0x01:
        if (r->line_len == 2 && r->line[0] == 0x05 && r->line[1] == 'A' && !r->base->repl_no_paste) {
            repl_start_paste(r);
        } else {
            repl_says(r, raw_banner); /* a board without raw paste takes "\x05A\x01" as this */
            repl_says(r, ">");
            r->line_len = 0;
        }
        break;
    case 0x02:
        repl_says(r, "\r\n");
        r->mode = MODE_FRIENDLY;
        repl_friendly_banner(r);
        break;
    case 0x03:
        r->line_len = 0;
        break;
    case 0x04:
        repl_says(r, "OK");
        if (r->line_len == 0) {
            repl_says(r, "\r\n");
            repl_soft_reset(r);
        } else {
            repl_run_program(r);
        }
        break;
    default:
        repl_line_add(r, b);
        break;
    }
}

static void repl_paste_byte(repl_t *r, uint8_t b)
{
    if (b == 0x03 || b == 0x04) {
        /* the end of the data (or an interrupt): said with 0x04, then the program (or the error) */
        repl_says(r, "\x04");
        r->mode = MODE_RAW;
        if (b == 0x04) {
            repl_run_program(r);
        } else {
            repl_says(r, "\x04");
            repl_traceback(r, "<stdin>", "KeyboardInterrupt: ");
            repl_says(r, "\x04>");
            r->line_len = 0;
        }
        return;
    }
    repl_line_add(r, b);
    if (--r->window_left == 0) {
        r->window_left = SIM_REPL_WINDOW;
        r->granted += SIM_REPL_WINDOW;
        repl_say(r, "\x01", 1);
    }
}

int sim_repl_main(const sim_options_t *opt, sim_output_t *out, volatile sig_atomic_t *stop)
{
    repl_t *r = calloc(1, sizeof *r);
    if (r == NULL) {
        fprintf(stderr, "aioprof-sim: out of memory for the REPL.\n");
        return 1;
    }
    r->base = opt;
    r->out = out;
    r->signal = stop;
    r->wall_on = sim_wall_us();
    r->ticks_on = opt->start_tick;
    out->on_input = repl_input;
    out->input_user = r;

    /* power on: main.py runs, then the friendly prompt */
    repl_run_main(r);
    while (!*stop && !out->failed) {
        sim_output_poll(out);
        while (r->in_len > 0 && !*stop) {
            uint8_t b = r->in[r->in_head];
            r->in_head = (r->in_head + 1) % sizeof r->in;
            r->in_len--;
            if (r->mode == MODE_FRIENDLY)
                repl_friendly_byte(r, b);
            else if (r->mode == MODE_RAW)
                repl_raw_byte(r, b);
            else
                repl_paste_byte(r, b);
        }
        struct pollfd pfd = {.fd = out->fd, .events = POLLIN};
        /* a pty nobody holds open says POLLHUP at once: wait as if it were quiet */
        if (r->in_len == 0 && poll(&pfd, 1, REPL_IDLE_MS) > 0 && !(pfd.revents & POLLIN)) {
            struct timespec idle = {0, REPL_IDLE_MS * 1000000L};
            nanosleep(&idle, NULL);
        }
    }
    int rc = out->failed ? 1 : r->rc;
    out->on_input = NULL;
    free(r->line);
    free(r);
    return rc;
}
