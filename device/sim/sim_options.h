/* The simulator's command line, parsed by sim_options_parse() (sim_options.c). */
#ifndef SIM_OPTIONS_H
#define SIM_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "sim_clock.h"

/* Lateness in milliseconds, as MicroPython's asyncio knows it (its due times are ticks_ms values). */
#define SIM_LATE_UNIT_DEFAULT 1000u

typedef struct sim_options {
    const char *workload;
    unsigned tasks;        /* the busy workload's number of tasks; 0: its default */
    uint64_t duration_us;  /* 0: no limit (real clock), see sim_options_parse */
    uint64_t max_events;   /* 0: no limit */
    sim_clock_mode_t clock;
    uint64_t seed;
    const char *out_path;  /* NULL: stdout */
    int pty;
    const char *pty_link;
    unsigned tick_bits;
    uint32_t start_tick;
    const char *platform;  /* the HELLO's platform string; NULL: "aioprof-sim WORKLOAD" */
    unsigned clock_back;   /* every this many slices, the end is stamped SIM_CLOCK_BACK_US early; 0: never */
    uint32_t ring_bytes;
    uint32_t late_unit;    /* the port's late_unit (aioprof.h); 0: lateness not reported */
    unsigned text_every;   /* a print() line every this many slices; 0: none */
    int hostile_text;
    const char *truth_path;
    size_t write_chunk;    /* 0: no limit per write call */
    uint32_t baud;         /* 0: the port takes bytes as fast as the output does */
    uint64_t slow_us;
    int quiet;
    int repl;              /* --repl: a MicroPython board's REPL on the pty (sim_repl.c) */
    int repl_no_paste;     /* --repl-no-paste: one that predates raw paste */
} sim_options_t;

/* Fills o from argv. Returns 0 to run, 1 when --help or --version was printed (exit 0), 2 after printing one
 * sentence about a bad argument on stderr (exit 2). */
int sim_options_parse(sim_options_t *o, int argc, char **argv);

/* The value parsers, for the options a --repl program names in its first lines: seconds with up to
 * six decimals (> 0), and a whole number in [min, max]. Return 0, or -1 when it is not one. */
int sim_options_seconds(const char *s, uint64_t *us);
int sim_options_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

#endif
