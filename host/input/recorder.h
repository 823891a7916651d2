/* The recorder: taps the raw bytes right after the read, with their receive time, and the link
 * going away and coming back, into a recording (docs/recording.md) that --replay reads back.
 *
 * Crash-safe: chunks are written with write(2) no later than RECORDER_FLUSH_MS after they arrive,
 * as long as recorder_tick() is called that often, so a killed session replays up to its last
 * flush. A write error (a full disk) is reported once and stops the recording; the caller's view
 * goes on. */
#ifndef AIOPROF_RECORDER_H
#define AIOPROF_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#define RECORDER_FLUSH_MS 100u

typedef struct recorder recorder_t;
struct file_out_files;

/* Creates path (file_out_create: an existing regular file only with force, never one of the
 * session's files, which may be NULL) and writes the header with what is known at the start: the
 * source's name and baud rate. Returns NULL with one sentence in err. */
recorder_t *recorder_open(const char *path, int force, const char *source, int baud, struct file_out_files *files,
    char *err, size_t errlen);

void recorder_data(recorder_t *r, uint64_t host_us, const uint8_t *data, size_t len);
void recorder_link(recorder_t *r, int up, uint64_t host_us);

/* Writes what waited long enough. Call at least every RECORDER_FLUSH_MS. */
void recorder_tick(recorder_t *r);

/* The recording's size so far (header, chunks written and waiting); 0 for NULL. */
uint64_t recorder_bytes(const recorder_t *r);

/* Writes the end marker and closes. Returns 0, or -1 when the recording failed at any time (the
 * failure was already reported). NULL is accepted. */
int recorder_close(recorder_t *r, uint64_t host_us);

/* The session never started: closes, and removes the file if this run created it. NULL is
 * accepted. */
void recorder_discard(recorder_t *r);

#endif
