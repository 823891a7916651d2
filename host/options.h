/* The command line of aioprof-top: what the user asked for, checked for consistency, nothing
 * opened yet. */
#ifndef AIOPROF_OPTIONS_H
#define AIOPROF_OPTIONS_H

#include "report.h"

/* Exit codes (docs/usage.md): 0 success, 1 a runtime failure, 2 a usage error. */
enum { EXIT_OK = 0, EXIT_FAILURE_RUNTIME = 1, EXIT_USAGE = 2 };

/* --speed: 0 (as fast as possible), or a pace in this range. */
#define OPTIONS_SPEED_MIN 0.001
#define OPTIONS_SPEED_MAX 1000.0

/* How the statistics are shown: the live table (the default), or a report at the end; or not at
 * all (VIEW_NONE: no view asked for, no terminal, and an output to make: main decides it). */
typedef enum view_kind { VIEW_LIVE, VIEW_REPORT, VIEW_JSON, VIEW_JSON_LINES, VIEW_NONE } view_kind_t;

typedef struct options {
    const char *port;       /* a device path; NULL: --replay, --demo, or pick a board */
    int baud;
    int list;
    const char *replay;
    double speed;           /* replay pacing: 1 as recorded, 0 as fast as possible */
    int speed_given;
    const char *write;
    const char *export_trace; /* --export-trace: the Chrome Trace Event JSON file */
    const char *log;        /* --log: the device's text lines with host times */
    const char *run;        /* --run: a program sent through the board's raw REPL */
    int force;
    int demo;
    const char *workload;   /* --demo: the simulator's workload */
    int text;               /* --demo --text: the simulator prints device text too */
    view_kind_t view;
    double duration_s;      /* 0: until the end or Ctrl-C */
    double interval_s;      /* --interval: 0 unless given (--json-lines then takes 1 s) */
    stats_sort_t sort;
    double slow_ms;
    int instances;
    int no_reconnect;
    int verbose;
} options_t;

typedef enum options_result {
    OPTIONS_RUN,       /* o is filled in: go */
    OPTIONS_DONE,      /* --help or --version was printed: exit 0 */
    OPTIONS_BAD,       /* a usage error was printed on stderr: exit 2 */
} options_result_t;

options_result_t options_parse(options_t *o, int argc, char **argv);

#endif
