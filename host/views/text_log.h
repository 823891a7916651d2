/* --log FILE: the device's text lines (its print() output) with the host time each arrived, one
 * line each, as tio's log with timestamps keeps a serial console:
 *
 *   [2026-01-31 14:03:07.123] sensor 3: temp=21.4 C        a live session: local wall time
 *   [+12.345] sensor 3: temp=21.4 C                        a replay: seconds into the recording
 *
 * The lines come escaped from the pipeline (no control character reaches the file). Written
 * through a buffer that goes out at least every TEXT_LOG_FLUSH_MS, so a killed session loses
 * little; a write error is said once and stops the log, not the session. */
#ifndef AIOPROF_TEXT_LOG_H
#define AIOPROF_TEXT_LOG_H

#include <stddef.h>
#include <stdint.h>

#define TEXT_LOG_FLUSH_MS 100u

typedef struct text_log text_log_t;
struct file_out_files;

/* Creates path as -w creates its file (file_out_create: an existing regular file only with force,
 * never one of the session's files, which may be NULL). relative: stamp lines with the session's
 * own time (a replay) instead of the wall clock. Returns NULL with one sentence in err. */
text_log_t *text_log_open(const char *path, int force, int relative, struct file_out_files *files, char *err,
    size_t errlen);

/* One line (escaped, without its newline) that arrived at host_us on the session's time line. */
void text_log_line(text_log_t *l, uint64_t host_us, const char *line);

/* Writes what waited long enough. Call it from the session's loop. */
void text_log_tick(text_log_t *l);

/* Lines written so far. */
uint64_t text_log_lines(const text_log_t *l);

/* Writes what is left and closes (a log this run made that nothing could be written to is
 * removed). Returns 0, or -1 when the log failed at any time (said already). NULL is accepted. */
int text_log_close(text_log_t *l);

/* The session never started: closes, and removes the file if this run created it. NULL is
 * accepted. */
void text_log_discard(text_log_t *l);

#endif
