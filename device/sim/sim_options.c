#define _POSIX_C_SOURCE 200809L

#include "sim_options.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aioprof_frame_writer.h"
#include "sim_workloads.h"

#define DEFAULT_VIRTUAL_DURATION_US 10000000u
#define DEFAULT_RING_BYTES 2048u
#define DEFAULT_TEXT_EVERY 50u
#define RING_MAX AIOPROF_FW_RING_MAX
#define TASKS_MAX 100000u

enum {
    OPT_DURATION = 256,
    OPT_EVENTS,
    OPT_CLOCK,
    OPT_SEED,
    OPT_PTY,
    OPT_PTY_LINK,
    OPT_TICK_BITS,
    OPT_START_TICK,
    OPT_RING,
    OPT_TEXT,
    OPT_HOSTILE_TEXT,
    OPT_TRUTH,
    OPT_WRITE_CHUNK,
    OPT_BAUD,
    OPT_SLOW,
    OPT_PLATFORM,
    OPT_CLOCK_BACK,
    OPT_LATE_UNIT,
    OPT_TASKS,
    OPT_REPL,
    OPT_REPL_NO_PASTE,
};

static const struct option long_options[] = {
    {"workload", required_argument, NULL, 'w'},
    {"tasks", required_argument, NULL, OPT_TASKS},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"events", required_argument, NULL, OPT_EVENTS},
    {"clock", required_argument, NULL, OPT_CLOCK},
    {"seed", required_argument, NULL, OPT_SEED},
    {"output", required_argument, NULL, 'o'},
    {"pty", no_argument, NULL, OPT_PTY},
    {"pty-link", required_argument, NULL, OPT_PTY_LINK},
    {"tick-bits", required_argument, NULL, OPT_TICK_BITS},
    {"start-tick", required_argument, NULL, OPT_START_TICK},
    {"ring", required_argument, NULL, OPT_RING},
    {"text", required_argument, NULL, OPT_TEXT},
    {"hostile-text", no_argument, NULL, OPT_HOSTILE_TEXT},
    {"truth", required_argument, NULL, OPT_TRUTH},
    {"write-chunk", required_argument, NULL, OPT_WRITE_CHUNK},
    {"baud", required_argument, NULL, OPT_BAUD},
    {"slow", required_argument, NULL, OPT_SLOW},
    {"platform", required_argument, NULL, OPT_PLATFORM},
    {"clock-back", required_argument, NULL, OPT_CLOCK_BACK},
    {"late-unit", required_argument, NULL, OPT_LATE_UNIT},
    {"repl", no_argument, NULL, OPT_REPL},
    {"repl-no-paste", no_argument, NULL, OPT_REPL_NO_PASTE},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static void print_help(void)
{
    printf("Usage: aioprof-sim [OPTIONS]\n"
           "Runs a simulated MicroPython asyncio device with the real aioprof hook and writes its\n"
           "byte stream (frames and device text) to stdout, a file or a pty.\n"
           "\n"
           "Workload and run length:\n"
           "  -w, --workload NAME    ");
    sim_workloads_print_names(stdout);
    printf(" (default seed):\n");
    sim_workloads_print_help(stdout);
    printf(""
           "      --tasks N          the number of tasks of the busy workload, 1 to %u (default %u)\n"
           "      --duration SEC     device seconds to run, e.g. 60 or 0.5 (default 10 with the\n"
           "                         virtual clock, until Ctrl-C with the real one)\n"
           "      --events N         stop after N enter/exit events instead\n"
           "      --clock MODE       virtual (deterministic, as fast as possible; default) or real\n"
           "                         (device time follows the wall clock)\n"
           "      --seed N           randomises the instances, busy, nested and hog workloads (default 1)\n"
           "      --slow MS          slices longer than this count as slow in the truth (default 20)\n"
           "\n"
           "Output (raw bytes, never to a terminal):\n"
           "  -o, --output FILE      write to FILE instead of stdout\n"
           "      --pty              create a pty, print its path on stderr and stream into it; when\n"
           "                         nobody reads it the ring fills and events are dropped\n"
           "      --pty-link FILE    also write the pty's path into FILE\n"
           "      --baud N           the port takes at most N/10 bytes per device second, like a UART\n"
           "      --write-chunk N    the port takes at most N bytes per write call\n"
           "      --repl             with --pty: a MicroPython board's REPL on it (real clock):\n"
           "                         the workload is main.py, run at start and at a soft reset\n"
           "                         (Ctrl-D), stopped by Ctrl-C; the raw REPL (Ctrl-A) runs a\n"
           "                         program whose first lines may say \"# aioprof-sim: -w NAME\n"
           "                         --duration SEC --events N --text N\" (aioprof-top --run)\n"
           "      --repl-no-paste    a board older than the raw REPL's raw paste mode\n"
           "\n"
           "Device:\n"
           "      --tick-bits 30|32  tick counter width (default 30, as time.ticks_us())\n"
           "      --start-tick T     tick counter at the start, e.g. just before a wrap\n"
           "      --platform NAME    the platform the device names in its HELLO (default\n"
           "                         \"aioprof-sim WORKLOAD\"; at most 32 bytes are sent)\n"
           "      --clock-back N     every Nth slice ends with the clock read 1 ms early, as the\n"
           "                         clock of MicroPython's qemu port does now and then: it steps\n"
           "                         back (the truth counts the steps and applies the host's rule)\n"
           "      --late-unit TICKS  how late each resumed task was, in units of TICKS (default\n"
           "                         1000: milliseconds, as MicroPython's asyncio keeps due\n"
           "                         times; 1: microseconds; 0: not reported, an older device)\n"
           "      --ring BYTES       the hook's ring size (default %u, at least 128)\n"
           "      --text N           print() a line of device text every N slices\n"
           "      --hostile-text     every other line carries escape sequences, bells, bad UTF-8\n"
           "                         (with --text, or every %u slices)\n"
           "\n"
           "Results:\n"
           "      --truth FILE       write what the workload really did as JSON\n"
           "  -q, --quiet            no statistics on stderr\n"
           "  -h, --help             this text\n"
           "  -V, --version          the version\n"
           "\n"
           "Examples:\n"
           "  aioprof-sim -w seed --duration 60 -o seed.aiop --truth seed.json\n"
           "  aioprof-sim -w busy --seed 7 --events 100000 | aioprof-top --replay -\n"
           "  aioprof-sim -w instances --clock real --pty --pty-link /tmp/sim.pty\n"
           "  aioprof-sim -w busy --ring 256 --baud 115200 --truth drops.json -o drops.aiop\n"
           "  aioprof-sim -w busy --tasks 4000 --duration 600 -o many.aiop --truth many.json\n"
           "  aioprof-sim --tick-bits 30 --start-tick 1073000000 --duration 5 -o wrap.aiop\n",
           TASKS_MAX, SIM_BUSY_TASKS, DEFAULT_RING_BYTES, DEFAULT_TEXT_EVERY);
}

/* One sentence on stderr; returns the exit code for a bad argument. */
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "aioprof-sim: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see aioprof-sim --help).\n");
    va_end(ap);
    return 2;
}

/* A whole decimal number in [min, max]. */
int sim_options_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Seconds with up to six decimals, to whole microseconds, without going through a double. */
int sim_options_seconds(const char *s, uint64_t *us)
{
    uint64_t whole = 0, frac = 0, scale = 1000000u;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10u + (uint64_t)(*p - '0');
        if (whole > 100000000u)
            return -1;
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (scale == 1)
                return -1;
            scale /= 10u;
            frac += (uint64_t)(*p - '0') * scale;
        }
    }
    if (*p != '\0')
        return -1;
    *us = whole * 1000000u + frac;
    return *us > 0 ? 0 : -1;
}

int sim_options_parse(sim_options_t *o, int argc, char **argv)
{
    uint64_t v;
    int text_given = 0, clock_given = 0;

    memset(o, 0, sizeof *o);
    o->workload = "seed";
    o->clock = SIM_CLOCK_VIRTUAL;
    o->seed = 1;
    o->tick_bits = 30;
    o->ring_bytes = DEFAULT_RING_BYTES;
    o->late_unit = SIM_LATE_UNIT_DEFAULT;
    o->slow_us = 20000u;

    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, ":w:o:qhV", long_options, NULL);
        if (c == -1)
            break;
        switch (c) {
        case 'w':
            if (sim_workload_find(optarg) == NULL)
                return fail("there is no workload '%s'", optarg);
            o->workload = optarg;
            break;
        case OPT_TASKS:
            if (sim_options_u64(optarg, 1, TASKS_MAX, &v) != 0)
                return fail("--tasks wants a number of tasks from 1 to %u, not '%s'", TASKS_MAX, optarg);
            o->tasks = (unsigned)v;
            break;
        case OPT_DURATION:
            if (sim_options_seconds(optarg, &o->duration_us) != 0)
                return fail("--duration wants a positive number of seconds, not '%s'", optarg);
            break;
        case OPT_EVENTS:
            if (sim_options_u64(optarg, 1, UINT64_MAX / 2, &o->max_events) != 0)
                return fail("--events wants a positive whole number, not '%s'", optarg);
            break;
        case OPT_CLOCK:
            clock_given = 1;
            if (strcmp(optarg, "virtual") == 0)
                o->clock = SIM_CLOCK_VIRTUAL;
            else if (strcmp(optarg, "real") == 0)
                o->clock = SIM_CLOCK_REAL;
            else
                return fail("--clock is virtual or real, not '%s'", optarg);
            break;
        case OPT_SEED:
            if (sim_options_u64(optarg, 0, UINT64_MAX, &o->seed) != 0)
                return fail("--seed wants a whole number, not '%s'", optarg);
            break;
        case 'o':
            o->out_path = optarg;
            break;
        case OPT_PTY:
            o->pty = 1;
            break;
        case OPT_PTY_LINK:
            o->pty_link = optarg;
            break;
        case OPT_TICK_BITS:
            if (strcmp(optarg, "30") == 0)
                o->tick_bits = 30;
            else if (strcmp(optarg, "32") == 0)
                o->tick_bits = 32;
            else
                return fail("--tick-bits is 30 or 32, not '%s'", optarg);
            break;
        case OPT_START_TICK:
            if (sim_options_u64(optarg, 0, UINT32_MAX, &v) != 0)
                return fail("--start-tick wants a tick count below 2^32, not '%s'", optarg);
            o->start_tick = (uint32_t)v;
            break;
        case OPT_RING:
            if (sim_options_u64(optarg, 128, RING_MAX, &v) != 0)
                return fail("--ring wants a size from 128 to 65535 bytes, not '%s'", optarg);
            o->ring_bytes = (uint32_t)v;
            break;
        case OPT_TEXT:
            text_given = 1;
            if (sim_options_u64(optarg, 1, 1000000000u, &v) == 0)
                o->text_every = (unsigned)v;
            else
                return fail("--text wants a positive number of slices, not '%s'", optarg);
            break;
        case OPT_HOSTILE_TEXT:
            o->hostile_text = 1;
            break;
        case OPT_TRUTH:
            o->truth_path = optarg;
            break;
        case OPT_WRITE_CHUNK:
            if (sim_options_u64(optarg, 1, SIZE_MAX / 2, &v) != 0)
                return fail("--write-chunk wants a positive number of bytes, not '%s'", optarg);
            o->write_chunk = (size_t)v;
            break;
        case OPT_BAUD:
            if (sim_options_u64(optarg, 300, 100000000u, &v) != 0)
                return fail("--baud wants a rate from 300 to 100000000, not '%s'", optarg);
            o->baud = (uint32_t)v;
            break;
        case OPT_SLOW:
            if (sim_options_u64(optarg, 1, 3600000u, &v) != 0)
                return fail("--slow wants a positive number of milliseconds, not '%s'", optarg);
            o->slow_us = v * 1000u;
            break;
        case OPT_PLATFORM:
            o->platform = optarg;
            break;
        case OPT_LATE_UNIT:
            if (sim_options_u64(optarg, 0, 1000000u, &v) != 0)
                return fail("--late-unit wants a number of ticks from 0 to 1000000, not '%s'", optarg);
            o->late_unit = (uint32_t)v;
            break;
        case OPT_CLOCK_BACK:
            if (sim_options_u64(optarg, 1, 1000000000u, &v) != 0)
                return fail("--clock-back wants a positive number of slices, not '%s'", optarg);
            o->clock_back = (unsigned)v;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case OPT_REPL:
            o->repl = 1;
            break;
        case OPT_REPL_NO_PASTE:
            o->repl_no_paste = 1;
            break;
        case 'h':
            print_help();
            return 1;
        case 'V':
            printf("aioprof-sim %s\n", AIOPROF_VERSION);
            return 1;
        case ':':
            if (optopt > 0 && optopt < 256)
                return fail("-%c needs a value", optopt);
            return fail("%s needs a value", argv[optind - 1]);
        default:
            if (optopt > 0 && optopt < 256)
                return fail("'-%c' is not an option", optopt);
            return fail("'%s' is not an option", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return fail("'%s' is not an option; this program takes no file names", argv[optind]);
    if (o->tasks != 0 && strcmp(o->workload, "busy") != 0)
        return fail("--tasks sets the number of tasks of the busy workload; add -w busy");
    if (o->pty && o->out_path != NULL)
        return fail("-o and --pty both name the output; pick one");
    if (o->pty_link != NULL && !o->pty)
        return fail("--pty-link only makes sense with --pty");
    if ((o->repl || o->repl_no_paste) && !o->pty)
        return fail("--repl emulates a board's REPL on a pty; add --pty");
    if (o->repl_no_paste)
        o->repl = 1;
    if (o->repl && clock_given && o->clock == SIM_CLOCK_VIRTUAL)
        return fail("--repl runs on the real clock (a REPL waits for its user); leave out --clock virtual");
    if (o->repl)
        o->clock = SIM_CLOCK_REAL;
    if (o->hostile_text && !text_given)
        o->text_every = DEFAULT_TEXT_EVERY;
    if (o->tick_bits == 30 && o->start_tick >= (1u << 30))
        return fail("--start-tick %" PRIu32 " does not fit a 30-bit tick counter (use --tick-bits 32)",
                    o->start_tick);
    if (o->duration_us == 0 && o->max_events == 0 && o->clock == SIM_CLOCK_VIRTUAL)
        o->duration_us = DEFAULT_VIRTUAL_DURATION_US;
    return 0;
}
