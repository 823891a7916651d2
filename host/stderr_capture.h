/* While the live table owns the terminal, whatever any part writes to stderr (a note about a cut
 * recording, a recorder's write error, the simulator's complaints) would draw over it: stderr goes
 * into a pipe instead, and its lines are handed to the table (its message). When the table gives
 * the terminal back, stderr is restored and the last line is said again where it can be read. */
#ifndef AIOPROF_STDERR_CAPTURE_H
#define AIOPROF_STDERR_CAPTURE_H

#include <stddef.h>

typedef struct stderr_capture {
    int pipe;           /* the read end; -1 when not capturing */
    int saved;          /* the real stderr */
    char line[512];     /* the line being read */
    size_t len;
    char last[512];     /* the last whole line */
} stderr_capture_t;

/* Starts capturing. Returns 0, or -1 (stderr is left as it was). */
int stderr_capture_start(stderr_capture_t *c);

/* Hands every whole line written since to line_cb (without its newline). Never blocks; nothing
 * when not capturing. */
void stderr_capture_drain(stderr_capture_t *c, void (*line_cb)(void *user, const char *line), void *user);

/* Restores stderr and says the last line (or the unfinished one) again there. Harmless when not
 * capturing. */
void stderr_capture_stop(stderr_capture_t *c);

#endif
