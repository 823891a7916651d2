/* While the live table owns the terminal, whatever any part writes to stderr (a note about a cut
 * recording, a recorder's write error, the simulator's complaints) would draw over it: stderr goes
 * into a pipe instead, and its lines become the table's message line. */
#ifndef AIOPROF_STDERR_CAPTURE_H
#define AIOPROF_STDERR_CAPTURE_H

#include <stddef.h>

#include "top_view.h"

typedef struct stderr_capture {
    int pipe;            /* the read end; -1 when not capturing */
    int saved;           /* the real stderr */
    char line[512];      /* the line being read */
    size_t len;
    char last[512];      /* the last whole line, said again when the capture ends */
} stderr_capture_t;

/* Not capturing yet (stderr_capture_stop is then harmless). */
void stderr_capture_init(stderr_capture_t *c);

/* Starts: stderr goes into the pipe. Returns 0, or -1 (stderr unchanged). */
int stderr_capture_start(stderr_capture_t *c);

/* The whole lines written since, each to v's message line in turn. */
void stderr_capture_drain(stderr_capture_t *c, top_view_t *v);

/* Gives stderr back, and says there what was said last (the line the table showed). */
void stderr_capture_stop(stderr_capture_t *c, top_view_t *v);

#endif
