/* The command line of aioprof-top: what the user asked for, checked for consistency, nothing
 * opened yet. */
#ifndef AIOPROF_OPTIONS_H
#define AIOPROF_OPTIONS_H

#include "report.h"
#include "sort_key.h"

/* Exit codes (docs/usage.md): 0 success, 1 a runtime failure, 2 a usage error, 3 a budget broken
 * (--budget). */
enum { EXIT_OK = 0, EXIT_FAILURE_RUNTIME = 1, EXIT_USAGE = 2, EXIT_BUDGET = 3 };

/* --speed: 0 (as fast as possible), or a pace in this range. */
#define OPTIONS_SPEED_MIN 0.001
#define OPTIONS_SPEED_MAX 1000.0

/* -d/--interval, in seconds: the live table's refresh period (default 0.1) and the period of
 * --json-lines (default 1). Below 0.05 s the loop, which looks at the clock every 50 ms when the
 * input is quiet, could not keep it. */
#define OPTIONS_INTERVAL_MIN 0.05
#define OPTIONS_INTERVAL_MAX 86400.0
#define OPTIONS_INTERVAL_LINES 1.0
/* --capture-hogs: the seconds kept before and after a hog, and how many captures at most. */
#define OPTIONS_HOG_WINDOW 2.0
#define OPTIONS_HOG_MAX 20

/* --text: how often the demo's simulator prints a line (every N slices; the simulator's --text). */
#define OPTIONS_TEXT_DEMO 20

/* How the statistics are shown: the live table (the default), or a report at the end; or not at
 * all (VIEW_NONE: no view asked for, no terminal, and an output to make: main decides it). */
typedef enum view_kind { VIEW_LIVE, VIEW_REPORT, VIEW_JSON, VIEW_JSON_LINES, VIEW_NONE } view_kind_t;

typedef struct options {
    const char *port;       /* a device path; NULL: --replay, --demo, or pick a board */
    int baud;
    int dtr_off, rts_off;   /* --dtr off, --rts off (default: both asserted, as Linux opens a tty) */
    int lines_given;        /* --dtr or --rts was given */
    int list;
    const char *replay;
    double speed;           /* replay pacing: 1 as recorded, 0 as fast as possible */
    int speed_given;
    const char *write;
    const char *export_trace; /* --export-trace: the Chrome Trace Event JSON file */
    const char *log;        /* --log: the device's text lines with host times */
    const char *run;        /* --run: a program sent through the board's raw REPL */
    int no_enable;          /* --no-enable: --run sends the program without the prologue that enables aioprof */
    int no_reset;           /* --no-reset: --run sends the program without a soft reset first */
    int in_ram;             /* --in-ram: --run sends the python engine into the board's RAM first */
    int install, uninstall; /* --install, --uninstall: the profiler onto the board (or off it) */
    int force;
    int demo;
    const char *workload;   /* --demo: the simulator's workload */
    int text_every;         /* --demo --text N: the simulator prints a line every N slices (0 none; -1
                             * not given: OPTIONS_TEXT_DEMO) */
    view_kind_t view;
    double duration_s;      /* 0: until the end or Ctrl-C */
    sort_key_t sort;
    double slow_ms;
    double interval_s;      /* -d/--interval: the table's refresh period, or the period of --json-lines;
                             * 0 when not given (each then takes its default) */
    int instances;
    int no_reconnect;
    int verbose;
    /* --compare BASE [NEW], --budget FILE, --junit FILE (docs/usage.md) */
    const char *compare_base; /* a recording or capture to compare the session (or NEW) with */
    const char *compare_new;  /* --compare's second file: the two compared, no session */
    const char *budget;       /* the limits the session must keep (exit 3 when broken) */
    const char *junit;        /* the budget's result as JUnit XML */
    const char *metrics;      /* --metrics ADDR:PORT: the figures served in the OpenMetrics format */
    /* --capture-hogs DIR: a recording around every slice of at least --hog-ms (default --slow),
     * --hog-window seconds before and after, at most --hog-max of them */
    const char *capture_hogs;
    double hog_ms, hog_window_s;
    int hog_max;
} options_t;

typedef enum options_result {
    OPTIONS_RUN,       /* o is filled in: go */
    OPTIONS_DONE,      /* --help or --version was printed: exit 0 */
    OPTIONS_BAD,       /* a usage error was printed on stderr: exit 2 */
} options_result_t;

options_result_t options_parse(options_t *o, int argc, char **argv);

#endif
