/* Command-line parsing. Every mistake gets one sentence naming the option and exit code 2. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* POSIX plus flock, cfmakeraw (ncursesw's pkg-config may set it too) */
#endif
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
    OPT_SPEED = 256, OPT_FORCE, OPT_DEMO, OPT_WORKLOAD, OPT_REPORT, OPT_JSON, OPT_DURATION,
    OPT_SORT, OPT_SLOW, OPT_INSTANCES, OPT_NO_RECONNECT, OPT_LIST, OPT_EXPORT_TRACE, OPT_LOG, OPT_TEXT,
    OPT_JSON_LINES, OPT_RUN,
    OPT_COMPARE, OPT_BUDGET, OPT_JUNIT, OPT_METRICS, OPT_CAPTURE_HOGS, OPT_HOG_MS, OPT_HOG_WINDOW, OPT_HOG_MAX,
    OPT_DTR, OPT_RTS, OPT_INSTALL, OPT_UNINSTALL, OPT_NO_ENABLE, OPT_NO_RESET, OPT_IN_RAM,
};

static const struct option long_options[] = {
    {"baud", required_argument, NULL, 'b'},
    {"dtr", required_argument, NULL, OPT_DTR},
    {"rts", required_argument, NULL, OPT_RTS},
    {"list", no_argument, NULL, OPT_LIST},
    {"run", required_argument, NULL, OPT_RUN},
    {"no-enable", no_argument, NULL, OPT_NO_ENABLE},
    {"no-reset", no_argument, NULL, OPT_NO_RESET},
    {"in-ram", no_argument, NULL, OPT_IN_RAM},
    {"install", no_argument, NULL, OPT_INSTALL},
    {"uninstall", no_argument, NULL, OPT_UNINSTALL},
    {"replay", required_argument, NULL, 'r'},
    {"speed", required_argument, NULL, OPT_SPEED},
    {"write", required_argument, NULL, 'w'},
    {"force", no_argument, NULL, OPT_FORCE},
    {"export-trace", required_argument, NULL, OPT_EXPORT_TRACE},
    {"log", required_argument, NULL, OPT_LOG},
    {"demo", no_argument, NULL, OPT_DEMO},
    {"workload", required_argument, NULL, OPT_WORKLOAD},
    {"text", required_argument, NULL, OPT_TEXT},
    {"report", no_argument, NULL, OPT_REPORT},
    {"json", no_argument, NULL, OPT_JSON},
    {"json-lines", no_argument, NULL, OPT_JSON_LINES},
    {"interval", required_argument, NULL, 'd'},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"sort", required_argument, NULL, OPT_SORT},
    {"slow", required_argument, NULL, OPT_SLOW},
    {"instances", no_argument, NULL, OPT_INSTANCES},
    {"no-reconnect", no_argument, NULL, OPT_NO_RECONNECT},
    {"compare", required_argument, NULL, OPT_COMPARE},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"junit", required_argument, NULL, OPT_JUNIT},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"capture-hogs", required_argument, NULL, OPT_CAPTURE_HOGS},
    {"hog-ms", required_argument, NULL, OPT_HOG_MS},
    {"hog-window", required_argument, NULL, OPT_HOG_WINDOW},
    {"hog-max", required_argument, NULL, OPT_HOG_MAX},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static void options_help(FILE *out)
{
    fputs("Usage: aioprof-top [OPTIONS] [PORT]\n"
          "       aioprof-top --run PROGRAM.py [OPTIONS] [PORT]\n"
          "       aioprof-top --install|--uninstall [PORT]\n"
          "       aioprof-top --replay FILE [OPTIONS]\n"
          "       aioprof-top --demo [OPTIONS]\n"
          "       aioprof-top --list\n"
          "\n"
          "Per-coroutine statistics of a MicroPython asyncio application running the aioprof hook.\n"
          "PORT is a serial device (/dev/ttyACM0, /dev/serial/by-id/...), waited for when it is\n"
          "not there yet; without one, the only connected board that looks like a MicroPython\n"
          "board is used, or the first one to come.\n"
          "\n"
          "Input:\n"
          "  -b, --baud RATE      baud rate of a UART (default 115200; USB boards ignore it)\n"
          "      --dtr STATE      the DTR line once the port is open: on (default) or off\n"
          "      --rts STATE      the RTS line once the port is open: on (default) or off; an\n"
          "                       ESP32 or ESP8266 resets while RTS is on and DTR off\n"
          "      --list           list the serial ports and what is known about them, then exit\n"
          "      --run FILE       send the program FILE through the board's raw REPL (as\n"
          "                       mpremote run, after a soft reset) and profile what it does;\n"
          "                       in the table k sends it Ctrl-C, Ctrl-D soft-resets the board;\n"
          "                       a prologue enables aioprof first (the app need not mention it)\n"
          "      --no-enable      --run: no prologue (the program calls aioprof.enable() itself)\n"
          "      --no-reset       --run: no soft reset before the program (what the board holds\n"
          "                       in RAM stays, as mpremote resume)\n"
          "      --in-ram         --run: on a board without aioprof, send the python engine into\n"
          "                       its RAM for this run (nothing is written to its filesystem)\n"
          "      --install        put aioprof on the board (its native module when one was\n"
          "                       built for it, else the python engine), through the raw REPL;\n"
          "                       with --run: install, then run\n"
          "      --uninstall      remove what --install put on the board\n"
          "  -r, --replay FILE    read a recording (-w) or a raw capture instead of a port\n"
          "      --speed X        replay pacing: 1 as recorded, 2 twice as fast, 0 as fast as\n"
          "                       possible (default 1 in the live table, 0 for reports); a raw\n"
          "                       capture is paced by its frames' device time\n"
          "      --demo           run the simulator (aioprof-sim) and profile it\n"
          "      --workload NAME  the simulator's workload for --demo (default seed)\n"
          "      --text N         --demo: the simulator prints a line of text every N slices\n"
          "                       (default 20; 0 for none)\n"
          "      --no-reconnect   exit (code 1) when the port is not there or goes away\n"
          "                       instead of waiting for it\n"
          "\n"
          "Output:\n"
          "  -w, --write FILE     record the session's bytes to FILE (replay it with -r)\n"
          "      --export-trace FILE\n"
          "                       write the session's timeline to FILE as it goes (Chrome\n"
          "                       Trace Event JSON for ui.perfetto.dev, chrome://tracing,\n"
          "                       speedscope; docs/trace-export.md)\n"
          "      --log FILE       write the device's text lines to FILE, each with the host time\n"
          "                       it arrived (a replay: seconds into the recording)\n"
          "      --force          let -w, --export-trace or --log overwrite an existing regular\n"
          "                       file (a device or a FIFO is written without it)\n"
          "      --report         print a text table at the end (end of a replay, --duration,\n"
          "                       Ctrl-C)\n"
          "      --json           the same as a JSON document\n"
          "      --json-lines     one JSON object a line on stdout per interval, as it goes: that\n"
          "                       interval's figures and the totals (docs/json.md)\n"
          "  -d, --interval SEC   the live table's refresh period (default 0.1), or the period\n"
          "                       of --json-lines (default 1)\n"
          "      --duration SEC   stop after SEC seconds\n"
          "      --sort KEY       name, inst, count, total, share, max, mean, slow, errors, late,\n"
          "                       and with --instances end or creator (default total)\n"
          "      --slow MS        slices longer than MS milliseconds count as slow (default 20)\n"
          "      --instances      one row per task instance instead of per name\n"
          "\n"
          "Comparisons and budgets:\n"
          "      --compare BASE [NEW]\n"
          "                       compare the recording NEW, or this session, with the recording\n"
          "                       BASE: per task, each figure's change, or ~ when it is within\n"
          "                       the noise (Mann-Whitney U on one-second windows)\n"
          "      --budget FILE    limits per task name (JSON): exit 3 when one is broken, with a\n"
          "                       report of each breach on stderr\n"
          "      --junit FILE     write the budget's result as JUnit XML\n"
          "\n"
          "Capturing hogs:\n"
          "      --capture-hogs DIR\n"
          "                       for every slice of at least --hog-ms, write to DIR a recording\n"
          "                       of the seconds around it, which -r replays\n"
          "      --hog-ms MS      the hog threshold (default: --slow's)\n"
          "      --hog-window SEC the seconds kept before and after a hog (default 2)\n"
          "      --hog-max N      at most N captures (default 20); further hogs are counted\n"
          "\n"
          "Metrics:\n"
          "      --metrics ADDRESS\n"
          "                       serve the figures for Prometheus at http://ADDRESS/metrics:\n"
          "                       ADDRESS is PORT (on 127.0.0.1) or HOST:PORT (OpenMetrics text)\n"
          "\n"
          "  -v, --verbose        say what is opened and how\n"
          "  -h, --help           this text\n"
          "  -V, --version        the version\n"
          "\n"
          "Examples:\n"
          "  aioprof-top /dev/ttyACM0                  profile a board\n"
          "  aioprof-top --install                     put the profiler on the board\n"
          "  aioprof-top --run app.py                  run app.py on the board and profile it\n"
          "  aioprof-top -w session.aiop               profile the only board and record it\n"
          "  aioprof-top -r session.aiop --report      table of a recorded session\n"
          "  aioprof-top -r session.aiop --speed 1     replay as it happened\n"
          "  aioprof-top -r session.aiop --export-trace session.json --report\n"
          "                                            a timeline for Perfetto, and the table\n"
          "  aioprof-top --duration 10 --json > s.json 10 seconds of the board, as JSON\n"
          "  aioprof-top --demo --duration 3 --report  try it without a board\n"
          "  aioprof-top --compare before.aiop after.aiop   did the fix help?\n"
          "  aioprof-top --run app.py --duration 10 --budget budget.json --junit budget.xml\n"
          "                                            a CI check of the board\n"
          "\n"
          "Exit status: 0 success, 1 runtime failure (port gone, unreadable file), 2 usage error,\n"
          "3 a --budget limit broken.\n",
          out);
}

/* --dtr, --rts: on or off. Returns 0 with *off set, or -1 after saying why. */
static int options_line(const char *name, const char *text, int *off)
{
    if (strcmp(text, "on") == 0 || strcmp(text, "off") == 0) {
        *off = strcmp(text, "off") == 0;
        return 0;
    }
    fprintf(stderr, "aioprof-top: %s takes on or off, not '%s'.\n", name, text);
    return -1;
}

/* A plain decimal number. strtod alone also takes "nan", "inf", hexadecimal and leading blanks;
 * its overflow and underflow ("1e400", "1e-400") set errno. Returns 0, or -1 when it is not one. */
static int options_decimal(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || strpbrk(text, "xXpP") != NULL ||
        isspace((unsigned char)text[0]))
        return -1;
    *out = v;
    return 0;
}

static int options_number(const char *name, const char *text, double min, double max, double *out)
{
    double v;
    if (options_decimal(text, &v) < 0 || v < min || v > max) {
        fprintf(stderr, "aioprof-top: %s needs a number from %g to %g, not '%s'.\n", name, min, max, text);
        return -1;
    }
    *out = v;
    return 0;
}

/* A whole number in [min, max]: "9600.7" is a mistake to point out, not a 9600 to guess. */
static int options_integer(const char *name, const char *text, long min, long max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min || v > max || isspace((unsigned char)text[0])) {
        fprintf(stderr, "aioprof-top: %s needs a whole number from %ld to %ld, not '%s'.\n", name, min, max, text);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* --speed: 0 (as fast as possible) or a pace within [OPTIONS_SPEED_MIN, OPTIONS_SPEED_MAX]. A pace
 * nearer 0 (1e-300) would put a recorded second past any session, and its cast out of range. */
static int options_speed(const char *text, double *out)
{
    double v;
    if (options_decimal(text, &v) < 0 || (v != 0 && (v < OPTIONS_SPEED_MIN || v > OPTIONS_SPEED_MAX))) {
        fprintf(stderr, "aioprof-top: --speed needs 0 (as fast as possible) or a number from %g to %g, not '%s'.\n",
                OPTIONS_SPEED_MIN, OPTIONS_SPEED_MAX, text);
        return -1;
    }
    *out = v;
    return 0;
}

static int options_sort(const char *text, sort_key_t *out)
{
    if (sort_key_parse(text, out) == 0)
        return 0;
    fprintf(stderr, "aioprof-top: --sort takes %s, not '%s'.\n", sort_key_list(), text);
    return -1;
}

/* --compare BASE NEW: with --compare, a positional argument that is not a character device (a port)
 * nor a path under /dev/ (a port not plugged in yet) is the recording to compare BASE with; a
 * mistyped recording is then said to be missing, not waited for as a port. */
static void options_compare_new(options_t *o)
{
    struct stat st;
    if (o->compare_base == NULL || o->port == NULL)
        return;
    int exists = stat(o->port, &st) == 0;
    if (strcmp(o->port, "-") == 0 || (exists && !S_ISCHR(st.st_mode)) ||
        (!exists && strncmp(o->port, "/dev/", 5) != 0)) {
        o->compare_new = o->port;
        o->port = NULL;
    }
}

/* --compare, --budget and --junit with the rest. */
static int options_check_compare(const options_t *o)
{
    if (o->junit != NULL && o->budget == NULL) {
        fputs("aioprof-top: --junit writes the result of a --budget: add --budget FILE.\n", stderr);
        return -1;
    }
    if (o->compare_new != NULL && (o->demo || o->replay != NULL || o->run != NULL)) {
        fputs("aioprof-top: --compare BASE NEW compares two recordings; leave out the other input, or give "
              "--compare BASE alone to compare it with this session.\n", stderr);
        return -1;
    }
    if (o->compare_new != NULL && (o->budget != NULL || o->metrics != NULL || o->write != NULL || o->export_trace != NULL ||
                                   o->log != NULL || o->view == VIEW_JSON_LINES || o->duration_s > 0)) {
        fputs("aioprof-top: --compare BASE NEW only compares; a session's options (--budget, --metrics, -w, --export-trace, "
              "--log, --json-lines, --duration) need an input: use -r NEW --compare BASE.\n", stderr);
        return -1;
    }
    if (o->compare_base != NULL && o->view == VIEW_JSON_LINES) {
        fputs("aioprof-top: --compare shows its changes in the table, --report or --json, not in --json-lines.\n",
              stderr);
        return -1;
    }
    return 0;
}

/* Combinations that cannot mean anything. */
static int options_check(const options_t *o)
{
    int inputs = (o->port != NULL) + (o->replay != NULL) + (o->demo != 0);
    if (inputs > 1) {
        fputs("aioprof-top: give one input: a PORT, --replay FILE or --demo.\n", stderr);
        return -1;
    }
    if (o->speed_given && o->replay == NULL) {
        fputs("aioprof-top: --speed only applies to --replay.\n", stderr);
        return -1;
    }
    if (o->write != NULL && o->replay != NULL) {
        fputs("aioprof-top: --write records a port; a replay is a recording already.\n", stderr);
        return -1;
    }
    if (sort_key_per_instance(o->sort) && !o->instances) {
        fprintf(stderr, "aioprof-top: --sort %s orders task instances: add --instances.\n", sort_key_name(o->sort));
        return -1;
    }
    if (o->interval_s > 0 && (o->view == VIEW_REPORT || o->view == VIEW_JSON)) {
        fputs("aioprof-top: --interval is the live table's refresh period or the period of --json-lines: it "
              "does nothing with --report or --json.\n", stderr);
        return -1;
    }
    if (o->text_every >= 0 && !o->demo) {
        fputs("aioprof-top: --text only applies to --demo (the simulator's device text).\n", stderr);
        return -1;
    }
    if (o->workload != NULL && !o->demo) {
        fputs("aioprof-top: --workload only applies to --demo.\n", stderr);
        return -1;
    }
    if (o->lines_given && (o->replay != NULL || o->demo)) {
        fputs("aioprof-top: --dtr and --rts set a serial port's lines; --replay and --demo open none.\n", stderr);
        return -1;
    }
    if ((o->install || o->uninstall) && (o->replay != NULL || o->demo || o->list)) {
        fputs("aioprof-top: --install and --uninstall act on a board's port; --replay, --demo and --list have none.\n",
              stderr);
        return -1;
    }
    if (o->install && o->uninstall) {
        fputs("aioprof-top: choose one of --install and --uninstall.\n", stderr);
        return -1;
    }
    if (o->uninstall && o->run != NULL) {
        fputs("aioprof-top: --run needs aioprof on the board; --uninstall takes it away: run them one after the other.\n",
              stderr);
        return -1;
    }
    if ((o->no_enable || o->no_reset || o->in_ram) && o->run == NULL) {
        fputs("aioprof-top: --no-enable, --no-reset and --in-ram only apply to --run.\n", stderr);
        return -1;
    }
    if (o->in_ram && (o->install || o->demo || o->no_enable)) {
        fputs("aioprof-top: --in-ram sends the engine for one run on a board; with --install it is on the board "
              "already, --demo has none to send it to, --no-enable would not use it.\n", stderr);
        return -1;
    }
    if (o->run != NULL && o->replay != NULL) {
        fputs("aioprof-top: --run sends a program to a board; a replay has none to send it to.\n", stderr);
        return -1;
    }
    return options_check_compare(o);
}

options_result_t options_parse(options_t *o, int argc, char **argv)
{
    int report = 0, json = 0, json_lines = 0;

    memset(o, 0, sizeof *o);
    o->baud = 115200;
    o->slow_ms = 20;
    o->sort = SORT_TOTAL;
    o->text_every = -1;

    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, ":b:r:w:d:vhV", long_options, NULL);
        if (c == -1)
            break;
        switch (c) {
        case 'b':
            if (options_integer("--baud", optarg, 50, 20000000, &o->baud) < 0)
                return OPTIONS_BAD;
            break;
        case OPT_DTR:
            if (options_line("--dtr", optarg, &o->dtr_off) < 0)
                return OPTIONS_BAD;
            o->lines_given = 1;
            break;
        case OPT_RTS:
            if (options_line("--rts", optarg, &o->rts_off) < 0)
                return OPTIONS_BAD;
            o->lines_given = 1;
            break;
        case OPT_LIST: o->list = 1; break;
        case OPT_RUN: o->run = optarg; break;
        case OPT_NO_ENABLE: o->no_enable = 1; break;
        case OPT_NO_RESET: o->no_reset = 1; break;
        case OPT_IN_RAM: o->in_ram = 1; break;
        case OPT_INSTALL: o->install = 1; break;
        case OPT_UNINSTALL: o->uninstall = 1; break;
        case 'r': o->replay = optarg; break;
        case OPT_SPEED:
            if (options_speed(optarg, &o->speed) < 0)
                return OPTIONS_BAD;
            o->speed_given = 1;
            break;
        case 'w': o->write = optarg; break;
        case OPT_FORCE: o->force = 1; break;
        case OPT_EXPORT_TRACE: o->export_trace = optarg; break;
        case OPT_LOG: o->log = optarg; break;
        case OPT_DEMO: o->demo = 1; break;
        case OPT_WORKLOAD: o->workload = optarg; break;
        case OPT_TEXT:
            if (options_integer("--text", optarg, 0, 1000000, &o->text_every) < 0)
                return OPTIONS_BAD;
            break;
        case 'd':
            if (options_number("--interval", optarg, OPTIONS_INTERVAL_MIN, OPTIONS_INTERVAL_MAX, &o->interval_s) < 0)
                return OPTIONS_BAD;
            break;
        case OPT_REPORT: report = 1; break;
        case OPT_JSON: json = 1; break;
        case OPT_JSON_LINES: json_lines = 1; break;
        case OPT_DURATION:
            if (options_number("--duration", optarg, 0.001, 1e7, &o->duration_s) < 0)
                return OPTIONS_BAD;
            break;
        case OPT_SORT:
            if (options_sort(optarg, &o->sort) < 0)
                return OPTIONS_BAD;
            break;
        case OPT_SLOW:
            /* at least a microsecond: the pipeline takes 0 for its default */
            if (options_number("--slow", optarg, 0.001, 1e7, &o->slow_ms) < 0)
                return OPTIONS_BAD;
            break;
        case OPT_INSTANCES: o->instances = 1; break;
        case OPT_NO_RECONNECT: o->no_reconnect = 1; break;
        case OPT_COMPARE: o->compare_base = optarg; break;
        case OPT_BUDGET: o->budget = optarg; break;
        case OPT_JUNIT: o->junit = optarg; break;
        case OPT_METRICS: o->metrics = optarg; break;
        case OPT_CAPTURE_HOGS: o->capture_hogs = optarg; break;
        case OPT_HOG_MS:
            if (options_number("--hog-ms", optarg, 0.001, 1e7, &o->hog_ms) < 0)
                return OPTIONS_BAD;
            break;
        case OPT_HOG_WINDOW:
            if (options_number("--hog-window", optarg, 0.01, 60, &o->hog_window_s) < 0)
                return OPTIONS_BAD;
            break;
        case OPT_HOG_MAX: {
            double n = 0;
            if (options_number("--hog-max", optarg, 1, 10000, &n) < 0)
                return OPTIONS_BAD;
            if (n != (int)n) {
                fputs("aioprof-top: --hog-max takes a whole number, 1 to 10000.\n", stderr);
                return OPTIONS_BAD;
            }
            o->hog_max = (int)n;
            break;
        }
        case 'v': o->verbose = 1; break;
        case 'h': options_help(stdout); return OPTIONS_DONE;
        case 'V': printf("aioprof-top %s\n", AIOPROF_VERSION); return OPTIONS_DONE;
        case ':':
            fprintf(stderr, "aioprof-top: %s needs a value (see --help).\n", argv[optind - 1]);
            return OPTIONS_BAD;
        default:
            fprintf(stderr, "aioprof-top: unknown option '%s' (see --help).\n", argv[optind - 1]);
            return OPTIONS_BAD;
        }
    }
    if (optind < argc)
        o->port = argv[optind++];
    options_compare_new(o);
    if (optind < argc) {
        fprintf(stderr, "aioprof-top: one port only; '%s' is one too many.\n", argv[optind]);
        return OPTIONS_BAD;
    }
    if (report + json + json_lines > 1) {
        fputs("aioprof-top: choose one of --report, --json and --json-lines.\n", stderr);
        return OPTIONS_BAD;
    }
    o->view = json ? VIEW_JSON : report ? VIEW_REPORT : json_lines ? VIEW_JSON_LINES : VIEW_LIVE;
    if (options_check(o) < 0)
        return OPTIONS_BAD;
    return OPTIONS_RUN;
}
